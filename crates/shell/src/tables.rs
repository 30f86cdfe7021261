//! What well-known commands do with their arguments, as data.
//!
//! A new reader is one line in [`SPECS`]; [`known`] looks a name up in all
//! the tables at once. Option arities matter: a value
//! taken for an operand is a check missed, so an option whose arity is not
//! listed is taken as a flag, and the word after it is checked as an operand.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

/// How a file named by an option or operand is touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    /// Names, sizes, modes and times read, never contents (`ls`, `stat`,
    /// `du`, `tree`, the directories `find` walks): see
    /// [`crate::TargetEffect::listing`].
    List,
    Write,
    /// Written and removed or replaced (`rm`, `mv` source, `gzip`).
    Delete,
    /// A URL fetched or pushed to.
    Fetch,
    /// A directory written into (`tar -C`, `wget -P`, `unzip -d`).
    WriteDir,
    /// The content of what git tracks beneath a path it was given
    /// ([`crate::Tracked::Beneath`]).
    Tracked,
    /// The content of what git tracks in the repository holding the
    /// directory ([`crate::Tracked::Repository`]).
    Repository,
    /// What lies in the work tree of the repository holding the directory
    /// ([`crate::Tracked::WorkTree`]).
    WorkTree,
    /// Every file git tracks in the repository holding the directory,
    /// overwritten or removed with another commit's content (a branch
    /// switch, `reset --hard`, `stash pop`): a write of each
    /// ([`crate::Tracked::Repository`]). Its argument is `.`, or the one
    /// word `git checkout` was given, which makes it a rewrite only if
    /// the word names a revision.
    Rewrite,
    /// What lies in the work tree of the repository holding the directory,
    /// as its filter lets through, removed (`git stash -u` and `-a` take
    /// the untracked files away): a write of each
    /// ([`crate::Tracked::WorkTree`]).
    WorkTreeRemoved,
}

/// What a command's operands are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operands {
    /// Not files (`echo`, `true`).
    None,
    /// Every operand is accessed so.
    All(Access),
    /// The first operand is a pattern or program unless one of `program_opts`
    /// gave it; the rest are read (`grep`, `awk`, `sed`, `jq`).
    AfterProgram,
    /// The first operand is a mode or owner unless `--reference` gave it; the
    /// rest are written (`chmod`, `chown`).
    AfterMode,
    /// `[INPUT [OUTPUT]]` (`uniq`, `xxd`).
    InOut,
    /// Sources read, the last operand (or `-t DIR`) written (`cp`, `install`).
    Copy,
    /// Sources removed, the last operand (or `-t DIR`) written (`mv`).
    Move,
    /// Targets read, the last operand (or `-t DIR`) written (`ln`).
    Link,
    /// Interpreted by code in `effects` (`dd`, `tar`, `find`, `git`, `curl`, ...).
    Custom,
}

/// What is known about one command.
#[derive(Debug)]
pub(crate) struct Spec {
    pub names: &'static [&'static str],
    /// Short options that take a value, as letters (`"nc"` for `head`); a
    /// letter followed by `?` takes an optional one, attached only
    /// (`"efli?"` for `sed`: `-i.bak`).
    pub short_args: &'static str,
    /// Long options (without `--`) that take a value.
    pub long_args: &'static [&'static str],
    /// Options whose value is a file or URL, and how it is touched.
    pub file_opts: &'static [(&'static str, Access)],
    /// Options that give the program, so the first operand is a file
    /// (`grep -e`, `awk -f`).
    pub program_opts: &'static [&'static str],
    /// Flags that make directory operands recursive.
    pub recursive: &'static [&'static str],
    /// Recursive whatever the flags (`rg`, `du`, `find`).
    pub always_recursive: bool,
    /// The operand taken when none is given (`rg` searches `.`), if any.
    pub default_operand: Option<&'static str>,
    pub operands: Operands,
    /// A known reading or listing command (plan mode), when it writes nothing.
    pub read_only: bool,
}

const fn spec(names: &'static [&'static str], operands: Operands, read_only: bool) -> Spec {
    Spec {
        names,
        short_args: "",
        long_args: &[],
        file_opts: &[],
        program_opts: &[],
        recursive: &[],
        always_recursive: false,
        default_operand: None,
        operands,
        read_only,
    }
}

use Access::{Delete, Fetch, List, Read, Write, WriteDir};
use Operands::{AfterMode, AfterProgram, All, Custom, InOut, Link, Move};

const GREP_LONG: &[&str] = &[
    "regexp",
    "file",
    "max-count",
    "after-context",
    "before-context",
    "context",
    "label",
    "include",
    "exclude",
    "exclude-dir",
    "exclude-from",
    "binary-files",
    "devices",
    "directories",
    "group-separator",
];
const RG_LONG: &[&str] = &[
    "regexp",
    "file",
    "glob",
    "iglob",
    "type",
    "type-not",
    "type-add",
    "type-clear",
    "max-count",
    "after-context",
    "before-context",
    "context",
    "replace",
    "max-depth",
    "encoding",
    "ignore-file",
    "pre",
    "pre-glob",
    "colors",
    "sort",
    "sortr",
    "path-separator",
    "max-filesize",
    "threads",
    "dfa-size-limit",
    "regex-size-limit",
    "context-separator",
    "field-match-separator",
    "field-context-separator",
    "max-columns",
    "engine",
    "color",
    "hostname-bin",
    "hyperlink-format",
    "generate",
];

