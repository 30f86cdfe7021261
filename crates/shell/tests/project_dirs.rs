//! Where a program finds its project, and what options make it write or
//! connect, under a developer policy (`Bash(git status)`, `Bash(make *)`,
//! `Bash(npm test *)`, `Bash(cargo *)`, `Bash(tar -tf *)`, `Bash(man
//! *)`): the directory a wrapper runs a program in, git in a directory
//! where it finds another repository, npm's short options, writes options
//! turn on, man of a page that is not the system's, rustup's toolchain
//! file, and registry URLs. Where the real program is installed, it is run
//! to show it does what the analysis takes it for.

use std::path::Path;

use toolgate_shell::{Analysis, EffectKind, Options, Origin, analyze};

use crate::real::{Scratch, have};

fn at(dir: &Path) -> Options {
    Options {
        cwd: Some(dir.to_path_buf()),
        home: Some(dir.join("home")),
        ..Options::default()
    }
}

fn unknown(a: &Analysis, cmd: &str, part: &str) {
    assert!(
        a.unknowns.iter().any(|u| u.reason.contains(part)),
        "`{cmd}`: no unknown with `{part}`: {:?}",
        a.unknowns
    );
}

fn clean(a: &Analysis, cmd: &str) {
    assert!(a.unknowns.is_empty(), "`{cmd}`: {:?}", a.unknowns);
}

/// Whether `a` reads, as an operand, a target that resolves to `dir`.
fn reads_dir(a: &Analysis, dir: &Path) -> bool {
    use std::path::{Component, PathBuf};
    a.effects.iter().any(|e| {
        let joined = e
            .cwd
            .as_deref()
            .map_or(PathBuf::from(&e.target), |c| c.join(&e.target));
        let mut resolved = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::ParentDir => {
                    resolved.pop();
                }
                Component::CurDir => {}
                c => resolved.push(c),
            }
        }
        e.kind == EffectKind::Read && e.origin == Origin::Operand && resolved == dir
    })
}

/// `env -C DIR`, `env --chdir=DIR`, `unshare --wd=DIR`, `nsenter
/// --wd=DIR`, `sudo -D DIR`: the program runs in DIR, as after `cd DIR`
/// (its command's directory is DIR, its relative paths resolve there),
/// and a program that reads its project there (make's Makefile, npm's
/// `package.json`, the repository git finds) reads DIR, as `make -C DIR`
/// and `npm --prefix DIR` do.
#[test]
fn a_wrappers_directory_is_the_programs() {
    let ws = Path::new("/w");
    for cmd in [
        "env -C /o make",
        "env --chdir=/o git status",
        "env -C /o npm test",
        "env -iC/o npm test",
        "unshare --wd=/o git status",
        "nsenter --wd=/o make",
        "env --ch /o cargo build",
    ] {
        let a = analyze(cmd, &at(ws));
        let c = a.commands.last().unwrap();
        assert_eq!(c.cwd.as_deref(), Some(Path::new("/o")), "`{cmd}`");
        assert!(reads_dir(&a, Path::new("/o")), "`{cmd}`: {:?}", a.effects);
    }
    // Relative to where the wrapper runs; nested wrappers, each in turn.
    let a = analyze("cd sub && env -C ../o env -C p make", &at(ws));
    assert_eq!(a.commands[1].cwd.as_deref(), Some(Path::new("/w/o/p")));
    assert!(reads_dir(&a, Path::new("/w/o")), "{:?}", a.effects);
    assert!(reads_dir(&a, Path::new("/w/o/p")), "{:?}", a.effects);
    // The command's own relative paths resolve in DIR.
    let a = analyze("env -C /o cat x", &at(ws));
    assert_eq!(a.effects.len(), 1);
    assert_eq!(a.effects[0].cwd.as_deref(), Some(Path::new("/o")));
    // After it, the directory is the outer one again.
    let a = analyze("env -C /o true; make", &at(ws));
    assert_eq!(a.commands[1].cwd, None);
    // A shell run there runs its commands there.
    let a = analyze("env -C /o bash -c 'make'", &at(ws));
    assert_eq!(
        a.commands.last().unwrap().cwd.as_deref(),
        Some(Path::new("/o"))
    );
    assert!(reads_dir(&a, Path::new("/o")), "{:?}", a.effects);
    // A directory that is not literal cannot be followed.
    let cmd = "env -C \"$D\" make";
    unknown(&analyze(cmd, &at(ws)), cmd, "not literal");
    // A reader whose operands are all it reads is unchanged.
    let a = analyze("env -C /o cat x", &at(ws));
    assert!(!reads_dir(&a, Path::new("/o")));
}

