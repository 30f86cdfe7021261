//! Validation comes before permission: a call whose input does not fit its
//! tool is denied as invalid, whatever the rules say, so that a field such
//! as `"approved": true` can never pose as a permission.

use serde_json::{Map, Value};

use crate::catalog::{FieldType, Kind, Target, ToolSpec};
use crate::file::ToolDecl;

/// Why a call's input does not fit its tool; the call is denied as invalid
/// with this as the reason. A field is named as the input has it
/// (`input.path`, `command`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// A value of another JSON type than the schema allows.
    #[error("`{field}` must be {expected}, not {found}")]
    WrongType {
        /// The field.
        field: String,
        /// The types allowed, joined with "or".
        expected: String,
        /// The type found, with its article.
        found: &'static str,
    },
    /// A value outside the schema's `enum` or `const`.
    #[error("`{0}` is not one of the allowed values")]
    NotAllowed(String),
    /// A string outside `minLength`..`maxLength`.
    #[error("`{0}` has a length outside the allowed range")]
    Length(String),
    /// A number outside `minimum`..`maximum`.
    #[error("`{0}` is outside the allowed range")]
    Range(String),
    /// An array outside `minItems`..`maxItems`.
    #[error("`{0}` has a number of items outside the allowed range")]
    Items(String),
    /// An object without a field its schema requires.
    #[error("`{at}` is missing the required field `{field}`")]
    MissingIn {
        /// The object.
        at: String,
        /// The field.
        field: String,
    },
    /// An object with a field its schema does not allow.
    #[error("`{at}` has an unknown field `{field}`")]
    UnknownIn {
        /// The object.
        at: String,
        /// The field.
        field: String,
    },
    /// The input lacks a field the tool needs (several names are joined
    /// with "` or `" when any one will do).
    #[error("missing the required field `{0}`")]
    Missing(String),
    /// A field the tool does not take.
    #[error("unknown field `{0}`")]
    Unknown(String),
    /// A field that must be a string.
    #[error("`{0}` must be a string")]
    NotAString(String),
    /// A field that must be a non-negative integer.
    #[error("`{0}` must be a non-negative integer")]
    NotUnsigned(String),
    /// An empty string or list where the tool needs something.
    #[error("`{0}` is empty")]
    Empty(String),
    /// A field that must be a list of strings.
    #[error("`{0}` must be an array of strings")]
    NotStrings(String),
    /// A list of strings with an empty or non-string entry.
    #[error("`{0}` must be an array of non-empty strings")]
    NotNonEmptyStrings(String),
    /// A command or URL of nothing but spaces.
    #[error("`{0}` is blank")]
    Blank(String),
}

/// Where a call's tool was found.
#[derive(Debug, Clone, Copy)]
pub enum Spec<'a> {
    /// In its client's built-in catalog.
    Catalog(&'static ToolSpec),
    /// Declared with `[tool.NAME]`.
    Declared(&'a ToolDecl),
    /// Nowhere: kind `other`, matched by name only.
    Unknown,
}

impl Spec<'_> {
    /// The tool's kind.
    pub fn kind(&self) -> Kind {
        match self {
            Spec::Catalog(s) => s.kind,
            Spec::Declared(d) => d.kind,
            Spec::Unknown => Kind::Other,
        }
    }
}

/// Checks a call's input against its tool.
pub fn validate(spec: Spec<'_>, input: &Map<String, Value>) -> Result<(), InputError> {
    match spec {
        Spec::Unknown => Ok(()),
        Spec::Declared(d) => {
            if let Some(schema) = &d.schema {
                schema.validate(&Value::Object(input.clone()))?;
            }
            if let Some(field) = &d.field {
                match input.get(field) {
                    None if d.kind != Kind::Other => {
                        return Err(InputError::Missing(field.to_string()));
                    }
                    None => {}
                    Some(v) => check_target_value(field, v, d.kind)?,
                }
            }
            Ok(())
        }
        Spec::Catalog(s) => {
            if let Some(strict) = &s.strict {
                for (name, ty) in strict.required {
                    match input.get(*name) {
                        None => return Err(InputError::Missing(name.to_string())),
                        Some(v) => check_type(name, v, *ty)?,
                    }
                }
                for (k, v) in input {
                    if strict.required.iter().any(|(n, _)| n == k) {
                        continue;
                    }
                    match strict.optional.iter().find(|(n, _)| n == k) {
                        Some((n, ty)) => check_type(n, v, *ty)?,
                        None => return Err(InputError::Unknown(k.clone())),
                    }
                }
            }
            check_catalog_target(s, input)?;
            if let Some(fields) = s.cwd_field {
                for f in fields {
                    if let Some(v) = input.get(*f)
                        && !v.is_null()
                    {
                        non_empty_string(f, v)?;
                    }
                }
            }
            Ok(())
        }
    }
}

