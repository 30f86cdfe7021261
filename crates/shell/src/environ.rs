//! Environment variables that make programs run, read, write or connect,
//! as data.
//!
//! A variable given to a program (`VAR=x cmd`, `env VAR=x cmd`, `export`,
//! `declare -x`, or a plain assignment, since the variable may already be
//! exported) is looked up here. Each entry says what programs do with its
//! value: read the file it names, write the file it names (or files in the
//! directory it names), connect through the host it names, or run code /
//! change which program, library or configuration runs (unanalysable). The
//! table is a deny-list: a variable it does not name (`LANG`, `TZ`, `CI`,
//! `RUST_BACKTRACE`) is passed to programs as data.
//!
//! Sources: git(1) "ENVIRONMENT VARIABLES" and the names in git 2.47's
//! binary, bash(1) "Shell Variables", curl(1) "ENVIRONMENT" and the names in
//! libcurl, wget(1) and its binary, ld.so(8), python(1), `node --help`,
//! perlrun(1), ruby(1), java's launcher, cargo's "Environment variables",
//! make(1), ssh(1), gpg(1), less(1), man(1), gcc(1) "ENVIRONMENT", zip(1),
//! unzip(1), xz(1), gzip(1), bzip2(1) and the zgrep, zdiff and zcmp scripts of
//! gzip, xz, bzip2 and zstd, vim's `:help startup`, lua(1),
//! tclsh(1), gawk(1), php's and R's startup, .NET's startup hooks, go
//! help environment, glibc's debugging variables, screen(1) and tmux(1).
//! Names are matched exactly
//! first, then by prefix (`GIT_`, `LD_`, `npm_config_`), then by suffix
//! (`_proxy`, `_PAGER`, `_OPTIONS`): a family is unanalysable as a whole
//! and its harmless members are listed by name.

use crate::tables::Access;
use crate::words::Arg;

/// What programs do with a variable's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Use {
    /// Nothing toolgate checks: a name, a date, a flag.
    Harmless,
    /// Reads the file (or directory) the value names.
    Read,
    /// Writes the file the value names.
    Write,
    /// Writes files inside the directory the value names.
    WriteDir,
    /// git's trace variables: an absolute path is a file written (for
    /// `GIT_TRACE2*`, also a directory a file is created in); `1`, `true`,
    /// `2`..`9` are standard error or a descriptor; `af_unix:` a socket.
    Trace,
    /// Connects through the proxy the value names (`http://host:port`, or
    /// `host:port` read as curl reads it).
    Connect,
    /// Runs the value as a program, or changes which program, library,
    /// configuration or code runs: unanalysable unless the value is one of
    /// these (`GIT_PAGER=cat`, `GIT_EDITOR=true`).
    Runs(&'static [&'static str]),
    /// `TZ`: a name of the system's zone files, or (`:FILE`, `/FILE`) a
    /// file read.
    TimeZone,
}

use Use::{Connect, Harmless, Read, Runs, TimeZone, Trace, Write, WriteDir};

/// A pager that only shows (or no pager at all).
const PAGERS: &[&str] = &["", "cat", "less", "more", "less -R", "less -FRX"];
/// An editor that leaves the file as it is.
const EDITORS: &[&str] = &["true", ":", "cat"];
/// No value to run.
const NONE: &[&str] = &[];

