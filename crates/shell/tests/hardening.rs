//! Spellings that must not pass as harmless, class by class: git's global
//! options, options of reading commands that run a program or write a file
//! (from each command's manual), commands given by path, globs where an
//! option or a command name goes, and literal variables followed within one
//! script. Each class also has its legitimate look-alikes, which stay
//! read-only.

use std::path::PathBuf;

use toolgate_shell::{Analysis, EffectKind, Options, analyze};

use crate::real::have;

fn opts() -> Options {
    Options {
        cwd: Some(PathBuf::from("/nonexistent/w")),
        home: Some(PathBuf::from("/home/u")),
        ..Options::default()
    }
}

fn show(a: &Analysis) -> String {
    format!(
        "commands {:?}\neffects {:?}\nunknowns {:?}\nhazards {:?}",
        a.commands
            .iter()
            .map(|c| (c.argv.join(" "), c.read_only))
            .collect::<Vec<_>>(),
        a.effects
            .iter()
            .map(|e| (e.kind, e.target.as_str()))
            .collect::<Vec<_>>(),
        a.unknowns.iter().map(|u| &u.reason).collect::<Vec<_>>(),
        a.hazards.iter().map(|h| h.kind).collect::<Vec<_>>(),
    )
}

/// An unknown whose reason holds `why`, and no command read-only.
fn unknown(cmd: &str, why: &str) {
    let a = analyze(cmd, &opts());
    assert!(
        a.unknowns.iter().any(|u| u.reason.contains(why)),
        "`{cmd}`: no unknown with `{why}`\n{}",
        show(&a)
    );
    assert!(
        a.commands.iter().all(|c| !c.read_only),
        "`{cmd}` is read-only\n{}",
        show(&a)
    );
}

/// A write of `target`, and the command not read-only.
fn writes(cmd: &str, target: &str) {
    let a = analyze(cmd, &opts());
    assert!(
        a.effects
            .iter()
            .any(|e| e.kind == EffectKind::Write && e.target == target),
        "`{cmd}`: no write of `{target}`\n{}",
        show(&a)
    );
    assert!(
        a.commands.iter().all(|c| !c.read_only),
        "`{cmd}` is read-only\n{}",
        show(&a)
    );
}

/// A read of `target` (an option's file is checked like an operand).
fn reads(cmd: &str, target: &str) {
    let a = analyze(cmd, &opts());
    assert!(
        a.effects
            .iter()
            .any(|e| e.kind == EffectKind::Read && e.target == target),
        "`{cmd}`: no read of `{target}`\n{}",
        show(&a)
    );
}

/// Every command read-only, nothing unknown, nothing written.
fn harmless(cmd: &str) {
    let a = analyze(cmd, &opts());
    assert!(
        !a.commands.is_empty()
            && a.commands.iter().all(|c| c.read_only)
            && a.unknowns.is_empty()
            && a.effects.iter().all(|e| e.kind == EffectKind::Read),
        "`{cmd}` is not harmless\n{}",
        show(&a)
    );
}

/// Not read-only (whatever else it is).
fn not_read_only(cmd: &str) {
    let a = analyze(cmd, &opts());
    assert!(
        a.commands.iter().any(|c| !c.read_only),
        "`{cmd}` is read-only\n{}",
        show(&a)
    );
}