/// The commands whose operands are known. Names are matched after the
/// directory part of the command is removed (`/bin/cat` is `cat`).
#[rustfmt::skip]
pub(crate) static SPECS: &[Spec] = &[
    // Readers.
    Spec { short_args: "", ..spec(&["cat", "rev", "base32", "zcat", "bzcat", "xzcat", "zless", "zmore", "lzcat", "zstdcat"], All(Read), true) },
    Spec { short_args: "nc", long_args: &["lines", "bytes"], ..spec(&["head"], All(Read), true) },
    Spec { short_args: "ncs", long_args: &["lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"], ..spec(&["tail"], All(Read), true) },
    Spec { short_args: "bhjkpPtTxyz", long_args: &["log-file", "LOG-FILE", "tag", "pattern", "prompt", "tabs", "jump-target", "shift"], file_opts: &[("-o", Write), ("-O", Write), ("--log-file", Write), ("--LOG-FILE", Write), ("-k", Read), ("--lesskey-file", Read)], ..spec(&["less"], All(Read), true) },
    Spec { short_args: "n", long_args: &["lines"], ..spec(&["more", "most"], All(Read), true) },
    Spec { short_args: "bdfhilnsvw", long_args: &["body-numbering", "section-delimiter", "footer-numbering", "header-numbering", "line-increment", "join-blank-lines", "number-format", "number-separator", "starting-line-number", "number-width"], ..spec(&["nl"], All(Read), true) },
    Spec { short_args: "s", long_args: &["separator"], ..spec(&["tac"], All(Read), true) },
    Spec { file_opts: &[("--files0-from", Read)], ..spec(&["wc"], All(Read), true) },
    Spec { short_args: "kotST", long_args: &["key", "output", "field-separator", "buffer-size", "temporary-directory", "parallel", "batch-size", "files0-from", "compress-program", "random-source", "sort"], file_opts: &[("-o", Write), ("--output", Write), ("--files0-from", Read), ("--random-source", Read)], ..spec(&["sort"], All(Read), true) },
    Spec { short_args: "fsw", long_args: &["skip-fields", "skip-chars", "check-chars"], ..spec(&["uniq"], InOut, true) },
    Spec { short_args: "bcdf", long_args: &["bytes", "characters", "delimiter", "fields", "output-delimiter"], ..spec(&["cut"], All(Read), true) },
    Spec { short_args: "d", long_args: &["delimiters"], ..spec(&["paste"], All(Read), true) },
    Spec { long_args: &["output-delimiter"], ..spec(&["comm"], All(Read), true) },
    Spec { short_args: "aejotv12", ..spec(&["join"], All(Read), true) },
    Spec { short_args: "w", long_args: &["width"], ..spec(&["fold", "fmt", "column", "expand", "unexpand"], All(Read), true) },
    Spec { short_args: "efmABCdD", long_args: GREP_LONG, file_opts: &[("-f", Read), ("--file", Read), ("--exclude-from", Read)], program_opts: &["-e", "--regexp", "-f", "--file"], recursive: &["-r", "-R", "--recursive", "--dereference-recursive"], ..spec(&["grep", "egrep", "fgrep", "zgrep"], AfterProgram, true) },
    Spec { short_args: "efgmtTABCjMrEd", long_args: RG_LONG, file_opts: &[("-f", Read), ("--file", Read), ("--ignore-file", Read)], program_opts: &["-e", "--regexp", "-f", "--file", "--files", "--type-list"], always_recursive: true, default_operand: Some("."), ..spec(&["rg"], AfterProgram, true) },
    Spec { short_args: "ABCGgmp", long_args: &["after", "before", "context", "file-search-regex", "max-count", "path-to-ignore", "ignore", "ignore-dir", "depth", "pager"], file_opts: &[("-p", Read), ("--path-to-ignore", Read)], always_recursive: true, default_operand: Some("."), ..spec(&["ag"], AfterProgram, true) },
    Spec { short_args: "fvFEilW", long_args: &["file", "assign", "field-separator", "exec", "include", "load", "source"], file_opts: &[("-f", Read), ("--file", Read), ("-E", Read), ("--exec", Read), ("-i", Read), ("--include", Read)], program_opts: &["-f", "--file", "-E", "--exec", "--source"], ..spec(&["awk", "gawk", "mawk", "nawk", "busybox-awk"], AfterProgram, true) },
    Spec { short_args: "efli?", long_args: &["expression", "file", "line-length"], file_opts: &[("-f", Read), ("--file", Read)], program_opts: &["-e", "--expression", "-f", "--file"], ..spec(&["sed", "gsed"], AfterProgram, true) },
    Spec { short_args: "CUFILSxXDW", long_args: &["show-function-line", "ignore-matching-lines", "label", "starting-file", "exclude", "exclude-from", "ifdef", "width", "tabsize", "line-format", "from-file", "to-file", "palette", "horizon-lines", "old-line-format", "new-line-format", "unchanged-line-format", "group-format"], file_opts: &[("-X", Read), ("--exclude-from", Read), ("--from-file", Read), ("--to-file", Read)], recursive: &["-r", "--recursive"], ..spec(&["diff", "colordiff"], All(Read), true) },
    Spec { short_args: "in", long_args: &["ignore-initial", "bytes"], ..spec(&["cmp"], All(Read), true) },
    Spec { short_args: "w", long_args: &["wrap"], file_opts: &[("-o", Write), ("--output", Write), ("-i", Read), ("--input", Read)], ..spec(&["base64"], All(Read), true) },
    Spec { short_args: "w", long_args: &["wrap"], ..spec(&["basenc"], All(Read), true) },
    Spec { short_args: "", ..spec(&["tsort"], All(Read), true) },
    Spec { short_args: "cglnos", long_args: &["cols", "groupsize", "len", "name", "seek"], ..spec(&["xxd"], InOut, true) },
    Spec { short_args: "AjNtS", long_args: &["address-radix", "skip-bytes", "read-bytes", "format", "endian"], file_opts: &[("-f", Read), ("--format-file", Read)], ..spec(&["od", "hexdump", "hd"], All(Read), true) },
    Spec { short_args: "ntesT", long_args: &["bytes", "radix", "encoding", "target", "output-separator"], ..spec(&["strings"], All(Read), true) },
    Spec { short_args: "lHrmd", long_args: &["language", "highlight-line", "line-range", "map-syntax", "tabs", "wrap", "terminal-width", "theme", "style", "decorations", "color", "italic-text", "file-name", "diff-context", "ignored-suffix", "nonprintable-notation", "binary", "pager"], ..spec(&["bat", "batcat"], All(Read), true) },
    Spec { short_args: "fto", long_args: &["from-code", "to-code", "output"], file_opts: &[("-o", Write), ("--output", Write)], ..spec(&["iconv"], All(Read), true) },
    Spec { short_args: "DhlNowW", long_args: &["date-format", "header", "length", "first-line-number", "indent", "width", "page-width"], ..spec(&["pr"], All(Read), true) },
    Spec { short_args: "t", ..spec(&["look"], AfterProgram, true) },
    Spec { short_args: "nioe", long_args: &["head-count", "input-range", "output", "random-source"], file_opts: &[("-o", Write), ("--output", Write), ("--random-source", Read)], ..spec(&["shuf"], All(Read), true) },
    Spec { short_args: "abCln", long_args: &["suffix-length", "additional-suffix", "bytes", "line-bytes", "lines", "number", "separator", "filter"], ..spec(&["split"], InOut, false) },
    Spec { short_args: "bfn", long_args: &["suffix-format", "prefix", "digits"], file_opts: &[("-f", Write), ("--prefix", Write)], ..spec(&["csplit"], Custom, false) },
    Spec { short_args: "ruoz", long_args: &["recipient", "local-user", "output", "passphrase", "passphrase-file", "homedir", "default-key", "cipher-algo", "digest-algo", "compress-algo", "trust-model", "keyring", "secret-keyring", "import-options", "export-options", "keyserver", "hidden-recipient", "encrypt-to"], file_opts: &[("-o", Write), ("--output", Write), ("--passphrase-file", Read)], ..spec(&["gpg", "gpg2"], All(Read), false) },
    Spec { short_args: "", ..spec(&["openssl"], Custom, false) },
    Spec { short_args: "", ..spec(&["vim", "vi", "nvim", "view", "vimdiff", "nano", "pico", "emacs", "micro", "ed", "ex"], Custom, false) },
    Spec { short_args: "fmFeP", long_args: &["files-from", "magic-file", "separator", "exclude", "parameter"], file_opts: &[("-f", Read), ("--files-from", Read), ("-m", Read), ("--magic-file", Read)], ..spec(&["file"], All(Read), true) },
    Spec { short_args: "c", long_args: &["format", "printf"], ..spec(&["stat"], All(List), true) },
    Spec { short_args: "", ..spec(&["md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "shasum"], All(Read), true) },
    Spec { short_args: "L", long_args: &["indent", "tab", "from-file", "arg", "argjson", "slurpfile", "rawfile", "args", "jsonargs"], program_opts: &["-f", "--from-file"], file_opts: &[("-f", Read), ("--from-file", Read)], ..spec(&["jq", "gojq", "jaq"], Custom, true) },
    Spec { short_args: "opIPs", long_args: &["output-format", "input-format", "indent", "from-file", "expression", "front-matter", "split-exp"], file_opts: &[("--from-file", Read)], ..spec(&["yq"], Custom, true) },
    // Listings (`ls -R`, `du`, `tree`, and `find`, `fd` below) show names and
    // sizes, never contents: like the Glob and LS tools, they are plain reads
    // of the directories named, not recursive reads of everything beneath.
    Spec { short_args: "IwT", long_args: &["ignore", "hide", "width", "tabsize", "format", "sort", "time-style", "time", "quoting-style", "indicator-style", "block-size"], recursive: &["-R", "--recursive"], ..spec(&["ls", "dir", "vdir"], All(List), true) },
    // Their configuration files and git integration are not tabled: what
    // they are given is read.
    Spec { short_args: "IwT", long_args: &["ignore", "hide", "width", "tabsize", "format", "sort", "time-style", "time", "quoting-style", "indicator-style", "block-size"], ..spec(&["exa", "eza", "lsd"], All(Read), true) },
    Spec { short_args: "BdtX", long_args: &["block-size", "max-depth", "threshold", "exclude-from", "exclude", "files0-from", "time-style", "time"], file_opts: &[("-X", Read), ("--exclude-from", Read), ("--files0-from", Read), ("-o", Write), ("-f", Read)], default_operand: Some("."), ..spec(&["du", "ncdu", "dust"], All(List), true) },
    // `--hintro`/`--houtro` copy a file into the output; `--fromfile`
    // (in `effects`) reads its operands as lists of paths.
    Spec { short_args: "LPIoTH", long_args: &["filelimit", "timefmt", "charset", "sort"], file_opts: &[("-o", Write), ("--gitfile", Read), ("--infofile", Read), ("--hintro", Read), ("--houtro", Read)], default_operand: Some("."), always_recursive: true, ..spec(&["tree"], All(List), true) },
    Spec { short_args: "", ..spec(&["readlink", "realpath", "test", "[", "[["], Operands::None, true) },
    Spec { short_args: "", ..spec(&["source", "."], Custom, false) },
    Spec { short_args: "HLPDO", ..spec(&["find"], Custom, true) },
    Spec { short_args: "", ..spec(&["perl", "ruby"], Custom, false) },
    Spec { short_args: "", ..spec(&["fd", "fdfind"], Custom, true) },
    // Writers.
    Spec { recursive: &["-r", "-R", "--recursive"], ..spec(&["rm"], All(Delete), false) },
    Spec { ..spec(&["rmdir", "unlink"], All(Delete), false) },
    Spec { short_args: "ns", long_args: &["iterations", "size", "random-source"], ..spec(&["shred"], All(Write), false) },
    Spec { short_args: "tS", long_args: &["target-directory", "suffix"], ..spec(&["mv"], Move, false) },
    Spec { short_args: "tS", long_args: &["target-directory", "suffix", "sparse", "no-preserve"], recursive: &["-r", "-R", "-a", "--recursive", "--archive"], ..spec(&["cp"], Operands::Copy, false) },
    Spec { short_args: "tSmog", long_args: &["target-directory", "suffix", "mode", "owner", "group", "strip-program"], ..spec(&["install"], Operands::Copy, false) },
    Spec { short_args: "tS", long_args: &["target-directory", "suffix"], ..spec(&["ln", "link"], Link, false) },
    Spec { short_args: "rdt", long_args: &["reference", "date", "time"], file_opts: &[("-r", Read), ("--reference", Read)], ..spec(&["touch"], All(Write), false) },
    Spec { short_args: "m", long_args: &["mode", "context"], ..spec(&["mkdir", "mkfifo", "mknod"], All(Write), false) },
    Spec { short_args: "sr", long_args: &["size", "reference"], file_opts: &[("-r", Read), ("--reference", Read)], ..spec(&["truncate"], All(Write), false) },
    Spec { short_args: "", long_args: &["output-error"], ..spec(&["tee"], All(Write), false) },
    Spec { file_opts: &[("--reference", Read)], recursive: &["-R", "--recursive"], ..spec(&["chmod", "chown", "chgrp", "chattr", "setfacl"], AfterMode, false) },
    Spec { short_args: "S", long_args: &["suffix"], ..spec(&["gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "compress", "uncompress", "lz4", "pigz", "unpigz", "pbzip2", "lbzip2"], Custom, false) },
    Spec { short_args: "oS", long_args: &["output", "suffix"], file_opts: &[("-o", Write), ("--output", Write)], ..spec(&["lzip", "plzip", "lzop", "brotli", "unbrotli"], Custom, false) },
    Spec { short_args: "o", long_args: &["output"], file_opts: &[("-o", Write), ("--output", Write)], ..spec(&["zstd", "unzstd"], Custom, false) },
    Spec { ..spec(&["dd"], Custom, false) },
    Spec { short_args: "iodpBFgrVYzD", long_args: &["input", "output", "directory", "strip", "prefix", "fuzz", "get", "reject-file", "version-control", "basename-prefix", "suffix", "ifdef", "quoting-style"], file_opts: &[("-i", Read), ("--input", Read), ("-o", Write), ("--output", Write), ("-r", Write), ("--reject-file", Write)], ..spec(&["patch"], Custom, false) },
    Spec { short_args: "fCTXbIKNgLVH", long_args: &["file", "directory", "files-from", "exclude-from", "blocking-factor", "use-compress-program", "starting-file", "newer", "newer-mtime", "listed-incremental", "tape-length", "label", "format", "exclude", "to-command", "checkpoint-action", "info-script", "new-volume-script", "transform", "xform", "owner", "group", "mode", "mtime", "strip-components", "suffix", "index-file", "volno-file", "rmt-command", "rsh-command", "group-map", "owner-map"], ..spec(&["tar", "bsdtar", "gtar"], Custom, false) },
    Spec { short_args: "dxPOI", ..spec(&["unzip"], Custom, false) },
    Spec { short_args: "DFIOEHMRs", long_args: &["directory", "file", "format", "pattern-file", "message", "owner", "block-size", "io-size", "rsh-command", "to-stdout"], ..spec(&["cpio"], Custom, false) },
    Spec { ..spec(&["ar", "7z", "7za", "7zr", "pax"], Custom, false) },
    Spec { short_args: "", ..spec(&["zip"], Custom, false) },
    // Fetchers.
    Spec { short_args: "oTdFHXuAebcDKmwxrECyYzUQtP", long_args: &["output", "upload-file", "data", "data-binary", "data-raw", "data-urlencode", "data-ascii", "json", "form", "form-string", "header", "request", "user", "user-agent", "referer", "cookie", "cookie-jar", "dump-header", "config", "max-time", "write-out", "proxy", "range", "cert", "key", "cacert", "capath", "continue-at", "speed-limit", "speed-time", "time-cond", "proxy-user", "quote", "telnet-option", "url", "output-dir", "retry", "retry-delay", "retry-max-time", "connect-timeout", "resolve", "connect-to", "interface", "limit-rate", "max-filesize", "max-redirs", "netrc-file", "trace", "trace-ascii", "stderr", "libcurl", "etag-save", "etag-compare", "hsts", "alt-svc", "unix-socket", "abstract-unix-socket", "variable", "oauth2-bearer", "proto", "proto-redir", "ciphers", "key-type", "cert-type", "pass", "crlfile", "pinnedpubkey", "preproxy", "proxy-header", "aws-sigv4", "create-file-mode", "expect100-timeout", "happy-eyeballs-timeout-ms", "keepalive-time", "local-port", "mail-from", "mail-rcpt", "mail-auth", "noproxy", "parallel-max", "socks4", "socks4a", "socks5", "socks5-hostname", "tls-max", "tlsuser", "tlspassword", "ftp-port", "krb", "login-options", "sasl-authzid", "service-name", "dns-servers", "doh-url", "ip-tos", "vlan-priority", "proxy1.0", "proxy-cacert", "proxy-capath", "proxy-cert", "proxy-key", "proxy-crlfile", "proxy-pinnedpubkey", "proxy-cert-type", "proxy-key-type", "proxy-pass", "proxy-ciphers", "proxy-tls13-ciphers", "proxy-tlsuser", "proxy-tlspassword", "proxy-tlsauthtype", "proxy-service-name", "tls13-ciphers", "tlsauthtype", "curves", "url-query", "ssl-sessions", "knownhosts", "pubkey", "hostpubsha256", "hostpubmd5", "trace-config", "ech", "request-target", "socks5-gssapi-service", "rate", "egd-file", "random-file", "engine", "delegation", "ftp-account", "ftp-alternative-to-user", "ftp-method", "ftp-ssl-ccc-mode", "proto-default", "haproxy-clientip"], file_opts: &[("-o", Write), ("--output", Write), ("-T", Read), ("--upload-file", Read), ("-c", Write), ("--cookie-jar", Write), ("-D", Write), ("--dump-header", Write), ("-K", Read), ("--config", Read), ("-E", Read), ("--cert", Read), ("--key", Read), ("--cacert", Read), ("--netrc-file", Read), ("--trace", Write), ("--trace-ascii", Write), ("--stderr", Write), ("--libcurl", Write), ("--etag-save", Write), ("--etag-compare", Read), ("--url", Fetch), ("--output-dir", WriteDir), ("--capath", Read), ("--crlfile", Read), ("--proxy-cacert", Read), ("--proxy-capath", Read), ("--proxy-cert", Read), ("--proxy-key", Read), ("--proxy-crlfile", Read), ("--knownhosts", Read), ("--pubkey", Read), ("--doh-url", Fetch), ("--egd-file", Read), ("--random-file", Read)], ..spec(&["curl"], Custom, false) },
    Spec { short_args: "OoaPieUtTwQlARDIXBh", long_args: &["output-document", "output-file", "append-output", "directory-prefix", "input-file", "post-file", "body-file", "load-cookies", "save-cookies", "user", "password", "http-user", "http-password", "header", "user-agent", "tries", "timeout", "wait", "level", "accept", "reject", "domains", "include-directories", "exclude-directories", "base", "execute", "ca-certificate", "certificate", "private-key", "method", "post-data", "body-data", "referer", "config", "quota", "limit-rate", "waitretry", "bind-address", "dns-timeout", "connect-timeout", "read-timeout", "restrict-file-names", "cut-dirs", "default-page", "progress", "accept-regex", "reject-regex", "regex-type", "exclude-domains", "warc-file", "rejected-log", "ca-directory", "crl-file", "ciphers", "secure-protocol", "local-encoding", "remote-encoding", "e-robots", "hsts-file", "input-metalink", "warc-dedup", "warc-header", "warc-max-size", "warc-tempdir", "cut-dirs", "preferred-location", "proxy-user", "proxy-password", "ftp-user", "ftp-password", "dns-servers", "bind-dns-address", "start-pos", "retry-on-http-error", "report-speed", "certificate-type", "private-key-type", "pinnedpubkey", "random-file", "egd-file", "compression", "max-redirect", "follow-tags", "ignore-tags", "exclude-directories", "accept-regex"], file_opts: &[("-O", Write), ("--output-document", Write), ("-o", Write), ("--output-file", Write), ("-a", Write), ("--append-output", Write), ("-P", WriteDir), ("--directory-prefix", WriteDir), ("-i", Read), ("--input-file", Read), ("--post-file", Read), ("--body-file", Read), ("--load-cookies", Read), ("--save-cookies", Write), ("--ca-certificate", Read), ("--certificate", Read), ("--private-key", Read), ("--config", Read), ("--warc-file", Write), ("--rejected-log", Write), ("--ca-directory", Read), ("--crl-file", Read), ("--input-metalink", Read), ("--warc-dedup", Read), ("--warc-tempdir", WriteDir), ("--random-file", Read), ("--egd-file", Read)], ..spec(&["wget", "wget2"], Custom, false) },
    Spec { short_args: "doixsjkU", long_args: &["dir", "out", "input-file", "max-connection-per-server", "split", "max-concurrent-downloads", "min-split-size", "user-agent", "header", "save-session", "conf-path", "log", "checksum", "referer", "load-cookies", "save-cookies", "torrent-file", "metalink-file"], file_opts: &[("-d", WriteDir), ("--dir", WriteDir), ("-o", Write), ("--out", Write), ("-i", Read), ("--input-file", Read), ("--save-session", Write), ("--conf-path", Read), ("-l", Write), ("--log", Write), ("--load-cookies", Read), ("--save-cookies", Write), ("-T", Read), ("--torrent-file", Read), ("-M", Read), ("--metalink-file", Read)], ..spec(&["aria2c"], Custom, false) },
    Spec { short_args: "oaApsv", long_args: &["output", "session", "session-read-only", "auth", "auth-type", "verify", "cert", "cert-key", "cert-key-pass", "proxy", "timeout", "style", "print", "pretty", "format-options", "boundary", "max-redirects", "max-headers", "default-scheme", "ssl", "ciphers", "history-print", "unsorted", "response-charset", "response-mime", "raw"], file_opts: &[("-o", Write), ("--output", Write), ("--session", Write), ("--session-read-only", Read), ("--cert", Read), ("--cert-key", Read)], ..spec(&["http", "https", "xh", "xhs", "httpie"], Custom, false) },
    Spec { short_args: "", ..spec(&["git"], Custom, false) },
    Spec { short_args: "cDFiJloPSX", file_opts: &[("-F", Read), ("-i", Read)], recursive: &["-r"], ..spec(&["scp"], Custom, false) },
    Spec { short_args: "efTBM", long_args: &["rsh", "rsync-path", "exclude", "include", "exclude-from", "include-from", "files-from", "password-file", "log-file", "log-file-format", "backup-dir", "suffix", "temp-dir", "compare-dest", "copy-dest", "link-dest", "chmod", "chown", "usermap", "groupmap", "timeout", "contimeout", "port", "bwlimit", "max-size", "min-size", "max-delete", "partial-dir", "filter", "out-format", "info", "debug", "iconv", "block-size", "modify-window", "address", "sockopts", "outbuf", "checksum-choice", "compress-choice", "compress-level", "skip-compress", "stop-after", "stop-at", "write-batch", "only-write-batch", "read-batch", "protocol", "remote-option"], file_opts: &[("--exclude-from", Read), ("--include-from", Read), ("--files-from", Read), ("--password-file", Read), ("--log-file", Write), ("--write-batch", Write), ("--only-write-batch", Write), ("--read-batch", Read)], recursive: &["-r", "-a", "--recursive", "--archive"], ..spec(&["rsync"], Custom, false) },
    Spec { short_args: "BbcDEeFIiJLlmOopQRSWw", file_opts: &[("-F", Read), ("-i", Read), ("-E", Write)], ..spec(&["ssh"], Custom, false) },
    Spec { short_args: "BbcDFiJlloPRSsX", file_opts: &[("-F", Read), ("-i", Read), ("-b", Read)], ..spec(&["sftp"], Custom, false) },
    // Commands with no file operands that only read or print.
    Spec { short_args: "", ..spec(&["echo", "printf", "pwd", "true", "false", ":", "which", "type", "whereis", "whoami", "id", "uname", "printenv", "seq", "expr", "basename", "dirname", "sleep", "cd", "pushd", "popd", "dirs", "ps", "free", "uptime", "df", "nproc", "locale", "tty", "groups", "arch", "cal", "jobs", "help", "lsb_release", "getconf", "tr", "yes", "wait", "hash", "history", "command", "env", "numfmt", "factor", "lscpu", "lsblk", "whatis", "apropos", "man", "tput", "logname", "users", "who", "w", "last", "stty", "shopt", "set", "ulimit", "umask", "dc"], Operands::None, true) },
    // Declarations: their `NAME=value` operands are variables, given to
    // later commands (`crate::environ`), never files.
    Spec { short_args: "", ..spec(&["export", "declare", "typeset", "local", "readonly", "unset"], Operands::None, false) },
    Spec { short_args: "dfrsI?", long_args: &["date", "file", "reference", "set"], file_opts: &[("-f", Read), ("--file", Read), ("-r", Read), ("--reference", Read)], ..spec(&["date"], Operands::None, true) },
    Spec { short_args: "F", long_args: &["file"], file_opts: &[("-F", Read), ("--file", Read)], ..spec(&["hostname"], Operands::None, true) },
    Spec { ..spec(&["bc"], All(Read), true) },
    Spec { short_args: "odnf", long_args: &["output", "dribble", "restore", "init-file", "directory", "node", "file"], file_opts: &[("-o", Write), ("--output", Write), ("--dribble", Write), ("--restore", Read), ("--init-file", Read), ("-f", Read), ("--file", Read)], ..spec(&["info"], Custom, true) },
];

/// What the tables say about one command name, gathered from all of them
/// (once a process has looked up enough names, from one map).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Known {
    /// Its entry in [`SPECS`].
    pub spec: Option<&'static Spec>,
    /// Its entry in [`WRAPPERS`].
    pub wrapper: Option<&'static Wrapper>,
    /// In [`PRIVILEGE`].
    pub privilege: bool,
    /// In [`SHELLS`].
    pub shell: bool,
    /// In [`INTERPRETERS`].
    pub interpreter: bool,
    /// In [`FETCHERS`].
    pub fetcher: bool,
    /// In [`POWER`].
    pub power: bool,
}

/// FNV-1a: the tables' keys are a few hundred short names fixed at build
/// time, looked up several times per command, so a simple hash beats the
/// default DoS-resistant one (nothing an attacker writes goes into a table;
/// only lookups come from input).
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

type FnvMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

/// Lookups a process answers by scanning the tables before it builds the
/// map: a hook process (one command line, a handful of lookups) never
/// builds it; a long-lived host soon has it.
const SCANNED_LOOKUPS: u32 = 16;

/// Looks a command name (without its directory) up in every table.
pub(crate) fn known(name: &str) -> Known {
    static MAP: OnceLock<FnvMap<&'static str, Known>> = OnceLock::new();
    static LOOKUPS: AtomicU32 = AtomicU32::new(0);
    if MAP.get().is_none() && LOOKUPS.fetch_add(1, Ordering::Relaxed) < SCANNED_LOOKUPS {
        return scan(name);
    }
    MAP.get_or_init(build_map)
        .get(name)
        .copied()
        .unwrap_or_default()
}

/// What the tables say about `name`, read from each in turn: the same
/// answer as the map's.
fn scan(name: &str) -> Known {
    Known {
        // The first spec naming a command is the one that applies.
        spec: SPECS.iter().find(|s| s.names.contains(&name)),
        // A later wrapper entry of the same name replaces an earlier one.
        wrapper: WRAPPERS.iter().rfind(|w| w.0 == name),
        privilege: PRIVILEGE.contains(&name),
        shell: SHELLS.contains(&name),
        interpreter: INTERPRETERS.contains(&name),
        fetcher: FETCHERS.contains(&name),
        power: POWER.contains(&name),
    }
}

fn build_map() -> FnvMap<&'static str, Known> {
    // Sized once: growing it (rehashing every name) was a visible share of
    // a run.
    let names = SPECS.iter().map(|s| s.names.len()).sum::<usize>()
        + WRAPPERS.len()
        + PRIVILEGE.len()
        + SHELLS.len()
        + INTERPRETERS.len()
        + FETCHERS.len()
        + POWER.len();
    let mut map: FnvMap<&'static str, Known> =
        FnvMap::with_capacity_and_hasher(names, BuildHasherDefault::default());
    for spec in SPECS {
        for name in spec.names {
            // The first spec naming a command is the one that applies.
            let k = map.entry(name).or_default();
            k.spec = k.spec.or(Some(spec));
        }
    }
    for w in WRAPPERS {
        map.entry(w.0).or_default().wrapper = Some(w);
    }
    for name in PRIVILEGE {
        map.entry(name).or_default().privilege = true;
    }
    for name in SHELLS {
        map.entry(name).or_default().shell = true;
    }
    for name in INTERPRETERS {
        map.entry(name).or_default().interpreter = true;
    }
    for name in FETCHERS {
        map.entry(name).or_default().fetcher = true;
    }
    for name in POWER {
        map.entry(name).or_default().power = true;
    }
    map
}

/// Whether assigning `var` can change what later commands do
/// ([`crate::environ`]).
pub(crate) fn changes_what_runs(var: &str) -> bool {
    crate::environ::matters(var)
}

/// Whether `git SUB` only reads ([`GIT_READ_ONLY`]).
pub(crate) fn git_read_only(sub: &str) -> bool {
    GIT_READ_ONLY.contains(&sub)
}

/// A wrapper: name, short options taking a value, long options taking a
/// value, and how many leading operands belong to the wrapper.
pub(crate) type Wrapper = (&'static str, &'static str, &'static [&'static str], usize);

/// Wrappers: commands that run the rest of their arguments as a command.
pub(crate) static WRAPPERS: &[Wrapper] = &[
    ("timeout", "sk", &["signal", "kill-after"], 1),
    ("nice", "n", &["adjustment"], 0),
    ("nohup", "", &[], 0),
    ("stdbuf", "ioe", &["input", "output", "error"], 0),
    ("time", "fo", &["format", "output"], 0),
    ("command", "", &[], 0),
    ("builtin", "", &[], 0),
    ("exec", "a", &[], 0),
    ("setsid", "", &[], 0),
    ("ionice", "cnp", &["class", "classdata", "pid"], 0),
    (
        "chrt",
        "TPD",
        &["sched-runtime", "sched-period", "sched-deadline"],
        1,
    ),
    ("taskset", "", &[], 1),
    ("caffeinate", "tw", &[], 0),
    ("unbuffer", "", &[], 0),
    // sshpass(1): `-f FILE`, `-d FD`, `-p PASSWORD`, `-P PROMPT`.
    ("sshpass", "fdpP", &[], 0),
    // moreutils' `chronic` and `ifne` run the command they are given.
    ("chronic", "", &[], 0),
    ("ifne", "", &[], 0),
    // Run the command with a display, a session bus, a faked root or
    // clock, through a proxy, or under a memory checker.
    (
        "xvfb-run",
        "nsfepw",
        &[
            "server-num",
            "server-args",
            "auth-file",
            "error-file",
            "xauth-protocol",
            "wait",
        ],
        0,
    ),
    ("dbus-run-session", "", &["config-file", "dbus-daemon"], 0),
    ("fakeroot", "lsib", &["lib", "faked"], 0),
    ("faketime", "", &["date-prog"], 1),
    ("torsocks", "uPpa", &["user", "pass", "address", "port"], 0),
    ("proxychains", "f", &[], 0),
    ("proxychains4", "f", &[], 0),
    ("catchsegv", "", &[], 0),
    ("valgrind", "", &[], 0),
    // Tracers run the command they are given.
    (
        "strace",
        "abeEIoOpPsSUuX",
        &[
            "output",
            "trace",
            "signal",
            "status",
            "env",
            "attach",
            "string-limit",
            "summary-sort-by",
            "user",
            "trace-path",
            "columns",
            "const-print-style",
        ],
        0,
    ),
    (
        "ltrace",
        "aAeFlnopsuwxDI",
        &["output", "library", "indent", "align"],
        0,
    ),
    // Namespaces, roots and sandboxes run the command inside.
    ("nsenter", "tSG", &["target", "setuid", "setgid"], 0),
    (
        "unshare",
        "SGRw",
        &[
            "propagation",
            "setgroups",
            "map-user",
            "map-group",
            "map-users",
            "map-groups",
            "setuid",
            "setgid",
            "root",
            "wd",
            "monotonic",
            "boottime",
        ],
        0,
    ),
    ("chroot", "", &["userspec", "groups"], 1),
    ("firejail", "", &[], 0),
    (
        "systemd-run",
        "upEHMC",
        &[
            "unit",
            "property",
            "description",
            "slice",
            "uid",
            "gid",
            "nice",
            "working-directory",
            "setenv",
            "on-active",
            "on-boot",
            "on-startup",
            "on-unit-active",
            "on-unit-inactive",
            "on-calendar",
            "timer-property",
            "path-property",
            "socket-property",
            "service-type",
            "machine",
            "host",
            "capsule",
        ],
        0,
    ),
    (
        "sudo",
        "ugCDhpPrtTUR",
        &[
            "user",
            "group",
            "close-from",
            "chdir",
            "host",
            "prompt",
            "role",
            "type",
            "other-user",
            "command-timeout",
            "chroot",
        ],
        0,
    ),
    ("doas", "uC", &[], 0),
    ("pkexec", "", &["user"], 0),
    (
        "run0",
        "u",
        &[
            "user",
            "property",
            "description",
            "slice",
            "setenv",
            "chdir",
        ],
        0,
    ),
];

/// Options of wrappers that load or run code of their choosing, or write
/// files (`fakeroot -l LIB`, `valgrind --log-file=F`): with one, what the
/// wrapper does is not analysed.
pub(crate) static WRAPPER_RISKY: &[(&str, &[&str])] = &[
    ("fakeroot", &["l", "lib", "faked"]),
    ("faketime", &["date-prog"]),
    ("dbus-run-session", &["dbus-daemon", "config-file"]),
    (
        "valgrind",
        &[
            "log-file",
            "xml-file",
            "log-socket",
            "xml-socket",
            "db-command",
            "vgdb-prefix",
        ],
    ),
    ("torsocks", &["shell"]),
];

/// The options without a value of the wrappers whose every option is
/// known: short letters and long names. Another option of one of these
/// (`strace --new-opt VALUE cmd`) might take a value, and then the word
/// taken for the command would not be the one that runs, so the command is
/// not analysed. Long options with an optional value (`--quiet=all`) are
/// flags here: their value can only be attached.
pub(crate) static WRAPPER_FLAGS: &[(&str, &str, &[&str])] = &[
    // Every option of the wrappers below is listed: an option that is not
    // (an abbreviation such as `time --out FILE`, which getopt_long reads
    // as `--output FILE`) makes the command unknown.
    (
        "timeout",
        "v",
        &[
            "foreground",
            "preserve-status",
            "verbose",
            "help",
            "version",
        ],
    ),
    ("nice", "0123456789", &["help", "version"]),
    ("nohup", "", &["help", "version"]),
    ("stdbuf", "", &["help", "version"]),
    (
        "time",
        "apvqV",
        &[
            "append",
            "portability",
            "verbose",
            "quiet",
            "help",
            "version",
        ],
    ),
    ("command", "pvV", &[]),
    ("builtin", "", &[]),
    ("exec", "cl", &[]),
    (
        "setsid",
        "cfwhV",
        &["ctty", "fork", "wait", "help", "version"],
    ),
    ("ionice", "thV", &["ignore", "help", "version"]),
    (
        "chrt",
        "abdfiormRpvhV",
        &[
            "all-tasks",
            "batch",
            "deadline",
            "fifo",
            "idle",
            "other",
            "rr",
            "reset-on-fork",
            "max",
            "pid",
            "verbose",
            "help",
            "version",
        ],
    ),
    (
        "taskset",
        "apchV",
        &["all-tasks", "pid", "cpu-list", "help", "version"],
    ),
    ("caffeinate", "dimsu", &[]),
    (
        "flock",
        "sxunoFhV",
        &[
            "shared",
            "exclusive",
            "unlock",
            "nonblock",
            "nb",
            "close",
            "no-fork",
            "verbose",
            "help",
            "version",
        ],
    ),
    ("unbuffer", "p", &[]),
    (
        "strace",
        "cCdDfFhiknqrtTvVwxyzZ",
        &[
            "summary-only",
            "summary",
            "summary-wall-clock",
            "debug",
            "daemonize",
            "follow-forks",
            "output-separately",
            "help",
            "instruction-pointer",
            "stack-trace",
            "syscall-number",
            "quiet",
            "relative-timestamps",
            "absolute-timestamps",
            "timestamps",
            "syscall-times",
            "no-abbrev",
            "version",
            "decode-fds",
            "decode-pids",
            "successful-only",
            "failed-only",
            "seccomp-bpf",
            "kill-on-exit",
            "always-show-pid",
            "raw",
            "verbose",
            "silence",
            "inject",
            "fault",
        ],
    ),
    (
        "ltrace",
        "bcCdfhiLrStTV",
        &["demangle", "help", "version", "no-signals"],
    ),
    (
        "nsenter",
        "aFmuinpUCTrwZ",
        &[
            "all",
            "mount",
            "uts",
            "ipc",
            "net",
            "pid",
            "user",
            "cgroup",
            "time",
            "root",
            "wd",
            "preserve-credentials",
            "no-fork",
            "follow-context",
            "user-parent",
            "keep-caps",
            "env",
        ],
    ),
    (
        "unshare",
        "muinpUCTfrc",
        &[
            "mount",
            "uts",
            "ipc",
            "net",
            "pid",
            "user",
            "cgroup",
            "time",
            "fork",
            "map-root-user",
            "map-current-user",
            "map-auto",
            "mount-proc",
            "mount-binfmt",
            "kill-child",
            "keep-caps",
        ],
    ),
    ("chroot", "", &["skip-chdir"]),
    (
        "systemd-run",
        "tPqGdrSh",
        &[
            "user",
            "system",
            "scope",
            "pty",
            "pipe",
            "quiet",
            "collect",
            "wait",
            "same-dir",
            "shell",
            "no-block",
            "no-ask-password",
            "remain-after-exit",
            "send-sighup",
            "expand-environment",
            "job-mode",
            "json",
        ],
    ),
];

/// [`WRAPPER_FLAGS`]' entry for `name`.
pub(crate) fn wrapper_flags(
    name: &str,
) -> Option<&'static (&'static str, &'static str, &'static [&'static str])> {
    WRAPPER_FLAGS.iter().find(|w| w.0 == name)
}

/// Commands that need privilege escalation: always a hard deny.
pub(crate) const PRIVILEGE: &[&str] = &["sudo", "doas", "su", "pkexec", "run0", "runuser"];

/// Shells: `-c SCRIPT` and their standard input are scripts analysed here.
pub(crate) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "rbash",
];

/// Other interpreters: their programs are not analysed, but one fetched
/// from the network is download-and-execute.
pub(crate) const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "php",
    "lua",
    "tclsh",
    "wish",
    "expect",
    "pwsh",
    "powershell",
    "osascript",
    "deno",
    "bun",
    "Rscript",
    "julia",
    "groovy",
    "jshell",
];

/// Programs that fetch from the network.
pub(crate) const FETCHERS: &[&str] = &[
    "curl", "wget", "wget2", "fetch", "http", "https", "xh", "xhs", "aria2c", "lynx", "links",
    "w3m", "nc", "ncat", "netcat", "socat", "scp", "sftp", "ftp", "tftp", "rsync", "httpie",
];

/// Programs with no operand table whose first operand is the name of one
/// of their subcommands (`cargo build`, `npm test`, `docker ps`), never a
/// file: it is not guessed to be one (the words after it still are).
pub(crate) const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "cargo",
    "rustup",
    "npm",
    "pnpm",
    "yarn",
    "go",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "gh",
    "glab",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "pipx",
    "conda",
    "apt",
    "apt-get",
    "apt-cache",
    "dnf",
    "yum",
    "brew",
    "systemctl",
    "terraform",
    "mvn",
    "gradle",
    "bundle",
    "gem",
    "composer",
    "mix",
    "stack",
    "cabal",
    "flutter",
    "nix",
    "snap",
    "flatpak",
    "ansible-galaxy",
    "kubeadm",
    "minikube",
    "vagrant",
    "heroku",
    "aws",
    "gcloud",
    "az",
    "doctl",
    "flyctl",
    "vercel",
    "netlify",
    "wrangler",
    "firebase",
    "supabase",
    "ollama",
    "hugo",
    "rails",
];