/// Variables by exact name, sorted (binary search; a test holds the order).
/// Harmless members of an unanalysable family are listed here too.
#[rustfmt::skip]
static EXACT: &[(&str, Use)] = &[
    ("ANT_ARGS", Runs(NONE)),
    ("AR", Runs(NONE)),
    ("AS", Runs(NONE)),
    ("AWKLIBPATH", Runs(NONE)),
    ("AWKPATH", Runs(NONE)),
    ("AWS_CONFIG_FILE", Runs(NONE)),
    ("AWS_SHARED_CREDENTIALS_FILE", Read),
    ("BASHOPTS", Runs(NONE)),
    // bash: the alias table and the table of commands found (`hash`):
    // an element assigned is an alias, or the program a name runs.
    ("BASH_ALIASES", Runs(NONE)),
    ("BASH_CMDS", Runs(NONE)),
    ("BASH_COMPAT", Runs(NONE)),
    ("BASH_ENV", Runs(NONE)),
    ("BASH_LOADABLES_PATH", Runs(NONE)),
    ("BASH_XTRACEFD", Runs(NONE)),
    ("BROWSER", Runs(NONE)),
    ("BUNDLE_GEMFILE", Runs(NONE)),
    ("BZIP", Runs(NONE)),
    ("BZIP2", Runs(NONE)),
    ("CARGO_INCREMENTAL", Harmless),
    ("CARGO_NET_OFFLINE", Harmless),
    ("CARGO_TARGET_DIR", WriteDir),
    ("CARGO_TERM_COLOR", Harmless),
    ("CARGO_TERM_PROGRESS_WHEN", Harmless),
    ("CARGO_TERM_QUIET", Harmless),
    ("CARGO_TERM_VERBOSE", Harmless),
    ("CC", Runs(NONE)),
    ("CC_FOR_BUILD", Runs(NONE)),
    ("CDPATH", Runs(NONE)),
    ("CLASSPATH", Runs(NONE)),
    // zcmp, xzcmp, bzcmp (gzip, xz and bzip2 scripts): the comparing program.
    ("CMP", Runs(&["cmp"])),
    ("CONFIG_SHELL", Runs(NONE)),
    ("CPATH", Runs(NONE)),
    ("CPMOD", Runs(NONE)),
    ("CPP", Runs(NONE)),
    ("CROSS_COMPILE", Runs(NONE)),
    ("CURL_CA_BUNDLE", Read),
    ("CURL_HOME", Runs(NONE)),
    ("CVSEDITOR", Runs(EDITORS)),
    ("CVS_RSH", Runs(NONE)),
    ("CXX", Runs(NONE)),
    ("DBUS_SESSION_BUS_ADDRESS", Runs(NONE)),
    ("DBUS_SYSTEM_BUS_ADDRESS", Runs(NONE)),
    ("DEBUGINFOD_URLS", Runs(NONE)),
    ("DEPENDENCIES_OUTPUT", Runs(NONE)),
    // zdiff, xzdiff, bzdiff: the diffing program.
    ("DIFF", Runs(&["diff"])),
    // bash: an element assigned is where `popd` goes.
    ("DIRSTACK", Runs(NONE)),
    ("DISPLAY", Runs(NONE)),
    ("DOCKER_HOST", Runs(NONE)),
    ("EDITOR", Runs(EDITORS)),
    ("EGREP", Runs(&["egrep", "grep -E"])),
    ("EMACSLOADPATH", Runs(NONE)),
    ("ENV", Runs(NONE)),
    ("EXECIGNORE", Runs(NONE)),
    ("EXINIT", Runs(NONE)),
    ("F77", Runs(NONE)),
    ("FC", Runs(NONE)),
    ("FCEDIT", Runs(EDITORS)),
    ("FGREP", Runs(&["fgrep", "grep -F"])),
    ("GCC_EXEC_PREFIX", Runs(NONE)),
    ("GCONV_PATH", Runs(NONE)),
    ("GDK_PIXBUF_MODULE_FILE", Runs(NONE)),
    ("GEMRC", Runs(NONE)),
    ("GEM_HOME", Runs(NONE)),
    ("GEM_PATH", Runs(NONE)),
    ("GIT_ADVICE", Harmless),
    ("GIT_AUTHOR_DATE", Harmless),
    ("GIT_AUTHOR_EMAIL", Harmless),
    ("GIT_AUTHOR_NAME", Harmless),
    ("GIT_COMMITTER_DATE", Harmless),
    ("GIT_COMMITTER_EMAIL", Harmless),
    ("GIT_COMMITTER_NAME", Harmless),
    ("GIT_CURL_VERBOSE", Harmless),
    ("GIT_EDITOR", Runs(EDITORS)),
    ("GIT_FLUSH", Harmless),
    ("GIT_GLOB_PATHSPECS", Harmless),
    ("GIT_GRAFT_FILE", Read),
    ("GIT_HTTP_USER_AGENT", Harmless),
    ("GIT_ICASE_PATHSPECS", Harmless),
    ("GIT_INDEX_FILE", Write),
    ("GIT_LITERAL_PATHSPECS", Harmless),
    ("GIT_MERGE_AUTOEDIT", Harmless),
    ("GIT_MERGE_VERBOSITY", Harmless),
    ("GIT_NOGLOB_PATHSPECS", Harmless),
    ("GIT_OPTIONAL_LOCKS", Harmless),
    ("GIT_PAGER", Runs(PAGERS)),
    ("GIT_PRINT_SHA1_ELLIPSIS", Harmless),
    ("GIT_PROGRESS_DELAY", Harmless),
    ("GIT_REDACT_COOKIES", Harmless),
    ("GIT_REFLOG_ACTION", Harmless),
    ("GIT_SEQUENCE_EDITOR", Runs(EDITORS)),
    ("GIT_SHALLOW_FILE", Write),
    ("GIT_SSL_CAINFO", Read),
    ("GIT_SSL_CAPATH", Read),
    ("GIT_SSL_CERT", Read),
    ("GIT_SSL_KEY", Read),
    ("GIT_TERMINAL_PROMPT", Harmless),
    ("GIT_TRACE_REDACT", Harmless),
    ("GIT_USER_AGENT", Harmless),
    ("GLIBC_TUNABLES", Runs(NONE)),
    ("GLOBIGNORE", Runs(NONE)),
    ("GNUPGHOME", Runs(NONE)),
    ("GOBIN", Runs(NONE)),
    ("GOCACHE", WriteDir),
    ("GOENV", Runs(NONE)),
    ("GOEXPERIMENT", Runs(NONE)),
    ("GOFLAGS", Runs(NONE)),
    ("GOINSECURE", Runs(NONE)),
    ("GOMODCACHE", Runs(NONE)),
    ("GONOPROXY", Runs(NONE)),
    ("GONOSUMCHECK", Runs(NONE)),
    ("GONOSUMDB", Runs(NONE)),
    ("GOOGLE_APPLICATION_CREDENTIALS", Read),
    ("GOPACKAGESDRIVER", Runs(NONE)),
    ("GOPATH", Runs(NONE)),
    ("GOPRIVATE", Runs(NONE)),
    ("GOPROXY", Runs(NONE)),
    ("GOROOT", Runs(NONE)),
    ("GOSUMDB", Runs(NONE)),
    ("GOTMPDIR", WriteDir),
    ("GOTOOLCHAIN", Runs(NONE)),
    ("GOVCS", Runs(NONE)),
    ("GOWORK", Runs(NONE)),
    ("GPG_AGENT_INFO", Runs(NONE)),
    // zgrep, xzgrep, bzgrep, zstdgrep: the searching program.
    ("GREP", Runs(&["grep", "grep -E", "grep -F"])),
    ("GTK_MODULES", Runs(NONE)),
    ("GVIMINIT", Runs(NONE)),
    ("GZIP", Runs(NONE)),
    ("HGEDITOR", Runs(EDITORS)),
    ("HGRCPATH", Runs(NONE)),
    ("HISTFILE", Write),
    ("HOME", Runs(NONE)),
    ("HOSTALIASES", Runs(NONE)),
    ("HOSTCC", Runs(NONE)),
    ("I18NPATH", Runs(NONE)),
    ("IFS", Runs(NONE)),
    ("INFOPATH", Runs(NONE)),
    ("INPUTRC", Runs(NONE)),
    ("KRB5CCNAME", Runs(NONE)),
    ("KRB5_CLIENT_KTNAME", Runs(NONE)),
    ("KRB5_KTNAME", Runs(NONE)),
    ("KUBECONFIG", Runs(NONE)),
    ("LD", Runs(NONE)),
    ("LESS", Runs(&["-R", "-FRX", "-FRSX", "-RS", "FRX", "R"])),
    ("LESSCLOSE", Runs(NONE)),
    ("LESSEDIT", Runs(NONE)),
    // less(1): the program `-t` runs to find a tag, and key bindings (which
    // can run shell commands) given in the variable itself.
    ("LESSGLOBALTAGS", Runs(NONE)),
    ("LESSHISTFILE", Write),
    ("LESSKEY", Runs(NONE)),
    ("LESSKEYIN", Runs(NONE)),
    ("LESSKEYIN_SYSTEM", Runs(NONE)),
    ("LESSKEY_CONTENT", Runs(NONE)),
    ("LESSKEY_SYSTEM", Runs(NONE)),
    ("LESSOPEN", Runs(NONE)),
    ("LOCALDOMAIN", Runs(NONE)),
    ("LOCPATH", Runs(NONE)),
    // file(1): "MAGIC: the default magic file name", a `:`-separated
    // list of files it reads (and prints lines of, as errors).
    ("MAGIC", Runs(NONE)),
    ("MAILRC", Runs(NONE)),
    ("MAKE", Runs(NONE)),
    ("MAKEFILES", Runs(NONE)),
    ("MALLOC_TRACE", Write),
    ("MANOPT", Runs(NONE)),
    ("MANPAGER", Runs(PAGERS)),
    ("MANPATH", Runs(NONE)),
    ("MANROFFOPT", Runs(NONE)),
    ("MAVEN_ARGS", Runs(NONE)),
    ("MEMUSAGE_OUTPUT", Write),
    ("MYPY_CONFIG_FILE_DIR", Runs(NONE)),
    ("MYSQL_HISTFILE", Write),
    ("MYVIMRC", Runs(NONE)),
    ("NETRC", Read),
    ("NLSPATH", Runs(NONE)),
    ("NM", Runs(NONE)),
    ("NODE_COMPILE_CACHE", WriteDir),
    ("NODE_DISABLE_COLORS", Harmless),
    ("NODE_ENV", Harmless),
    ("NODE_EXTRA_CA_CERTS", Read),
    ("NODE_NO_WARNINGS", Harmless),
    ("NODE_PENDING_DEPRECATION", Harmless),
    ("NODE_REPL_HISTORY", Write),
    ("NODE_V8_COVERAGE", WriteDir),
    ("NO_PROXY", Runs(NONE)),
    ("NVIM_APPNAME", Runs(NONE)),
    ("NVIM_LOG_FILE", Write),
    ("OBJCOPY", Runs(NONE)),
    ("OBJDUMP", Runs(NONE)),
    // bash: where `cd -` goes.
    ("OLDPWD", Runs(NONE)),
    ("OPENSSL_CONF", Runs(NONE)),
    ("OPENSSL_ENGINES", Runs(NONE)),
    ("OPENSSL_MODULES", Runs(NONE)),
    ("PAGER", Runs(PAGERS)),
    // GNU parallel's options (`--rpl` evaluates Perl), its configuration
    // directory and the shell it runs commands with.
    ("PARALLEL", Runs(NONE)),
    ("PARALLEL_HOME", Runs(NONE)),
    ("PARALLEL_SHELL", Runs(NONE)),
    ("PARALLEL_SSH", Runs(NONE)),
    ("PATH", Runs(NONE)),
    ("PERLIO", Harmless),
    ("PERL_BADLANG", Harmless),
    ("PERL_HASH_SEED", Harmless),
    ("PERL_UNICODE", Harmless),
    ("PGPASSFILE", Read),
    ("PGSERVICEFILE", Read),
    ("PHPRC", Runs(NONE)),
    ("PHP_INI_SCAN_DIR", Runs(NONE)),
    ("PIP_DISABLE_PIP_VERSION_CHECK", Harmless),
    ("PIP_NO_CACHE_DIR", Harmless),
    ("PIP_NO_COLOR", Harmless),
    ("PIP_NO_INPUT", Harmless),
    ("PIP_PROGRESS_BAR", Harmless),
    ("PIP_QUIET", Harmless),
    ("PIP_ROOT_USER_ACTION", Harmless),
    ("PKG_CONFIG", Runs(NONE)),
    ("PKG_CONFIG_PATH", Runs(NONE)),
    ("POSIXLY_CORRECT", Runs(NONE)),
    ("PROMPT_COMMAND", Runs(NONE)),
    ("PS0", Runs(NONE)),
    ("PS1", Runs(NONE)),
    ("PS2", Runs(NONE)),
    ("PS3", Runs(NONE)),
    ("PS4", Runs(NONE)),
    ("PSQL_HISTORY", Write),
    ("PYTEST_CURRENT_TEST", Harmless),
    ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", Harmless),
    ("PYTHONASYNCIODEBUG", Harmless),
    ("PYTHONDEBUG", Harmless),
    ("PYTHONDEVMODE", Harmless),
    ("PYTHONDONTWRITEBYTECODE", Harmless),
    ("PYTHONFAULTHANDLER", Harmless),
    ("PYTHONHASHSEED", Harmless),
    ("PYTHONIOENCODING", Harmless),
    ("PYTHONMALLOC", Harmless),
    ("PYTHONNOUSERSITE", Harmless),
    ("PYTHONOPTIMIZE", Harmless),
    ("PYTHONPROFILEIMPORTTIME", Harmless),
    ("PYTHONPYCACHEPREFIX", WriteDir),
    ("PYTHONSAFEPATH", Harmless),
    ("PYTHONTRACEMALLOC", Harmless),
    ("PYTHONUNBUFFERED", Harmless),
    ("PYTHONUTF8", Harmless),
    ("PYTHONVERBOSE", Harmless),
    ("PYTHON_HISTORY", Write),
    ("RANLIB", Runs(NONE)),
    ("READELF", Runs(NONE)),
    ("REQUESTS_CA_BUNDLE", Read),
    ("RSYNC_CONNECT_PROG", Runs(NONE)),
    ("RSYNC_RSH", Runs(NONE)),
    ("RUSTC", Runs(NONE)),
    ("RUSTC_WORKSPACE_WRAPPER", Runs(NONE)),
    ("RUSTC_WRAPPER", Runs(NONE)),
    ("RUSTDOC", Runs(NONE)),
    ("RUSTUP_TOOLCHAIN", Runs(NONE)),
    ("SCREENRC", Runs(NONE)),
    ("SEGFAULT_OUTPUT_NAME", Write),
    ("SHELL", Runs(NONE)),
    ("SHELLOPTS", Runs(NONE)),
    ("SIMPLE_BACKUP_SUFFIX", Runs(NONE)),
    ("SOCKS5_SERVER", Runs(NONE)),
    ("SOCKS_SERVER", Runs(NONE)),
    ("SQLITE_HISTORY", Write),
    ("SSH_AUTH_SOCK", Runs(NONE)),
    ("SSLKEYLOGFILE", Write),
    ("SSL_CERT_DIR", Read),
    ("SSL_CERT_FILE", Read),
    ("STRIP", Runs(NONE)),
    ("SUNPRO_DEPENDENCIES", Runs(NONE)),
    ("SVN_SSH", Runs(NONE)),
    ("SYSSCREENRC", Runs(NONE)),
    ("SYSTEM_WGETRC", Runs(NONE)),
    ("TEMP", WriteDir),
    ("TERMCAP", Runs(NONE)),
    ("TERMINAL", Runs(NONE)),
    ("TERMINFO", Runs(NONE)),
    ("TERMINFO_DIRS", Runs(NONE)),
    ("TK_LIBRARY", Runs(NONE)),
    ("TMP", WriteDir),
    ("TMPDIR", WriteDir),
    ("TMUX", Runs(NONE)),
    ("TMUX_TMPDIR", Runs(NONE)),
    // The C library reads `TZ=:FILE` and `TZ=/FILE` as a time zone file;
    // a name is a file beneath `TZDIR` (which chooses any directory).
    ("TZ", TimeZone),
    ("TZDIR", Runs(NONE)),
    ("UNZIP", Runs(NONE)),
    ("UNZIPOPT", Runs(NONE)),
    ("VERSION_CONTROL", Runs(NONE)),
    ("VIM", Runs(NONE)),
    ("VIMINIT", Runs(NONE)),
    ("VIMRUNTIME", Runs(NONE)),
    ("VIRTUAL_ENV", Runs(NONE)),
    ("VISUAL", Runs(EDITORS)),
    ("WAYLAND_DISPLAY", Runs(NONE)),
    ("WGETRC", Runs(NONE)),
    ("XAUTHORITY", Read),
    ("XDG_CACHE_HOME", WriteDir),
    ("XDG_CONFIG_DIRS", Runs(NONE)),
    ("XDG_DATA_DIRS", Runs(NONE)),
    ("XDG_RUNTIME_DIR", Runs(NONE)),
    ("XDG_STATE_HOME", WriteDir),
    ("XZ_DEFAULTS", Runs(NONE)),
    ("XZ_OPT", Runs(NONE)),
    ("ZCAT", Runs(&["zcat", "zstdcat"])),
    ("ZDOTDIR", Runs(NONE)),
    // zip(1): "ZIP: see ZIPOPT" (options added to every command line).
    ("ZIP", Runs(NONE)),
    ("ZIPINFO", Runs(NONE)),
    ("ZIPINFOOPT", Runs(NONE)),
    ("ZIPOPT", Runs(NONE)),
    ("ZSTD", Runs(&["zstd"])),
    ("no_proxy", Runs(NONE)),
];