#[test]
fn git_global_options_are_unknown() {
    // git(1), OPTIONS: each changes the configuration, repository, pager or
    // programs git uses.
    for (cmd, why) in [
        ("git -c core.fsmonitor=./x status", "sets configuration"),
        ("git -ccore.fsmonitor=./x status", "sets configuration"),
        ("git -c core.pager=less log", "sets configuration"),
        (
            "git --config-env=core.pager=PAGER_CMD log",
            "sets configuration",
        ),
        (
            "git --config-env core.pager=PAGER_CMD log",
            "sets configuration",
        ),
        ("git -C /other status", "another repository"),
        ("git -C/other status", "another repository"),
        ("git -C sub -C .. status", "another repository"),
        ("git --git-dir=x status", "another repository"),
        ("git --git-dir x status", "another repository"),
        ("git --work-tree=/tmp status", "another repository"),
        ("git --work-tree /tmp diff", "another repository"),
        ("git --bare log", "another repository"),
        ("git --namespace=n log", "refs, paths or attributes"),
        ("git --super-prefix=p/ status", "refs, paths or attributes"),
        ("git --attr-source=HEAD diff", "refs, paths or attributes"),
        ("git --exec-path=/tmp/x status", "chooses the programs"),
        ("git -p status", "pager"),
        ("git --paginate log", "pager"),
        ("git --no-pager -c a.b=c status", "sets configuration"),
    ] {
        unknown(cmd, why);
    }
    for cmd in [
        "git status",
        "git --no-pager log",
        "git -P diff",
        "git --no-optional-locks status",
        "git --literal-pathspecs ls-files",
        "git --version",
        "git --exec-path",
        "git log --oneline -n 3",
        "git diff HEAD~1",
    ] {
        harmless(cmd);
    }
}

#[test]
fn options_that_run_programs_are_unknown() {
    for (cmd, why) in [
        // rg(1)
        ("rg --pre ./conv x", "runs a program"),
        ("rg --pre=./conv x", "runs a program"),
        ("rg --hostname-bin ./h x", "runs a program"),
        ("rg -z x", "runs a program"),
        ("rg -inz x", "runs a program"),
        ("rg --search-zip x", "runs a program"),
        // ag(1)
        ("ag --pager ./p x", "runs a program"),
        // sort(1)
        ("sort --compress-program=gzip f", "runs a program"),
        ("sort --compress-program gzip f", "runs a program"),
        ("sort --compress=gzip f", "runs a program"),
        ("sort --compress-prog gzip f", "runs a program"),
        // tar(1)
        ("tar -I ./z -tf a.tar", "runs a program"),
        ("tar --use-compress-program=./z -tf a.tar", "runs a program"),
        ("tar --to-command=sh -xf a.tar", "runs a program"),
        ("tar --to-com=sh -xf a.tar", "runs a program"),
        ("tar --use-comp=./z -tf a.tar", "runs a program"),
        ("tar --rmt-command=./r -tf a.tar", "runs a program"),
        ("tar --rsh-command=./r -tf h:a.tar", "runs a program"),
        ("tar -tf host:a.tar", "another host"),
        ("tar tf host:/a.tar", "another host"),
        // git-diff(1), git-log(1), git-cat-file(1), git-grep(1), git-help(1)
        ("git diff --ext-diff", "runs a program"),
        ("git log -p --ext-diff", "runs a program"),
        ("git show --textconv HEAD:f", "runs a program"),
        ("git diff --textconv", "runs a program"),
        ("git diff --ext", "runs a program"),
        ("git log --textc", "runs a program"),
        ("git diff-tree -p --ext-diff HEAD", "runs a program"),
        ("git cat-file --textconv HEAD:f", "runs a program"),
        ("git cat-file --filters HEAD:f", "runs a program"),
        ("git grep --textconv x", "runs a program"),
        ("git grep -O x", "pager"),
        ("git blame --textconv f", "runs a program"),
        ("git help -w status", "runs a program"),
        ("git log $OPT", "not literal"),
        // less(1), man(1)
        ("less '+!id' f", "pager"),
        ("zless +!id f.gz", "pager"),
        ("less +v f", "pager"),
        ("less ++s.out f", "pager"),
        ("man -P ./p ls", "runs a program"),
        ("man --pager=./p ls", "runs a program"),
        ("man -H ls", "runs a program"),
        ("man -C ./man.conf ls", "runs a program"),
        // gawk(1)
        ("awk -l ./ext '{print}' f", "extension"),
        ("gawk --load=./ext '{print}' f", "extension"),
        ("awk -E prog.awk f", "not analysed"),
        ("awk -i lib.awk '{print}' f", "not analysed"),
        ("awk -D '{print}' f", "debugger"),
        ("mawk -W exec prog.awk f", "not analysed"),
        ("awk 'BEGIN{system(\"id\")}'", "system"),
        (
            "awk 'BEGIN{getline l < \"/etc/passwd\"; print l}'",
            "reads a file",
        ),
        ("awk '@include \"x.awk\"; {print}' f", "not analysed"),
        // sed(1)
        ("sed -n '1e id' f", "runs"),
        ("sed 's/x/id/e' f", "runs"),
        // find(1)
        ("find . -name x $ACTION", "may be an action"),
        // jq(1), yq
        ("jq 'import \"m\" as $m; .' f", "modules"),
        ("jq 'include \"m\"; .' f", "modules"),
        ("yq -s '.a' f.yaml", "split-exp"),
        ("yq --split-exp '.a' f.yaml", "split-exp"),
        ("yq 'load(\"/etc/passwd\")' f.yaml", "reads files"),
        // date(1), hostname(1), bash builtins, dc(1)
        ("date -s 2020-01-01", "clock"),
        ("date --set=2020-01-01", "clock"),
        ("date 010100002020", "clock"),
        ("hostname evil", "sets it"),
        ("hostname -F name.txt", "sets it"),
        ("hash -p ./evil ls", "sets the program"),
        ("shopt -s dotglob", "expanded or run"),
        ("shopt -s extglob nullglob", "expanded or run"),
        ("set -k", "changes how"),
        ("set -o posix", "changes how"),
        ("dc -e '!id'", "shell commands"),
        ("dc prog.dc", "shell commands"),
        ("dc", "shell commands"),
        // Lists of files to read, whose names are not known: coreutils'
        // `--files0-from`, tar's `-T`, zip's `-@`.
        ("sort --files0-from=list", "its list names"),
        ("wc --files0-from list", "its list names"),
        ("tar -cf a.tar -T list", "its list names"),
        ("tar -c --files-from=list -f a.tar", "its list names"),
        ("zip a.zip -@ < list", "from its input"),
        ("zip -r@ a.zip", "from its input"),
    ] {
        unknown(cmd, why);
    }
}

