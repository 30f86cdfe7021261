//! What cargo reaches past the package under an allow of cargo, against
//! the real cargo: a package made outside the roots is denied, one made
//! inside allowed where editing is, and each is made when run.

use toolgate_policy::Effect;

use crate::scratch::{Scratch, expect};

#[test]
fn a_package_made_outside_the_roots_is_denied() {
    let s = Scratch::new("allow = [\"Read\", \"Edit\", \"Bash(cargo *)\"]\n", &[]);
    let outside = s.base.join("elsewhere");
    for (cmd, effect, rule, made) in [
        (
            format!("cargo new --vcs none --lib {}", outside.display()),
            Effect::Deny,
            "hard:outside-roots",
            outside.join("Cargo.toml"),
        ),
        (
            "cargo new --vcs none inside".to_string(),
            Effect::Allow,
            "allow[2]",
            s.ws.join("inside/Cargo.toml"),
        ),
    ] {
        expect(&s.decide(&cmd), effect, Some(rule), &cmd);
        let out = s
            .bash(&cmd)
            .env("CARGO_HOME", s.home().join(".cargo"))
            .output()
            .expect("bash runs");
        assert!(
            made.exists(),
            "{cmd}: run for real, cargo made nothing: {out:?}"
        );
    }
}

/// What follows `cargo clippy --` is clippy-driver's command line, as
/// rustc's: `--emit=dep-info=PATH` writes PATH. Unanalysable; run, the
/// file is written.
#[test]
fn clippy_compiler_options_are_not_passed_unseen() {
    let have_clippy = std::process::Command::new("cargo")
        .args(["clippy", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    let s = Scratch::new(
        "allow = [\"Read\", \"Edit\", \"Bash(cargo *)\"]\n",
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            ("src/main.rs", "fn main() {}\n"),
        ],
    );
    let cmd = "cargo clippy -q -- --emit=dep-info=deps.d";
    expect(&s.decide(cmd), Effect::Ask, None, cmd);
    expect(
        &s.decide("cargo clippy -q -- -D warnings"),
        Effect::Allow,
        Some("allow[2]"),
        "lint levels",
    );
    if !have_clippy {
        eprintln!("skipped running clippy: it is not installed");
        return;
    }
    let out = s
        .bash(cmd)
        .env("CARGO_TARGET_DIR", s.base.join("target"))
        .output()
        .expect("bash runs");
    assert!(s.ws.join("deps.d").exists(), "{out:?}");
}
