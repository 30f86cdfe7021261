//! The offline model: it replays a script of assistant turns.
//!
//! A script is TOML. Each `[[turn]]` is one assistant turn, returned in
//! order whatever the tool results were; a turn without calls is a final
//! answer and ends the run.
//!
//! ```toml
//! [[turn]]
//! text = "Let me read the readme first."      # optional
//! [[turn.call]]
//! name = "read_file"
//! arguments = { path = "readme.txt" }         # a table: a JSON object
//!
//! [[turn]]
//! [[turn.call]]
//! id = "bad-1"                                # optional; default call_<n>
//! name = "write_file"
//! arguments = '{"path": "notes.txt", '        # a string: sent as is,
//!                                             # here malformed JSON
//! [[turn]]
//! text = "Done: the readme says hello."       # no calls: the final answer
//! ```
//!
//! A string `arguments` is what an OpenAI-style model sends on the wire, so
//! a script can reproduce a model that emits arguments that do not parse.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::model::{Arguments, Conversation, Model, ModelError, ToolCall, ToolDef, Turn};

/// A script that cannot be used; the CLI exits 2 with this message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct ScriptError {
    origin: String,
    message: String,
}

impl ScriptError {
    fn new(origin: &str, message: impl Into<String>) -> ScriptError {
        ScriptError {
            origin: origin.to_string(),
            message: message.into(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    #[serde(default)]
    turn: Vec<TurnFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnFile {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    call: Vec<CallFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CallFile {
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default)]
    arguments: Option<toml::Value>,
}

/// A parsed script: the assistant turns to replay.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    turns: Vec<Turn>,
}

impl Script {
    /// Parses a script; `origin` names it in errors (a file name).
    pub fn parse(text: &str, origin: &str) -> Result<Script, ScriptError> {
        let file: ScriptFile =
            toml::from_str(text).map_err(|e| ScriptError::new(origin, e.to_string()))?;
        if file.turn.is_empty() {
            return Err(ScriptError::new(origin, "the script has no [[turn]]"));
        }
        let mut turns = Vec::with_capacity(file.turn.len());
        let mut n = 0usize;
        for (t, turn) in file.turn.into_iter().enumerate() {
            let mut calls = Vec::with_capacity(turn.call.len());
            for call in turn.call {
                n += 1;
                let arguments = match call.arguments {
                    None => Arguments::Object(serde_json::Map::new()),
                    Some(toml::Value::String(s)) => Arguments::Raw(s),
                    Some(v @ toml::Value::Table(_)) => match serde_json::to_value(v) {
                        Ok(Value::Object(m)) => Arguments::Object(m),
                        _ => {
                            return Err(ScriptError::new(
                                origin,
                                format!(
                                    "turn {}: call `{}`: arguments cannot be turned into JSON",
                                    t + 1,
                                    call.name
                                ),
                            ));
                        }
                    },
                    Some(_) => {
                        return Err(ScriptError::new(
                            origin,
                            format!(
                                "turn {}: call `{}`: `arguments` must be a table (a JSON object) or a string (sent as is)",
                                t + 1,
                                call.name
                            ),
                        ));
                    }
                };
                if call.name.is_empty() {
                    return Err(ScriptError::new(
                        origin,
                        format!("turn {}: a call has an empty `name`", t + 1),
                    ));
                }
                calls.push(ToolCall {
                    id: call.id.unwrap_or_else(|| format!("call_{n}")),
                    name: call.name,
                    arguments,
                });
            }
            turns.push(Turn {
                text: turn.text.unwrap_or_default(),
                calls,
            });
        }
        Ok(Script { turns })
    }

    /// Reads and parses a script file.
    pub fn load(path: &Path) -> Result<Script, ScriptError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| ScriptError::new(&origin, format!("cannot read the script: {e}")))?;
        Script::parse(&text, &origin)
    }

    /// The turns, in order.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }
}

/// The offline model: returns the script's turns one after the other.
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    script: Script,
    next: usize,
}

impl ScriptedModel {
    /// A model that replays `script` from its first turn.
    pub fn new(script: Script) -> ScriptedModel {
        ScriptedModel { script, next: 0 }
    }
}

impl Model for ScriptedModel {
    fn respond(&mut self, _: &Conversation, _: &[ToolDef]) -> Result<Turn, ModelError> {
        let turn = self
            .script
            .turns
            .get(self.next)
            .cloned()
            .ok_or(ModelError::ScriptEnded {
                turn: self.next + 1,
            })?;
        self.next += 1;
        Ok(turn)
    }
}

/// The script `toolgate agent` replays when no `--script` is given: the
/// demo's three requests (read the readme, read the secrets, write the
/// notes) and a final answer.
pub const DEFAULT_SCRIPT: &str = include_str!("../scripts/lessons.toml");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_objects_strings_are_raw_and_ids_are_numbered() {
        let s = Script::parse(
            r#"
[[turn]]
text = "hi"
[[turn.call]]
name = "read_file"
arguments = { path = "a.txt" }
[[turn.call]]
id = "mine"
name = "write_file"
arguments = '{"path": '

[[turn]]
[[turn.call]]
name = "list_dir"

[[turn]]
text = "end"
"#,
            "t",
        )
        .unwrap();
        let t = s.turns();
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].text, "hi");
        assert_eq!(t[0].calls[0].id, "call_1");
        assert_eq!(
            t[0].calls[0].arguments.to_json_string(),
            r#"{"path":"a.txt"}"#
        );
        assert_eq!(t[0].calls[1].id, "mine");
        assert_eq!(
            t[0].calls[1].arguments,
            Arguments::Raw("{\"path\": ".into())
        );
        assert_eq!(t[1].calls[0].id, "call_3");
        assert!(t[1].calls[0].arguments.parse().unwrap().is_empty());
        assert!(t[2].calls.is_empty());
    }

    #[test]
    fn mistakes_are_reported_with_the_origin() {
        for (text, needle) in [
            ("", "no [[turn]]"),
            ("[[turn]]\ntxt = \"typo\"\n", "txt"),
            (
                "[[turn]]\n[[turn.call]]\nname = \"x\"\narguments = 3\n",
                "must be a table",
            ),
            ("[[turn]]\n[[turn.call]]\narguments = {}\n", "name"),
        ] {
            let e = Script::parse(text, "my.toml").unwrap_err().to_string();
            assert!(e.starts_with("my.toml: "), "{e}");
            assert!(e.contains(needle), "{needle}: {e}");
        }
    }

    #[test]
    fn the_model_replays_turns_then_reports_the_end() {
        let mut m = ScriptedModel::new(Script::parse("[[turn]]\ntext = \"a\"\n", "t").unwrap());
        let c = Conversation::default();
        assert_eq!(m.respond(&c, &[]).unwrap().text, "a");
        assert_eq!(
            m.respond(&c, &[]).unwrap_err(),
            ModelError::ScriptEnded { turn: 2 }
        );
    }

    #[test]
    fn the_built_in_script_parses() {
        let s = Script::parse(DEFAULT_SCRIPT, "built-in").unwrap();
        assert_eq!(s.turns().len(), 4);
        assert!(s.turns()[3].calls.is_empty());
    }

    #[test]
    fn raw_arguments_that_are_not_objects_are_refused() {
        let e = Arguments::Raw("[1]".into()).parse().unwrap_err();
        assert_eq!(
            e.to_string(),
            "arguments are not a JSON object (got an array)"
        );
        let e = Arguments::Raw("{\"a\":".into()).parse().unwrap_err();
        assert!(
            e.to_string().starts_with("arguments are not valid JSON: "),
            "{e}"
        );
    }
}