#[test]
fn options_that_write_name_their_file() {
    for (cmd, target) in [
        ("base64 -o out f", "out"),
        ("base64 --output=out f", "out"),
        ("sort -o out f", "out"),
        ("sort --output out f", "out"),
        ("sort --out=out f", "out"),
        ("sort --outp out f", "out"),
        ("sort -T tmpdir f", "tmpdir"),
        ("less -o log.txt f", "log.txt"),
        ("less --log-file=log.txt f", "log.txt"),
        ("info -o out.txt ls", "out.txt"),
        ("info --dribble keys.txt ls", "keys.txt"),
        ("file -C -m my.magic", "my.magic.mgc"),
        ("file -C", "magic.mgc"),
        ("tree -o t.txt", "t.txt"),
        ("tree -R src", "src"),
        ("ncdu -o scan.json", "scan.json"),
        ("awk --dump-variables '{print}' f", "awkvars.out"),
        ("awk -dvars.txt '{print}' f", "vars.txt"),
        ("gawk --dump-variables=vars.txt '{print}' f", "vars.txt"),
        ("gawk --profile '{print}' f", "awkprof.out"),
        ("gawk -p '{print}' f", "awkprof.out"),
        ("gawk -o '{print}' f", "awkprof.out"),
        ("gawk --pretty-print=pp.awk '{print}' f", "pp.awk"),
        ("gawk -v x=1 -d '{print}' f", "awkvars.out"),
        ("history -w h.txt", "h.txt"),
        ("history -a", "~/.bash_history"),
        ("xxd -r hex out.bin", "out.bin"),
        ("uniq in.txt out.txt", "out.txt"),
        ("find . -fprint out", "out"),
        ("find . -fprint0 out", "out"),
        ("find . -fls out", "out"),
        ("find . -fprintf out '%p'", "out"),
        ("sed -n 's/a/b/w out' f", "out"),
        ("sed -i s/a/b/ f", "f"),
        ("tar -tf a.tar --index-file=idx", "idx"),
        ("tar -cf a.tar -g snap src", "snap"),
        ("tar -tf a.tar --volno-file=vol", "vol"),
        ("git diff --output=d.txt", "d.txt"),
        ("git log --output d.txt", "d.txt"),
        ("git log --out=d.txt", "d.txt"),
        ("git show --output=d.txt HEAD", "d.txt"),
        ("git diff-index --output=d.txt HEAD", "d.txt"),
        ("git whatchanged --output=d.txt", "d.txt"),
    ] {
        writes(cmd, target);
    }
    // Options whose file is read are checked like operands.
    for (cmd, target) in [
        ("base64 -i secret", "secret"),
        ("hexdump -f fmt f", "fmt"),
        ("date -r f", "f"),
        ("date -f dates.txt", "dates.txt"),
        ("hostname -F name.txt", "name.txt"),
        ("info --restore keys ls", "keys"),
        ("ncdu -f scan.json", "scan.json"),
        ("tar -tf a.tar -g snap", "snap"),
        ("git blame --contents other f", "other"),
        ("git blame -n .env", ".env"),
        ("git annotate -n .env", ".env"),
        ("git blame -Srevs f", "revs"),
        ("git blame -S revs f", "revs"),
        ("git blame --ignore-revs-file=revs f", "revs"),
        ("diff --to-file=a b", "a"),
        ("bc prog.bc", "prog.bc"),
        ("man -l page.1", "page.1"),
        ("man ./page.1", "./page.1"),
        ("info -f ./doc.info", "./doc.info"),
        // A menu item holding `/` is a file; `-d` adds a directory read.
        ("info ./doc.info", "./doc.info"),
        ("info -o - sub/doc", "sub/doc"),
        ("info -d secrets k", "secrets"),
        ("info --directory=secrets k", "secrets"),
        // `-M PATH` reads the pages beneath each directory it lists.
        ("man -M secrets k", "secrets"),
        ("man -Msecrets k", "secrets"),
        ("man --manpath=a:secrets k", "secrets"),
        ("man --manpath=a:secrets k", "a"),
        ("apropos -M secrets x", "secrets"),
        ("whatis -M secrets x", "secrets"),
    ] {
        reads(cmd, target);
    }
    // `man -M` prints a page from there (where man is installed).
    if have("man") {
        let dir = tempfile::tempdir().expect("scratch");
        std::fs::create_dir_all(dir.path().join("secrets/man1")).expect("mkdir");
        std::fs::write(
            dir.path().join("secrets/man1/k.1"),
            ".TH K 1\n.SH NAME\nk \\- x\n.SH DESCRIPTION\nSECRET3141\n",
        )
        .expect("write");
        prints(
            dir.path(),
            "man",
            &["-M", "secrets", "k"],
            &[("MANPAGER", "cat"), ("PAGER", "cat")],
            "SECRET3141",
        );
    }
    // `info` itself prints such a file (where it is installed).
    if have("info") {
        let dir = tempfile::tempdir().expect("scratch");
        std::fs::create_dir(dir.path().join("secrets")).expect("mkdir");
        std::fs::write(
            dir.path().join("secrets/k.info"),
            "\x1f\nFile: k,  Node: Top\n\nSECRET-3141\n",
        )
        .expect("write");
        for args in [
            &["-o", "-", "./secrets/k.info"][..],
            &["-o", "-", "-d", "secrets", "k"],
        ] {
            prints(dir.path(), "info", args, &[("INFOPATH", "")], "SECRET-3141");
        }
    }
    not_read_only("stty raw");
    not_read_only("stty -F /dev/ttyS0 9600");
}

