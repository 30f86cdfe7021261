//! The built-in tool catalog: which kind of action each known
//! tool performs, and which input field names its target.
//!
//! Tools are looked up in the catalog of the call's client, because the same
//! name means different things to different agents (Gemini's `read_file`
//! takes `absolute_path`, toolgate's own takes `path`).

use crate::call::Client;

/// What a tool does, as far as the rules are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Reads files or lists directories: `Read` rules.
    Read,
    /// Creates or changes files: `Edit`/`Write` rules.
    Write,
    /// Runs a shell command: `Bash` rules, after shell analysis.
    Exec,
    /// Fetches a URL: `WebFetch` rules.
    Fetch,
    /// Anything else: matched by tool name only.
    Other,
}

impl Kind {
    /// The name used in `[tool.X] kind = ".."`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Exec => "exec",
            Kind::Fetch => "fetch",
            Kind::Other => "other",
        }
    }

    /// Parses `read | write | exec | fetch | other`.
    pub fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "read" => Kind::Read,
            "write" => Kind::Write,
            "exec" => Kind::Exec,
            "fetch" => Kind::Fetch,
            "other" => Kind::Other,
            _ => return None,
        })
    }
}

/// How a tool's target is found in its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A path in the first of these fields that is present.
    Path(&'static [&'static str]),
    /// A path that may be absent (then the working directory is meant).
    OptionalPath(&'static [&'static str]),
    /// Arrays of paths (which may be glob patterns), in each of these
    /// fields that is present; at least one is required.
    Paths(&'static [&'static str]),
    /// A glob `pattern` matched beneath a directory: the first of `dir` is
    /// the field the client reads, the working directory when it is absent;
    /// every other field given is decided too. A listing of each directory,
    /// and a read beneath the pattern's literal part where that part leaves
    /// it (an absolute pattern, or one with `..`).
    Glob {
        /// The fields naming the directory.
        dir: &'static [&'static str],
        /// The field holding the pattern.
        pattern: &'static str,
    },
    /// A shell command string.
    Command(&'static str),
    /// A command as an argv array.
    Argv(&'static str),
    /// A URL.
    Url(&'static str),
    /// URLs written somewhere inside free text.
    UrlsIn(&'static str),
    /// The paths named inside an `apply_patch` patch.
    Patch(&'static [&'static str]),
    /// A string field matched by `name(pattern)` rules as a plain glob.
    Field(&'static str),
    /// No target: matched by tool name only.
    None,
}

/// A catalog entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolSpec {
    /// The tool's name as its client spells it.
    pub name: &'static str,
    /// What it does.
    pub kind: Kind,
    /// Where its target is.
    pub target: Target,
    /// A read that covers everything beneath a directory (grep-like tools).
    pub recursive: bool,
    /// An input field holding the working directory of a shell command.
    pub cwd_field: Option<&'static [&'static str]>,
    /// toolgate's own tools: required fields present, no unknown fields.
    /// Client tools are validated leniently (their target field only).
    pub strict: Option<Strict>,
    /// The client reads a path written `@name` as `name` when no file has
    /// the name as written (Gemini CLI's file tools): both are targets.
    pub at_prefix: bool,
    /// The field whose path the client corrects: in place of a relative
    /// path that names no file, it edits the one file in its workspace
    /// whose path ends with it (Gemini CLI's `replace`, `correctPath`).
    /// Such a call is decided on every file found that it may mean, and
    /// asks at least, since the client's workspace may hold more.
    pub corrects_path: Option<&'static str>,
    /// The client matches the paths and globs without regard to case
    /// (Gemini CLI's `read_many_files`, `nocase`): every existing path that
    /// differs from one written only in case is a target as well.
    pub nocase: bool,
    /// The client searches with ripgrep and `--hidden`, its `glob` and
    /// `type` fields narrowing which files are read (Claude Code's
    /// `Grep`): a recursive read filtered as ripgrep's would be.
    pub ripgrep: bool,
    /// The client drops one leading `@` from every path and reads Unicode
    /// spaces in it as plain spaces before resolving it (Pi's
    /// `expandPath`): the path decided is the one it resolves.
    pub pi_paths: bool,
    /// When the path names no file, the client reads a file whose name
    /// differs in Unicode form, in a curly apostrophe or in the space
    /// before `AM.`/`PM.` (Pi's `read`, `resolveReadPath`): such a path
    /// is unanalysable.
    pub read_variants: bool,
}

/// The exact input shape of one of toolgate's own tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strict {
    /// Fields that must be present, with their JSON type.
    pub required: &'static [(&'static str, FieldType)],
    /// Fields that may be present, with their JSON type.
    pub optional: &'static [(&'static str, FieldType)],
}