/// git's own commands (`git --list-cmds=main` of git 2.47, and those of
/// later releases and of the GUI packages): any other word is an alias
/// from git's configuration or a `git-NAME` program on `PATH`, either of
/// which can run anything. An alias cannot take one of these names.
pub(crate) const GIT_COMMANDS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archimport",
    "archive",
    "backfill",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout--worker",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "citool",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "credential-cache",
    "credential-cache--daemon",
    "credential-store",
    "cvsexportcommit",
    "cvsimport",
    "cvsserver",
    "daemon",
    "describe",
    "diagnose",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "difftool--helper",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "fsck-objects",
    "fsmonitor--daemon",
    "gc",
    "get-tar-commit-id",
    "gitk",
    "grep",
    "gui",
    "hash-object",
    "help",
    "hook",
    "http-backend",
    "http-fetch",
    "http-push",
    "imap-send",
    "index-pack",
    "init",
    "init-db",
    "instaweb",
    "interpret-trailers",
    "last-modified",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-octopus",
    "merge-one-file",
    "merge-ours",
    "merge-recursive",
    "merge-recursive-ours",
    "merge-recursive-theirs",
    "merge-resolve",
    "merge-subtree",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "p4",
    "pack-objects",
    "pack-redundant",
    "pack-refs",
    "patch-id",
    "pickaxe",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "quiltimport",
    "range-diff",
    "read-tree",
    "rebase",
    "receive-pack",
    "reflog",
    "refs",
    "remote",
    "remote-ext",
    "remote-fd",
    "remote-ftp",
    "remote-ftps",
    "remote-http",
    "remote-https",
    "repack",
    "replace",
    "replay",
    "repo",
    "request-pull",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "send-email",
    "send-pack",
    "sh-i18n--envsubst",
    "shell",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stage",
    "stash",
    "status",
    "stripspace",
    "submodule",
    "submodule--helper",
    "survey",
    "svn",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-file",
    "unpack-objects",
    "update-index",
    "update-ref",
    "update-server-info",
    "upload-archive",
    "upload-archive--writer",
    "upload-pack",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "web--browse",
    "whatchanged",
    "worktree",
    "write-tree",
];