/// Runs `program` with `args` and `env` in `dir`; its output must hold
/// `secret`.
fn prints(dir: &std::path::Path, program: &str, args: &[&str], env: &[(&str, &str)], secret: &str) {
    let out = std::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(secret), "{program} {args:?} printed {text:?}");
}

#[test]
fn reading_look_alikes_stay_read_only() {
    for cmd in [
        "rg -n foo",
        "rg --no-ignore -g '*.rs' foo src",
        "rg --type-add 'web:*.html' -tweb foo",
        "sort -u f",
        "sort -k2 -t, f",
        "base64 f",
        "base64 -d f",
        "base64 -w0 f",
        "tar -tf x.tar",
        "tar -tvzf x.tgz",
        "tar tf x.tar",
        "less f",
        "less -N +10 f",
        "less +G f",
        "less +/TODO f",
        "man ls",
        "man 5 crontab",
        "info ls",
        "git diff --no-ext-diff",
        "git diff --text",
        "git cat-file -p HEAD:f",
        "tar -tf x.tar --checkpoint",
        "rg --files-with-matches foo",
        "grep --exclude=x -r foo .",
        "sort --unique f",
        "git log --no-textconv -p",
        "git grep -n TODO",
        "git show HEAD:f",
        "git blame f",
        "git help status",
        "awk '{print $1}' f",
        "awk -F: -v n=1 '$1 == n' f",
        "sed -n '1,5p' f",
        "jq -r .name f",
        "yq '.a' f.yaml",
        "date",
        "date +%s",
        "date -u -d @0 +%F",
        "hostname",
        "hostname -f",
        "hash",
        "history",
        "stty -a",
        "stty size",
        "shopt",
        "shopt -s checkwinsize",
        "set -euo pipefail",
        "set -x",
        "dc -e '2 3 + p'",
        "bc -l",
        "tree src",
        "file f",
        "xxd f",
        "diff --to-file=a b",
        "find . -name '*.rs' -print",
        "echo HEAD~1",
    ] {
        harmless(cmd);
    }
}

