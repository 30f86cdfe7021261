//! `[state] database`: which store the hosts open, checked at load time.

use toolgate_policy::{LoadOptions, Policy};

fn load(text: &str) -> Result<Policy, String> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("toolgate.toml");
    Policy::from_toml(text, &file, &LoadOptions::default()).map_err(|e| e.to_string())
}

#[test]
fn a_postgres_url_or_an_absolute_path_is_the_database() {
    let p = load("[state]\ndatabase = \"postgres://tg@db.internal/toolgate\"\n").unwrap();
    assert_eq!(p.database(), Some("postgres://tg@db.internal/toolgate"));
    let p = load("[state]\ndatabase = \"/var/lib/toolgate/toolgate.db\"\n").unwrap();
    assert_eq!(p.database(), Some("/var/lib/toolgate/toolgate.db"));
    assert_eq!(load("allow = [\"Read\"]\n").unwrap().database(), None);
}

#[test]
fn a_relative_path_or_an_unknown_key_is_refused_at_its_line() {
    let err = load("allow = [\"Read\"]\n[state]\ndatabase = \"state.db\"\n").unwrap_err();
    assert!(err.contains(":3:"), "{err}");
    assert!(err.contains("`state.db`"), "{err}");
    let err = load("[state]\nurl = \"postgres://x/y\"\n").unwrap_err();
    assert!(err.contains("url"), "{err}");
}