/// Families by prefix, the longer prefix of one family first. `true`: the
/// prefix is matched without regard to case (npm reads its variables so).
#[rustfmt::skip]
static PREFIXES: &[(&str, bool, Use)] = &[
    // `GIT_TRACE`, `GIT_TRACE2_EVENT`, `GIT_TRACE_PACKET`, ...
    ("GIT_TRACE", false, Trace),
    // Every other git variable chooses a program, a repository, a
    // configuration or the protocols allowed (`GIT_ALLOW_PROTOCOL`),
    // unless listed as harmless above.
    ("GIT_", false, Runs(NONE)),
    // ld.so(8): preload, library and audit paths; macOS's dyld.
    ("LD_", false, Runs(NONE)),
    ("DYLD_", false, Runs(NONE)),
    // python(1): startup file, module path, home, user base, breakpoint
    // hook, warning filters (which import modules).
    ("PYTHON", false, Runs(NONE)),
    ("PIP_", false, Runs(NONE)),
    ("UV_", false, Runs(NONE)),
    ("CONDA_", false, Runs(NONE)),
    // node: `NODE_OPTIONS=--require`, `NODE_PATH`, REPL modules.
    ("NODE_", false, Runs(NONE)),
    ("npm_config_", true, Runs(NONE)),
    ("YARN_", false, Runs(NONE)),
    // perlrun(1): `PERL5OPT=-M..`, `PERL5LIB`, `PERL5DB`.
    ("PERL", false, Runs(NONE)),
    // ruby(1): `RUBYOPT=-r..`, `RUBYLIB`, `RUBYSHELL`.
    ("RUBY", false, Runs(NONE)),
    ("BUNDLE_", false, Runs(NONE)),
    // cargo: `CARGO_BUILD_RUSTC_WRAPPER`, `CARGO_TARGET_<triple>_RUNNER`,
    // `CARGO_HOME` (its config), registries.
    ("CARGO_", false, Runs(NONE)),
    ("RUSTUP_", false, Runs(NONE)),
    ("CGO_", false, Runs(NONE)),
    ("DOCKER_", false, Runs(NONE)),
    // bash(1): a function exported to a child bash (`BASH_FUNC_ls%%`),
    // which defines it there, over the command of that name.
    ("BASH_FUNC_", false, Runs(NONE)),
    // lua(1): `LUA_INIT` is code run first; module paths.
    ("LUA_", false, Runs(NONE)),
    // .NET's startup hooks and profilers, loaded into every process.
    ("DOTNET_", false, Runs(NONE)),
    ("CORECLR_", false, Runs(NONE)),
    ("COMPlus_", false, Runs(NONE)),
    // R's profiles and environ files, run at start.
    ("R_", false, Runs(NONE)),
    // Tcl's library paths (`TCLLIBPATH`), whose package indexes run.
    ("TCL", false, Runs(NONE)),
    // Compiler caches that run a prefix command or another compiler.
    ("CCACHE_", false, Runs(NONE)),
    ("SCCACHE_", false, Runs(NONE)),
    ("DISTCC_", false, Runs(NONE)),
    ("CMAKE_", false, Runs(NONE)),
    // Package managers that fetch and run tools.
    ("COREPACK_", false, Runs(NONE)),
    ("PNPM_", false, Runs(NONE)),
    ("DENO_", false, Runs(NONE)),
    ("BUN_", false, Runs(NONE)),
    ("HELM_", false, Runs(NONE)),
    // Test runners and project tools whose variables add options, plugins
    // or configuration (`PYTEST_ADDOPTS=--basetemp=/x`, `PYTEST_PLUGINS`,
    // `COVERAGE_PROCESS_START`, `TOX_OVERRIDE`, `TF_CLI_ARGS`, `MIX_EXS`).
    ("PYTEST_", false, Runs(NONE)),
    ("COVERAGE_", false, Runs(NONE)),
    ("TOX_", false, Runs(NONE)),
    ("HATCH_", false, Runs(NONE)),
    ("PIPENV_", false, Runs(NONE)),
    ("POETRY_", false, Runs(NONE)),
    ("PDM_", false, Runs(NONE)),
    ("MIX_", false, Runs(NONE)),
    ("GHC_", false, Runs(NONE)),
    ("STACK_", false, Runs(NONE)),
    ("CABAL_", false, Runs(NONE)),
    ("TF_", false, Runs(NONE)),
    // pass(1): its extensions directory, whose scripts run.
    ("PASSWORD_STORE_", false, Runs(NONE)),
];