#[test]
fn commands_by_path_are_programs_of_the_workspace() {
    for cmd in [
        "./cat f",
        "../cat f",
        "/tmp/x/cat f",
        "bin/cat f",
        "~/bin/cat f",
        "/usr/local/bin/cat f",
        "/usr/bin/../../tmp/cat f",
        "./git status",
    ] {
        let a = analyze(cmd, &opts());
        assert!(!a.commands[0].read_only, "`{cmd}`: {}", show(&a));
        // Its operands are still checked as the name's would be.
        assert!(
            a.effects.iter().any(|e| e.kind == EffectKind::Read) || cmd.contains("git"),
            "`{cmd}`: {}",
            show(&a)
        );
    }
    // The system's own program directories hold the system's programs.
    for cmd in ["/usr/bin/cat f", "/bin/cat f", "/usr/bin/git status"] {
        harmless(cmd);
    }
    // A wrapper or shell given by path is followed (for deny rules and
    // hard limits) but is an unknown.
    for cmd in [
        "./timeout 5 cat f",
        "./env cat f",
        "./bash -c 'cat f'",
        "/tmp/nice cat f",
    ] {
        let a = analyze(cmd, &opts());
        assert!(
            a.unknowns
                .iter()
                .any(|u| u.reason.contains("program of the workspace")),
            "`{cmd}`: {}",
            show(&a)
        );
    }
    let a = analyze("./timeout 5 rm -rf /", &opts());
    assert_eq!(a.hazards[0].kind, "rm-root", "{}", show(&a));
    for cmd in [
        "/usr/bin/timeout 5 cat f",
        "/usr/bin/env cat f",
        "/bin/bash -c 'cat f'",
    ] {
        harmless(cmd);
    }
}

#[test]
fn globs_where_options_or_names_go_are_unknown() {
    for (cmd, why) in [
        ("find . -del*", "only known when it runs"),
        ("find . -name x -o -exe* rm {} ;", "only known when it runs"),
        ("rg --pr* ./x foo", "where an option goes"),
        ("sort -o* f", "where an option goes"),
        ("ls -[a-z]* .", "where an option goes"),
        ("*", "command name is a glob"),
        ("./* f", "command name is a glob"),
        ("/bin/c?t f", "command name is a glob"),
        (
            "touch ./-delete; find . *",
            "may create a file named like an option",
        ),
        (
            "echo x > ./--pre=sh; rg foo *",
            "may create a file named like an option",
        ),
        (
            "cp a ./-rf && rm ?f",
            "may create a file named like an option",
        ),
        (
            "tar -xf a.tar; find . *",
            "may create a file named like an option",
        ),
        (
            "touch \"$F\"; rg x *",
            "may create a file named like an option",
        ),
    ] {
        let a = analyze(cmd, &opts());
        assert!(
            a.unknowns.iter().any(|u| u.reason.contains(why)),
            "`{cmd}`: no unknown with `{why}`\n{}",
            show(&a)
        );
    }
    for cmd in [
        "ls *.md",
        "cat src/*.rs",
        "grep -r x . --include=*.rs",
        "find . -name *.rs",
        "wc -l *",
    ] {
        harmless(cmd);
    }
    // A write that cannot create a name like an option leaves the glob known.
    let a = analyze("mkdir -p build && cp *.txt build/", &opts());
    assert!(a.unknowns.is_empty(), "{}", show(&a));
}

