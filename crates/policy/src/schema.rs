//! Input validation for declared tools: a checked subset of JSON Schema.
//!
//! A declared tool's `schema` is compiled at load time. Keywords outside the
//! supported subset are a load error rather than silently ignored, because a
//! constraint the user wrote but toolgate does not enforce would be a hole.
//! The subset (type, properties, required, additionalProperties, items,
//! enum, const, minLength, maxLength, minimum, maximum, minItems, maxItems,
//! plus the annotations title, description, default, examples) covers what
//! MCP servers publish for their tools; a full validator would add some 75
//! crates to the decision path.

use serde_json::{Map, Value};

use crate::validate::InputError;

/// Why a declared tool's schema cannot be compiled; each names the JSON
/// path of the keyword (`schema.properties.x.type`), which the loader
/// places in the policy file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// A schema that is neither an object nor `true`.
    #[error("`{0}` must be a schema object")]
    NotASchema(String),
    /// A `type` entry that is not a string.
    #[error("`{0}` must name a JSON type")]
    TypeNotNamed(String),
    /// A `type` that JSON does not have.
    #[error("`{at}`: unknown JSON type `{name}`")]
    UnknownType {
        /// The JSON path of the keyword.
        at: String,
        /// The name given.
        name: String,
    },
    /// `properties` that is not an object.
    #[error("`{0}` must be an object")]
    NotAnObject(String),
    /// `required` that is not a list of names.
    #[error("`{0}` must be an array of field names")]
    NotFieldNames(String),
    /// `enum` that is not an array.
    #[error("`{0}` must be an array")]
    NotAnArray(String),
    /// A length or count bound that is not a non-negative integer.
    #[error("`{0}` must be a non-negative integer")]
    NotUnsigned(String),
    /// A `minimum` or `maximum` that is not a number.
    #[error("`{0}` must be a number")]
    NotANumber(String),
    /// A keyword outside the subset: a constraint toolgate would not
    /// enforce is refused rather than ignored.
    #[error(
        "`{at}`: schema keyword `{keyword}` is not supported (supported: type, properties, required, additionalProperties, items, enum, const, minLength, maxLength, minimum, maximum, minItems, maxItems)"
    )]
    Unsupported {
        /// The JSON path of the object holding it.
        at: String,
        /// The keyword.
        keyword: String,
    },
}

/// A compiled schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    types: Option<Vec<JsonType>>,
    properties: Vec<(String, Schema)>,
    required: Vec<String>,
    additional: Additional,
    items: Option<Box<Schema>>,
    enumeration: Option<Vec<Value>>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    min_items: Option<u64>,
    max_items: Option<u64>,
}