/// Families by suffix, matched without regard to case.
#[rustfmt::skip]
static SUFFIXES: &[(&str, Use)] = &[
    // curl(1), wget(1), git, pip, ...: `http_proxy`, `HTTPS_PROXY`,
    // `ALL_PROXY`, `ftp_proxy`, `RSYNC_PROXY`.
    ("_PROXY", Connect),
    // A program to run: `SUDO_ASKPASS`, `SSH_ASKPASS`, `WGET_ASKPASS`;
    // `GH_PAGER`, `SYSTEMD_PAGER`; `KUBE_EDITOR`, `SUDO_EDITOR`;
    // `FZF_DEFAULT_COMMAND`.
    ("_ASKPASS", Runs(NONE)),
    ("_PAGER", Runs(PAGERS)),
    ("_EDITOR", Runs(EDITORS)),
    ("_COMMAND", Runs(NONE)),
    // Options and flags handed to a program: `JAVA_TOOL_OPTIONS`,
    // `_JAVA_OPTIONS`, `JDK_JAVA_OPTIONS`, `MAVEN_OPTS`, `RUSTFLAGS`,
    // `CFLAGS` (`-fplugin=`), `MAKEFLAGS`, `TAR_OPTIONS`.
    ("_OPTIONS", Runs(NONE)),
    ("_OPTS", Runs(NONE)),
    ("FLAGS", Runs(NONE)),
    // Search paths and homes of programs, libraries and configuration:
    // `LD_LIBRARY_PATH`, `GIT_EXEC_PATH`, `RIPGREP_CONFIG_PATH`;
    // `XDG_CONFIG_HOME`, `JAVA_HOME`, `CARGO_HOME`. (Those without the
    // underscore, `AWKPATH`, `HGRCPATH`, are listed by name: a script's
    // own `BINPATH` is no program's.)
    ("_PATH", Runs(NONE)),
    ("_HOME", Runs(NONE)),
    // Configuration files: `KUBECONFIG`, `DOCKER_CONFIG`, `PIP_CONFIG_FILE`.
    ("CONFIG", Runs(NONE)),
    ("_CONFIG_FILE", Runs(NONE)),
    ("_CONF", Runs(NONE)),
    // Configuration folders: `AZURE_CONFIG_DIR`, `GH_CONFIG_DIR`.
    ("CONFIG_DIR", Runs(NONE)),
];

