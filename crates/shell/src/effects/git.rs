//! `git`: global options, subcommands that read, write, fetch or run
//! scripts, and the configuration file `git config` writes.

use super::*;

pub(super) fn git(args: &[Arg], d: &mut Derived) {
    d.read_only = false;
    let mut i = 0;
    let mut sub = None;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if !a.literal {
            d.unknowns
                .push(format!("git subcommand is not literal: `{t}`"));
            return;
        }
        if !t.starts_with('-') {
            sub = Some(t);
            break;
        }
        let (name, glued) = match t.split_once('=') {
            Some((n, _)) if n.starts_with("--") => (n, true),
            _ => (t, false),
        };
        // `-cKEY=VALUE` and `-CDIR` are the glued forms of `-c` and `-C`.
        let (name, glued) = match name {
            _ if t.starts_with("-c") && t.len() > 2 => ("-c", true),
            _ if t.starts_with("-C") && t.len() > 2 => ("-C", true),
            _ => (name, glued),
        };
        let value = if glued {
            t.split_once('=').map_or(&t[2..], |(_, v)| v).to_string()
        } else {
            args.get(i + 1).map(|a| a.text.clone()).unwrap_or_default()
        };
        let takes_value = tables::GIT_GLOBAL_VALUE.contains(&name) && !glued;
        // `--exec-path` alone prints the directory; with a value it sets it.
        if name == "--exec-path" && !glued {
            i += 1;
            continue;
        }
        if let Some(why) = tables::git_global_risk(name) {
            if name == "-C" {
                d.cwd = if glued {
                    Some(a.with_text(value.clone()))
                } else {
                    args.get(i + 1).cloned()
                };
            }
            let shown = if takes_value || glued {
                format!("{name} {value}")
            } else {
                name.to_string()
            };
            d.unknowns.push(format!("`git {shown}` {why}"));
        }
        i += if takes_value { 2 } else { 1 };
    }
    let Some(sub) = sub else {
        // `git --version`, `git --exec-path`: options alone print.
        d.read_only = d.unknowns.is_empty();
        return;
    };
    let rest = args.get(i + 1..).unwrap_or_default();
    if tables::GIT_COMMANDS.binary_search(&sub).is_err() {
        d.unknowns.push(format!(
            "`git {sub}` is not one of git's own commands: an alias from git's configuration or a `git-{sub}` program, either of which can run anything"
        ));
        return;
    }
    if let Some(why) = tables::git_unanalysed(sub) {
        d.unknowns.push(format!("`git {sub}` {why}"));
        return;
    }
    let texts: Vec<&str> = rest.iter().map(|a| a.text.as_str()).collect();
    let operands: Vec<&Arg> = rest
        .iter()
        .filter(|a| !(a.literal && a.text.starts_with('-')))
        .collect();
    let script = |d: &mut Derived, a: &Arg, what: &str| {
        d.nested.push(Nested::Script {
            text: a.text.clone(),
            literal: a.literal,
            wrapper: vec!["git".into(), what.into()],
        });
    };
    named_files(sub, rest, d);
    match sub {
        "clone" => {
            if clone_runs_or_configures(rest) {
                d.unknowns.push(
                    "`git clone` option runs a program, sets configuration or hooks, or fetches the submodules the clone names"
                        .into(),
                );
            }
            let o = parse_opts(
                rest,
                "bocjuL",
                &[
                    "branch",
                    "origin",
                    "config",
                    "depth",
                    "reference",
                    "reference-if-able",
                    "upload-pack",
                    "separate-git-dir",
                    "jobs",
                    "filter",
                    "template",
                    "shallow-since",
                    "shallow-exclude",
                    "server-option",
                    "bundle-uri",
                    "ref-format",
                ],
                &[],
            );
            for dir in o.values(&["--separate-git-dir"]) {
                d.add_by_option(Access::WriteDir, dir, true);
            }
            for dir in o.values(&["--reference", "--reference-if-able"]) {
                d.add(Access::Read, dir, true);
            }
            // The bundle is fetched (or read, a path or `file:` URL) before
            // the repository; a bundle list it returns names other URLs.
            for uri in o.values(&["--bundle-uri"]) {
                remote(uri, d);
                if uri.literal && !names_a_url(&uri.text) {
                    d.add(Access::Read, uri, false);
                }
                d.unknowns.push(format!(
                    "`git clone --bundle-uri={}` may be a bundle list naming other URLs",
                    uri.text
                ));
            }
            if let Some(url) = o.operands.first() {
                remote(url, d);
                if !(is_remote_url(&url.text) || !url.literal || is_remote_helper(&url.text)) {
                    d.add(Access::Read, url, true);
                }
                let dest = match o.operands.get(1) {
                    Some(dest) => dest.clone(),
                    None => {
                        let trimmed = url.text.trim_end_matches('/');
                        let base = trimmed.rsplit(['/', ':']).next().unwrap_or(trimmed);
                        url.with_text(base.trim_end_matches(".git").to_string())
                    }
                };
                d.add(Access::Write, &dest, true);
            }
        }
        // A remote's URL is where every later fetch and push of it goes.
        "remote"
            if operands
                .first()
                .is_some_and(|a| matches!(a.text.as_str(), "add" | "set-url")) =>
        {
            for url in operands.iter().skip(2) {
                remote(url, d);
                local_repository(url, false, d);
            }
        }
        // `submodule add URL [PATH]` clones URL; `set-url NAME URL` points
        // later updates there; `update`, `init` and `sync` take the URLs
        // `.gitmodules` names, a file of the work tree.
        "submodule" if texts.first() != Some(&"foreach") => {
            let words: Vec<&Arg> = operands.clone();
            match words.first().map(|a| a.text.as_str()) {
                Some("add") => {
                    let o = parse_opts(
                        rest.get(1..).unwrap_or_default(),
                        "b",
                        &["branch", "name", "reference", "depth"],
                        &[],
                    );
                    if let Some(url) = o.operands.first() {
                        remote(url, d);
                        local_repository(url, false, d);
                        if let Some(path) = o.operands.get(1) {
                            d.add(Access::WriteDir, path, true);
                        }
                    }
                    d.add(Access::Write, &Arg::lit(".gitmodules"), false);
                }
                Some("set-url") => {
                    for url in words.iter().skip(2) {
                        remote(url, d);
                    }
                    d.add(Access::Write, &Arg::lit(".gitmodules"), false);
                }
                Some("update" | "init" | "sync") => {
                    d.add(Access::Read, &Arg::lit(".gitmodules"), false);
                    d.unknowns.push(
                        "`git submodule` fetches from the URLs `.gitmodules` names, which are not known here"
                            .into(),
                    );
                }
                _ => {}
            }
        }
        "fetch" | "pull" | "push" | "ls-remote" | "send-pack" | "fetch-pack" => {
            if texts.iter().any(|t| {
                t.starts_with("--upload-pack")
                    || t.starts_with("--receive-pack")
                    || t.starts_with("--exec")
            }) {
                d.unknowns
                    .push(format!("`git {sub}` option runs a program"));
            }
            repository_operand(sub, rest, d);
            // The remote, or a URL anywhere among the operands (an
            // option's value such as `--depth 1` may come first).
            match operands.first() {
                Some(first) if !first.literal => d.add(Access::Fetch, first, false),
                _ => {}
            }
            for a in &operands {
                if a.literal {
                    remote(a, d);
                }
            }
        }
        // `request-pull START URL [END]` lists the refs at URL.
        "request-pull" => {
            if let Some(url) = operands.get(1) {
                remote(url, d);
                local_repository(url, false, d);
            }
        }
        // `send-email` connects to the SMTP server it is given, or runs
        // it (a path), and runs the `--*-cmd` programs.
        "send-email" => {
            let o = parse_opts(
                rest,
                "",
                &[
                    "smtp-server",
                    "smtp-server-port",
                    "sendmail-cmd",
                    "to-cmd",
                    "cc-cmd",
                    "header-cmd",
                    "smtp-user",
                    "smtp-pass",
                    "smtp-encryption",
                    "smtp-domain",
                    "to",
                    "cc",
                    "bcc",
                    "from",
                    "subject",
                    "in-reply-to",
                    "identity",
                ],
                &[],
            );
            for v in o.values(&["--smtp-server"]) {
                if v.text.starts_with('/') || !v.literal {
                    d.unknowns.push(format!(
                        "`git send-email --smtp-server {}` runs a program",
                        v.text
                    ));
                } else {
                    d.add(
                        Access::Fetch,
                        &v.with_text(format!("tcp://{}", v.text)),
                        false,
                    );
                }
            }
            if o.has(&["--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd"]) {
                d.unknowns
                    .push("`git send-email` runs a `--*-cmd` program".into());
            }
            for f in &o.operands {
                d.add(Access::Read, f, true);
            }
        }
        "grep" => {
            if texts.iter().any(|t| {
                *t == "-O"
                    || t.starts_with("--open-files-in-pager")
                    || (t.starts_with("-O") && t.len() > 2)
            }) {
                d.unknowns.push("`git grep -O` runs a pager".into());
            }
            let o = parse_opts(
                rest,
                "efABCm",
                &[
                    "max-depth",
                    "threads",
                    "after-context",
                    "before-context",
                    "context",
                    "max-count",
                ],
                &[("-f", Access::Read)],
            );
            for f in o.values(&["-f"]) {
                d.add(Access::Read, f, false);
            }
            let paths: &[Arg] = if o.has(&["-e", "-f"]) {
                &o.operands
            } else {
                o.operands.get(1..).unwrap_or_default()
            };
            // A range (`HEAD~3..HEAD`) is not a path.
            let paths: Vec<&Arg> = paths
                .iter()
                .filter(|a| !a.text.contains("..") || a.text.contains('/'))
                .collect();
            let dashes = rest.iter().any(|a| a.literal && a.text == "--");
            grep_reads(&paths, dashes, d);
            // `--untracked` and `--no-index` search what git does not
            // track as well, ignored files with `--no-exclude-standard`.
            if texts
                .iter()
                .any(|t| is_option(t, "--untracked") || is_option(t, "--no-index"))
            {
                if paths.is_empty() {
                    d.add(Access::Read, &Arg::lit("."), true);
                }
                for p in paths {
                    d.add(Access::Read, p, true);
                }
            }
            d.read_only = true;
        }
        "diff" | "log" | "show" | "whatchanged" | "diff-tree" | "diff-files" | "diff-index"
        | "format-patch" | "archive" => {
            let o = parse_opts(
                rest,
                "o",
                &["output", "output-directory", "remote", "exec"],
                &[],
            );
            if sub == "archive" {
                for r in o.values(&["--remote"]) {
                    remote(r, d);
                    if !(is_remote_url(&r.text) || is_remote_helper(&r.text)) {
                        d.add(Access::Read, r, true);
                    }
                }
                if o.has(&["--exec"]) {
                    d.unknowns
                        .push("`git archive --exec` runs a program".into());
                }
            }
            for f in o.values(&["--output", "-o"]) {
                if matches!(sub, "format-patch" | "archive") {
                    d.add(Access::Write, f, sub == "format-patch");
                } else {
                    // `git log --output=f`: a command that shows, writing.
                    d.add_by_option(Access::Write, f, false);
                }
            }
            if sub == "diff" && o.has(&["--no-index"]) {
                for f in &o.operands {
                    d.add(Access::Read, f, true);
                }
            } else {
                shown_paths(sub, rest, d);
            }
            d.read_only = !matches!(sub, "format-patch" | "archive");
        }
        "blame" | "annotate" => {
            // `-n` is a flag here (the original line number), not `log -n
            // NUMBER`; `-S`, `--contents` and `--ignore-revs-file` read
            // the file they name.
            let o = parse_opts(
                rest,
                "LS",
                &[
                    "contents",
                    "ignore-revs-file",
                    "ignore-rev",
                    "date",
                    "encoding",
                ],
                &[],
            );
            for f in o.values(&["-S", "--contents", "--ignore-revs-file"]) {
                d.add(Access::Read, f, false);
            }
            for f in &o.operands {
                d.add(Access::Read, f, false);
            }
            d.read_only = true;
        }
        "cat-file" => {
            shown_paths(sub, rest, d);
            d.read_only = true;
        }
        // What is staged is read into the repository, and goes out with
        // the next push: `git add .env` meets the rules on reading `.env`.
        "add" | "stage" => {
            shown_paths(sub, rest, d);
            untracked_reads(sub, rest, d);
        }
        "submodule" if texts.first() == Some(&"foreach") => {
            let cmd: Vec<&Arg> = rest[1..]
                .iter()
                .filter(|a| !(a.literal && a.text.starts_with("--")))
                .collect();
            if let Some(first) = cmd.first() {
                let text = cmd
                    .iter()
                    .map(|a| a.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                let literal = cmd.iter().all(|a| a.literal);
                script(
                    d,
                    &Arg {
                        literal,
                        ..Arg::lit(text)
                    },
                    "submodule foreach",
                );
                let _ = first;
            }
        }
        // Subcommands that write the files of the work tree they name.
        "checkout" | "restore" | "rm" | "mv" | "clean" | "apply" | "worktree"
        | "checkout-index" => {
            worktree_writes(sub, rest, d);
        }
        // `am` applies the patches of a mailbox to the work tree as
        // `apply` does, then commits them; `--abort` and `--skip` put the
        // work tree back. Only showing the patch writes nothing.
        "am" if !rest
            .iter()
            .any(|a| a.literal && matches!(a.text.as_str(), "--show-current-patch" | "--quit")) =>
        {
            d.add(Access::WriteDir, &Arg::lit("."), true);
        }
        // A template directory's hooks and configuration are copied into
        // the repository, where git runs them later; the directory given
        // (and `--separate-git-dir`) is where the repository is made.
        "init" => {
            // (`--t` is enough: git takes an unambiguous prefix.)
            if rest.iter().any(|a| !a.literal || a.text.starts_with("--t")) {
                d.unknowns.push(
                    "`git init --template` copies hooks and configuration into the repository, which git runs later"
                        .into(),
                );
            }
            let o = parse_opts(
                rest,
                "b",
                &[
                    "template",
                    "separate-git-dir",
                    "object-format",
                    "ref-format",
                    "initial-branch",
                    "shared",
                ],
                &[],
            );
            // The directory is made as `mkdir` makes one, with `.git`
            // (or the repository itself, `--bare`) inside.
            for dir in o.values(&["--separate-git-dir"]).chain(o.operands.first()) {
                d.add(Access::Write, dir, false);
            }
        }
        // `start` and `register` add the repository to the global
        // configuration and the system's scheduler (cron, systemd, launchd),
        // which runs git there later, outside any gate.
        "maintenance" if operands.first().is_none_or(|a| a.text != "run") => {
            d.unknowns.push(
                "`git maintenance` other than `run` changes the global configuration or the system's scheduler"
                    .into(),
            );
        }
        "rebase" => {
            let o = parse_opts(rest, "xs", &["exec", "strategy", "onto"], &[]);
            for c in o.values(&["-x", "--exec"]) {
                script(d, c, "rebase --exec");
            }
        }
        "difftool" | "mergetool" => {
            let o = parse_opts(rest, "xt", &["extcmd", "tool"], &[]);
            for c in o.values(&["-x", "--extcmd"]) {
                script(d, c, "difftool --extcmd");
            }
        }
        "filter-branch" => {
            let o = parse_opts(
                rest,
                "",
                &[
                    "env-filter",
                    "tree-filter",
                    "index-filter",
                    "parent-filter",
                    "msg-filter",
                    "commit-filter",
                    "tag-name-filter",
                    "setup",
                ],
                &[],
            );
            for (n, v) in &o.opts {
                if let Some(v) = v {
                    script(d, v, n.trim_start_matches('-'));
                }
            }
        }
        "bisect" if texts.first() == Some(&"run") => {
            let argv: Vec<Arg> = rest[1..].to_vec();
            if !argv.is_empty() {
                d.nested.push(Nested::Argv {
                    argv,
                    wrapper: vec!["git".into(), "bisect".into(), "run".into()],
                });
            }
        }
        "config" => match git_config_written(rest) {
            Some(file) => d.add(Access::Write, &file, false),
            None => d.read_only = true,
        },
        _ => {
            if tables::git_read_only(sub) {
                d.read_only = true;
            } else if let Some((_, allowed)) = tables::GIT_LISTING.iter().find(|(s, _)| *s == sub) {
                let takes_value = [
                    "--contains",
                    "--no-contains",
                    "--merged",
                    "--no-merged",
                    "--points-at",
                    "--sort",
                    "--format",
                ];
                let mut ok = true;
                let mut prev = "";
                for (k, t) in texts.iter().enumerate() {
                    let name = t.split('=').next().unwrap_or(t);
                    let allowed_here = allowed.contains(&name) || takes_value.contains(&prev);
                    let first_word = k == 0
                        && matches!(
                            sub,
                            "stash" | "reflog" | "remote" | "worktree" | "submodule"
                        );
                    if !(allowed_here
                        || (matches!(sub, "remote") && prev == "show")
                        || (matches!(sub, "remote") && prev == "get-url")
                        || (sub == "reflog" && k > 0 && !t.starts_with('-')))
                    {
                        ok = false;
                    }
                    let _ = first_word;
                    prev = name;
                }
                let needs_word = matches!(sub, "stash" | "worktree" | "submodule");
                d.read_only = ok && (!texts.is_empty() || !needs_word);
            }
        }
    }
    tracked_reads(sub, rest, d);
    if let Some(what) = rewrites_tracked(sub, rest) {
        d.add(Access::Rewrite, &Arg::lit(what), true);
    }
    if sub == "stash" {
        untracked_reads(sub, rest, d);
    }
    let read_only = d.read_only;
    risky::git(sub, rest, read_only, d);
}

