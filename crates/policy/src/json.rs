//! Strict JSON: a document in which an object repeats a key is refused.
//!
//! JSON parsers disagree on a repeated key: `serde_json` (and so toolgate)
//! keeps the last value when it builds a map and refuses the document when it
//! fills a struct, Python's and JavaScript's parsers keep the last one, some
//! keep the first. A gate that reads one value while the program that acts
//! reads another decides on a call that never runs, so every document that
//! comes in from outside (hook payloads, `toolgate check`, MCP messages, the
//! approval API) is read here first, and one with a repeated key at any level
//! is an error, never a guess.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Why a document was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrictJsonError {
    /// Not JSON at all, or JSON with text after it.
    #[error("not JSON: {0}")]
    Syntax(String),
    /// An object names the same key twice; `path` is where the object is.
    #[error(
        "the object at {path} repeats the key {key:?}: a repeated key can mean one thing to toolgate and another to the program that acts, so the document is refused"
    )]
    RepeatedKey {
        /// A JSON pointer to the object (`/` for the top level).
        path: String,
        /// The repeated key.
        key: String,
    },
}

/// Parses `text` as JSON, refusing a repeated key at any level.
pub fn parse(text: &str) -> Result<Value, StrictJsonError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut state = State::default();
    let value = Build { state: &mut state }
        .deserialize(&mut de)
        .map_err(|e| state.error(e))?;
    de.end()
        .map_err(|e| StrictJsonError::Syntax(e.to_string()))?;
    Ok(value)
}

/// Checks that `bytes` are one JSON document with no repeated key at any
/// level, without building it (the MCP gateway checks every line this way).
pub fn check(bytes: &[u8]) -> Result<(), StrictJsonError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let mut state = State::default();
    Check { state: &mut state }
        .deserialize(&mut de)
        .map_err(|e| state.error(e))?;
    de.end()
        .map_err(|e| StrictJsonError::Syntax(e.to_string()))?;
    Ok(())
}

/// Where the walk is, and the repeated key once one is found (kept apart
/// from serde's error, which carries only text).
#[derive(Default)]
struct State {
    path: Vec<String>,
    repeated: Option<(String, String)>,
}

impl State {
    fn error(&mut self, e: serde_json::Error) -> StrictJsonError {
        match self.repeated.take() {
            Some((path, key)) => StrictJsonError::RepeatedKey { path, key },
            None => StrictJsonError::Syntax(e.to_string()),
        }
    }

    fn pointer(&self) -> String {
        if self.path.is_empty() {
            return "/".to_string();
        }
        let mut out = String::new();
        for p in &self.path {
            out.push('/');
            out.push_str(&p.replace('~', "~0").replace('/', "~1"));
        }
        out
    }

    fn repeated<E: de::Error>(&mut self, key: &str) -> E {
        self.repeated = Some((self.pointer(), key.to_string()));
        E::custom("repeated key")
    }
}

/// Keys seen in one object: a short list scanned in order, a set once the
/// object is large.
#[derive(Default)]
struct Seen<'k> {
    few: Vec<Cow<'k, str>>,
    many: Option<HashSet<Cow<'k, str>>>,
}

impl<'k> Seen<'k> {
    /// Adds `key`; false when it was there already.
    fn insert(&mut self, key: Cow<'k, str>) -> bool {
        if let Some(set) = &mut self.many {
            return set.insert(key);
        }
        if self.few.contains(&key) {
            return false;
        }
        self.few.push(key);
        if self.few.len() > 16 {
            self.many = Some(self.few.drain(..).collect());
        }
        true
    }
}

/// A key, borrowed from the input where it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// Builds a [`Value`] as serde_json does, refusing repeated keys.
struct Build<'s> {
    state: &'s mut State,
}

impl<'de> DeserializeSeed<'de> for Build<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Build<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            self.state.path.push(out.len().to_string());
            let next = seq.next_element_seed(Build { state: self.state })?;
            self.state.path.pop();
            match next {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(Key(key)) = map.next_key::<Key>()? {
            if out.contains_key(key.as_ref()) {
                return Err(self.state.repeated(&key));
            }
            self.state.path.push(key.to_string());
            let value = map.next_value_seed(Build { state: self.state })?;
            self.state.path.pop();
            out.insert(key.into_owned(), value);
        }
        Ok(Value::Object(out))
    }
}

/// Walks a document without building it, refusing repeated keys.
struct Check<'s> {
    state: &'s mut State,
}

impl<'de> DeserializeSeed<'de> for Check<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Check<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        loop {
            self.state.path.push(i.to_string());
            let next = seq.next_element_seed(Check { state: self.state })?;
            self.state.path.pop();
            if next.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = Seen::default();
        while let Some(Key(key)) = map.next_key::<Key>()? {
            if !seen.insert(key.clone()) {
                return Err(self.state.repeated(&key));
            }
            self.state.path.push(key.into_owned());
            let r = map.next_value_seed(Check { state: self.state });
            self.state.path.pop();
            r?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_keys_are_refused_at_any_level() {
        for (doc, path, key) in [
            (r#"{"a":1,"a":2}"#, "/", "a"),
            (r#"{"p":{"name":"x","name":"y"}}"#, "/p", "name"),
            (r#"[0,{"k":[{"z":1,"z":1}]}]"#, "/1/k/0", "z"),
            // The same key spelt with an escape is the same key.
            (r#"{"name":1,"na\u006de":2}"#, "/", "name"),
            (r#"{"a/b~":{"q":1,"q":2}}"#, "/a~1b~0", "q"),
        ] {
            let want = StrictJsonError::RepeatedKey {
                path: path.into(),
                key: key.into(),
            };
            assert_eq!(parse(doc), Err(want.clone()), "{doc}");
            assert_eq!(check(doc.as_bytes()), Err(want), "{doc}");
        }
    }

    #[test]
    fn many_keys_use_the_set_and_still_find_a_repeat() {
        let mut doc = String::from("{");
        for i in 0..40 {
            doc.push_str(&format!("\"k{i}\":{i},"));
        }
        doc.push_str("\"k3\":0}");
        assert!(matches!(
            check(doc.as_bytes()),
            Err(StrictJsonError::RepeatedKey { .. })
        ));
        assert!(matches!(
            parse(&doc),
            Err(StrictJsonError::RepeatedKey { .. })
        ));
    }

    #[test]
    fn documents_without_repeats_read_as_serde_json_reads_them() {
        for doc in [
            r#"{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}"#,
            r#"[1, -2, 3.5, 5e-72, 18446744073709551615, "s\n", null, true]"#,
            r#""text""#,
            "{}",
        ] {
            let want: Value = serde_json::from_str(doc).unwrap();
            assert_eq!(parse(doc).unwrap(), want, "{doc}");
            assert_eq!(check(doc.as_bytes()), Ok(()), "{doc}");
        }
    }

    #[test]
    fn syntax_errors_and_trailing_text_are_errors() {
        for doc in ["", "{", r#"{"a":1} x"#, "[1,]", "{\"a\":1}{\"a\":1}"] {
            assert!(
                matches!(parse(doc), Err(StrictJsonError::Syntax(_))),
                "{doc}"
            );
            assert!(
                matches!(check(doc.as_bytes()), Err(StrictJsonError::Syntax(_))),
                "{doc}"
            );
        }
    }
}
