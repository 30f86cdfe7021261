//! GNU `parallel [OPTS] [CMD ARGS..] ::: VALUES..`: which of its options
//! take a value, which make it do more than run CMD once per value, and
//! what CMD means to it.
//!
//! The options are GNU parallel's own table (`options_completion_hash` in
//! `/usr/bin/parallel`, version 20221122), read as its Getopt::Long
//! configuration reads them (`bundling`, `require_order`; `--replace`,
//! `-i`, `--eof` and `-e` take the next word as an optional value unless it
//! starts with `-`, `--max-lines` and `-l` only when it is a number). Unless
//! `-q` is given, parallel joins CMD's words with spaces and hands the line
//! to a shell: a word that means more to a shell than itself (`';'`,
//! `'$(id)'`, `'*'`, `'a b'`) makes another command than the words say. The
//! tests run the real program (crates/shell/tests/parallel.rs).

use super::{Script, Step, opaque, texts};
use crate::words::Arg;

/// Short options that take a value, attached or in the next word.
const VALUE_SHORT: &str = "BEHILUWCDdjnsPNaSJ";
/// Short options whose value is optional: a string (`-i`, `-e`) or a
/// number (`-l`).
const OPTIONAL_SHORT: &str = "iel";
/// Short options without a value.
const FLAG_SHORT: &str = "TXYgmv0qkrpoutVxhM";

/// Long options that take a value (`--jobs 4`, `--jobs=4`).
const VALUE_LONG: &[&str] = &[
    "basefile",
    "bf",
    "basenameextensionreplace",
    "bner",
    "basenamereplace",
    "bnr",
    "block-size",
    "blocksize",
    "block",
    "block-timeout",
    "blocktimeout",
    "bt",
    "col-sep",
    "colsep",
    "ctag-string",
    "ctagstring",
    "debug",
    "delay",
    "delimiter",
    "dirnamereplace",
    "dnr",
    "env",
    "extensionreplace",
    "er",
    "halt-on-error",
    "haltonerror",
    "halt",
    "header",
    "jobs",
    "linkinputsource",
    "xapplyinputsource",
    "load",
    "max-args",
    "maxargs",
    "max-chars",
    "maxchars",
    "max-procs",
    "maxprocs",
    "max-replace-args",
    "maxreplaceargs",
    "memfree",
    "memsuspend",
    "min-version",
    "minversion",
    "nice",
    "recend",
    "recstart",
    "retries",
    "return",
    "rsync-opts",
    "rsyncopts",
    "semaphore-name",
    "semaphorename",
    "id",
    "semaphore-timeout",
    "semaphoretimeout",
    "st",
    "seqreplace",
    "shell-completion",
    "shellcompletion",
    "slotreplace",
    "ssh-delay",
    "sshdelay",
    "tag-string",
    "tagstring",
    "term-seq",
    "termseq",
    "timeout",
    "tmpdir",
    "tempdir",
    "total-jobs",
    "totaljobs",
    "total",
    "transfer-file",
    "transferfile",
    "transfer-files",
    "transferfiles",
    "tf",
    "trc",
    "trim",
];

/// Long options whose value is optional: a string (`--replace`, `--eof`)
/// or a number (`--max-lines`).
const OPTIONAL_STRING_LONG: &[&str] = &["replace", "eof"];
const OPTIONAL_NUMBER_LONG: &[&str] = &["max-lines", "maxlines"];

