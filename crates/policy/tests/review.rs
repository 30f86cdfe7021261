//! `[review]`: the table read from each layer, which layer's counts, and
//! the allow rules that grant arbitrary code asking while review is on.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::json;
use toolgate_policy::layers::{self, Layering};
use toolgate_policy::{
    Call, Client, Decision, Effect, LoadOptions, Policy, ReviewApi, ReviewConfig,
};

const REVIEW: &str =
    "[review]\napi = \"openai\"\nmodel = \"local\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n";

struct Fx {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    managed: PathBuf,
    user: PathBuf,
}

impl Fx {
    fn new() -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("project");
        let home = base.join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(home.join(".config/toolgate")).unwrap();
        std::fs::create_dir_all(base.join("etc")).unwrap();
        Fx {
            managed: base.join("etc/toolgate.toml"),
            user: home.join(".config/toolgate/toolgate.toml"),
            _tmp: tmp,
            root,
            home,
        }
    }

    fn project(&self, text: &str) -> &Fx {
        std::fs::write(self.root.join("toolgate.toml"), text).unwrap();
        self
    }

    fn user(&self, text: &str) -> &Fx {
        std::fs::write(&self.user, text).unwrap();
        self
    }

    /// Root-owned (the tests run as root), mode 0644.
    fn managed(&self, text: &str) -> &Fx {
        std::fs::write(&self.managed, text).unwrap();
        std::fs::set_permissions(&self.managed, std::fs::Permissions::from_mode(0o644)).unwrap();
        self
    }

    fn opts(&self) -> LoadOptions {
        LoadOptions {
            workspace: None,
            home: Some(self.home.clone()),
            state_dir: Some(self.home.join(".local/state/toolgate")),
        }
    }

    fn load(&self, trust_project: bool) -> Policy {
        let digest = std::fs::read(self.root.join("toolgate.toml"))
            .map(|b| layers::digest(&b))
            .ok();
        let check = |_db: Option<&str>, _file: &Path, d: &str| {
            Ok(trust_project && Some(d) == digest.as_deref())
        };
        let layering = Layering {
            managed: self.managed.clone(),
            user: Some(self.user.clone()),
            trust: Some(&check),
            anchor: None,
            project_seen: None,
        };
        layers::discover(None, &self.root, &self.opts(), &layering).unwrap()
    }

    fn single(&self, text: &str) -> Policy {
        let file = self.root.join("toolgate.toml");
        std::fs::write(&file, text).unwrap();
        Policy::load(&file, &self.opts()).unwrap()
    }
}

fn bash(p: &Policy, command: &str) -> Decision {
    p.decide(&Call::new("run_shell", json!({ "command": command })))
}

fn notes(p: &Policy) -> String {
    p.layers().map(|l| l.notes.join("\n")).unwrap_or_default()
}

fn model(p: &Policy) -> Option<&str> {
    p.review().map(|r| r.model.as_str())
}

#[test]
fn a_single_file_sets_the_reviewer_from_its_table() {
    let fx = Fx::new();
    let p = fx.single(&format!("allow = [\"Read\"]\n{REVIEW}timeout = 5\n"));
    let r = p.review().unwrap();
    assert_eq!(r.api, ReviewApi::OpenAi);
    assert_eq!(r.base_url, "http://127.0.0.1:8080/v1");
    assert_eq!(r.timeout, std::time::Duration::from_secs(5));
    assert!(fx.single("allow = [\"Read\"]\n").review().is_none());
    assert!(fx.single("[review]\nenabled = false\n").review().is_none());
}

#[test]
fn a_bad_table_names_its_file_line_and_key() {
    let fx = Fx::new();
    let file = fx.root.join("toolgate.toml");
    std::fs::write(
        &file,
        "allow = []\n\n[review]\napi = \"openai\"\nmodel = \"m\"\napi_key_env = \"HOME DIR\"\n",
    )
    .unwrap();
    let e = Policy::load(&file, &fx.opts()).unwrap_err();
    assert_eq!(e.place.map(|p| p.0), Some(6), "{e}");
    assert!(e.to_string().contains("review.api_key_env"), "{e}");
    assert!(e.to_string().contains("toolgate.toml"), "{e}");
}

#[test]
fn the_managed_table_forbids_review_in_every_layer() {
    let fx = Fx::new();
    fx.managed("[review]\nenabled = false\n")
        .user(REVIEW)
        .project(REVIEW);
    let p = fx.load(true);
    assert!(p.review().is_none());
    let n = notes(&p);
    assert!(
        n.contains("the user policy's `[review]` is ignored: the managed policy turns review off"),
        "{n}"
    );
    assert!(
        n.contains("the project policy's `[review]` is ignored"),
        "{n}"
    );
}