/// What programs do with the value of `name`.
pub(crate) fn lookup(name: &str) -> Use {
    if let Ok(i) = EXACT.binary_search_by(|(n, _)| n.cmp(&name)) {
        return EXACT[i].1;
    }
    for (prefix, nocase, u) in PREFIXES {
        let matches = match name.get(..prefix.len()) {
            Some(head) if *nocase => head.eq_ignore_ascii_case(prefix),
            Some(head) => head == *prefix,
            None => false,
        };
        if matches {
            return *u;
        }
    }
    for (suffix, u) in SUFFIXES {
        let start = name.len().wrapping_sub(suffix.len());
        if name.len() >= suffix.len()
            && name
                .get(start..)
                .is_some_and(|tail| tail.eq_ignore_ascii_case(suffix))
        {
            return *u;
        }
    }
    Harmless
}

/// Whether assigning `name` can change what a later command does: the
/// builtins that assign from input (`read`, `printf -v`, `for`) make such
/// an assignment unknown.
pub(crate) fn matters(name: &str) -> bool {
    lookup(name) != Harmless
}

/// What giving a program `name=value` does.
#[derive(Debug)]
pub(crate) enum Given {
    /// Nothing toolgate checks.
    Nothing,
    /// A file read or written, or a URL connected to.
    Effect { access: Access, arg: Arg },
    /// Cannot be analysed: what the variable does.
    Unknown(String),
}