#[derive(Debug, Clone, PartialEq)]
enum Additional {
    Any,
    None,
    Schema(Box<Schema>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsonType {
    String,
    Integer,
    Number,
    Boolean,
    Object,
    Array,
    Null,
}

impl JsonType {
    fn parse(s: &str) -> Option<JsonType> {
        Some(match s {
            "string" => JsonType::String,
            "integer" => JsonType::Integer,
            "number" => JsonType::Number,
            "boolean" => JsonType::Boolean,
            "object" => JsonType::Object,
            "array" => JsonType::Array,
            "null" => JsonType::Null,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            JsonType::String => "string",
            JsonType::Integer => "integer",
            JsonType::Number => "number",
            JsonType::Boolean => "boolean",
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::Null => "null",
        }
    }

    fn holds(self, v: &Value) -> bool {
        match self {
            JsonType::String => v.is_string(),
            JsonType::Integer => v.is_i64() || v.is_u64(),
            JsonType::Number => v.is_number(),
            JsonType::Boolean => v.is_boolean(),
            JsonType::Object => v.is_object(),
            JsonType::Array => v.is_array(),
            JsonType::Null => v.is_null(),
        }
    }
}

const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "$schema",
    "$id",
    "$comment",
];

impl Schema {
    /// Compiles a schema, naming the JSON path of the first unsupported or
    /// malformed keyword.
    pub fn compile(value: &Value) -> Result<Schema, SchemaError> {
        compile_at(value, "schema")
    }

    /// Checks a value, naming the first field that does not conform.
    pub fn validate(&self, value: &Value) -> Result<(), InputError> {
        self.check(value, "input")
    }

    fn check(&self, v: &Value, at: &str) -> Result<(), InputError> {
        if let Some(types) = &self.types
            && !types.iter().any(|t| t.holds(v))
        {
            let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
            return Err(InputError::WrongType {
                field: at.to_string(),
                expected: names.join(" or "),
                found: json_type_name(v),
            });
        }
        if let Some(options) = &self.enumeration
            && !options.contains(v)
        {
            return Err(InputError::NotAllowed(at.to_string()));
        }
        if let Value::String(s) = v {
            let n = s.chars().count() as u64;
            if self.min_length.is_some_and(|m| n < m) || self.max_length.is_some_and(|m| n > m) {
                return Err(InputError::Length(at.to_string()));
            }
        }
        if let Some(x) = v.as_f64()
            && (self.minimum.is_some_and(|m| x < m) || self.maximum.is_some_and(|m| x > m))
        {
            return Err(InputError::Range(at.to_string()));
        }
        if let Value::Array(items) = v {
            let n = items.len() as u64;
            if self.min_items.is_some_and(|m| n < m) || self.max_items.is_some_and(|m| n > m) {
                return Err(InputError::Items(at.to_string()));
            }
            if let Some(item) = &self.items {
                for (i, x) in items.iter().enumerate() {
                    item.check(x, &format!("{at}[{i}]"))?;
                }
            }
        }
        if let Value::Object(map) = v {
            for r in &self.required {
                if !map.contains_key(r) {
                    return Err(InputError::MissingIn {
                        at: at.to_string(),
                        field: r.clone(),
                    });
                }
            }
            for (k, x) in map {
                let path = format!("{at}.{k}");
                match self.properties.iter().find(|(name, _)| name == k) {
                    Some((_, s)) => s.check(x, &path)?,
                    None => match &self.additional {
                        Additional::Any => {}
                        Additional::None => {
                            return Err(InputError::UnknownIn {
                                at: at.to_string(),
                                field: k.clone(),
                            });
                        }
                        Additional::Schema(s) => s.check(x, &path)?,
                    },
                }
            }
        }
        Ok(())
    }
}

/// The JSON type of a value with its article ("a string", "null"), for
/// error messages about inputs.
pub fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn compile_at(value: &Value, at: &str) -> Result<Schema, SchemaError> {
    let obj: &Map<String, Value> = match value {
        Value::Object(o) => o,
        Value::Bool(true) => {
            return Ok(Schema::any());
        }
        _ => return Err(SchemaError::NotASchema(at.to_string())),
    };
    let mut s = Schema::any();
    for (k, v) in obj {
        let here = format!("{at}.{k}");
        match k.as_str() {
            "type" => {
                let list: Vec<&Value> = match v {
                    Value::Array(a) => a.iter().collect(),
                    other => vec![other],
                };
                let mut types = Vec::new();
                for t in list {
                    let name = t
                        .as_str()
                        .ok_or_else(|| SchemaError::TypeNotNamed(here.clone()))?;
                    types.push(
                        JsonType::parse(name).ok_or_else(|| SchemaError::UnknownType {
                            at: here.clone(),
                            name: name.to_string(),
                        })?,
                    );
                }
                s.types = Some(types);
            }
            "properties" => {
                let props = v
                    .as_object()
                    .ok_or_else(|| SchemaError::NotAnObject(here.clone()))?;
                for (name, sub) in props {
                    s.properties
                        .push((name.clone(), compile_at(sub, &format!("{here}.{name}"))?));
                }
            }
            "required" => {
                let list = v
                    .as_array()
                    .ok_or_else(|| SchemaError::NotFieldNames(here.clone()))?;
                for r in list {
                    s.required.push(
                        r.as_str()
                            .ok_or_else(|| SchemaError::NotFieldNames(here.clone()))?
                            .to_string(),
                    );
                }
            }
            "additionalProperties" => {
                s.additional = match v {
                    Value::Bool(true) => Additional::Any,
                    Value::Bool(false) => Additional::None,
                    other => Additional::Schema(Box::new(compile_at(other, &here)?)),
                }
            }
            "items" => s.items = Some(Box::new(compile_at(v, &here)?)),
            "enum" => {
                s.enumeration = Some(
                    v.as_array()
                        .ok_or_else(|| SchemaError::NotAnArray(here.clone()))?
                        .clone(),
                )
            }
            "const" => s.enumeration = Some(vec![v.clone()]),
            "minLength" => s.min_length = Some(unsigned(v, &here)?),
            "maxLength" => s.max_length = Some(unsigned(v, &here)?),
            "minItems" => s.min_items = Some(unsigned(v, &here)?),
            "maxItems" => s.max_items = Some(unsigned(v, &here)?),
            "minimum" => s.minimum = Some(number(v, &here)?),
            "maximum" => s.maximum = Some(number(v, &here)?),
            a if ANNOTATIONS.contains(&a) => {}
            other => {
                return Err(SchemaError::Unsupported {
                    at: at.to_string(),
                    keyword: other.to_string(),
                });
            }
        }
    }
    Ok(s)
}

fn unsigned(v: &Value, at: &str) -> Result<u64, SchemaError> {
    v.as_u64()
        .ok_or_else(|| SchemaError::NotUnsigned(at.to_string()))
}

fn number(v: &Value, at: &str) -> Result<f64, SchemaError> {
    v.as_f64()
        .ok_or_else(|| SchemaError::NotANumber(at.to_string()))
}

impl Schema {
    fn any() -> Schema {
        Schema {
            types: None,
            properties: Vec::new(),
            required: Vec::new(),
            additional: Additional::Any,
            items: None,
            enumeration: None,
            min_length: None,
            max_length: None,
            minimum: None,
            maximum: None,
            min_items: None,
            max_items: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn validates_the_design_example() {
        let s = Schema::compile(&json!({"type":"object","required":["sql"],"properties":{"sql":{"type":"string"}},"additionalProperties":false})).unwrap();
        assert!(s.validate(&json!({"sql":"select 1"})).is_ok());
        assert!(s.validate(&json!({})).is_err());
        assert!(s.validate(&json!({"sql":1})).is_err());
        assert!(s.validate(&json!({"sql":"x","approved":true})).is_err());
    }

    #[test]
    fn unsupported_keyword_is_a_load_error() {
        let e = Schema::compile(&json!({"type":"string","pattern":"^a"})).unwrap_err();
        assert!(e.to_string().contains("pattern"), "{e}");
    }
}
