//! Decisions on shell commands under a developer's policy (reading and the
//! common read-only tools allowed, everything else asks): statements that
//! run nothing need no rule, and writes that an option turns on are not
//! covered by an allow for the program.

use serde_json::json;
use toolgate_policy::{Call, Decision, Effect, LoadOptions, Policy};

struct Fx {
    _tmp: tempfile::TempDir,
    root: std::path::PathBuf,
    policy: Policy,
}

fn policy(extra: &str) -> Fx {
    let tmp = tempfile::tempdir().expect("temporary directory");
    let root = std::fs::canonicalize(tmp.path()).expect("canonical root");
    std::fs::create_dir_all(root.join("test")).expect("test dir");
    std::fs::write(root.join("f"), "b\na\n").expect("f");
    let text = format!(
        r#"
[policy]
default = "ask"
allow = ["Read", "Bash(ls *)", "Bash(find *)", "Bash(sort *)", "Bash(sed *)",
         "Bash(git log *)", "Bash(tree *)", "Bash(cat *)", "Bash(echo *)", "Bash(wc *)",
         "Bash(grep *)", "Bash(head *)", "Bash(tr *)", "Bash(du *)"]
deny = ["Read(.env)", "Edit(.git/**)"]
{extra}
"#
    );
    let file = root.join("toolgate.toml");
    std::fs::write(&file, &text).expect("policy file");
    let opts = LoadOptions {
        workspace: Some(root.clone()),
        home: Some(root.join("home")),
        state_dir: Some(root.join("state")),
    };
    let policy = Policy::from_toml(&text, &file, &opts).expect("policy loads");
    Fx {
        _tmp: tmp,
        root,
        policy,
    }
}

fn bash(fx: &Fx, command: &str) -> Decision {
    fx.policy
        .decide(&Call::new("run_shell", json!({ "command": command })))
}

/// `command` is decided `effect` by the rule `rule`.
#[track_caller]
fn expect_by(fx: &Fx, command: &str, effect: Effect, rule: &str) {
    let d = bash(fx, command);
    assert_eq!(d.decision, effect, "`{command}`: {}", d.reason);
    assert_eq!(d.rule.as_deref(), Some(rule), "`{command}`");
}

#[track_caller]
fn expect(fx: &Fx, command: &str, effect: Effect) {
    let d = bash(fx, command);
    assert_eq!(
        d.decision, effect,
        "`{command}`: {} ({:?})",
        d.reason, d.rule
    );
}

#[test]
fn option_writes_need_a_write_permission() {
    let fx = policy("");
    // Allowed by the program's rule: they only read.
    for cmd in [
        "find test -name .DS_Store",
        "sort f",
        "sed -n 1p f",
        "git log --oneline",
        "tree",
        "find . -name '*.rs' -print",
    ] {
        expect(&fx, cmd, Effect::Allow);
    }
    // `Bash(find *)` is a permission to search, not to delete.
    for cmd in [
        "find test -name .DS_Store -delete",
        "find . -fprint out",
        "find . -fprintf out %p",
        "find . -fls out",
        "find . -exec rm {} +",
        "sort f -o f",
        "sort --output=f f",
        "sed -n 1p f -i",
        "sed --in-place s/a/b/ f",
        "git log --output=f",
        "tree -o f",
        "strace -o f ls",
        "/usr/bin/time -o f ls",
    ] {
        expect(&fx, cmd, Effect::Ask);
    }
    // A deny on the target still denies.
    expect(&fx, "git log --output=.git/config", Effect::Deny);
}

#[test]
fn option_writes_follow_the_write_rules() {
    let fx = policy(
        r#"[[rule]]
id = "edits"
effect = "allow"
match = ["Edit(**)"]
"#,
    );
    for cmd in [
        "find test -name .DS_Store -delete",
        "sort f -o f",
        "sed -n 1p f -i",
        "git log --output=f",
        "tree -o f",
    ] {
        expect(&fx, cmd, Effect::Allow);
    }
    expect(&fx, "sort f -o .git/HEAD", Effect::Deny);
}

#[test]
fn wrappers_move_the_commands_paths() {
    let fx = policy("");
    // `chroot /` changes to `/`: `cat f` reads `/f`, not the workspace's.
    let d = bash(&fx, "chroot / cat f");
    assert!(
        d.actions.iter().any(|a| a.reason.contains("`/f`")),
        "{:#?}",
        d.actions
    );
    // Another root: its paths are not followed through its links.
    expect(&fx, "chroot jail cat f", Effect::Ask);
    expect(&fx, "nsenter -t 1 -m cat f", Effect::Ask);
    let d = bash(&fx, "nsenter --wd=test cat f");
    assert!(
        d.actions.iter().any(|a| a.reason.contains("test/f")),
        "{:#?}",
        d.actions
    );
}