/// Long options without a value.
const FLAG_LONG: &[&str] = &[
    "bar",
    "bg",
    "bug",
    "cat",
    "cleanup",
    "color-failed",
    "colour-failed",
    "colorfailed",
    "colourfailed",
    "color-fail",
    "colour-fail",
    "colorfail",
    "colourfail",
    "cf",
    "color",
    "colour",
    "compress",
    "controlmaster",
    "csv",
    "ctag",
    "ctrl-c",
    "ctrlc",
    "dry-run",
    "dryrun",
    "dr",
    "embed",
    "eta",
    "exit",
    "fg",
    "fifo",
    "filter-hosts",
    "filterhosts",
    "filter-host",
    "gnu",
    "group",
    "help",
    "hgrp",
    "hostgrp",
    "hostgroup",
    "hostgroups",
    "interactive",
    "keep-order",
    "keeporder",
    "latest-line",
    "latestline",
    "ll",
    "line-buffer",
    "line-buffered",
    "linebuffer",
    "linebuffered",
    "lb",
    "link",
    "xapply",
    "max-line-length-allowed",
    "maxlinelengthallowed",
    "no-ctrl-c",
    "no-ctrlc",
    "noctrlc",
    "no-keep-order",
    "nokeeporder",
    "nok",
    "no-k",
    "no-run-if-empty",
    "norunifempty",
    "nonall",
    "noswap",
    "null",
    "number-of-cores",
    "numberofcores",
    "number-of-cpus",
    "numberofcpus",
    "number-of-sockets",
    "numberofsockets",
    "number-of-threads",
    "numberofthreads",
    "onall",
    "open-tty",
    "output-as-files",
    "outputasfiles",
    "files",
    "pipe-part",
    "pipepart",
    "pipe",
    "spreadstdin",
    "plain",
    "plus",
    "progress",
    "quote",
    "regexp",
    "regex",
    "remove-rec-sep",
    "removerecsep",
    "rrs",
    "resume",
    "resume-failed",
    "resumefailed",
    "retry-failed",
    "retryfailed",
    "round-robin",
    "roundrobin",
    "round",
    "semaphore",
    "session",
    "shell-quote",
    "shellquote",
    "shell_quote",
    "show-limits",
    "showlimits",
    "shuf",
    "silent",
    "skip-first-line",
    "skipfirstline",
    "tag",
    "tee",
    "tmux",
    "tmux-pane",
    "tmuxpane",
    "tollef",
    "transfer",
    "tty",
    "ungroup",
    "use-cores-instead-of-threads",
    "usecoresinsteadofthreads",
    "use-cpus-instead-of-cores",
    "usecpusinsteadofcores",
    "use-sockets-instead-of-threads",
    "usesocketsinsteadofthreads",
    "verbose",
    "version",
    "wait",
    "will-cite",
    "willcite",
    "nn",
    "nonotice",
    "no-notice",
    "xargs",
];

/// Options that make parallel do what the command's words do not say,
/// with why: they run code (Perl expressions, a command, another ssh or
/// compression program), run the command on other machines, read more
/// options or arguments from files, write files, change the directory or
/// the words that separate its inputs. Short ones by their letter.
const REFUSED: &[(&[&str], &str)] = &[
    (
        &[
            "rpl", "filter", "group-by", "groupby", "shard", "bin", "parens",
        ],
        "evaluates Perl code it is given",
    ),
    (&["limit"], "runs a command to decide when to start jobs"),
    (
        &[
            "ssh",
            "use-compress-program",
            "compress-program",
            "usecompressprogram",
            "compressprogram",
            "use-decompress-program",
            "decompress-program",
            "usedecompressprogram",
            "decompressprogram",
        ],
        "runs the program it is given",
    ),
    (
        &["sshlogin", "S", "sshloginfile", "slf"],
        "runs the command on other machines",
    ),
    (
        &[
            "arg-file",
            "argfile",
            "a",
            "profile",
            "J",
            "shebang",
            "hashbang",
            "_pipe-means-argfiles",
            "_parset",
            "_test",
            "sql",
            "sql-master",
            "sqlmaster",
            "sql-worker",
            "sqlworker",
            "sql-and-worker",
            "sqlandworker",
        ],
        "reads its arguments or options from elsewhere",
    ),
    (
        &[
            "joblog",
            "jl",
            "results",
            "result",
            "res",
            "template",
            "tmpl",
            "recordenv",
            "record-env",
        ],
        "writes files the command does not name",
    ),
    (
        &["work-dir", "workdir", "wd"],
        "runs the command in another directory",
    ),
    (
        &[
            "arg-sep",
            "argsep",
            "arg-file-sep",
            "argfilesep",
            "process-slot-var",
            "processslotvar",
        ],
        "changes how its command and inputs are read",
    ),
];