/// The argv of each command, joined.
fn argvs(cmd: &str) -> Vec<String> {
    analyze(cmd, &opts())
        .commands
        .iter()
        .map(|c| c.argv.join(" "))
        .collect()
}

fn hazards(cmd: &str) -> Vec<&'static str> {
    analyze(cmd, &opts())
        .hazards
        .iter()
        .map(|h| h.kind)
        .collect()
}

#[test]
fn literal_variables_are_followed() {
    for (cmd, want) in [
        ("t=touch; $t x", "touch x"),
        ("t=touch\n$t x", "touch x"),
        ("t=touch && $t x", "touch x"),
        ("export t=touch; $t x", "touch x"),
        ("declare t=touch; $t x", "touch x"),
        ("a=to b=uch; $a$b x", "touch x"),
        ("d=src; d=$d/lib; ls $d", "ls src/lib"),
        ("f='my file'; cat \"$f\"", "cat my file"),
        ("f=x; { cat $f; }", "cat x"),
        ("f=x; (cat $f)", "cat x"),
        ("f=x; echo $(cat $f)", "cat x"),
        ("f=x; if true; then cat $f; fi", "cat x"),
        ("f=x; cat $f | wc -l", "cat x"),
        ("{ f=x; }; cat $f", "cat x"),
        ("e=; cat $e f", "cat f"),
        ("h=~/f; cat $h", "cat /home/u/f"),
    ] {
        assert!(
            argvs(cmd).contains(&want.to_string()),
            "`{cmd}`: want `{want}` in {:?}",
            argvs(cmd)
        );
    }
    for cmd in [
        "X=/; rm -rf $X",
        "X=/; rm -rf \"$X\"",
        "X=/; rm -rf ${X}",
        "export X=/; rm -rf $X",
        "X=/ && rm -rf $X",
        "X=~; rm -rf $X",
        "X=/usr; X=$X/..; rm -rf $X",
        "X=/; (rm -rf $X)",
        "X=/; if [ -d $X ]; then rm -rf $X; fi",
        "X=/; sudo=rm; $sudo -rf $X",
        "c=rm; o=-rf; $c $o /",
        "X=/; rm -rf ${X}/",
        "X=/; Y=$X; rm -rf $Y",
        "X=/; export X; rm -rf $X",
        "X=\"/\"; rm -rf $X",
        "X=/; { rm -rf $X; }",
    ] {
        assert!(
            hazards(cmd).contains(&"rm-root"),
            "`{cmd}`: no rm-root in {:?}",
            analyze(cmd, &opts()).hazards
        );
    }
    // Not sure where bash would not make it sure: the word stays unknown.
    for cmd in [
        "X=/ rm -rf $X",
        "(X=/); rm -rf $X",
        "echo | X=/; rm -rf $X",
        "X=/ & rm -rf $X",
        "if true; then X=/; fi; rm -rf $X",
        "while false; do X=/; done; rm -rf $X",
        "X=s; while true; do rm -rf $X; X=/; done",
        "true || X=/; rm -rf $X",
        "true && X=/; rm -rf $X",
        "X=s; X=$(pwd); rm -rf $X",
        "X=s; read X; rm -rf $X",
        "X=s; unset X; rm -rf $X",
        "X=s; eval X=/; rm -rf $X",
        "X=s; source x.sh; rm -rf $X",
        "X=s; : ${X:=/}; rm -rf $X",
        "X=s; (( X = 1 )); rm -rf $X",
        "X=s; printf -v X /; rm -rf $X",
        "X=s; f() { X=/; }; f; rm -rf $X",
        "X=s; for X in /; do :; done; rm -rf $X",
        "X=s; for ((X=0; X<1; X++)); do :; done; rm -rf $X",
        "X=/; bash -c 'rm -rf $X'",
        "X='a b'; rm $X",
        "readonly X=/; X=s; rm -rf $X",
        "declare -i X=1+1; rm -rf $X",
        "X=s; X+=/; rm -rf $X",
        "X[0]=/; rm -rf $X",
        "X=$HOME$Y; rm -rf $X",
        "Y=s; declare -n X=Y; X=/; rm -rf $Y",
        "declare -l X; X=/ETC; rm -rf $X",
        "trap 'X=/' DEBUG; X=s; rm -rf $X",
        "X=/; local X=s; rm -rf $X",
        "PWD=s; cd /; rm -rf $PWD",
        "X=s; : $[X=1]; rm -rf $X",
    ] {
        let a = analyze(cmd, &opts());
        let rm = a
            .commands
            .iter()
            .find(|c| c.argv.first().is_some_and(|n| n == "rm"))
            .unwrap_or_else(|| panic!("`{cmd}`: no rm\n{}", show(&a)));
        assert!(
            !rm.non_literal.is_empty(),
            "`{cmd}`: the operand of rm is taken as known\n{}",
            show(&a)
        );
    }
}