#[test]
fn statements_that_run_nothing_need_no_rule() {
    let fx = policy("");
    for cmd in [
        "N=23",
        "A=1 B=2",
        ":",
        "true",
        "false",
        "test -f f",
        "[ -f f ]",
        "[[ -f f ]]",
        "N=23; ls",
        "[[ -d test ]] && ls test",
    ] {
        expect(&fx, cmd, Effect::Allow);
    }
    for cmd in [
        "[[ -f $(rm x) ]]",
        "N=$(rm x)",
        "N=23; rm f",
        "PATH=/tmp; ls",
        "PATH=/tmp",
        "LD_PRELOAD=/tmp/x.so",
        "[[ $x -eq 1 ]]",
        ": > f",
        "timeout 5 true",
    ] {
        expect(&fx, cmd, Effect::Ask);
    }
    // Builtins that change only the shell's own state, which is followed.
    std::os::unix::fs::symlink("test", fx.root.join("lk")).expect("link");
    for cmd in [
        "set -euo pipefail; ls",
        "set -e; set +x; set -o pipefail",
        "export N=1; ls",
        "declare -x N=1 M=2",
        "local n=1",
        "readonly N=1",
        "unset N",
        "set -- a b; shift",
        "wait",
        "exit 0",
    ] {
        expect(&fx, cmd, Effect::Allow);
    }
    // And what of it cannot be followed still asks.
    for cmd in [
        "cd \"$D\" && ls",
        "cd test && ls",
        "export PATH=/tmp:$PATH; ls",
        "declare PS4='$(rm f)'",
        "declare -n r=PS4",
        "x='a[$(rm f)]'; declare -i y=x",
        "unset 'a[$(rm f)]'",
        "set -k",
        "set -P; ls lk/..",
        "set -o physical",
        "builtin cd test",
        "shopt -s nocaseglob",
        "hash -p /tmp/x ls",
        "export N=$(rm f)",
    ] {
        expect(&fx, cmd, Effect::Ask);
    }
    // A rule on the statement still counts.
    let fx = policy(
        r#"[[rule]]
id = "no-true"
effect = "deny"
match = ["Bash(true)"]
"#,
    );
    expect(&fx, "true", Effect::Deny);
}

/// Where `cd` fails (its directory is not there), bash stays where it
/// was, and what follows a `;` or `||` runs there: with `cd` allowed,
/// `cd nothere; cat test/secret` reads `test/secret`, not
/// `nothere/test/secret`.
#[test]
fn a_cd_that_fails_leaves_the_directory_unknown() {
    let fx = policy(
        r#"[[rule]]
id = "cd"
effect = "allow"
match = ["Bash(cd *)"]

[[rule]]
id = "rm"
effect = "allow"
match = ["Bash(rm *)"]

[[rule]]
id = "secret"
effect = "deny"
match = ["Read(test/secret)"]
"#,
    );
    std::fs::write(fx.root.join("test/secret"), "SECRET=2\n").expect("secret");
    std::fs::create_dir(fx.root.join("d")).expect("d");
    for cmd in ["cd test && cat f", "cd test || exit; cat f"] {
        expect(&fx, cmd, Effect::Allow);
    }
    for cmd in [
        "cd nothere; cat test/secret",
        "cd nothere || cat test/secret",
        "cd f; cat test/secret",
        "cd /nothere; cat test/secret",
        // cd fails on its arguments: too many, an option it does not know.
        "cd test x; cat test/secret",
        "cd -Z test; cat test/secret",
        "cd -P test; cat test/secret",
        // An earlier part of the script removes the directory.
        "rm -rf d; cd d; cat test/secret",
        // A function named cd is what runs.
        "cd(){ :; }; cd test; cat test/secret",
        // A function's body is analysed where it is defined.
        "f(){ cat secret; }; cd test && f",
        // A `cd` whose directory is there may still fail (another
        // process removes it, an earlier command the analysis does not
        // see removes it): what follows `;` or `||` is not allowed.
        "cd test; cat secret",
        "cd test && true || cat secret",
        "mkdir nope/x; cd nope/x; cat test/secret",
        "cd test/nothere/..; cat test/secret",
        "mkdir test/-0; pushd test; pushd -0; cat test/secret",
    ] {
        let d = bash(&fx, cmd);
        assert_ne!(d.decision, Effect::Allow, "`{cmd}`: {}", d.reason);
    }
    // What bash does: the read happens where the command started.
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg("cd nothere 2>/dev/null; cat test/secret")
        .current_dir(&fx.root)
        .output()
        .expect("bash runs");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "SECRET=2\n");
}

