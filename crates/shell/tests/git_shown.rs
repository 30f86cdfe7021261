//! Which git commands print the content of what git tracks, and where:
//! `git diff`, `log -p`, `show`, `grep`, `archive`, patch modes. Each is
//! a read of what git tracks ([`Tracked`]) beneath the paths it was given
//! after `--`, or in the whole repository when a word may be a revision,
//! an object name or a pathspec pattern. Commands that print names,
//! counts or messages make none. Which of these print a committed secret
//! is proven against git in the policy's `git_tracked` tests.

use toolgate_shell::{EffectKind, Options, Tracked, analyze};

/// The tracked reads of `cmd`: `R .` for the repository, `B path` for
/// beneath a path.
fn shown(cmd: &str) -> Vec<String> {
    let a = analyze(cmd, &Options::default());
    a.effects
        .iter()
        .filter(|e| e.kind == EffectKind::Read)
        .filter_map(|e| {
            let scope = match e.tracked? {
                Tracked::Repository => "R",
                Tracked::Beneath => "B",
                Tracked::WorkTree => "W",
            };
            assert_eq!(e.kind, EffectKind::Read, "{cmd}");
            assert!(e.recursive, "{cmd}");
            Some(format!("{scope} {}", e.target))
        })
        .collect()
}

#[test]
fn what_shows_content_reads_what_git_tracks() {
    let cases: &[(&str, &[&str])] = &[
        ("git diff", &["R ."]),
        ("git diff HEAD~3", &["R ."]),
        ("git diff src", &["R ."]),
        ("git diff -- src", &["B src"]),
        ("git diff HEAD -- src tests", &["B src", "B tests"]),
        ("git diff -- src '*.env'", &["R ."]),
        ("git diff -- ':(top).env'", &["R ."]),
        ("git diff --", &["R ."]),
        ("git diff --stat", &[]),
        ("git diff --name-only HEAD~1", &[]),
        ("git diff --stat -p", &["R ."]),
        ("git diff --no-index a b", &[]),
        ("git log", &[]),
        ("git log --oneline -n 5", &[]),
        ("git log --stat", &[]),
        ("git log --color", &[]),
        ("git log -p", &["R ."]),
        ("git log --pa", &["R ."]),
        ("git log -U1", &["R ."]),
        ("git log -Skey --oneline", &["R ."]),
        ("git log -G key", &["R ."]),
        ("git log -L1,2:src/a.rs", &["R ."]),
        ("git log -p -- src", &["B src"]),
        ("git whatchanged --patch", &["R ."]),
        ("git reflog -p", &["R ."]),
        ("git diff-tree -p HEAD", &["R ."]),
        ("git diff-tree HEAD", &[]),
        ("git show", &["R ."]),
        ("git show --stat", &[]),
        ("git show --stat abc123", &["R ."]),
        ("git show abc123", &["R ."]),
        ("git cat-file -p HEAD", &["R ."]),
        ("git cat-file blob abc123", &["R ."]),
        ("git cat-file -t HEAD", &[]),
        ("git cat-file --batch-check", &[]),
        ("git cat-file --batch", &["R ."]),
        ("git grep x", &["B ."]),
        ("git grep x HEAD", &["B .", "B HEAD"]),
        ("git grep -e x -- src", &["B src"]),
        ("git grep x ../other", &["R ."]),
        ("git grep x -- ':/'", &["R ."]),
        ("git grep x -- '*.env'", &["R ."]),
        ("git stash show", &["R ."]),
        ("git stash list", &[]),
        ("git stash -p", &["R ."]),
        ("git add -p", &["R ."]),
        ("git add --interactive", &["R ."]),
        ("git add -e", &["R ."]),
        ("git add src", &[]),
        ("git add -A", &["W ."]),
        ("git stash -u", &["W ."]),
        ("git stash push --all", &["W ."]),
        ("git commit -m x", &[]),
        ("git commit -pm x", &["R ."]),
        ("git checkout -p", &["R ."]),
        ("git reset --patch", &["R ."]),
        ("git archive HEAD", &["R ."]),
        ("git format-patch -1", &["R ."]),
        ("git bundle create b.bundle HEAD", &["R ."]),
        ("git fast-export --all", &["R ."]),
        ("git worktree add w", &["R ."]),
        ("git worktree list", &[]),
        ("git checkout-index -a --prefix=copy/", &["R ."]),
        ("git checkout-index -f src/a.rs", &[]),
        ("git status", &[]),
        ("git blame src/a.rs", &[]),
        ("git ls-files", &[]),
    ];
    let mut wrong = Vec::new();
    for (cmd, want) in cases {
        let got = shown(cmd);
        if got != *want {
            wrong.push(format!("{cmd}: {got:?}, not {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `REV:PATH` reads the path, wherever the revision's own `:` falls;
/// `:/TEXT` names a commit by its message, not a file.
#[test]
fn a_revision_path_is_read_and_a_message_search_is_not() {
    let reads = |cmd: &str| -> Vec<String> {
        analyze(cmd, &Options::default())
            .effects
            .iter()
            .filter(|e| e.kind == EffectKind::Read && e.tracked.is_none())
            .map(|e| e.target.clone())
            .collect()
    };
    assert_eq!(reads("git show HEAD:.env"), [".env"]);
    assert!(reads("git show 'HEAD^{/fix: typo}:.env'").contains(&".env".to_string()));
    assert_eq!(reads("git show :0:.env"), [".env"]);
    assert!(!reads("git show :/fix").iter().any(|r| r.contains("fix")));
}

/// `checkout-index` writes the paths it is given, at its prefix joined as
/// text; with `--all` or `--stdin` what it writes is not named.
#[test]
fn checkout_index_writes_its_paths_at_its_prefix() {
    let writes = |cmd: &str| -> (Vec<String>, bool) {
        let a = analyze(cmd, &Options::default());
        let w = a
            .effects
            .iter()
            .filter(|e| e.kind == EffectKind::Write)
            .map(|e| e.target.clone())
            .collect();
        (w, !a.unknowns.is_empty())
    };
    assert_eq!(
        writes("git checkout-index -f toolgate.toml"),
        (vec!["toolgate.toml".to_string()], false)
    );
    assert_eq!(
        writes("git checkout-index --prefix=x/ a b"),
        (vec!["x/a".to_string(), "x/b".to_string()], false)
    );
    assert_eq!(
        writes("git checkout-index --prefix x- a"),
        (vec!["x-a".to_string()], false)
    );
    for cmd in [
        "git checkout-index -a",
        "git checkout-index -fa --prefix=x/",
        "git checkout-index --all",
        "git checkout-index --stdin",
    ] {
        assert!(writes(cmd).1, "{cmd}");
    }
}

/// Files git subcommands take by name: read (a message, an object, a file
/// printed back) or written (`mailinfo MSG PATCH`, `merge-file` into its
/// first file, `interpret-trailers --in-place`, exported marks).
#[test]
fn files_given_by_name_are_read_or_written() {
    let effects = |cmd: &str| -> Vec<String> {
        analyze(cmd, &Options::default())
            .effects
            .iter()
            .filter(|e| e.tracked.is_none())
            .map(|e| format!("{:?} {}", e.kind, e.target))
            .collect()
    };
    let cases: &[(&str, &[&str])] = &[
        ("git commit -F msg", &["Read msg"]),
        ("git commit -p -F msg", &["Read msg"]),
        ("git commit -m x -F -", &[]),
        ("git commit -t tpl -m x", &["Read tpl"]),
        ("git tag -u key -F msg v1", &["Read msg"]),
        ("git merge -s ours -F msg b", &["Read msg"]),
        ("git hash-object -t blob -w a b", &["Read a", "Read b"]),
        ("git update-index --add --chmod=+x a", &["Read a"]),
        ("git mailinfo msg patch", &["Write msg", "Write patch"]),
        (
            "git merge-file a b c",
            &["Read a", "Read b", "Read c", "Write a"],
        ),
        (
            "git merge-file -p -L x a b c",
            &["Read a", "Read b", "Read c"],
        ),
        (
            "git interpret-trailers --in-place m",
            &["Read m", "Write m"],
        ),
        ("git config --file=f --list", &["Read f"]),
        ("git bundle verify b.bundle", &["Read b.bundle"]),
        ("git fast-export --export-marks=m HEAD", &["Write m"]),
        ("git archive --add-file=a HEAD", &["Read a", "Read HEAD"]),
    ];
    for (cmd, want) in cases {
        assert_eq!(effects(cmd), *want, "{cmd}");
    }
    for cmd in ["git hash-object --stdin-paths", "git update-index --stdin"] {
        assert!(
            !analyze(cmd, &Options::default()).unknowns.is_empty(),
            "{cmd}"
        );
    }
}

/// The rewrite of what git tracks in the repository: commands that put
/// another commit's, the index's or a stash's content in the work tree,
/// wherever it differs. Its target is `.`, or the one word `git checkout`
/// was given, which the policy takes for a revision (a rewrite) or a path
/// (not one). Which of these replace a committed policy file is proven
/// against git in the policy's `git_rewrite` tests.
fn rewrite(cmd: &str) -> Option<String> {
    let a = analyze(cmd, &Options::default());
    let found: Vec<_> = a
        .effects
        .iter()
        .filter(|e| e.kind == EffectKind::Write && e.tracked == Some(Tracked::Repository))
        .collect();
    assert!(found.len() <= 1, "{cmd}: {found:?}");
    found.first().map(|e| {
        assert_eq!(e.tracked, Some(Tracked::Repository), "{cmd}");
        assert!(e.recursive, "{cmd}: {e:?}");
        e.target.clone()
    })
}

fn rewrites(cmd: &str) -> bool {
    rewrite(cmd).is_some()
}

#[test]
fn what_puts_other_content_in_the_work_tree_rewrites_what_git_tracks() {
    for cmd in [
        "git checkout main",
        "git checkout -",
        "git checkout -q main",
        "git checkout -b topic main",
        "git checkout -qb topic main",
        "git checkout -btopic main",
        "git checkout --orphan=x main",
        "git checkout -f",
        "git checkout --force",
        "git checkout --for",
        "git checkout $REV",
        "git switch main",
        "git switch -",
        "git switch -c topic origin/main",
        "git switch --orphan empty",
        "git switch --discard-changes",
        "git reset --hard",
        "git reset --hard HEAD~1",
        "git reset --ha HEAD~1",
        "git reset --merge ORIG_HEAD",
        "git reset --keep main",
        "git reset $MODE",
        "git stash",
        "git stash -u",
        "git stash -p",
        "git stash push -m x",
        "git stash save",
        "git stash pop",
        "git stash apply stash@{1}",
        "git stash branch topic",
        "git stash $SUB",
        "git merge topic",
        "git merge --abort",
        "git pull",
        "git pull --rebase",
        "git rebase main",
        "git rebase --continue",
        "git cherry-pick abc",
        "git revert HEAD",
        "git read-tree -u -m HEAD main",
        "git bisect start",
        "git bisect good",
        "git bisect reset",
        "git sparse-checkout set src",
        "git sparse-checkout disable",
        "git filter-branch --tree-filter true HEAD",
        "git mergetool",
    ] {
        assert!(rewrites(cmd), "{cmd}");
    }
    for cmd in [
        "git checkout -b topic",
        "git checkout -qb topic",
        "git checkout -btopic",
        "git checkout -B topic",
        "git checkout --orphan empty",
        "git checkout -- src",
        "git checkout main -- src",
        "git checkout",
        "git switch -c topic",
        "git switch --create topic",
        "git switch -C topic",
        "git reset",
        "git reset --soft HEAD~1",
        "git reset --mixed",
        "git reset -- src",
        "git stash list",
        "git stash show -p",
        "git stash drop",
        "git stash clear",
        "git stash create",
        "git pull --dry-run",
        "git read-tree main",
        "git bisect",
        "git bisect log",
        "git bisect visualize",
        "git sparse-checkout list",
        "git status",
        "git commit -am x",
        "git branch -f main HEAD~1",
        "git fetch",
        "git log -p",
        "git checkout main src",
        "git checkout -f main src/a.rs",
    ] {
        assert!(!rewrites(cmd), "{cmd}");
    }
    // One word alone: a revision or a path, which the policy tells apart.
    for (cmd, word) in [
        ("git checkout main", "main"),
        ("git checkout -q src/a.rs", "src/a.rs"),
        ("git checkout -f main", "main"),
        ("git checkout -", "."),
        ("git checkout -b topic main", "."),
        ("git checkout --detach main", "."),
        ("git checkout $REV", "."),
        ("git switch main", "."),
        ("git reset --hard", "HEAD"),
        ("git reset --hard HEAD", "HEAD"),
        ("git reset --hard HEAD~1", "."),
        ("git stash", "HEAD"),
        ("git stash -- src", "HEAD"),
        ("git stash -p", "HEAD"),
        ("git stash pop", "."),
        ("git stash $SUB", "."),
        ("git checkout -f", "HEAD"),
        ("git switch -f", "HEAD"),
    ] {
        assert_eq!(rewrite(cmd).as_deref(), Some(word), "{cmd}");
    }
}

/// A word that is not one of git's own commands is an alias from git's
/// configuration (`co = checkout`, `x = !sh -c ..`) or a `git-NAME`
/// program: what it runs is not known here. git's own commands cannot be
/// aliased. Proved with git: an alias runs its shell command, and one
/// named like a command of git's own is ignored.
#[test]
fn an_alias_or_a_git_program_is_unknown() {
    for cmd in [
        "git co main",
        "git x",
        "git lfs pull",
        "git crypt unlock",
        "git st",
    ] {
        let a = analyze(cmd, &Options::default());
        assert!(
            a.unknowns
                .iter()
                .any(|u| u.reason.contains("not one of git's own commands")),
            "{cmd}: {:?}",
            a.unknowns
        );
    }
    for cmd in [
        "git status",
        "git checkout-index -f a",
        "git merge-file -p a b c",
        "git version",
    ] {
        let a = analyze(cmd, &Options::default());
        assert!(
            !a.unknowns
                .iter()
                .any(|u| u.reason.contains("not one of git's own commands")),
            "{cmd}: {:?}",
            a.unknowns
        );
    }
    if !crate::real::have("git") {
        return;
    }
    let s = crate::real::Scratch::new();
    s.run(
        "git init -q . && git config alias.x '!touch made-by-alias' && git config alias.status '!touch shadowed'",
        "git x; git status >/dev/null",
    );
    assert!(s.join("made-by-alias").exists());
    assert!(!s.join("shadowed").exists());
}

/// `git stash -u` and `-a` take what they store out of the work tree: a
/// removal of the work tree's files through the same filter as the read.
#[test]
fn a_stash_of_untracked_files_removes_them() {
    for (cmd, filtered) in [
        ("git stash -u", true),
        ("git stash push --include-untracked", true),
        ("git stash -a", false),
        ("git stash save --all", false),
    ] {
        let a = analyze(cmd, &Options::default());
        let removed: Vec<_> = a
            .effects
            .iter()
            .filter(|e| e.kind == EffectKind::Write && e.tracked == Some(Tracked::WorkTree))
            .collect();
        assert_eq!(removed.len(), 1, "{cmd}: {:?}", a.effects);
        assert_eq!(removed[0].filter.is_some(), filtered, "{cmd}");
    }
    for cmd in ["git stash", "git stash pop", "git add -A"] {
        let a = analyze(cmd, &Options::default());
        assert!(
            !a.effects
                .iter()
                .any(|e| e.kind == EffectKind::Write && e.tracked == Some(Tracked::WorkTree)),
            "{cmd}"
        );
    }
}