/// A scratch directory holding `.env`, and options that run there.
fn with_env_file() -> (tempfile::TempDir, Options) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".env"), "K=1\n").unwrap();
    let at = Options {
        cwd: Some(dir.path().to_path_buf()),
        ..opts()
    };
    (dir, at)
}

/// The arguments of a perl or ruby program (`-e CODE`, or a script) are
/// what `<>` and `ARGF` read, and a shell script's are its `$1`..: each
/// that names a file is checked as a program's argument; with `-n`, `-p`
/// or `-i` they are read (and written) outright.
#[test]
fn script_arguments_are_checked() {
    use toolgate_shell::Origin;
    let (_dir, at) = with_env_file();
    for cmd in [
        "perl -e 'print <>' .env",
        "ruby -e 'puts ARGF.read' .env",
        "perl tool.pl .env",
        "ruby -rjson tool.rb .env",
        "bash tool.sh .env",
        "sh -x tool.sh x .env",
    ] {
        let a = analyze(cmd, &at);
        assert!(
            a.effects
                .iter()
                .any(|e| e.origin == Origin::Argument && e.target == ".env"),
            "`{cmd}`\n{}",
            show(&a)
        );
    }
    reads("perl -ne print .env", ".env");
}

/// A compressor writes the file beside its operand: the operand with its
/// suffix added, or taken off when it decompresses (`gunzip
/// toolgate.toml.gz` writes `toolgate.toml`, `gzip -S .toml toolgate`
/// too). Proved against gzip where it is installed.
#[test]
fn compressors_write_the_file_beside_their_operand() {
    writes("gunzip toolgate.toml.gz", "toolgate.toml");
    writes("gzip -d -f toolgate.toml.gz", "toolgate.toml");
    writes("gzip -S .toml toolgate", "toolgate.toml");
    writes("gzip --suffix=.toml toolgate", "toolgate.toml");
    writes("gzip -dS .x toolgate.toml.x", "toolgate.toml");
    writes("bunzip2 a.tbz2", "a.tar");
    writes("unxz -k notes.txt.xz", "notes.txt");
    writes("zstd -d f.zst", "f");
    writes("gzip notes.txt", "notes.txt.gz");
    writes("unpigz toolgate.toml.gz", "toolgate.toml");
    writes("pigz -d toolgate.toml.gz", "toolgate.toml");
    writes("pbzip2 -d toolgate.toml.bz2", "toolgate.toml");
    writes("lzip -d toolgate.toml.lz", "toolgate.toml");
    writes("plzip -dk toolgate.toml.lz", "toolgate.toml");
    writes("lzip -d -o toolgate.toml x.lz", "toolgate.toml");
    writes("lzop -d toolgate.toml.lzo", "toolgate.toml");
    writes("brotli -d toolgate.toml.br", "toolgate.toml");
    writes("unbrotli toolgate.toml.br", "toolgate.toml");
    writes("brotli -d -o toolgate.toml x", "toolgate.toml");
    writes("brotli notes.txt", "notes.txt.br");
    unknown("lzop -d -p/tmp x.lzo", "lzop -p");
    unknown("gzip -S \"$S\" f", "suffix");
    let a = analyze("gzip -c notes.txt", &opts());
    assert!(
        !a.effects.iter().any(|e| e.kind == EffectKind::Write),
        "{}",
        show(&a)
    );
    if !crate::real::have("gzip") {
        return;
    }
    let s = crate::real::Scratch::new();
    s.run(
        "echo x > toolgate; gzip -S .toml toolgate; echo y > a; gzip a; mv a.gz b.toml.gz; gunzip b.toml.gz",
        "",
    );
    assert!(s.join("toolgate.toml").exists() && s.join("b.toml").exists());
    // The other compressors, each decompressing a file named so (and
    // lzop, brotli keeping what they read), where they are installed.
    for (p, suffix, keeps) in [
        ("pigz", "gz", false),
        ("pbzip2", "bz2", false),
        ("lbzip2", "bz2", false),
        ("lzip", "lz", false),
        ("plzip", "lz", false),
        ("lzop", "lzo", true),
        ("brotli", "br", true),
    ] {
        if !crate::real::have(p) {
            continue;
        }
        let s = crate::real::Scratch::new();
        writes(&format!("{p} -d toolgate.toml.{suffix}"), "toolgate.toml");
        s.run(
            &format!("echo x > t; {p} t; mv t.{suffix} toolgate.toml.{suffix}; rm -f t; {p} -d toolgate.toml.{suffix}"),
            "",
        );
        assert!(s.join("toolgate.toml").exists(), "{p}");
        assert_eq!(
            s.join(&format!("toolgate.toml.{suffix}")).exists(),
            keeps,
            "{p}"
        );
    }
}