fn check_type(name: &str, v: &Value, ty: FieldType) -> Result<(), InputError> {
    match ty {
        FieldType::String => {
            if v.is_string() {
                Ok(())
            } else {
                Err(InputError::NotAString(name.to_string()))
            }
        }
        FieldType::Unsigned => {
            if v.is_u64() {
                Ok(())
            } else {
                Err(InputError::NotUnsigned(name.to_string()))
            }
        }
    }
}

fn non_empty_string<'v>(name: &str, v: &'v Value) -> Result<&'v str, InputError> {
    match v {
        Value::String(s) if s.is_empty() => Err(InputError::Empty(name.to_string())),
        Value::String(s) => Ok(s),
        _ => Err(InputError::NotAString(name.to_string())),
    }
}

/// A path, or a non-empty list of them (each decided).
fn path_or_paths(name: &str, v: &Value) -> Result<(), InputError> {
    match v {
        Value::Array(_) => string_array(name, v),
        _ => non_empty_string(name, v).map(|_| ()),
    }
}

fn string_array(name: &str, v: &Value) -> Result<(), InputError> {
    let items = v
        .as_array()
        .ok_or_else(|| InputError::NotStrings(name.to_string()))?;
    if items.is_empty() {
        return Err(InputError::Empty(name.to_string()));
    }
    for i in items {
        non_empty_string(name, i).map_err(|_| InputError::NotNonEmptyStrings(name.to_string()))?;
    }
    Ok(())
}

/// A declared tool's target: a non-empty string, or for reads, writes and
/// fetches a non-empty list of them (a tool that takes several files, as
/// the filesystem server's `read_multiple_files` does), each a target.
fn check_target_value(field: &str, v: &Value, kind: Kind) -> Result<(), InputError> {
    match (kind, v) {
        (Kind::Other, _) => Ok(()),
        (Kind::Read | Kind::Write | Kind::Fetch, Value::Array(_)) => string_array(field, v),
        _ => non_empty_string(field, v).map(|_| ()),
    }
}

fn check_catalog_target(s: &ToolSpec, input: &Map<String, Value>) -> Result<(), InputError> {
    match s.target {
        Target::Path(fields) | Target::Patch(fields) => {
            if !fields
                .iter()
                .any(|f| input.get(*f).is_some_and(|v| !v.is_null()))
            {
                return Err(InputError::Missing(fields.join("` or `")));
            }
            // Every field given is read by some client: each must be a path
            // (or a list of them, as Copilot CLI's `paths`).
            for f in fields {
                if let Some(v) = input.get(*f).filter(|v| !v.is_null()) {
                    path_or_paths(f, v)?;
                }
            }
            Ok(())
        }
        Target::OptionalPath(fields) => {
            for f in fields {
                if let Some(v) = input.get(*f)
                    && !v.is_null()
                {
                    path_or_paths(f, v)?;
                }
            }
            Ok(())
        }
        Target::Paths(fields) => {
            // A client reads one of the fields (Gemini CLI `include`, Qwen
            // Code `paths`); every one given is decided.
            if !fields
                .iter()
                .any(|f| input.get(*f).is_some_and(|v| !v.is_null()))
            {
                return Err(InputError::Missing(fields.join("` or `")));
            }
            for f in fields {
                if let Some(v) = input.get(*f).filter(|v| !v.is_null()) {
                    string_array(f, v)?;
                }
            }
            Ok(())
        }
        Target::Glob { dir, pattern } => {
            for f in dir {
                if let Some(v) = input.get(*f).filter(|v| !v.is_null()) {
                    path_or_paths(f, v)?;
                }
            }
            match input.get(pattern) {
                None => Err(InputError::Missing(pattern.to_string())),
                Some(v) => non_empty_string(pattern, v).map(|_| ()),
            }
        }
        Target::Argv(f) => match input.get(f) {
            None => Err(InputError::Missing(f.to_string())),
            Some(v) => string_array(f, v),
        },
        Target::Command(f) | Target::Url(f) | Target::UrlsIn(f) | Target::Field(f) => {
            match input.get(f) {
                None => Err(InputError::Missing(f.to_string())),
                Some(v) => {
                    let s = non_empty_string(f, v)?;
                    if matches!(s.trim(), "") {
                        Err(InputError::Blank(f.to_string()))
                    } else {
                        Ok(())
                    }
                }
            }
        }
        Target::None => Ok(()),
    }
}