/// The JSON type of a strict field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// A string.
    String,
    /// A non-negative integer.
    Unsigned,
}

const fn spec(name: &'static str, kind: Kind, target: Target) -> ToolSpec {
    ToolSpec {
        name,
        kind,
        target,
        recursive: false,
        cwd_field: None,
        strict: None,
        at_prefix: false,
        corrects_path: None,
        nocase: false,
        ripgrep: false,
        pi_paths: false,
        read_variants: false,
    }
}

const fn pi(mut s: ToolSpec) -> ToolSpec {
    s.pi_paths = true;
    s
}

const fn read_variants(mut s: ToolSpec) -> ToolSpec {
    s.read_variants = true;
    s
}

const fn ripgrep(mut s: ToolSpec) -> ToolSpec {
    s.ripgrep = true;
    s
}

const fn recursive(mut s: ToolSpec) -> ToolSpec {
    s.recursive = true;
    s
}

const fn with_cwd(mut s: ToolSpec, fields: &'static [&'static str]) -> ToolSpec {
    s.cwd_field = Some(fields);
    s
}

const fn at_prefix(mut s: ToolSpec) -> ToolSpec {
    s.at_prefix = true;
    s
}

const fn corrects_path(mut s: ToolSpec, field: &'static str) -> ToolSpec {
    s.corrects_path = Some(field);
    s
}

const fn nocase(mut s: ToolSpec) -> ToolSpec {
    s.nocase = true;
    s
}

const fn strict(mut s: ToolSpec, strict: Strict) -> ToolSpec {
    s.strict = Some(strict);
    s
}

use FieldType::{String as Str, Unsigned};
use Kind::{Exec, Fetch, Read, Write};

/// toolgate's own tools, offered to models by `toolgate agent`.
pub const TOOLGATE: &[ToolSpec] = &[
    strict(
        spec("read_file", Read, Target::Path(&["path"])),
        Strict {
            required: &[("path", Str)],
            optional: &[],
        },
    ),
    strict(
        spec("write_file", Write, Target::Path(&["path"])),
        Strict {
            required: &[("path", Str), ("content", Str)],
            optional: &[],
        },
    ),
    strict(
        spec("list_dir", Read, Target::Path(&["path"])),
        Strict {
            required: &[("path", Str)],
            optional: &[],
        },
    ),
    strict(
        spec("run_shell", Exec, Target::Command("command")),
        Strict {
            required: &[("command", Str)],
            optional: &[("timeout_secs", Unsigned)],
        },
    ),
    strict(
        spec("fetch_url", Fetch, Target::Url("url")),
        Strict {
            required: &[("url", Str)],
            optional: &[],
        },
    ),
];

/// Claude Code's tools.
pub const CLAUDE: &[ToolSpec] = &[
    spec("Read", Read, Target::Path(&["file_path"])),
    spec("NotebookRead", Read, Target::Path(&["notebook_path"])),
    spec("LS", Read, Target::Path(&["path"])),
    spec(
        "Glob",
        Read,
        Target::Glob {
            dir: &["path"],
            pattern: "pattern",
        },
    ),
    ripgrep(recursive(spec(
        "Grep",
        Read,
        Target::OptionalPath(&["path"]),
    ))),
    spec("Write", Write, Target::Path(&["file_path"])),
    spec("Edit", Write, Target::Path(&["file_path"])),
    spec("MultiEdit", Write, Target::Path(&["file_path"])),
    spec("NotebookEdit", Write, Target::Path(&["notebook_path"])),
    spec("Bash", Exec, Target::Command("command")),
    spec("WebFetch", Fetch, Target::Url("url")),
];

/// Gemini CLI's tools. Its `read_file`, `write_file` and `replace` read
/// `file_path` alone (0.61.0); the other fields are older names, decided
/// too when given so that no field can carry a path past the decision.
/// Its `read_many_files` reads `include` alone; `paths` is decided too.
pub const GEMINI: &[ToolSpec] = &[
    at_prefix(spec(
        "read_file",
        Read,
        Target::Path(&["absolute_path", "file_path", "path"]),
    )),
    nocase(spec(
        "read_many_files",
        Read,
        Target::Paths(&["include", "paths"]),
    )),
    spec(
        "list_directory",
        Read,
        Target::Path(&["dir_path", "path", "absolute_path"]),
    ),
    spec(
        "glob",
        Read,
        Target::Glob {
            dir: &["dir_path", "path"],
            pattern: "pattern",
        },
    ),
    recursive(spec(
        "search_file_content",
        Read,
        Target::OptionalPath(&["dir_path", "path"]),
    )),
    recursive(spec(
        "grep_search",
        Read,
        Target::OptionalPath(&["dir_path", "path"]),
    )),
    at_prefix(spec(
        "write_file",
        Write,
        Target::Path(&["file_path", "absolute_path"]),
    )),
    corrects_path(
        at_prefix(spec(
            "replace",
            Write,
            Target::Path(&["file_path", "absolute_path"]),
        )),
        "file_path",
    ),
    with_cwd(
        spec("run_shell_command", Exec, Target::Command("command")),
        &["dir_path", "directory"],
    ),
    spec("web_fetch", Fetch, Target::UrlsIn("prompt")),
];