/// git's global options (before the subcommand) that take the next word
/// as their value.
pub(crate) const GIT_GLOBAL_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--config-env",
    "--attr-source",
];

/// Why a git command is not analysed, if it is not: each serves the
/// repository to the network, talks to a remote in ways the words do not
/// show, runs a program or hooks, hands out stored credentials, or runs git
/// in repositories only configuration names (from git-daemon(1),
/// git-instaweb(1), gitcredentials(7), gitremote-helpers(7),
/// git-for-each-repo(1), git-maintenance(1) and the others' manuals).
pub(crate) fn git_unanalysed(sub: &str) -> Option<&'static str> {
    Some(match sub {
        "daemon" | "http-backend" | "instaweb" => {
            "serves repositories to the network (and runs the programs its options name)"
        }
        "web--browse" => "runs a web browser",
        "shell" => "is a login shell that runs the commands it is given",
        "http-fetch" | "http-push" | "imap-send" => {
            "talks to a server its configuration or options name"
        }
        "credential" | "credential-cache" | "credential-cache--daemon" | "credential-store" => {
            "hands out or stores credentials, through the helpers configuration names"
        }
        "for-each-repo" => "runs git in the repositories configuration lists",
        "receive-pack" => "runs the hooks of the repository it writes into",
        "submodule--helper" | "sh-setup" | "sh-i18n" | "mergetool--lib" | "difftool--helper"
        | "merge-one-file" | "merge-octopus" | "merge-resolve" => {
            "is git's internal helper, run by other commands with what they choose"
        }
        "p4" | "svn" | "cvsimport" | "cvsexportcommit" | "cvsserver" | "archimport"
        | "quiltimport" => "talks to another version control system, through its programs",
        _ if sub.starts_with("remote-") => {
            "is a remote helper: it connects to, or runs, what its input names"
        }
        _ => return None,
    })
}