/// A listing (`ls`, `find`'s walk, `tree`, `xargs ls`) shows names, sizes
/// and times, not what a file holds: the read roots do not bound it. What
/// reads bytes outside the roots stays a hard limit, and the credential
/// locations and the deny rules on reading still hold for listings.
#[test]
fn listings_outside_the_roots_are_not_reads() {
    let fx = policy("");
    let outside = tempfile::tempdir().expect("temporary directory");
    let out = std::fs::canonicalize(outside.path()).expect("canonical");
    std::fs::write(out.join("secret.txt"), "s").expect("secret");
    // A link beneath to another place outside the roots: a listing
    // follows it no more than it is bounded by the roots.
    let elsewhere = tempfile::tempdir().expect("temporary directory");
    std::os::unix::fs::symlink(elsewhere.path(), out.join("elsewhere")).expect("link");
    let o = out.display();
    for cmd in [
        format!("ls -l {o}"),
        format!("ls -la {o}/secret.txt"),
        format!("find {o} -name '*.txt'"),
        format!("find {o} -type f -exec ls -l {{}} +"),
        format!("find {o} -type f | xargs ls -l"),
        format!("tree {o}"),
        "find / -name needle -print -quit".to_string(),
    ] {
        expect(&fx, &cmd, Effect::Allow);
    }
    for cmd in [
        format!("cat {o}/secret.txt"),
        format!("wc -l {o}/secret.txt"),
        format!("find {o} -type f -exec cat {{}} +"),
        format!("find {o} -type f | xargs cat"),
        format!("tree --fromfile {o}/secret.txt"),
        format!("tree -H x --hintro {o}/secret.txt ."),
        format!("ls < {o}/secret.txt"),
    ] {
        let d = bash(&fx, &cmd);
        assert_eq!(d.decision, Effect::Deny, "`{cmd}`: {}", d.reason);
        assert_eq!(d.rule.as_deref(), Some("hard:outside-roots"), "`{cmd}`");
    }
    // The credential locations are not listed either.
    let root = &fx.root;
    std::fs::create_dir_all(root.join("home/.ssh")).expect("ssh dir");
    for cmd in ["ls -la ~/.ssh", "find ~/.ssh -name 'id_*'", "stat ~/.ssh"] {
        let d = bash(&fx, cmd);
        assert_eq!(d.decision, Effect::Deny, "`{cmd}`: {}", d.reason);
        assert_eq!(d.rule.as_deref(), Some("builtin:credentials"), "`{cmd}`");
    }
    // A deny rule on reading a file holds for a listing of that file.
    std::fs::write(root.join(".env"), "K=v").expect(".env");
    let d = bash(&fx, "ls -l .env");
    assert_eq!(d.decision, Effect::Deny, "{}", d.reason);
    assert_eq!(d.rule.as_deref(), Some("deny[0]"));
}

/// A listing walked beneath a directory (`find -exec ls -l {}`, `ls -R`)
/// shows the names in directories and the sizes and times of files: a rule
/// on reading a plain file there is not met, one on a directory it lists
/// is, and credential locations are denied whatever the entry. What reads
/// the files' bytes still meets the rule.
#[test]
fn recursive_listings_meet_rules_on_what_they_list() {
    let fx = policy("");
    let root = &fx.root;
    std::fs::write(root.join(".env"), "K=v").expect(".env");
    std::fs::write(root.join("test/a.rs"), "fn a() {}").expect("a.rs");
    for cmd in [
        "find . -type f -exec ls -l {} \\;",
        "find . -exec ls -ld {} +",
        "find . -type f | xargs ls -l",
        "find . -type f -print0 | xargs -0 ls -l",
        "ls -la",
        "tree -a",
        "find . -type d -exec ls -l {} \\;",
    ] {
        expect(&fx, cmd, Effect::Allow);
    }
    for cmd in [
        "find . -type f -exec cat {} +",
        "find . -type f | xargs grep x",
        "find . -type f -exec wc -l {} \\;",
        "cat .env",
        // Named on its own, the denied file stays denied.
        "ls -l .env",
    ] {
        expect_by(&fx, cmd, Effect::Deny, "deny[0]");
    }
    // Credentials are not listed, even as plain files.
    std::fs::create_dir_all(root.join("home/.ssh")).expect(".ssh");
    std::fs::write(root.join("home/.ssh/id_ed25519"), "k").expect("key");
    for cmd in [
        "find home -type f -exec ls -l {} +",
        "find home -exec ls -ld {} \\;",
    ] {
        expect_by(&fx, cmd, Effect::Deny, "builtin:credentials");
    }
}

