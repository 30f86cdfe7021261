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
