//! Validation comes before permission: a call whose input does not fit its
//! tool is denied as invalid, whatever the rules say, so that a field such
//! as `"approved": true` can never pose as a permission.

use serde_json::{Map, Value};

use crate::catalog::{FieldType, Kind, Target, ToolSpec};
use crate::file::ToolDecl;

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
pub fn validate(spec: Spec<'_>, input: &Map<String, Value>) -> Result<(), String> {
    match spec {
        Spec::Unknown => Ok(()),
        Spec::Declared(d) => {
            if let Some(schema) = &d.schema {
                schema.validate(&Value::Object(input.clone()))?;
            }
            if let Some(field) = &d.field {
                match input.get(field) {
                    None if d.kind != Kind::Other => {
                        return Err(format!("missing the required field `{field}`"));
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
                        None => return Err(format!("missing the required field `{name}`")),
                        Some(v) => check_type(name, v, *ty)?,
                    }
                }
                for (k, v) in input {
                    if strict.required.iter().any(|(n, _)| n == k) {
                        continue;
                    }
                    match strict.optional.iter().find(|(n, _)| n == k) {
                        Some((n, ty)) => check_type(n, v, *ty)?,
                        None => return Err(format!("unknown field `{k}`")),
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

fn check_type(name: &str, v: &Value, ty: FieldType) -> Result<(), String> {
    match ty {
        FieldType::String => {
            if v.is_string() {
                Ok(())
            } else {
                Err(format!("`{name}` must be a string"))
            }
        }
        FieldType::Unsigned => {
            if v.is_u64() {
                Ok(())
            } else {
                Err(format!("`{name}` must be a non-negative integer"))
            }
        }
    }
}

fn non_empty_string<'v>(name: &str, v: &'v Value) -> Result<&'v str, String> {
    match v {
        Value::String(s) if s.is_empty() => Err(format!("`{name}` is empty")),
        Value::String(s) => Ok(s),
        _ => Err(format!("`{name}` must be a string")),
    }
}

fn string_array(name: &str, v: &Value) -> Result<(), String> {
    let items = v
        .as_array()
        .ok_or_else(|| format!("`{name}` must be an array of strings"))?;
    if items.is_empty() {
        return Err(format!("`{name}` is empty"));
    }
    for i in items {
        non_empty_string(name, i)
            .map_err(|_| format!("`{name}` must be an array of non-empty strings"))?;
    }
    Ok(())
}

fn check_target_value(field: &str, v: &Value, kind: Kind) -> Result<(), String> {
    match kind {
        Kind::Other => Ok(()),
        _ => non_empty_string(field, v).map(|_| ()),
    }
}

fn check_catalog_target(s: &ToolSpec, input: &Map<String, Value>) -> Result<(), String> {
    match s.target {
        Target::Path(fields) | Target::Patch(fields) => {
            if !fields
                .iter()
                .any(|f| input.get(*f).is_some_and(|v| !v.is_null()))
            {
                return Err(format!(
                    "missing the required field `{}`",
                    fields.join("` or `")
                ));
            }
            // Every field given is read by some client: each must be a path.
            for f in fields {
                if let Some(v) = input.get(*f).filter(|v| !v.is_null()) {
                    non_empty_string(f, v)?;
                }
            }
            Ok(())
        }
        Target::OptionalPath(fields) => {
            for f in fields {
                if let Some(v) = input.get(*f)
                    && !v.is_null()
                {
                    non_empty_string(f, v)?;
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
                return Err(format!(
                    "missing the required field `{}`",
                    fields.join("` or `")
                ));
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
                    non_empty_string(f, v)?;
                }
            }
            match input.get(pattern) {
                None => Err(format!("missing the required field `{pattern}`")),
                Some(v) => non_empty_string(pattern, v).map(|_| ()),
            }
        }
        Target::Argv(f) => match input.get(f) {
            None => Err(format!("missing the required field `{f}`")),
            Some(v) => string_array(f, v),
        },
        Target::Command(f) | Target::Url(f) | Target::UrlsIn(f) | Target::Field(f) => {
            match input.get(f) {
                None => Err(format!("missing the required field `{f}`")),
                Some(v) => {
                    let s = non_empty_string(f, v)?;
                    if matches!(s.trim(), "") {
                        Err(format!("`{f}` is blank"))
                    } else {
                        Ok(())
                    }
                }
            }
        }
        Target::None => Ok(()),
    }
}