/// What giving a program the variable `name` with `value` does.
pub(crate) fn given(name: &str, value: &Arg) -> Given {
    let path = |access: Access| {
        if value.literal && value.text.is_empty() {
            Given::Nothing
        } else {
            Given::Effect {
                access,
                arg: value.clone(),
            }
        }
    };
    match lookup(name) {
        Harmless => Given::Nothing,
        Read => path(Access::Read),
        Write => match name {
            // `LESSHISTFILE=-` keeps no history.
            "LESSHISTFILE" if value.literal && value.text == "-" => Given::Nothing,
            _ => path(Access::Write),
        },
        WriteDir => path(Access::WriteDir),
        Trace => trace(name, value),
        Connect => {
            if value.literal && value.text.is_empty() {
                return Given::Nothing;
            }
            let text = if value.text.contains("://") {
                value.text.clone()
            } else {
                format!("http://{}", value.text)
            };
            Given::Effect {
                access: Access::Fetch,
                arg: value.with_text(text),
            }
        }
        TimeZone => {
            if !value.literal {
                return Given::Unknown(
                    "a time zone only known when it runs may name a file it reads".into(),
                );
            }
            let file = value.text.strip_prefix(':').unwrap_or(&value.text);
            if file.starts_with(['/', '.', '~']) {
                Given::Effect {
                    access: Access::Read,
                    arg: value.with_text(file),
                }
            } else if file.split('/').any(|part| part == "..") {
                Given::Unknown("a time zone name with `..` reads outside the zone files".into())
            } else {
                Given::Nothing
            }
        }
        Runs(harmless) => {
            if value.literal && harmless.contains(&value.text.as_str()) {
                Given::Nothing
            } else {
                Given::Unknown("changes which program, library, configuration or code runs".into())
            }
        }
    }
}