/// OpenAI Codex CLI's tools: as its hooks name them (`Bash` with the
/// command line, `NetworkAccess` for a command that asks for the network,
/// `apply_patch` with the patch in `command`), and as its model calls them.
pub const CODEX: &[ToolSpec] = &[
    spec("Bash", Exec, Target::Command("command")),
    spec("NetworkAccess", Exec, Target::Command("command")),
    with_cwd(spec("shell", Exec, Target::Argv("command")), &["workdir"]),
    with_cwd(
        spec("container.exec", Exec, Target::Argv("command")),
        &["workdir"],
    ),
    spec(
        "apply_patch",
        Write,
        Target::Patch(&["command", "input", "patch"]),
    ),
];

/// Qwen Code's tools (a Gemini CLI fork: its tool names, with `file_path`
/// and `path` fields), as its `PreToolUse` hook names them.
pub const QWEN: &[ToolSpec] = &[
    spec(
        "read_file",
        Read,
        Target::Path(&["file_path", "absolute_path", "path"]),
    ),
    spec(
        "read_many_files",
        Read,
        Target::Paths(&["paths", "include"]),
    ),
    spec(
        "list_directory",
        Read,
        Target::Path(&["path", "dir_path", "absolute_path"]),
    ),
    spec(
        "glob",
        Read,
        Target::Glob {
            dir: &["path", "dir_path"],
            pattern: "pattern",
        },
    ),
    recursive(spec(
        "grep_search",
        Read,
        Target::OptionalPath(&["path", "dir_path"]),
    )),
    spec(
        "write_file",
        Write,
        Target::Path(&["file_path", "absolute_path"]),
    ),
    spec("edit", Write, Target::Path(&["file_path", "absolute_path"])),
    spec(
        "notebook_edit",
        Write,
        Target::Path(&["notebook_path", "file_path"]),
    ),
    with_cwd(
        spec("run_shell_command", Exec, Target::Command("command")),
        &["directory", "dir_path"],
    ),
    spec("web_fetch", Fetch, Target::Url("url")),
];

/// GitHub Copilot CLI's tools. Its `PreToolUse` (PascalCase) hook payload
/// reports the shell tool as `Bash`; its `preToolUse` payload as `bash`.
pub const COPILOT: &[ToolSpec] = &[
    spec("bash", Exec, Target::Command("command")),
    spec("Bash", Exec, Target::Command("command")),
    spec("view", Read, Target::Path(&["path"])),
    spec("create", Write, Target::Path(&["path"])),
    spec("edit", Write, Target::Path(&["path"])),
    spec("str_replace_editor", Write, Target::Path(&["path"])),
    // Copilot CLI 1.0.102's `grep` and `glob` search `paths` (a path or a
    // list); a `path` is decided too, in case a version reads it.
    spec(
        "glob",
        Read,
        Target::Glob {
            dir: &["paths", "path"],
            pattern: "pattern",
        },
    ),
    recursive(spec("grep", Read, Target::OptionalPath(&["paths", "path"]))),
    spec("web_fetch", Fetch, Target::Url("url")),
];

/// Pi's tools (`read`, `bash`, `edit`, `write`, and the optional `grep`,
/// `find`, `ls`).
pub const PI: &[ToolSpec] = &[
    read_variants(pi(spec("read", Read, Target::Path(&["path", "file_path"])))),
    pi(spec("ls", Read, Target::OptionalPath(&["path"]))),
    pi(spec("find", Read, Target::OptionalPath(&["path"]))),
    pi(recursive(spec(
        "grep",
        Read,
        Target::OptionalPath(&["path"]),
    ))),
    pi(spec("write", Write, Target::Path(&["path", "file_path"]))),
    pi(spec("edit", Write, Target::Path(&["path", "file_path"]))),
    spec("bash", Exec, Target::Command("command")),
];