/// A directory a Read deny rule names (a Python virtualenv called `.env`)
/// has its names listed by a recursive listing: that meets the rule.
#[test]
fn a_listing_of_a_denied_directory_is_denied() {
    let fx = policy("");
    std::fs::create_dir_all(fx.root.join(".env/bin")).expect(".env/bin");
    std::fs::write(fx.root.join(".env/bin/activate"), "x").expect("activate");
    for cmd in [
        "find . -exec ls -l {} +",
        "find . -type d | xargs ls",
        "ls .env",
    ] {
        expect_by(&fx, cmd, Effect::Deny, "deny[0]");
    }
}

/// `find -delete` and `find -exec rm {}` remove only the entries find's
/// expression selects (a directory among them only when empty): a denied
/// file their name tests exclude is not written. What recurses (`rm -r`)
/// reaches everything beneath what it is given.
#[test]
fn deletes_meet_only_what_find_selects() {
    let fx = policy("");
    let root = &fx.root;
    std::fs::write(root.join(".env"), "K=v").expect(".env");
    std::fs::write(root.join("test/x.o"), "o").expect("x.o");
    for cmd in [
        "find . -name '*.o' -delete",
        "find . -name '*.o' -exec rm {} +",
        "find . -type d -empty -delete",
        "find test -name .DS_Store -delete",
    ] {
        let d = bash(&fx, cmd);
        assert_eq!(d.decision, Effect::Ask, "`{cmd}`: {}", d.reason);
        assert_eq!(d.rule, None, "`{cmd}`: asked by the default, not a rule");
    }
    for cmd in [
        "find . -delete",
        "find . -type f -delete",
        "find . -name '.e*' -delete",
        "find . -name '*.o' -o -delete",
        "find . -not -name '*.o' -delete",
        "find . -name '*.o' -exec rm -rf {} +",
        // A program that may write beneath a directory it is given.
        "find . -name '*.o' -exec git checkout -- {} +",
        // One not known to act on each path alone: everything beneath.
        "find . -name '*.o' -exec chattr +i {} +",
        // Following links, `-type d` tests what they lead to.
        "find -L . -type d -delete",
        "find . -follow -type d -delete",
        "find . -size +0 -delete",
    ] {
        expect_by(&fx, cmd, Effect::Deny, "deny[0]");
    }
    // `.git` holds files find selects: `Edit(.git/**)` denies.
    std::fs::create_dir_all(root.join(".git")).expect(".git");
    std::fs::write(root.join(".git/index.lock"), "").expect("lock");
    let d = bash(&fx, "find . -name '*.lock' -delete");
    assert_eq!(d.decision, Effect::Deny, "{}", d.reason);
    assert_eq!(d.rule.as_deref(), Some("deny[1]"));
    // The `.git` directory itself is entered, not selected.
    for cmd in [
        "find . -name '*.o' -delete",
        "find . -name '*.rs' -exec rm {} \\;",
    ] {
        let d = bash(&fx, cmd);
        assert_eq!(d.decision, Effect::Ask, "`{cmd}`: {}", d.reason);
        assert_eq!(d.rule, None, "`{cmd}`: asked by the default, not a rule");
    }
    // Selected, it is written: the protected path asks.
    let d = bash(&fx, "find . -name .git -exec rm -f {} +");
    assert_ne!(d.decision, Effect::Allow, "{}", d.reason);
    assert!(
        d.actions
            .iter()
            .any(|a| a.rule.as_deref() == Some("protected") && a.decision == Effect::Ask),
        "{:?}",
        d.actions
    );
}