/// Why a global option of git makes the command unanalysable, if it does:
/// each changes the configuration, repository, pager or programs git uses,
/// and a configuration or repository the command can reach (`-C DIR` with a
/// `.git` file pointing anywhere, `--git-dir` of a plain directory) can make
/// even `git status` run a program (`core.fsmonitor`, `core.pager`,
/// `diff.external`, filters). `.git/` of the workspace is protected, so git
/// without these options runs only the configuration a person approved.
pub(crate) fn git_global_risk(name: &str) -> Option<&'static str> {
    Some(match name {
        "-c" | "--config-env" => "sets configuration, which can make git run programs",
        "--exec-path" => "chooses the programs git runs",
        "-C" | "--git-dir" | "--work-tree" | "--bare" => {
            "runs git on another repository, whose configuration can make it run programs"
        }
        "--namespace" | "--super-prefix" | "--attr-source" => {
            "changes which refs, paths or attributes git uses"
        }
        "-p" | "--paginate" => "runs a pager chosen by configuration or the environment",
        _ => return None,
    })
}

/// `git` subcommands that only read, and the flags that make them write.
pub(crate) const GIT_READ_ONLY: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "rev-parse",
    "describe",
    "ls-files",
    "ls-tree",
    "blame",
    "shortlog",
    "cat-file",
    "rev-list",
    "show-ref",
    "grep",
    "whatchanged",
    "version",
    "help",
    "merge-base",
    "name-rev",
    "for-each-ref",
    "count-objects",
    "check-ignore",
    "diff-tree",
    "diff-files",
    "diff-index",
    "annotate",
    "show-branch",
    "var",
    "cherry",
];