/// git's trace destinations (git's `trace.c` and `trace2/tr2_dst.c`).
fn trace(name: &str, value: &Arg) -> Given {
    if !value.literal {
        return Given::Effect {
            access: Access::Write,
            arg: value.clone(),
        };
    }
    let v = value.text.as_str();
    let off_or_fd = v.is_empty()
        || v.len() == 1 && v.bytes().all(|b| b.is_ascii_digit())
        || ["true", "false", "yes", "no", "on", "off"]
            .iter()
            .any(|w| v.eq_ignore_ascii_case(w));
    if off_or_fd {
        return Given::Nothing;
    }
    if v.starts_with("af_unix:") {
        return Given::Unknown("sends git's trace to a socket".into());
    }
    if v.starts_with('/') {
        // trace2 creates a file inside a directory it is given.
        let access = if name.starts_with("GIT_TRACE2") {
            Access::WriteDir
        } else {
            Access::Write
        };
        return Given::Effect {
            access,
            arg: value.clone(),
        };
    }
    // git ignores (with a warning) a value that is no absolute path.
    Given::Nothing
}

/// Variables of the locale and the terminal: how text is printed, never
/// a command, a file or a flag a makefile passes on.
pub(crate) fn locale_or_terminal(name: &str) -> bool {
    name.starts_with("LC_")
        || matches!(
            name,
            "LANG"
                | "LANGUAGE"
                | "TERM"
                | "COLORTERM"
                | "NO_COLOR"
                | "CLICOLOR"
                | "CLICOLOR_FORCE"
                | "COLUMNS"
                | "LINES"
                | "TZ"
        )
}