/// What one option is.
enum Kind {
    Flag,
    Value,
    OptionalString,
    OptionalNumber,
    Refused(&'static str),
    Unknown,
}

fn long_kind(name: &str) -> Kind {
    if let Some((_, why)) = REFUSED.iter().find(|(names, _)| names.contains(&name)) {
        return Kind::Refused(why);
    }
    if VALUE_LONG.contains(&name) {
        Kind::Value
    } else if OPTIONAL_STRING_LONG.contains(&name) {
        Kind::OptionalString
    } else if OPTIONAL_NUMBER_LONG.contains(&name) {
        Kind::OptionalNumber
    } else if FLAG_LONG.contains(&name) {
        Kind::Flag
    } else {
        Kind::Unknown
    }
}

fn short_kind(c: char) -> Kind {
    let mut buf = [0u8; 4];
    let letter: &str = c.encode_utf8(&mut buf);
    if let Some((_, why)) = REFUSED.iter().find(|(names, _)| names.contains(&letter)) {
        return Kind::Refused(why);
    }
    match c {
        'l' => Kind::OptionalNumber,
        _ if OPTIONAL_SHORT.contains(c) => Kind::OptionalString,
        _ if VALUE_SHORT.contains(c) => Kind::Value,
        _ if FLAG_SHORT.contains(c) => Kind::Flag,
        _ => Kind::Unknown,
    }
}

/// Whether an option whose value is optional takes `next` as it: a
/// string one unless it starts with `-`, a number one when it is a
/// number.
fn takes_next(kind: &Kind, next: Option<&Arg>) -> bool {
    match (kind, next) {
        (Kind::OptionalString, Some(n)) => !(n.literal && n.text.starts_with('-')),
        (Kind::OptionalNumber, Some(n)) => n.literal && n.text.parse::<f64>().is_ok(),
        _ => false,
    }
}

/// The options before the command: where the command starts, whether it
/// is quoted (`-q`), and why it cannot be followed, if so.
struct Options {
    next: usize,
    quote: bool,
    /// `--pipe`: the input goes to the command's standard input in
    /// blocks, not into its arguments.
    pipe: bool,
    unknown: Option<String>,
}

fn options(argv: &[Arg]) -> Options {
    let mut o = Options {
        next: 1,
        quote: false,
        pipe: false,
        unknown: None,
    };
    while let Some(a) = argv.get(o.next) {
        let t = a.text.as_str();
        if !a.literal {
            if o.unknown.is_none() {
                o.unknown = Some(format!(
                    "`parallel` argument `{t}` is not a literal, and it may be an option"
                ));
            }
            break;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        o.next += 1;
        if t == "--" {
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            match long_kind(name) {
                Kind::Flag => {}
                Kind::Value if !attached => o.next += 1,
                k @ (Kind::OptionalString | Kind::OptionalNumber) if !attached => {
                    if takes_next(&k, argv.get(o.next)) {
                        o.next += 1;
                    }
                }
                Kind::Value | Kind::OptionalString | Kind::OptionalNumber => {}
                Kind::Refused(why) => refuse(&mut o, t, why.into()),
                Kind::Unknown => refuse(
                    &mut o,
                    t,
                    "is not known (nor is an abbreviation followed), so the command it runs is not either".into(),
                ),
            }
            match name {
                "quote" => o.quote = true,
                "pipe" | "spreadstdin" | "pipe-part" | "pipepart" => o.pipe = true,
                _ => {}
            }
            continue;
        }
        let cluster = &t[1..];
        for (pos, c) in cluster.char_indices() {
            let rest = &cluster[pos + c.len_utf8()..];
            match short_kind(c) {
                Kind::Flag => {
                    if c == 'q' {
                        o.quote = true;
                    }
                    continue;
                }
                Kind::Value => {
                    if rest.is_empty() {
                        o.next += 1;
                    }
                }
                k @ (Kind::OptionalString | Kind::OptionalNumber) => {
                    if rest.is_empty() && takes_next(&k, argv.get(o.next)) {
                        o.next += 1;
                    }
                }
                Kind::Refused(why) => refuse(&mut o, &format!("-{c}"), why.into()),
                Kind::Unknown => refuse(
                    &mut o,
                    &format!("-{c}"),
                    "is not known, so the command it runs is not either".into(),
                ),
            }
            break;
        }
    }
    o.next = o.next.min(argv.len());
    o
}

/// Keeps the first reason an option cannot be followed.
fn refuse(o: &mut Options, written: &str, why: String) {
    if o.unknown.is_none() {
        o.unknown = Some(format!("`parallel` option `{written}` {why}"));
    }
}

/// A replacement string parallel puts a value in the place of (`{}`,
/// `{.}`, `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`, `{2}`, `{2.}`, and with
/// `--plus` `{+/}`, `{..}`, ...); the value is quoted for the shell.
fn replacement_at(text: &str) -> Option<usize> {
    let inner = text.strip_prefix('{')?;
    let end = inner.find('}')?;
    inner[..end]
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | '/' | '#' | '%' | '+'))
        .then_some(end + 2)
}

/// Whether a shell reads `word` as exactly itself, one word, once
/// parallel has put quoted values in its replacement strings: no blank,
/// quote, expansion, glob, operator or comment.
fn plain(word: &Arg, first: bool) -> bool {
    if !word.literal || word.text.is_empty() {
        return false;
    }
    let t = word.text.as_str();
    if first && (t.contains('=') || t.starts_with('{')) {
        return false;
    }
    let mut i = 0;
    while let Some(c) = t[i..].chars().next() {
        if c == '{' {
            match replacement_at(&t[i..]) {
                Some(len) => {
                    i += len;
                    continue;
                }
                None => return false,
            }
        }
        let ok = c.is_ascii_alphanumeric()
            || matches!(c, '-' | '_' | '.' | '/' | ',' | ':' | '@' | '%' | '+')
            || (c == '=' && i > 0);
        if !ok {
            return false;
        }
        i += c.len_utf8();
    }
    true
}