/// `git` subcommands that list with no operands (or list flags) and write
/// with them.
pub(crate) const GIT_LISTING: &[(&str, &[&str])] = &[
    (
        "branch",
        &[
            "-a",
            "-r",
            "-l",
            "--list",
            "-v",
            "-vv",
            "--all",
            "--remotes",
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--show-current",
            "--points-at",
            "--sort",
            "--format",
            "--column",
            "--no-column",
            "--color",
            "--no-color",
        ],
    ),
    (
        "tag",
        &[
            "-l",
            "--list",
            "-n",
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
            "--sort",
            "--format",
            "--column",
        ],
    ),
    ("remote", &["-v", "--verbose", "show", "get-url"]),
    ("stash", &["list", "show"]),
    ("reflog", &["show"]),
    ("worktree", &["list"]),
    ("submodule", &["status", "summary"]),
];

/// Paths a redirect may write without writing a file.
pub(crate) const HARMLESS_DEVICES: &[&str] =
    &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// Programs that put a new file in their target's place (rename, unlink
/// and link, or unlink and create) rather than write through it, or may
/// (`cp --remove-destination`): a write of `/dev/null` by one of them is
/// a write.
pub(crate) const REPLACES_TARGET: &[&str] = &["mv", "ln", "install", "rsync", "cp", "link"];

