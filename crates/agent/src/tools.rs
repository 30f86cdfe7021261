//! The tools the loop offers a model: toolgate's own five, with JSON
//! schemas that say exactly what the policy's strict catalog accepts
//! (required fields, their types, no other field), so that a model that
//! follows its schema is never refused for the shape of its input.

use serde_json::{Value, json};

use crate::model::ToolDef;

/// The names of toolgate's own tools, in the order they are offered.
pub const TOOL_NAMES: [&str; 5] = [
    "read_file",
    "write_file",
    "list_dir",
    "run_shell",
    "fetch_url",
];

/// toolgate's own tools as offered to a model.
pub fn builtin_tools() -> Vec<ToolDef> {
    vec![
        def(
            "read_file",
            "Read a text file inside the workspace. Paths are relative to the workspace root.",
            &[("path", string("The file to read."))],
            &[],
        ),
        def(
            "write_file",
            "Create or overwrite a file inside the workspace with the given content.",
            &[
                ("path", string("The file to write.")),
                ("content", string("The complete new content of the file.")),
            ],
            &[],
        ),
        def(
            "list_dir",
            "List the entries of a directory inside the workspace.",
            &[(
                "path",
                string("The directory to list; \".\" is the workspace root."),
            )],
            &[],
        ),
        def(
            "run_shell",
            "Run a bash command in the workspace root, in a sandbox: writes only inside the workspace, no network unless allowed. Returns its output and exit status.",
            &[("command", string("The command line, run with bash -c."))],
            &[(
                "timeout_secs",
                json!({
                    "type": "integer",
                    "minimum": 0,
                    "description": "Stop the command after this many seconds."
                }),
            )],
        ),
        def(
            "fetch_url",
            "Fetch a URL with an HTTP GET and return the status and body. Redirects are not followed.",
            &[("url", string("An http or https URL."))],
            &[],
        ),
    ]
}

fn string(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

fn def(
    name: &str,
    description: &str,
    required: &[(&str, Value)],
    optional: &[(&str, Value)],
) -> ToolDef {
    let mut properties = serde_json::Map::new();
    for (field, schema) in required.iter().chain(optional) {
        properties.insert((*field).to_string(), schema.clone());
    }
    let required: Vec<&str> = required.iter().map(|(f, _)| *f).collect();
    ToolDef {
        name: name.to_string(),
        description: description.to_string(),
        schema: json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        }),
    }
}