/// The variable that stands for the values parallel puts in a command
/// line it hands to a shell: never set, so what it names is not known.
const VALUE: &str = "\"$PARALLEL_VALUE\"";

/// The line a shell runs for `command`, each replacement string (or, with
/// none, the end of the line, where parallel appends the values) holding
/// [`VALUE`]: parallel quotes the values it puts there, so each is one
/// word the shell does not read further. `None` when that cannot be
/// written so: a word that is not literal, or a quote or backslash, which
/// a replacement string could lie within.
fn shell_line(command: &[Arg]) -> Option<String> {
    if command
        .iter()
        .any(|w| !w.literal || w.text.contains(['\'', '"', '\\']))
    {
        return None;
    }
    let mut line = String::new();
    let mut replaced = false;
    for (n, w) in command.iter().enumerate() {
        if n > 0 {
            line.push(' ');
        }
        let t = w.text.as_str();
        let mut i = 0;
        while i < t.len() {
            if let Some(len) = replacement_at(&t[i..]) {
                line.push_str(VALUE);
                replaced = true;
                i += len;
                continue;
            }
            let c = t[i..].chars().next()?;
            line.push(c);
            i += c.len_utf8();
        }
    }
    if !replaced {
        line.push(' ');
        line.push_str(VALUE);
    }
    Some(line)
}

pub(super) fn parallel(argv: &[Arg]) -> Step {
    if argv.iter().skip(1).any(|a| a.text.contains("{=")) {
        return opaque(
            argv,
            "`parallel` evaluates the Perl code in `{= .. =}`".to_owned(),
        );
    }
    let o = options(argv);
    let rest = argv.get(o.next..).unwrap_or_default();
    let separator =
        |a: &Arg| a.literal && matches!(a.text.as_str(), ":::" | "::::" | ":::+" | "::::+");
    let split = rest.iter().position(separator).unwrap_or(rest.len());
    let (command, values) = rest.split_at(split);
    let from_files = values
        .iter()
        .any(|a| a.literal && matches!(a.text.as_str(), "::::" | "::::+"));
    let unknown = o.unknown.or_else(|| {
        from_files.then(|| "`parallel` reads its arguments from files (`::::`)".to_owned())
    });
    if let Some(why) = unknown.clone().filter(|_| command.is_empty()) {
        return opaque(argv, why);
    }
    if command.is_empty() {
        // The values (or the input lines) are the commands.
        let literal =
            values.iter().all(|a| a.literal) && values.first().is_some_and(|s| s.text == ":::");
        if !literal || values.iter().skip(1).any(separator) {
            return opaque(
                argv,
                "`parallel` runs commands read from its input or a file".to_owned(),
            );
        }
        return Step::Shell {
            wrapper: texts(&argv[..o.next]),
            script: Script::Text {
                text: values
                    .iter()
                    .skip(1)
                    .map(|a| a.text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                literal: true,
            },
        };
    }
    // Without `-q` the command's words are joined and read by a shell.
    let not_plain = (!o.quote)
        .then(|| command.iter().enumerate().find(|(i, w)| !plain(w, *i == 0)))
        .flatten();
    if let (Some(_), None) = (not_plain, &unknown)
        && let Some(script) = shell_line(command)
    {
        return Step::Shell {
            wrapper: texts(&argv[..o.next]),
            script: Script::Text {
                text: script,
                literal: true,
            },
        };
    }
    let unknown = unknown.or_else(|| {
        not_plain.map(|(_, w)| {
            format!(
                "`parallel` hands its command to a shell, where the word `{}` means more than itself",
                w.text
            )
        })
    });
    let marker = command.iter().find_map(|a| {
        let t = a.text.as_str();
        (0..t.len())
            .filter(|&i| t.is_char_boundary(i))
            .find_map(|i| replacement_at(&t[i..]).map(|len| t[i..i + len].to_owned()))
    });
    // `--pipe` with no replacement string: the command gets the input on
    // its standard input, and no arguments.
    let xargs = (!(o.pipe && marker.is_none() && values.is_empty())).then_some(marker);
    Step::Wrapper {
        wrapper: texts(&argv[..o.next]),
        rest: command.to_vec(),
        cwd: None,
        env: Vec::new(),
        unknown,
        xargs,
    }
}