#[test]
fn the_managed_reviewer_is_required() {
    let fx = Fx::new();
    fx.managed("[review]\napi = \"anthropic\"\nmodel = \"corp-reviewer\"\n")
        .user("[review]\nenabled = false\n")
        .project("[review]\napi = \"openai\"\nmodel = \"evil\"\nbase_url = \"https://attacker.example\"\n");
    let p = fx.load(true);
    assert_eq!(
        p.review(),
        Some(&ReviewConfig::new(ReviewApi::Anthropic, "corp-reviewer"))
    );
    assert!(
        notes(&p).contains("the managed policy names the reviewer"),
        "{}",
        notes(&p)
    );
}

#[test]
fn the_user_table_comes_next() {
    let fx = Fx::new();
    fx.user("[review]\napi = \"openai\"\nmodel = \"mine\"\n")
        .project("[review]\napi = \"openai\"\nmodel = \"theirs\"\n");
    let p = fx.load(true);
    assert_eq!(model(&p), Some("mine"));
    assert!(
        notes(&p).contains("the user policy's decides review"),
        "{}",
        notes(&p)
    );
    // A user's `enabled = false` keeps a trusted project from turning it on.
    fx.user("[review]\nenabled = false\n");
    assert_eq!(model(&fx.load(true)), None);
    // The user's table alone.
    fx.project("allow = []\n")
        .user("[review]\napi = \"openai\"\nmodel = \"mine\"\n");
    assert_eq!(model(&fx.load(false)), Some("mine"));
}

#[test]
fn an_untrusted_projects_table_is_ignored_with_a_note() {
    let fx = Fx::new();
    fx.user("allow = [\"Read\"]\n").project(&format!(
        "{REVIEW}api_key_env = \"AWS_SECRET_ACCESS_KEY\"\n"
    ));
    let p = fx.load(false);
    assert!(p.review().is_none());
    assert!(
        notes(&p)
            .contains("the project policy's `[review]` is ignored: the project is not trusted"),
        "{}",
        notes(&p)
    );
}

#[test]
fn a_trusted_projects_table_is_honoured() {
    let fx = Fx::new();
    fx.user("allow = [\"Read\"]\n").project(REVIEW);
    let p = fx.load(true);
    assert_eq!(model(&p), Some("local"));
    assert!(!notes(&p).contains("review"), "{}", notes(&p));
}

#[test]
fn a_nested_files_table_is_ignored() {
    let fx = Fx::new();
    fx.user("allow = [\"Read\"]\n").project("allow = []\n");
    let sub = fx.root.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("toolgate.toml"), REVIEW).unwrap();
    let check = |_: Option<&str>, _: &Path, _: &str| Ok(true);
    let layering = Layering {
        managed: fx.managed.clone(),
        user: Some(fx.user.clone()),
        trust: Some(&check),
        anchor: Some(fx.root.clone()),
        project_seen: None,
    };
    let p = layers::discover(None, &sub, &fx.opts(), &layering).unwrap();
    assert!(p.review().is_none());
    assert!(notes(&p).contains("sets more than rules"), "{}", notes(&p));
}

/// A policy allowing `selector`, with and without a reviewer.
fn pair(selector: &str) -> (Policy, Policy, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("toolgate.toml");
    let text = format!("allow = [\"Read\", \"Bash(git status)\", {selector:?}]\n");
    let off = Policy::from_toml(&text, &file, &LoadOptions::default()).unwrap();
    let on = Policy::from_toml(&format!("{text}{REVIEW}"), &file, &LoadOptions::default()).unwrap();
    (off, on, dir)
}

#[track_caller]
fn demoted(selector: &str, call: &Call) {
    let (off, on, _dir) = pair(selector);
    let d = off.decide(call);
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Allow, Some("allow[2]")),
        "{selector} without review: {}",
        d.reason
    );
    let d = on.decide(call);
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Ask, Some("allow[2]")),
        "{selector} with review: {}",
        d.reason
    );
    assert!(
        d.reason.contains(&format!(
            "rule `allow[2]` (`{selector}`) grants arbitrary code"
        )) && d.reason.contains("while review is on it asks"),
        "{}",
        d.reason
    );
    let listed = on.demoted_rules();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(
        (listed[0].0.as_str(), listed[0].1.as_str()),
        ("allow[2]", selector)
    );
    assert!(off.demoted_rules().is_empty());
}

fn shell(command: &str) -> Call {
    Call::new("run_shell", json!({ "command": command }))
}