/// Whether make, given the variable `name` with the literal `value` (on
/// its command line or in its environment), still runs the recipes as the
/// makefile writes them: a value that is a plain number or a yes/no word
/// (`V=1`, `CI=true`) is neither a command nor a flag nor a path a
/// recipe could run, and make's own variables (`.SHELLFLAGS`, `MAKE*`,
/// `SHELL`) are never such.
pub(crate) fn make_keeps_recipes(name: &str, value: Option<&str>) -> bool {
    if locale_or_terminal(name) {
        return true;
    }
    let plain = value.is_some_and(|v| {
        (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
            || matches!(
                v.to_ascii_lowercase().as_str(),
                "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
            )
    });
    plain && !name.starts_with(['.', 'M', 'S'])
}

/// Builtins that run nothing with the environment: exported variables do
/// not reach a program through them.
pub(crate) fn runs_nothing(name: &str) -> bool {
    matches!(
        name,
        "echo"
            | "printf"
            | "true"
            | "false"
            | ":"
            | "cd"
            | "pushd"
            | "popd"
            | "dirs"
            | "pwd"
            | "export"
            | "declare"
            | "typeset"
            | "local"
            | "readonly"
            | "unset"
            | "set"
            | "shopt"
            | "read"
            | "test"
            | "["
            | "[["
            | "let"
            | "return"
            | "exit"
            | "shift"
            | "break"
            | "continue"
            | "alias"
            | "unalias"
            | "umask"
            | "wait"
            | "jobs"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_names_are_sorted_and_unique() {
        for pair in EXACT.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} !< {}", pair[0].0, pair[1].0);
        }
    }

    #[test]
    fn families_and_their_harmless_members() {
        assert_eq!(lookup("GIT_SSH_COMMAND"), Runs(NONE));
        assert_eq!(lookup("GIT_ALLOW_PROTOCOL"), Runs(NONE));
        assert_eq!(lookup("GIT_CONFIG_KEY_0"), Runs(NONE));
        assert_eq!(lookup("GIT_AUTHOR_NAME"), Harmless);
        assert_eq!(lookup("GIT_TRACE2_EVENT"), Trace);
        assert_eq!(lookup("LD_PRELOAD"), Runs(NONE));
        assert_eq!(lookup("https_proxy"), Connect);
        assert_eq!(lookup("ALL_PROXY"), Connect);
        assert_eq!(lookup("NO_PROXY"), Runs(NONE));
        assert_eq!(lookup("NPM_CONFIG_USERCONFIG"), Runs(NONE));
        assert_eq!(lookup("JAVA_TOOL_OPTIONS"), Runs(NONE));
        assert_eq!(lookup("_JAVA_OPTIONS"), Runs(NONE));
        assert_eq!(lookup("XDG_CONFIG_HOME"), Runs(NONE));
        assert_eq!(lookup("SUDO_ASKPASS"), Runs(NONE));
        assert_eq!(lookup("PYTHONUNBUFFERED"), Harmless);
        for runs in [
            "LUA_INIT",
            "LUA_CPATH_5_4",
            "AWKPATH",
            "AWKLIBPATH",
            "TCLLIBPATH",
            "HGRCPATH",
            "EMACSLOADPATH",
            "GH_CONFIG_DIR",
            "VIMINIT",
            "ZIPOPT",
            "ZIP",
            "XZ_OPT",
            "DOTNET_STARTUP_HOOKS",
            "R_PROFILE_USER",
        ] {
            assert_eq!(lookup(runs), Runs(NONE), "{runs}");
        }
        for harmless in ["LANG", "LC_ALL", "NO_COLOR", "RUST_BACKTRACE", "CI", "TERM"] {
            assert_eq!(lookup(harmless), Harmless, "{harmless}");
        }
    }
}