/// Commands that switch the machine off.
pub(crate) const POWER: &[&str] = &["shutdown", "reboot", "poweroff", "halt"];

/// rustup's proxies: each runs the program of the toolchain a
/// `rust-toolchain.toml` (or `rust-toolchain`) above its directory names.
pub(crate) const RUSTUP_PROXIES: &[&str] = &[
    "cargo",
    "rustc",
    "rustdoc",
    "rustup",
    "rustfmt",
    "cargo-fmt",
    "cargo-clippy",
    "clippy-driver",
    "cargo-miri",
    "rust-analyzer",
    "rust-gdb",
    "rust-gdbgui",
    "rust-lldb",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_commands_are_sorted_for_the_binary_search() {
        assert!(GIT_COMMANDS.windows(2).all(|w| w[0] < w[1]));
    }

    fn same(a: Known, b: Known) -> bool {
        let spec = match (a.spec, b.spec) {
            (None, None) => true,
            (Some(x), Some(y)) => std::ptr::eq(x, y),
            _ => false,
        };
        let wrapper = match (a.wrapper, b.wrapper) {
            (None, None) => true,
            (Some(x), Some(y)) => std::ptr::eq(x, y),
            _ => false,
        };
        spec && wrapper
            && (a.privilege, a.shell, a.interpreter, a.fetcher, a.power)
                == (b.privilege, b.shell, b.interpreter, b.fetcher, b.power)
    }

    /// Scanning the tables and the map give the same answer for every name
    /// the tables hold, and for names they do not.
    #[test]
    fn the_scan_and_the_map_agree_on_every_name() {
        let map = build_map();
        let mut names: Vec<&str> = map.keys().copied().collect();
        names.extend(["", "gitx", "GIT", "rm ", "./rm", "bash\0"]);
        assert!(names.len() > 100, "the tables hold {} names", names.len());
        for name in names {
            let from_map = map.get(name).copied().unwrap_or_default();
            assert!(
                same(scan(name), from_map),
                "{name:?}: {:?} vs {from_map:?}",
                scan(name)
            );
        }
    }

    /// The files `cmd` touches by the tables, and whether anything of it
    /// is unknown.
    fn touched(cmd: &str) -> (Vec<(Access, String)>, bool) {
        let mut words = cmd.split_whitespace();
        let name = words.next().unwrap();
        let args: Vec<crate::words::Arg> = words.map(crate::words::Arg::lit).collect();
        let d = crate::effects::derive(name, &args);
        let found = d
            .found
            .iter()
            .map(|f| (f.access, f.arg.text.clone()))
            .collect();
        (found, !d.unknowns.is_empty())
    }

    fn reads(cmd: &str, file: &str) -> bool {
        touched(cmd).0.contains(&(Read, file.to_string()))
    }

    /// Flags and options whose value is optional (attached only) do not
    /// take the next word, which is the file read (each found by the
    /// differential test, `crates/policy/tests/differential.rs`).
    #[test]
    fn flags_and_optional_values_leave_the_next_word_an_operand() {
        for cmd in [
            "md5sum --tag s",
            "sha256sum --tag s",
            "b2sum --tag s",
            "cksum --tag s",
            "comm -1 s x",
            "comm -2 s x",
            "comm --check-order s x",
            "join --check-order s x",
            "diff --color s x",
            "diff --context s x",
            "diff --unified s x",
            "diff --unif s x",
            "pr --sep-string s",
            "uniq --group s",
            "uniq --all-repeated s",
            "od -w s",
            "od --width s",
            "od --strings s",
            "xxd -C s",
            "grep -e x --binary s",
        ] {
            assert!(reads(cmd, "s"), "{cmd}: {:?}", touched(cmd));
        }
        // The options that do take a value still do.
        assert!(!reads("join -1 s x", "s"));
        assert!(!reads("od -N s x", "s"));
        assert!(reads("diff --color=always s x", "s"));
    }

    /// A long option abbreviated to one or two letters is the option it
    /// abbreviates, as getopt_long reads it.
    #[test]
    fn short_abbreviations_of_long_options_count() {
        assert!(reads("wc --f=s", "s"));
        assert!(reads("du --f=s", "s"));
        assert!(reads("file --ma=s", "s"));
        assert!(reads("diff --to=s x y", "s"));
        assert!(touched("sort --o=s x").0.contains(&(Write, "s".into())));
        assert!(touched("sort --o s x").0.contains(&(Write, "s".into())));
        assert!(touched("shuf --o=s x").0.contains(&(Write, "s".into())));
        assert!(touched("sed --i p s").0.contains(&(Write, "s".into())));
        assert!(touched("sed --fi=s x").1, "a program read from a file");
        assert!(
            touched("tar -tf a.tar --vo s")
                .0
                .contains(&(Write, "s".into()))
        );
    }

    /// Options that read a file the tables did not know.
    #[test]
    fn options_that_read_a_file_read_it() {
        assert!(reads("tree --gitfile=s", "s"));
        assert!(reads("tree --infofile s", "s"));
        assert!(reads("tar -tf a.tar --group-map=s", "s"));
        assert!(reads("tar -tf a.tar --owner-map s", "s"));
        assert!(reads("tar -tf a.tar --group- s", "s"));
        for cmd in ["less -k s", "less -ks", "less --lesskey-file=s"] {
            let (found, unknown) = touched(cmd);
            assert!(found.contains(&(Read, "s".into())) && unknown, "{cmd}");
        }
        // A list of names: what it names is unknown.
        assert!(touched("file -f list").1);
        assert!(touched("file --files-from list").1);
        assert!(!touched("file x").1);
    }

    /// Past the scanned lookups, `known` answers from the map, the same.
    #[test]
    fn known_answers_alike_before_and_after_the_map() {
        for _ in 0..(SCANNED_LOOKUPS * 2) {
            assert!(same(known("git"), scan("git")));
            assert!(same(known("sudo"), scan("sudo")));
            assert!(same(known("no-such-command"), Known::default()));
        }
    }
}