#[test]
fn broad_shell_allows_ask_while_review_is_on() {
    for (selector, command) in [
        ("Bash", "ls -la"),
        ("Bash(*)", "ls -la"),
        ("Bash(python3 *)", "python3 tool.py"),
        ("Bash(python *)", "python tool.py"),
        ("Bash(node *)", "node index.js"),
        ("Bash(bash *)", "bash build.sh"),
        ("Bash(sh *)", "sh build.sh"),
        ("Bash(zsh *)", "zsh build.sh"),
        ("Bash(perl *)", "perl x.pl"),
        ("Bash(ruby *)", "ruby x.rb"),
        ("Bash(php *)", "php x.php"),
        ("Bash(deno *)", "deno run x.ts"),
        ("Bash(bun *)", "bun x.ts"),
        ("Bash(npx *)", "npx cowsay hi"),
        ("Bash(uvx *)", "uvx ruff check"),
        ("Bash(pipx run *)", "pipx run black ."),
        ("Bash(make *)", "make all"),
        ("Bash(npm run *)", "npm run build"),
        ("Bash(npm exec *)", "npm exec tsc"),
        ("Bash(pnpm *)", "pnpm build"),
        ("Bash(yarn *)", "yarn build"),
        ("Bash(cargo run *)", "cargo run --release"),
        ("Bash(go run *)", "go run ."),
        ("Bash(uv run *)", "uv run pytest"),
        ("Bash(poetry run *)", "poetry run pytest"),
    ] {
        demoted(selector, &shell(command));
    }
}

#[test]
fn shell_tool_names_and_tool_globs_ask_while_review_is_on() {
    demoted(
        "run_shell_command",
        &Call::new("run_shell_command", json!({ "command": "ls" })).with_client(Client::Gemini),
    );
    let mcp = Call::new("mcp__server__run", json!({})).with_client(Client::Mcp);
    demoted("mcp__*", &mcp);
    demoted("mcp__server__*", &mcp);
    demoted("*", &shell("ls"));
}

#[test]
fn specific_allows_and_other_rules_are_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("toolgate.toml");
    let text = "allow = [\"Bash(git status)\", \"Bash(cargo test *)\", \"Bash\"]\n\
                deny = [\"Bash(git push *)\"]\nask = [\"Bash(rm *)\"]\n";
    let mut p = Policy::from_toml(text, &file, &LoadOptions::default()).unwrap();
    p.set_review(Some(ReviewConfig::new(ReviewApi::OpenAi, "m")));
    // A rule naming a specific command still allows it (the strictest
    // rule of equal effect is the earliest, so `Bash` does not decide).
    let d = bash(&p, "git status");
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Allow, Some("allow[0]")),
        "{}",
        d.reason
    );
    let d = bash(&p, "cargo test --workspace");
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Allow, Some("allow[1]")),
        "{}",
        d.reason
    );
    // Deny and ask rules are as they were; so are hard limits.
    let d = bash(&p, "git push origin main");
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Deny, Some("deny[0]")),
        "{}",
        d.reason
    );
    let d = bash(&p, "rm x");
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Ask, Some("ask[0]")),
        "{}",
        d.reason
    );
    assert!(!d.reason.contains("review"), "{}", d.reason);
    let d = bash(&p, "rm -rf /");
    assert_eq!(d.decision, Effect::Deny, "{}", d.reason);
    assert!(d.hard, "{}", d.reason);
    // The broad rule asks, through `set_review` as through the table.
    let d = bash(&p, "ls -la");
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Ask, Some("allow[2]")),
        "{}",
        d.reason
    );
    assert_eq!(
        p.demoted_rules(),
        vec![(
            "allow[2]".to_owned(),
            "Bash".to_owned(),
            "it allows every shell command".to_owned()
        )]
    );
    p.set_review(None);
    assert!(p.demoted_rules().is_empty());
    assert_eq!(bash(&p, "ls").decision, Effect::Allow);
}

#[test]
fn demotion_keeps_only_the_code_granting_selector_of_a_rule() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("toolgate.toml");
    let text = format!(
        "[[rule]]\nid = \"dev\"\neffect = \"allow\"\nmatch = [\"Bash(git status)\", \"Bash(python3 *)\"]\n{REVIEW}"
    );
    let p = Policy::from_toml(&text, &file, &LoadOptions::default()).unwrap();
    let d = bash(&p, "git status");
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Allow, Some("dev")),
        "{}",
        d.reason
    );
    let d = bash(&p, "python3 x.py");
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Ask, Some("dev")),
        "{}",
        d.reason
    );
    let listed = p.demoted_rules();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].1, "Bash(python3 *)");
    assert!(listed[0].2.contains("python3"), "{}", listed[0].2);
}