/// cpio, ar, 7-Zip and pax extract the names their archive holds into a
/// directory (a recursive write of it, as `tar x` is); creating from names
/// on standard input or in a list file is unknown.
#[test]
fn other_archivers_extract_into_a_directory() {
    let recursive_write = |cmd: &str, dir: &str| {
        let a = analyze(cmd, &opts());
        assert!(
            a.effects
                .iter()
                .any(|e| e.kind == EffectKind::Write && e.recursive && e.target == dir),
            "`{cmd}`: no recursive write of `{dir}`\n{}",
            show(&a)
        );
    };
    recursive_write("cpio -id < a.cpio", ".");
    recursive_write("cpio -i -D out < a.cpio", "out");
    recursive_write("ar x lib.a", ".");
    recursive_write("ar -x lib.a", ".");
    recursive_write("7z x a.7z", ".");
    recursive_write("7z x a.7z -oout", "out");
    recursive_write("pax -r < a.pax", ".");
    writes("ar rc lib.a a.o", "lib.a");
    reads("ar rc lib.a a.o", "a.o");
    writes("7z a a.7z src", "a.7z");
    for cmd in ["find . | cpio -o > a.cpio", "find . | cpio -pd out"] {
        let a = analyze(cmd, &opts());
        assert!(
            a.unknowns
                .iter()
                .any(|u| u.reason.contains("from its input")),
            "`{cmd}`\n{}",
            show(&a)
        );
    }
    unknown("7z a a.7z @list", "list");
    unknown("pax -w > a.pax", "from its input");
}

/// A variable the environment table calls data may still name a file the
/// program opens (`ENV_FILE=.env make`, `export CONF=.env; ./run.sh`): its
/// value is checked as a program's argument.
#[test]
fn variables_naming_files_are_checked_as_arguments() {
    use toolgate_shell::Origin;
    let (_dir, at) = with_env_file();
    for cmd in [
        "ENV_FILE=.env make",
        "env CONF=.env python3 app.py",
        "export CONF=.env; ./run.sh",
        "CONF=./.env cargo run",
    ] {
        let a = analyze(cmd, &at);
        assert!(
            a.effects.iter().any(
                |e| e.origin == Origin::Argument && e.target.trim_start_matches("./") == ".env"
            ),
            "`{cmd}`\n{}",
            show(&a)
        );
    }
    let a = analyze("N=3 LANG=C ls", &at);
    assert!(
        !a.effects.iter().any(|e| e.origin == Origin::Argument),
        "{}",
        show(&a)
    );
}