/// OpenCode's tools (camelCase fields).
pub const OPENCODE: &[ToolSpec] = &[
    spec("read", Read, Target::Path(&["filePath", "path"])),
    spec("list", Read, Target::OptionalPath(&["path"])),
    spec(
        "glob",
        Read,
        Target::Glob {
            dir: &["path"],
            pattern: "pattern",
        },
    ),
    recursive(spec("grep", Read, Target::OptionalPath(&["path"]))),
    spec("write", Write, Target::Path(&["filePath", "path"])),
    spec("edit", Write, Target::Path(&["filePath", "path"])),
    spec("multiedit", Write, Target::Path(&["filePath", "path"])),
    spec("patch", Write, Target::Patch(&["patchText", "patch"])),
    spec("apply_patch", Write, Target::Patch(&["patchText", "patch"])),
    with_cwd(spec("bash", Exec, Target::Command("command")), &["workdir"]),
    spec("webfetch", Fetch, Target::Url("url")),
];

/// Grok Build's tools, as its hook payload names them (from its published
/// documentation; the binary was not run).
pub const GROK: &[ToolSpec] = &[
    spec("run_terminal_command", Exec, Target::Command("command")),
    spec(
        "read_file",
        Read,
        Target::Path(&["target_file", "file_path", "path"]),
    ),
    // Its codex-style tool set names the directory `dir_path`.
    spec(
        "list_dir",
        Read,
        Target::OptionalPath(&["target_directory", "path", "dir_path"]),
    ),
    recursive(spec(
        "grep_search",
        Read,
        Target::OptionalPath(&["path", "target_directory"]),
    )),
    // The names its source gives the default tools: `grep` {pattern, path,
    // glob} (the glob only narrows; everything beneath `path` is decided)
    // and `write` {file_path, content}.
    recursive(spec(
        "grep",
        Read,
        Target::OptionalPath(&["path", "target_directory"]),
    )),
    spec(
        "write",
        Write,
        Target::Path(&["file_path", "target_file", "path"]),
    ),
    spec(
        "search_replace",
        Write,
        Target::Path(&["file_path", "target_file", "path"]),
    ),
    spec(
        "write_file",
        Write,
        Target::Path(&["file_path", "target_file", "path"]),
    ),
    spec(
        "edit_file",
        Write,
        Target::Path(&["target_file", "file_path", "path"]),
    ),
    spec(
        "delete_file",
        Write,
        Target::Path(&["target_file", "file_path", "path"]),
    ),
    spec("web_fetch", Fetch, Target::Url("url")),
];

/// Cursor's tools: `Shell` and `Read` stand for its `beforeShellExecution`
/// and `beforeReadFile` events; the rest are its `preToolUse` tool names.
pub const CURSOR: &[ToolSpec] = &[
    with_cwd(spec("Shell", Exec, Target::Command("command")), &["cwd"]),
    spec(
        "Read",
        Read,
        Target::Path(&["file_path", "path", "target_file"]),
    ),
    spec(
        "Write",
        Write,
        Target::Path(&["file_path", "path", "target_file"]),
    ),
    spec(
        "StrReplace",
        Write,
        Target::Path(&["file_path", "path", "target_file"]),
    ),
    spec(
        "Edit",
        Write,
        Target::Path(&["file_path", "path", "target_file"]),
    ),
    spec(
        "Delete",
        Write,
        Target::Path(&["file_path", "path", "target_file"]),
    ),
    spec(
        "Glob",
        Read,
        Target::OptionalPath(&["path", "target_directory"]),
    ),
    recursive(spec(
        "Grep",
        Read,
        Target::OptionalPath(&["path", "target_directory"]),
    )),
    spec(
        "LS",
        Read,
        Target::OptionalPath(&["path", "target_directory"]),
    ),
];

/// The catalog of one client.
pub fn catalog(client: Client) -> &'static [ToolSpec] {
    match client {
        Client::Toolgate => TOOLGATE,
        Client::Claude => CLAUDE,
        Client::Gemini => GEMINI,
        Client::Codex => CODEX,
        Client::Qwen => QWEN,
        Client::Copilot => COPILOT,
        Client::Pi => PI,
        Client::OpenCode => OPENCODE,
        Client::Grok => GROK,
        Client::Cursor => CURSOR,
        Client::Mcp => &[],
    }
}

/// Looks a tool up in its client's catalog.
pub fn lookup(client: Client, name: &str) -> Option<&'static ToolSpec> {
    catalog(client).iter().find(|s| s.name == name)
}

/// Every client whose catalog has a tool of this name (declared tools may
/// not reuse these names).
pub fn clients_with(name: &str) -> Vec<Client> {
    Client::ALL
        .into_iter()
        .filter(|c| lookup(*c, name).is_some())
        .collect()
}