/// Whether `git clone`'s options run a program (`-u`/`--upload-pack`),
/// set configuration for the clone (`-c`/`--config`: `core.sshCommand`,
/// `http.proxy`, `url.*.insteadOf`, `protocol.*.allow` change what git runs
/// and where it connects), copy hooks (`--template`) or fetch the
/// submodules the clone names. Long options count by any prefix git
/// takes (`--conf=`), short ones anywhere in a cluster (`-qccore.x=y`,
/// `-qu`), as git's option parser reads them; a word that is not literal
/// may be any of these.
fn clone_runs_or_configures(rest: &[Arg]) -> bool {
    const LONG: &[&str] = &[
        "--upload-pack",
        "--config",
        "--template",
        "--recurse-submodules",
        "--recursive",
    ];
    let mut iter = rest.iter();
    while let Some(a) = iter.next() {
        let t = a.text.as_str();
        if !a.literal {
            return true;
        }
        if t == "--" {
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let name = format!("--{}", long.split('=').next().unwrap_or(long));
            if LONG.iter().any(|l| is_option(&name, l)) {
                return true;
            }
            continue;
        }
        let Some(cluster) = t.strip_prefix('-') else {
            continue;
        };
        for (i, c) in cluster.char_indices() {
            match c {
                'c' | 'u' => return true,
                // `-o NAME`, `-b NAME`, `-j N`: the rest, or the next word,
                // is the value.
                'o' | 'b' | 'j' => {
                    if i + 1 == cluster.len() {
                        iter.next();
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    false
}

/// A remote given as a URL: a fetch of it; a `file:` URL is a read of
/// the directory; `TRANSPORT::ADDRESS` (`ext::sh -c ..`, `fd::`) runs a
/// remote helper, which is unknown. A remote name or a path is nothing.
fn remote(a: &Arg, d: &mut Derived) {
    if !a.literal {
        d.add(Access::Fetch, a, false);
    } else if is_remote_helper(&a.text) {
        d.unknowns.push(format!(
            "`{}` makes git run a remote helper program",
            a.text
        ));
    } else if let Some(path) = file_url_path(&a.text) {
        d.add(Access::Read, &a.with_text(path), true);
    } else if is_remote_url(&a.text) {
        d.add(Access::Fetch, a, false);
    }
}

/// The repository `git fetch`, `pull`, `push`, `ls-remote`, `send-pack`
/// or `fetch-pack` talks to: its first operand (or `push --repo`). A path
/// is another repository on this machine, read (or, for a push, written)
/// by git; `HOST:PATH` with no `/` before the colon is an ssh address
/// (git-fetch(1), "GIT URLS"), a fetch of that host. A word without a
/// `/` is a remote's name, whose URL configuration holds.
fn repository_operand(sub: &str, rest: &[Arg], d: &mut Derived) {
    let o = parse_opts(
        rest,
        "josX",
        &[
            "depth",
            "deepen",
            "shallow-since",
            "shallow-exclude",
            "jobs",
            "negotiation-tip",
            "recurse-submodules-default",
            "submodule-prefix",
            "refmap",
            "server-option",
            "push-option",
            "upload-pack",
            "receive-pack",
            "exec",
            "filter",
            "strategy",
            "strategy-option",
            "cleanup",
            "sort",
            "repo",
        ],
        &[],
    );
    let writes = matches!(sub, "push" | "send-pack");
    for repo in o.values(&["--repo"]).chain(o.operands.first()) {
        if !repo.literal {
            continue;
        }
        let t = repo.text.as_str();
        if names_a_url(t) {
            continue;
        }
        if let Some((host, path)) = t.split_once(':')
            && host.len() > 1
            && !host.contains('/')
        {
            d.add(
                Access::Fetch,
                &repo.with_text(format!("ssh://{host}/{}", path.trim_start_matches('/'))),
                false,
            );
            continue;
        }
        local_repository(repo, writes, d);
    }
}

/// Whether a remote is written as a URL, `file:` included, or as a
/// remote helper's `TRANSPORT::ADDRESS`: [`remote`] takes those.
fn names_a_url(t: &str) -> bool {
    is_remote_url(t) || is_remote_helper(t) || file_url_path(t).is_some()
}

/// A repository given by its path (`../other`, `/srv/repo.git`, `.`):
/// what git tracks there is read, or the directory is written into by a
/// push (a push into `.` only moves this repository's own refs).
fn local_repository(repo: &Arg, writes: bool, d: &mut Derived) {
    let t = repo.text.as_str();
    if !repo.literal || names_a_url(t) {
        return;
    }
    let path = t.starts_with(['.', '~']) || t.contains('/');
    if !path {
        return;
    }
    if writes {
        if t != "." {
            d.add(Access::WriteDir, repo, true);
        }
    } else {
        d.add(Access::Repository, repo, true);
    }
}

/// `TRANSPORT::ADDRESS`: git runs `git-remote-TRANSPORT` (gitremote-helpers(7)).
fn is_remote_helper(text: &str) -> bool {
    match text.split_once("::") {
        Some((t, _)) => {
            !t.is_empty()
                && t.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.' | b'_'))
        }
        None => false,
    }
}

/// The file `git config ARGS` writes, when it sets, unsets, renames or
/// edits something: configuration can make git run programs (`core.pager`,
/// `core.hooksPath`, `alias.x = !cmd`), so the write meets the rules for
/// that file (`.git/config` is protected). `None` when it only reads.
/// The files whose content a `git diff`, `log`, `show`, `blame`,
/// `cat-file`, `archive`, ... prints: each path operand (after `--`, or
/// any operand that is not an option, since git takes a name that is not
/// a revision for a path), and the path of a `REV:PATH` blob (`HEAD:.env`,
/// `origin/main:.env`, `:.env`, `:0:.env`). They are reads, so that a deny
/// rule on `.env` meets `git show HEAD:.env` as it meets `cat .env`. A
/// directory is not walked: what git shows beneath it is only what it
/// tracks, which [`tracked_reads`] covers. A revision read as a path
/// (`HEAD`, `main`) is a harmless read of a file that rules rarely name.
/// A path after `--` of a subcommand that shows content is left to
/// [`tracked_reads`], which reads what git tracks beneath it.
fn shown_paths(sub: &str, rest: &[Arg], d: &mut Derived) {
    let content = shows_content(sub, rest);
    // Options of these subcommands that take their value apart.
    const VALUED: &[&str] = &[
        "-o",
        "-S",
        "-G",
        "-L",
        "-n",
        "-U",
        "--output",
        "--author",
        "--committer",
        "--grep",
        "--since",
        "--until",
        "--format",
        "--pretty",
        "--prefix",
        "--remote",
        "--contents",
        "--ignore-revs-file",
    ];
    for (a, after_dashes) in path_operands(rest, VALUED) {
        let t = a.text.as_str();
        if after_dashes && content {
            continue;
        }
        if !after_dashes {
            if let Some((rev, path)) = t.split_once(':') {
                // `:/TEXT` names the youngest commit whose message matches.
                if rev.is_empty() && path.starts_with('/') {
                    continue;
                }
                let path = match (rev, path.split_once(':')) {
                    ("", Some(("0" | "1" | "2" | "3", p))) => p,
                    _ => path,
                };
                // A revision may hold a `:` itself (`HEAD^{/fix: typo}:.env`):
                // the path may start after any later one too.
                let later = path.match_indices(':').map(|(i, _)| &path[i + 1..]);
                for path in std::iter::once(path).chain(later) {
                    let path = path.strip_prefix("./").unwrap_or(path);
                    if !path.is_empty() {
                        d.add(Access::Read, &a.with_text(path), false);
                    }
                }
                continue;
            }
            if t.contains("..") && !t.contains('/') {
                // A range (`HEAD~3..HEAD`).
                continue;
            }
        }
        d.add(Access::Read, a, false);
    }
}

/// The operands of a git subcommand's arguments, each with whether it
/// came after `--`: options are skipped, and the value of one in `valued`
/// (which takes it as the next word) with it.
fn path_operands<'a>(rest: &'a [Arg], valued: &[&str]) -> Vec<(&'a Arg, bool)> {
    let mut out = Vec::new();
    let mut after_dashes = false;
    let mut skip = false;
    for a in rest {
        if skip {
            skip = false;
            continue;
        }
        let t = a.text.as_str();
        if !after_dashes && a.literal && t == "--" {
            after_dashes = true;
            continue;
        }
        if !after_dashes && a.literal && t.starts_with('-') {
            skip = valued.contains(&t);
            continue;
        }
        out.push((a, after_dashes));
    }
    out
}

/// The work-tree files `git checkout`, `restore`, `rm`, `mv`, `clean`,
/// `apply` and `worktree add` write or remove. Paths are recursive: these
/// overwrite or remove what git tracks (or, for `clean`, what it does not)
/// beneath a directory, so a deny rule on a file there meets them. Without
/// paths, `clean -f` and `apply` work on the whole tree; `checkout` and
/// `restore` without paths switch branches or do nothing, and are left.
fn worktree_writes(sub: &str, rest: &[Arg], d: &mut Derived) {
    let flag = |f: &str| rest.iter().any(|a| a.literal && a.text == f);
    let valued: &[&str] = match sub {
        "checkout" => &["-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"],
        "restore" => &["-s", "--source", "--conflict", "--pathspec-from-file"],
        "clean" => &["-e", "--exclude"],
        "apply" => &[
            "-p",
            "-C",
            "--directory",
            "--exclude",
            "--include",
            "--whitespace",
        ],
        "worktree" => &["-b", "-B", "--reason"],
        "checkout-index" => &["--prefix"],
        _ => &[],
    };
    let paths: Vec<&Arg> = path_operands(rest, valued)
        .into_iter()
        .map(|(a, _)| a)
        .collect();
    match sub {
        "rm" if !flag("--cached") => {
            for p in paths {
                d.add(Access::Delete, p, true);
            }
        }
        // `mv` writes where a path goes; `checkout` and `restore` overwrite
        // a path from the index or a commit (`checkout BRANCH` is read as a
        // path too: a write of `./BRANCH`, which rules seldom name).
        "mv" | "checkout" | "restore" => {
            for p in paths {
                d.add(Access::Write, p, true);
            }
        }
        "clean"
            if (flag("--force")
                || rest.iter().any(|a| {
                    a.literal
                        && a.text.starts_with('-')
                        && !a.text.starts_with("--")
                        && a.text.contains('f')
                }))
                && !(flag("-n") || flag("--dry-run")) =>
        {
            // What is untracked beneath the paths goes, not the paths
            // themselves: a recursive write, which meets every deny and ask
            // rule beneath (the removal of a root would be a hard limit).
            if paths.is_empty() {
                d.add(Access::Write, &Arg::lit("."), true);
            }
            for p in paths {
                d.add(Access::Write, p, true);
            }
        }
        // The patches are read whatever the mode (`--stat` prints what
        // they hold); applied, they write beneath the work tree, or beneath
        // `--directory`, or anywhere with `--unsafe-paths`.
        "apply" => {
            for p in &paths {
                d.add(Access::Read, p, false);
            }
            if ["--check", "--stat", "--numstat", "--summary", "--cached"]
                .iter()
                .any(|f| flag(f))
            {
                return;
            }
            if rest
                .iter()
                .any(|a| a.literal && is_option(&a.text, "--unsafe-paths"))
            {
                d.unknowns
                    .push("`git apply --unsafe-paths` writes wherever the patch says".into());
            }
            let o = parse_opts(
                rest,
                "pC",
                &["directory", "exclude", "include", "whitespace"],
                &[],
            );
            for dir in o.values(&["--directory"]) {
                d.add(Access::WriteDir, dir, true);
            }
            d.add(Access::WriteDir, &Arg::lit("."), true);
        }
        // `checkout-index` writes each path from the index, at PREFIX
        // joined to it as text (`--prefix=x/` writes `x/PATH`, `--prefix=x`
        // writes `xPATH`); `--all` and `--stdin` write paths not named here.
        "checkout-index" => {
            let mut prefix = String::new();
            let mut literal = true;
            let mut iter = rest.iter();
            while let Some(a) = iter.next() {
                if !a.literal {
                    continue;
                }
                if let Some(v) = a.text.strip_prefix("--prefix=") {
                    prefix = v.to_string();
                } else if a.text == "--prefix" {
                    if let Some(v) = iter.next() {
                        prefix.clone_from(&v.text);
                        literal = v.literal;
                    }
                } else if a.text == "--" {
                    break;
                }
            }
            let all = rest.iter().any(|a| {
                a.literal
                    && (is_option(&a.text, "--all")
                        || is_option(&a.text, "--stdin")
                        || (a.text.starts_with('-')
                            && !a.text.starts_with("--")
                            && a.text.contains('a')))
            });
            if all || !literal {
                d.unknowns.push(
                    "`git checkout-index` writes files from the index that are not named here"
                        .into(),
                );
            }
            for p in paths {
                d.add(
                    Access::Write,
                    &p.with_text(format!("{prefix}{}", p.text)),
                    false,
                );
            }
        }
        "worktree" if paths.first().is_some_and(|a| a.text == "add") => {
            if let Some(dir) = paths.get(1) {
                d.add(Access::WriteDir, dir, true);
            }
        }
        _ => {}
    }
}

pub(super) fn git_config_written(args: &[Arg]) -> Option<Arg> {
    let mut file = Arg::lit(".git/config");
    let mut writes = false;
    let mut gets = false;
    let mut operands = Vec::new();
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        let t = a.text.as_str();
        if !a.literal || !t.starts_with('-') {
            operands.push(a);
            continue;
        }
        match t {
            "--global" => file = Arg::lit("~/.gitconfig"),
            "--system" => file = Arg::lit("/etc/gitconfig"),
            "--local" => file = Arg::lit(".git/config"),
            "--worktree" => file = Arg::lit(".git/config.worktree"),
            "-f" | "--file" => {
                if let Some(f) = iter.next() {
                    file = f.clone();
                }
            }
            "--blob" | "--type" | "--default" | "--comment" | "--value" => {
                iter.next();
            }
            "--add" | "--replace-all" | "--unset" | "--unset-all" | "--rename-section"
            | "--remove-section" | "-e" | "--edit" => writes = true,
            "--get" | "--get-all" | "--get-regexp" | "--get-urlmatch" | "-l" | "--list"
            | "--get-color" | "--get-colorbool" => gets = true,
            _ => {
                if let Some(f) = t.strip_prefix("--file=") {
                    file = a.with_text(f);
                }
            }
        }
    }
    let verb = operands.first().map(|a| a.text.as_str());
    writes |= matches!(
        verb,
        Some("set" | "unset" | "rename-section" | "remove-section" | "edit")
    ) || (!gets && !matches!(verb, Some("get" | "list")) && operands.len() >= 2);
    writes.then_some(file)
}

/// The git directory git finds from `dir` when it is given none
/// (setup.c's discovery): from `dir` upwards, at each directory its
/// `.git` (a directory, or a file `gitdir: PATH`, whichever it holds:
/// an entry git cannot use makes it stop, not go on), then the
/// directory itself when it looks like a git directory (a bare
/// repository, or the inside of one: `HEAD` and `objects/` and `refs/`,
/// or `HEAD` and a `commondir` file). Its configuration (`core.fsmonitor`,
/// `core.worktree`, hooks) is what git reads and runs. `None` when there
/// is none.
pub(crate) fn discovered_git_dir(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    let canonical =
        |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut at = Some(dir);
    while let Some(d) = at {
        let dotgit = d.join(".git");
        if let Ok(meta) = std::fs::metadata(&dotgit) {
            if meta.is_file() {
                let target = std::fs::read_to_string(&dotgit).ok().and_then(|text| {
                    let t = text
                        .lines()
                        .next()?
                        .strip_prefix("gitdir:")?
                        .trim()
                        .to_string();
                    (!t.is_empty()).then(|| d.join(t))
                });
                return Some(canonical(target.as_deref().unwrap_or(&dotgit)));
            }
            return Some(canonical(&dotgit));
        }
        if looks_like_git_dir(d) {
            return Some(canonical(d));
        }
        at = d.parent();
    }
    None
}

/// Whether `dir` has what git's `is_git_directory` asks of a git
/// directory: `HEAD`, and `objects/` and `refs/` (here or in the
/// directory `commondir` names).
fn looks_like_git_dir(dir: &std::path::Path) -> bool {
    std::fs::symlink_metadata(dir.join("HEAD")).is_ok()
        && (dir.join("commondir").is_file()
            || (dir.join("objects").is_dir() && dir.join("refs").is_dir()))
}