/// The directory a `cd` leaves a program in is its project's as well:
/// `cd /o && npm test` runs the scripts of `/o/package.json`.
#[test]
fn the_directory_a_cd_leaves_is_the_programs() {
    let ws = Path::new("/w");
    for (cmd, dir) in [
        ("cd /o && npm test", "/o"),
        ("cd /o && make", "/o"),
        ("cd sub && make", "/w/sub"),
    ] {
        let a = analyze(cmd, &at(ws));
        assert!(reads_dir(&a, Path::new(dir)), "`{cmd}`: {:?}", a.effects);
    }
    // Where the command started, nothing more than before.
    let a = analyze("make", &at(ws));
    assert!(!reads_dir(&a, ws), "{:?}", a.effects);
    let a = analyze("cd /o && cat x", &at(ws));
    assert!(!reads_dir(&a, Path::new("/o")), "{:?}", a.effects);
}

/// git finds its repository from its working directory: `.git` (a
/// directory or a `gitdir:` file) at each level upwards, or the
/// directory itself when it holds `HEAD`, `objects/` and `refs/`. A
/// repository other than the one of the workspace brings its own
/// configuration (`core.fsmonitor` runs a program on `git status`).
#[test]
fn git_in_another_repository_is_unanalysable() {
    let s = Scratch::new();
    let ws = s.path();
    std::fs::create_dir_all(ws.join(".git/objects")).unwrap();
    std::fs::create_dir_all(ws.join(".git/refs")).unwrap();
    std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let evil = ws.join("evil");
    std::fs::create_dir_all(evil.join("objects")).unwrap();
    std::fs::create_dir_all(evil.join("refs")).unwrap();
    std::fs::create_dir_all(evil.join("deep/er")).unwrap();
    std::fs::write(evil.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::create_dir_all(ws.join("sub/.git")).unwrap();
    std::fs::create_dir_all(ws.join("linked")).unwrap();
    std::fs::write(ws.join("linked/.git"), "gitdir: ../evil\n").unwrap();
    std::fs::create_dir_all(ws.join("src/a")).unwrap();
    for cmd in [
        "git status",
        "cd src/a && git status",
        "env -C src git status",
        "cd .git && git status",
    ] {
        clean(&analyze(cmd, &at(ws)), cmd);
    }
    for cmd in [
        "cd evil && git status",
        "cd evil/deep/er && git log",
        "env -C evil git status",
        "env --chdir=evil/deep git status",
        "unshare --wd=evil git status",
        "cd sub && git status",
        "cd linked && git diff",
    ] {
        unknown(&analyze(cmd, &at(ws)), cmd, "finds the repository");
    }
    // The call's own directory inside a repository of plain files (a
    // host's `cwd`, Codex's `workdir`): no `cd` needed.
    for dir in [evil.clone(), evil.join("deep/er")] {
        unknown(
            &analyze("git status", &at(&dir)),
            "git status",
            "a directory of plain files",
        );
    }
    // Outside any repository of the workspace's, too.
    let cmd = format!("cd {} && git status", evil.display());
    unknown(
        &analyze(&cmd, &at(&ws.join("src"))),
        &cmd,
        "finds the repository",
    );
}

/// The real git runs the `core.fsmonitor` of a plain directory it finds
/// from its working directory.
#[test]
fn git_runs_the_fsmonitor_of_the_directory_it_finds() {
    if !have("git") {
        return;
    }
    let s = Scratch::new();
    let out = s.run(
        "mkdir -p evil/objects evil/refs w && echo 'ref: refs/heads/main' > evil/HEAD && \
         printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \"touch @D/P; false\"\\n\\tworktree = @D/w\\n' > evil/config",
        "cd evil && git status >/dev/null 2>&1; test -e @D/P && echo ran",
    );
    assert_eq!(out, "ran\n");
    let cmd = "cd evil && git status";
    unknown(&analyze(cmd, &at(s.path())), cmd, "finds the repository");
    let cmd = "env -C evil git status";
    unknown(&analyze(cmd, &at(s.path())), cmd, "finds the repository");
}

/// npm's shorthands (`npm help config`; the npm package's
/// `@npmcli/config` definitions): `-C` is `--prefix`, `-L` `--location`,
/// `--reg` `--registry`.
#[test]
fn npm_shorthands() {
    let ws = Path::new("/w");
    for cmd in ["npm test -C /o", "npm -C /o test", "npm test -C=/o"] {
        let a = analyze(cmd, &at(ws));
        assert!(reads_dir(&a, Path::new("/o")), "`{cmd}`: {:?}", a.effects);
    }
    for cmd in ["npm install -L global x", "npm link -L=global"] {
        unknown(&analyze(cmd, &at(ws)), cmd, "outside the workspace");
    }
    if have("npm") {
        let s = Scratch::new();
        let out = s.run("mkdir -p o", "npm prefix -C @D/o 2>/dev/null");
        assert_eq!(out.trim(), s.join("o").display().to_string());
    }
}

/// A write an option turns on in a command that otherwise reads or
/// prints is judged as a redirect is: `tar -t --index-file`, `git
/// read-tree --index-output`, `curl -w '%output{f}'`.
#[test]
fn writes_options_turn_on_are_redirects() {
    let ws = Path::new("/w");
    for (cmd, file) in [
        ("tar -tf - --index-file=Makefile", "Makefile"),
        ("tar -tf x.tar --volno-file Makefile", "Makefile"),
        ("git read-tree --index-output=Makefile HEAD", "Makefile"),
        ("git fast-export --export-marks=Makefile HEAD", "Makefile"),
        ("git interpret-trailers --in-place Makefile", "Makefile"),
        ("git clone --separate-git-dir=g https://h/r", "g"),
        ("curl -w '%output{Makefile}' https://h/", "Makefile"),
        ("ncat -o Makefile h 80", "Makefile"),
    ] {
        let a = analyze(cmd, &at(ws));
        let w: Vec<_> = a
            .effects
            .iter()
            .filter(|e| e.kind == EffectKind::Write && e.target == file)
            .collect();
        assert!(!w.is_empty(), "`{cmd}`: {:?}", a.effects);
        assert!(
            w.iter().all(|e| e.origin == Origin::Redirect),
            "`{cmd}`: {w:?}"
        );
    }
    if have("tar") {
        let s = Scratch::new();
        let out = s.run(
            "tar -cf a.tar -T /dev/null",
            "tar -tf - --index-file=Makefile < a.tar; test -e Makefile && echo wrote",
        );
        assert_eq!(out, "wrote\n");
    }
}

/// `man -l FILE`, `man -l -`, `man ./page.1`: groff formats a page that
/// is not the system's, and its `.so` request reads the file it names.
#[test]
fn man_of_a_local_page_is_unanalysable() {
    let ws = Path::new("/w");
    for cmd in [
        "echo .so .env | man -l -",
        "man -l - <<< '.so /etc/shadow'",
        "man -l ./page.1",
        "man ./page.1",
        "man --local-file page.1",
        "man -Pcat -l page.1",
        "man --local-f page.1",
        "man $PAGE",
    ] {
        unknown(&analyze(cmd, &at(ws)), cmd, "with groff");
    }
    for cmd in [
        "man ls",
        "man 1 ls",
        "man -s 1 ls",
        "man -k printf",
        "man -M /usr/share/man ls",
    ] {
        let a = analyze(cmd, &at(ws));
        assert!(
            !a.unknowns.iter().any(|u| u.reason.contains("with groff")),
            "`{cmd}`: {:?}",
            a.unknowns
        );
    }
    if have("man") && have("groff") {
        let s = Scratch::new();
        let out = s.run(
            "echo SECRET-TEXT > secret",
            "printf '.so @D/secret\\n' | MANPAGER=cat man -l - 2>/dev/null | grep -o SECRET-TEXT",
        );
        if out.is_empty() {
            eprintln!("skipped: man -l did not format here");
        } else {
            assert_eq!(out, "SECRET-TEXT\n");
        }
    }
}

/// rustup runs the toolchain the nearest `rust-toolchain.toml` or
/// `rust-toolchain` names; `path = "/dir"` runs `/dir/bin/cargo`.
#[test]
fn a_toolchain_file_that_names_a_path() {
    let s = Scratch::new();
    let ws = s.path();
    std::fs::create_dir_all(ws.join("a/b")).unwrap();
    std::fs::create_dir_all(ws.join("c")).unwrap();
    std::fs::write(
        ws.join("a/rust-toolchain.toml"),
        "[toolchain]\npath = \"/tmp/x\"\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("c/rust-toolchain"),
        "[toolchain]\n\"path\"=\"/tmp/x\"\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("rust-toolchain.toml"),
        "[toolchain]\nchannel = \"stable\"\n",
    )
    .unwrap();
    for cmd in [
        "cd a && cargo build",
        "cd a/b && rustc x.rs",
        "env -C a/b cargo test",
        "cd c && cargo build",
    ] {
        unknown(&analyze(cmd, &at(ws)), cmd, "by its path");
    }
    for cmd in ["cargo build", "rustc --version"] {
        clean(&analyze(cmd, &at(ws)), cmd);
    }
}

/// A registry's or index's URL is a fetch of it, turned on by an option
/// (judged as curl's URLs are, by the fetch rules and the default, not by
/// the tool's allow); a registry named by configuration, and what changes
/// what a registry serves, are unanalysable.
#[test]
fn registry_urls_are_fetches() {
    let ws = Path::new("/w");
    for (cmd, url) in [
        (
            "cargo search --index sparse+http://127.0.0.1:8768/ foo",
            "http://127.0.0.1:8768/",
        ),
        ("cargo info --index=https://h/i foo", "https://h/i"),
        ("npm test --registry=http://h/", "http://h/"),
        ("npm test --reg http://h/", "http://h/"),
        ("npm install --@s:registry=http://h/", "http://h/"),
    ] {
        let a = analyze(cmd, &at(ws));
        assert!(
            a.effects.iter().any(|e| e.kind == EffectKind::Fetch
                && e.target == url
                && e.origin == Origin::Redirect),
            "`{cmd}`: {:?}",
            a.effects
        );
    }
    for (cmd, part) in [
        (
            "cargo publish --index http://h/ --token x",
            "registry serves",
        ),
        ("cargo yank --version 1.0.0 x", "registry serves"),
        ("cargo owner --add u x", "registry serves"),
        ("cargo search --registry mine foo", "configuration holds"),
        ("cargo info --index file:///tmp/i foo", "not a URL"),
    ] {
        unknown(&analyze(cmd, &at(ws)), cmd, part);
    }
    for cmd in [
        "cargo search foo",
        "cargo publish --dry-run",
        "cargo publish -n",
        "cargo owner --list foo",
    ] {
        clean(&analyze(cmd, &at(ws)), cmd);
    }
}

/// Whether `a` writes `target` as a write an option turns on (judged as a
/// redirect is, not by the tool's allow).
fn writes_by_option(a: &Analysis, target: &str) -> bool {
    a.effects
        .iter()
        .any(|e| e.kind == EffectKind::Write && e.target == target && e.origin == Origin::Redirect)
}

/// `make -I DIR` (`--include-dir=DIR`, in a cluster too): make searches
/// DIR for the makefiles `include`, `-include` and `MAKEFILES` name, and
/// runs their recipes: a read of DIR, as `make -C DIR` is.
#[test]
fn make_include_dirs_are_reads() {
    let ws = Path::new("/w");
    for cmd in [
        "make MAKEFILES=Makefile -I/o all",
        "make -I /o",
        "make -sI/o all",
        "make -kI /o",
        "make --include-dir=/o",
        "make --include-dir /o",
        "make --inc=/o",
    ] {
        let a = analyze(cmd, &at(ws));
        assert!(reads_dir(&a, Path::new("/o")), "`{cmd}`: {:?}", a.effects);
    }
    if have("make") {
        let s = Scratch::new();
        let out = s.run(
            "mkdir -p o w && printf 'all:\\n\\ttouch @D/P\\n' > o/inc.mk",
            "cd w && make -s MAKEFILES=inc.mk -I../o all >/dev/null 2>&1; test -e @D/P && echo ran",
        );
        assert_eq!(out, "ran\n");
    }
}

/// npm's parser (nopt) takes off every leading dash, expands a cluster
/// of one-letter shorthands however many dashes it has, and takes off
/// `no-` as often as it is given (an option whose value is text still
/// takes it): each spelling is the option's.
#[test]
fn npm_options_with_any_dashes() {
    let ws = Path::new("/w");
    for cmd in [
        "npm test ---prefix=/o",
        "npm test ----prefix /o",
        "npm test -prefix=/o",
        "npm ---prefix /o test",
        "npm test --C=/o",
        "npm test ---C /o",
        "npm test -sC /o",
        "pnpm test ---C /o",
    ] {
        let a = analyze(cmd, &at(ws));
        assert!(reads_dir(&a, Path::new("/o")), "`{cmd}`: {:?}", a.effects);
    }
    for (cmd, part) in [
        ("npm test ---script-shell=./x", "runs the package's scripts"),
        ("npm test -script-shell=./x", "runs the package's scripts"),
        (
            "npm test --no-script-shell=./x",
            "runs the package's scripts",
        ),
        ("npm test --NO-no-scr ./x", "runs the package's scripts"),
        ("npm test ----userconfig=./rc", "reads configuration"),
        ("npm test ---globalconfig ./rc", "reads configuration"),
        ("npm test ---node-options=--require=./x.js", "can load code"),
        ("npm test ---shell=./x", "`exec -c`"),
        ("npm test ---editor=./x", "as the editor"),
        ("npm test ---browser=./x", "as the browser"),
        ("npm test ---viewer=./x", "to show help"),
        ("npm test ---git=./x", "as git"),
        ("npm test ---node-gyp=./x", "native modules"),
        ("npm test ---init-module=./x.js", "JavaScript file"),
        (
            "pnpm test ---script-shell=./x",
            "runs the package's scripts",
        ),
        ("npm test ---global", "outside the workspace"),
        ("npm test --no-no-global", "outside the workspace"),
        ("npm test ---g", "outside the workspace"),
        ("npm test -sg", "outside the workspace"),
        ("npm test ---locat=global", "outside the workspace"),
        ("npm test ---L global", "outside the workspace"),
    ] {
        unknown(&analyze(cmd, &at(ws)), cmd, part);
    }
    let cmd = "npm test ---registry=http://h/";
    let a = analyze(cmd, &at(ws));
    assert!(
        a.effects.iter().any(|e| e.kind == EffectKind::Fetch
            && e.target == "http://h/"
            && e.origin == Origin::Redirect),
        "`{cmd}`: {:?}",
        a.effects
    );
    for cmd in [
        "npm test --no-global",
        "npm test --local",
        "npm install --save-dev x",
        "npm test -- ---script-shell=./x",
        "npm test --ca=x",
    ] {
        clean(&analyze(cmd, &at(ws)), cmd);
    }
    // A value npm does not take is not read (`--no-prefix` is `false`).
    let a = analyze("npm test --no-prefix /o", &at(ws));
    assert!(!reads_dir(&a, Path::new("/o")), "{:?}", a.effects);
    if have("npm") {
        let s = Scratch::new();
        let out = s.run(
            "mkdir -p o",
            "npm prefix ---prefix=@D/o 2>/dev/null; npm prefix -sC @D/o 2>/dev/null; \
             npm config get ----script-shell=/x/sh script-shell 2>/dev/null; \
             npm config get --no-script-shell=/x/sh script-shell 2>/dev/null; \
             npm config get --no-no-global global 2>/dev/null",
        );
        let o = s.join("o").display().to_string();
        assert_eq!(out, format!("{o}\n{o}\n/x/sh\n/x/sh\ntrue\n"));
    }
}

/// pnpm's `--dir DIR` (the long form of its `-C`), yarn's `--cwd DIR`
/// (classic and berry) and bun's `--cwd DIR` run the scripts of DIR's
/// `package.json`: a read of DIR, as `npm --prefix DIR` is.
#[test]
fn package_managers_project_directories() {
    let ws = Path::new("/w");
    for cmd in [
        "pnpm --dir /o test",
        "pnpm test --dir=/o",
        "pnpm ---dir=/o test",
        "pnpm -sC /o test",
        "yarn --cwd /o test",
        "yarn --cwd=/o test",
        "bun --cwd /o test",
        "bun test --cwd=/o",
    ] {
        let a = analyze(cmd, &at(ws));
        assert!(reads_dir(&a, Path::new("/o")), "`{cmd}`: {:?}", a.effects);
    }
    let setup = "mkdir -p o && echo '{\"name\":\"o\",\"scripts\":{\"test\":\"touch @D/P\"}}' > o/package.json \
                 && echo '{\"name\":\"w\",\"scripts\":{\"test\":\"true\"}}' > package.json";
    if have("pnpm") {
        let s = Scratch::new();
        let out = s.run(
            setup,
            "pnpm ---dir=o test >/dev/null 2>&1; test -e @D/P && echo ran",
        );
        assert_eq!(out, "ran\n");
    }
    if have("yarn") {
        let s = Scratch::new();
        let out = s.run(
            setup,
            "yarn --cwd=o test >/dev/null 2>&1; test -e @D/P && echo ran",
        );
        assert_eq!(out, "ran\n");
    }
}

/// pnpm's `--config.KEY=VALUE` sets any configuration key, the programs
/// it runs among them (`script-shell`): unanalysable, as `cargo --config`
/// is; so are pnpm's and yarn's options that load configuration or code.
#[test]
fn package_manager_configuration_options() {
    let ws = Path::new("/w");
    for (cmd, part) in [
        (
            "pnpm --config.script-shell=/x/sh.sh test",
            "sets configuration",
        ),
        (
            "pnpm test --config.script-shell /x/sh.sh",
            "sets configuration",
        ),
        ("pnpm -config.node-options=x test", "sets configuration"),
        ("pnpm ---Config.Script-Shell=x test", "sets configuration"),
        ("pnpm --pnpmfile ./hooks.cjs install", "whose hooks run"),
        ("pnpm --config-dir ./c test", "reads configuration"),
        ("pnpm --npm-path ./x publish", "as npm"),
        ("yarn --use-yarnrc ./rc test", "reads configuration"),
    ] {
        unknown(&analyze(cmd, &at(ws)), cmd, part);
    }
    for cmd in ["pnpm -r --filter x test", "pnpm test", "yarn test --watch"] {
        clean(&analyze(cmd, &at(ws)), cmd);
    }
    if have("pnpm") {
        let s = Scratch::new();
        let out = s.run(
            "printf '#!/bin/sh\\ntouch @D/P\\n' > sh.sh && chmod +x sh.sh \
             && echo '{\"name\":\"w\",\"scripts\":{\"test\":\"true\"}}' > package.json",
            "pnpm ---config.script-shell=@D/sh.sh test >/dev/null 2>&1; test -e @D/P && echo ran",
        );
        assert_eq!(out, "ran\n");
    }
}

/// `pytest --debug[=FILE]` writes its trace to FILE (the next word when
/// it is not an option), else to `pytestdebug.log`: a write the option
/// turns on, judged as a redirect is.
#[test]
fn pytest_debug_writes_its_file() {
    let ws = Path::new("/w");
    for (cmd, file) in [
        ("python3 -m pytest --debug=/o/f", "/o/f"),
        ("pytest --debug /o/f tests", "/o/f"),
        ("pytest --debug", "pytestdebug.log"),
        ("pytest --debug -q tests", "pytestdebug.log"),
        ("pytest -q --junit-xml=/o/j.xml", "/o/j.xml"),
    ] {
        let a = analyze(cmd, &at(ws));
        assert!(writes_by_option(&a, file), "`{cmd}`: {:?}", a.effects);
    }
    // The file is the option's, not a test path; the test path after an
    // option is still read.
    let read = |a: &Analysis, target: &str| {
        a.effects
            .iter()
            .any(|e| e.kind == EffectKind::Read && e.target == target)
    };
    let a = analyze("pytest --debug /o/f tests", &at(ws));
    assert!(!read(&a, "/o/f") && read(&a, "tests"), "{:?}", a.effects);
    let a = analyze("pytest --debug -q tests", &at(ws));
    assert!(read(&a, "tests"), "{:?}", a.effects);
    let cmd = "pytest --tx popen//python=./x";
    unknown(&analyze(cmd, &at(ws)), cmd, "gateways");
    if have("pytest") {
        let s = Scratch::new();
        let out = s.run(
            "mkdir -p o t && echo 'def test_a(): pass' > t/test_a.py",
            "pytest -q -p no:cacheprovider --debug o/f t >/dev/null 2>&1; \
             pytest -q -p no:cacheprovider t --debug >/dev/null 2>&1; \
             test -s o/f && test -s pytestdebug.log && echo wrote",
        );
        assert_eq!(out, "wrote\n");
    }
}

/// `go build -C DIR` (go 1.20) runs go in DIR, with its `go.mod` and
/// sources: a read of DIR, as `make -C DIR` is. The test binary's flags
/// after `-args` (`-test.cpuprofile=F`, `-test.testlogfile`, ...) write
/// where they say, as the same flags before it do.
#[test]
fn go_directory_and_test_binary_flags() {
    let ws = Path::new("/w");
    for cmd in [
        "go test -C /o ./...",
        "go build -C=/o",
        "go vet --C /o ./...",
        "go run -C /o .",
    ] {
        let a = analyze(cmd, &at(ws));
        assert!(reads_dir(&a, Path::new("/o")), "`{cmd}`: {:?}", a.effects);
    }
    for (cmd, file) in [
        ("go test ./... -args -test.cpuprofile=/o/c", "/o/c"),
        ("go test ./... -args -test.memprofile /o/m", "/o/m"),
        ("go test . -args -v -test.testlogfile=/o/l", "/o/l"),
        ("go test . -args -test.coverprofile=/o/p", "/o/p"),
        ("go test . -args -test.trace=/o/t", "/o/t"),
        ("go test . -args -test.blockprofile=/o/b", "/o/b"),
        ("go test . -args -test.mutexprofile=/o/x", "/o/x"),
        ("go test . -args -test.outputdir=/o/d", "/o/d"),
        ("go test -test.testlogfile=/o/l .", "/o/l"),
        ("go test -cpuprofile /o/c .", "/o/c"),
    ] {
        let a = analyze(cmd, &at(ws));
        assert!(writes_by_option(&a, file), "`{cmd}`: {:?}", a.effects);
    }
    // After `-args`, the test's own flags are its business.
    let a = analyze("go test . -args -o /o/x", &at(ws));
    assert!(!writes_by_option(&a, "/o/x"), "{:?}", a.effects);
    if have("go") {
        let s = Scratch::new();
        let out = s.run(
            "mkdir -p o && printf 'module example.com/other\\n\\ngo 1.20\\n' > o/go.mod",
            "go list -C o -m 2>/dev/null",
        );
        assert_eq!(out, "example.com/other\n");
    }
}
