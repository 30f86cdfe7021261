//! How MCP tools are named for rules: `mcp__SRV__TOOL`, as Claude Code
//! names them.

/// The rule name of `tool` on `server`.
pub fn qualified(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

/// A server name usable inside a rule name: characters other than ASCII
/// letters, digits, `_` and `-` become `_` (Claude Code does the same).
pub fn server_name(raw: &str) -> String {
    let s: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "server".into() } else { s }
}

/// `--name`'s default: the file name of the server's command.
pub fn default_server_name(command: &str) -> String {
    let file = std::path::Path::new(command)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| command.to_string());
    server_name(&file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(qualified("fs", "read_file"), "mcp__fs__read_file");
        assert_eq!(
            default_server_name("/usr/bin/mcp-server-git"),
            "mcp-server-git"
        );
        assert_eq!(server_name("my server.v2"), "my_server_v2");
    }
}
