//! Field extraction shared by both clients' input parsers.
//!
//! Written by hand rather than with `#[derive(Deserialize)]` so that each
//! problem names the field and the type found, which is what a user reading a
//! hook failure in their client's log needs.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::InputError;

/// Parses `text` and checks that it is a JSON object.
pub(crate) fn object(text: &str) -> Result<Map<String, Value>, InputError> {
    let value = toolgate_policy::json::parse(text).map_err(|e| match e {
        toolgate_policy::json::StrictJsonError::Syntax(_) => {
            match serde_json::from_str::<Value>(text) {
                Err(e) => InputError::Json(e),
                Ok(_) => InputError::Ambiguous(e),
            }
        }
        repeated => InputError::Ambiguous(repeated),
    })?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(InputError::NotAnObject {
            found: type_name(&other),
        }),
    }
}

/// A required, non-empty string field.
pub(crate) fn string(map: &Map<String, Value>, field: &'static str) -> Result<String, InputError> {
    match map.get(field) {
        None | Some(Value::Null) => Err(InputError::Missing { field }),
        Some(Value::String(s)) if s.is_empty() => Err(InputError::Empty { field }),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(InputError::WrongType {
            field,
            expected: "a string",
            found: type_name(other),
        }),
    }
}

/// A required object field.
pub(crate) fn object_field(
    map: &Map<String, Value>,
    field: &'static str,
) -> Result<Map<String, Value>, InputError> {
    match map.get(field) {
        None | Some(Value::Null) => Err(InputError::Missing { field }),
        Some(Value::Object(inner)) => Ok(inner.clone()),
        Some(other) => Err(InputError::WrongType {
            field,
            expected: "an object",
            found: type_name(other),
        }),
    }
}

/// The required `cwd` field, which must be absolute.
pub(crate) fn cwd(map: &Map<String, Value>) -> Result<PathBuf, InputError> {
    let cwd = string(map, "cwd")?;
    let path = PathBuf::from(&cwd);
    if path.is_absolute() {
        Ok(path)
    } else {
        Err(InputError::RelativeCwd { found: cwd })
    }
}

/// The required `hook_event_name` field, which must be `expected`.
pub(crate) fn event(map: &Map<String, Value>, expected: &'static str) -> Result<(), InputError> {
    let found = string(map, "hook_event_name")?;
    if found == expected {
        Ok(())
    } else {
        Err(InputError::WrongEvent { expected, found })
    }
}

/// An optional field naming a directory, which must then be an absolute
/// path: the project policy is found from it. Absent, `null` or empty:
/// `None`.
pub(crate) fn optional_absolute(
    map: &Map<String, Value>,
    field: &'static str,
) -> Result<Option<PathBuf>, InputError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) if Path::new(s).is_absolute() => Ok(Some(PathBuf::from(s))),
        Some(Value::String(_)) => Err(InputError::WrongType {
            field,
            expected: "an absolute path",
            found: "a relative path",
        }),
        Some(other) => Err(InputError::WrongType {
            field,
            expected: "a string",
            found: type_name(other),
        }),
    }
}

/// An optional string field; a value of another type counts as absent,
/// because nothing is decided on these fields.
pub(crate) fn optional_string(map: &Map<String, Value>, field: &str) -> Option<String> {
    map.get(field).and_then(Value::as_str).map(str::to_owned)
}

pub(crate) use toolgate_policy::json_type_name as type_name;