/// The real findutils: `-delete` removes what its expression selects and
/// leaves a selected directory that is not empty, with what it holds.
#[test]
fn find_delete_removes_only_what_it_selects() {
    let tmp = tempfile::tempdir().expect("temporary directory");
    let d = tmp.path();
    std::fs::create_dir_all(d.join("keep.o")).expect("dir");
    std::fs::write(d.join("keep.o/.env"), "K=v").expect("inner .env");
    std::fs::write(d.join(".env"), "K=v").expect(".env");
    std::fs::write(d.join("a.o"), "o").expect("a.o");
    std::fs::create_dir_all(d.join("empty")).expect("empty");
    let run = |args: &[&str]| {
        let status = std::process::Command::new("find")
            .arg(d)
            .args(args)
            .stderr(std::process::Stdio::null())
            .status();
        assert!(status.is_ok(), "find runs");
    };
    run(&["-name", "*.o", "-delete"]);
    assert!(!d.join("a.o").exists(), "the selected file is removed");
    assert!(d.join(".env").exists(), "what the test excludes stays");
    assert!(
        d.join("keep.o/.env").exists(),
        "a selected directory that is not empty stays, with what it holds"
    );
    run(&["-type", "d", "-empty", "-delete"]);
    assert!(!d.join("empty").exists(), "an empty directory is removed");
    assert!(d.join(".env").exists(), "`-type d` leaves files");
}

/// Names `find` printed keep their provenance through stages that copy
/// some of their lines unchanged (`sort`, `grep -v`, `head`, `tr '\n'
/// '\0'`): `find . -name '*.rs' | sort | xargs wc -l` reads only `.rs`
/// files. A stage that changes lines or adds its own does not pass them.
#[test]
fn names_pass_through_line_filters() {
    let fx = policy("");
    let root = &fx.root;
    std::fs::write(root.join(".env"), "K=v").expect(".env");
    std::fs::write(root.join("test/a.rs"), "fn a() {}").expect("a.rs");
    for cmd in [
        "find . -name '*.rs' | sort | xargs wc -l",
        "find . -name '*.rs' | sort -u | head -n 5 | xargs cat",
        "find . -name '*.rs' | grep -v target | xargs wc -l",
        "find . -name '*.rs' | tr '\\n' '\\0' | xargs -0 cat",
    ] {
        expect(&fx, cmd, Effect::Allow);
    }
    for cmd in [
        "find . -type f | sort | xargs cat",
        "find . -type f | grep -v '\\.rs$' | xargs wc -l",
    ] {
        expect_by(&fx, cmd, Effect::Deny, "deny[0]");
    }
    // Lines that may be other names: not followed.
    for cmd in [
        "find . -name '*.rs' | sed s/rs/env/ | xargs cat",
        "find . -name '*.rs' | sort f | xargs cat",
        "find . -name '*.rs' | grep -o '[.a-z]*' | xargs cat",
        "find . -name '*.rs' | tr a-z A-Z | xargs cat",
        "find . -name '*.rs' | sort 2>&1 | xargs cat",
    ] {
        let d = bash(&fx, cmd);
        assert_ne!(d.decision, Effect::Allow, "`{cmd}`: {}", d.reason);
    }
}

/// The line filters followed print only lines they read, whole: checked
/// with the real programs on names holding blanks and a newline.
#[test]
fn line_filters_print_only_lines_they_read() {
    let input = "./a.rs\n./b c.rs\n./.env\n./d\\e\n./x.rs\n./x.rs\n";
    for filter in [
        "sort",
        "sort -u",
        "sort -rn",
        "sort -t / -k 2",
        "uniq",
        "head -n 2",
        "head -3",
        "tail -n +2",
        "grep -v env",
        "grep -vE 'a|b'",
        "grep -e x -e d",
        "grep -i X",
        "cat",
        "tac",
    ] {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("printf '%s' \"$1\" | {filter}"))
            .arg("bash")
            .arg(input)
            .output()
            .expect("bash runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = input.lines().collect();
        for l in text.lines() {
            assert!(
                lines.contains(&l),
                "`{filter}` printed `{l}`, no line it read"
            );
        }
    }
    // `tr '\n' '\0'` turns each line into a NUL-ended name.
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg("printf '%s' \"$1\" | tr '\\n' '\\0'")
        .arg("bash")
        .arg(input)
        .output()
        .expect("bash runs");
    assert_eq!(out.stdout, input.replace('\n', "\0").into_bytes());
}

/// A recursive listing (`ls -R`, `tree`, `du`, `find` printing names)
/// shows what each directory it enters holds, as far as its filter lets
/// names through: a directory whose names it shows meets the rules and
/// the credential locations; a plain file shown does not. Past 10,000
/// entries it is not asked about, and the credential locations beneath
/// are still looked into.
#[test]
fn recursive_listings_meet_what_they_show() {
    let fx = policy("");
    let root = &fx.root;
    std::fs::write(root.join(".env"), "K=v").expect(".env");
    std::fs::create_dir_all(root.join("home/.ssh")).expect(".ssh");
    std::fs::write(root.join("home/.ssh/id_ed25519"), "k").expect("key");
    std::fs::create_dir_all(root.join("home/notes")).expect("notes");
    std::fs::write(root.join("home/notes/a.txt"), "a").expect("a.txt");
    for cmd in [
        "ls -R test",
        "ls -laR test",
        "tree test",
        "du -h test",
        "find . -name '*.rs'",
        "find home -name '*.txt'",
        "find home -maxdepth 1",
        "tree -L 1 home",
        "du -sh home",
        "du -h home",
        "ls -la home",
    ] {
        expect(&fx, cmd, Effect::Allow);
    }
    for cmd in [
        "ls -R home",
        "ls -laR",
        "tree home",
        "du -ah home",
        "find home",
        "find home -type f",
        "find home -name 'id_*'",
        "find . -name 'id_*' -print",
    ] {
        expect_by(&fx, cmd, Effect::Deny, "builtin:credentials");
    }
    // A directory a Read deny rule names has its names shown (`bin`); what
    // `.env/bin` holds the rule does not name (`cat .env/bin/activate` is
    // allowed too).
    std::fs::remove_file(root.join(".env")).expect("rm .env");
    std::fs::create_dir_all(root.join(".env/bin")).expect(".env/bin");
    std::fs::write(root.join(".env/bin/activate"), "x").expect("activate");
    for cmd in [
        "find . -name bin",
        "ls -R .env",
        "find . -type d -name 'b*'",
    ] {
        expect_by(&fx, cmd, Effect::Deny, "deny[0]");
    }
    expect(&fx, "find . -name '*.rs'", Effect::Allow);
    expect(&fx, "find . -name activate", Effect::Allow);
    // More than 10,000 entries: not asked about; the credentials beneath
    // still are looked into.
    let big = root.join("test/big");
    std::fs::create_dir_all(&big).expect("big");
    for i in 0..10_050 {
        std::fs::write(big.join(format!("f{i}")), "").expect("file");
    }
    expect(&fx, "find . -name '*.rs'", Effect::Allow);
    let d = bash(&fx, "find . -name 'id_*'");
    assert_eq!(d.decision, Effect::Deny, "{}", d.reason);
    assert_eq!(d.rule.as_deref(), Some("builtin:credentials"));
}

/// With no rule on reading, a listing has only the credential locations
/// to meet: where none may lie beneath, it is not walked at all; where
/// one may, it still is.
#[test]
fn listings_under_a_policy_without_read_rules() {
    let tmp = tempfile::tempdir().expect("temporary directory");
    let root = std::fs::canonicalize(tmp.path()).expect("canonical root");
    std::fs::create_dir_all(root.join("home/.ssh")).expect(".ssh");
    std::fs::write(root.join("home/.ssh/id_ed25519"), "k").expect("key");
    std::fs::create_dir_all(root.join("src")).expect("src");
    std::fs::write(root.join("src/a.rs"), "").expect("a.rs");
    let text =
        "[policy]\ndefault = \"ask\"\nallow = [\"Read\", \"Bash(ls *)\", \"Bash(find *)\"]\n";
    let file = root.join("toolgate.toml");
    std::fs::write(&file, text).expect("policy file");
    let opts = LoadOptions {
        workspace: Some(root.clone()),
        home: Some(root.join("home")),
        state_dir: Some(root.join("state")),
    };
    let policy = Policy::from_toml(text, &file, &opts).expect("policy loads");
    let decide = |cmd: &str| policy.decide(&Call::new("run_shell", json!({ "command": cmd })));
    for cmd in ["find src -name '*.rs'", "ls -R src"] {
        let d = decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "`{cmd}`: {}", d.reason);
    }
    for cmd in ["ls -R home", "find . -type f"] {
        let d = decide(cmd);
        assert_eq!(d.decision, Effect::Deny, "`{cmd}`: {}", d.reason);
        assert_eq!(d.rule.as_deref(), Some("builtin:credentials"), "`{cmd}`");
    }
}
