//! Session grants stay in their session; trusted project policies are
//! kept by file.

use crate::both;

both! {
fn a_grant_holds_in_its_session_only(fx) {
    let store = fx.open();
    assert!(store.grant("s1", "edits").unwrap());
    assert!(store.has_grant("s1", "edits").unwrap());
    assert!(!store.has_grant("s2", "edits").unwrap());
    assert!(!store.has_grant("s1", "other").unwrap());
    assert!(store.grants("s2").unwrap().is_empty());
}
}

both! {
fn granting_twice_is_harmless(fx) {
    let store = fx.open();
    assert!(store.grant("s1", "edits").unwrap());
    assert!(!store.grant("s1", "edits").unwrap());
    assert_eq!(store.grants("s1").unwrap().len(), 1);
}
}

both! {
fn grants_are_listed_by_rule(fx) {
    let store = fx.open();
    store.grant("s1", "web").unwrap();
    store.grant("s1", "edits").unwrap();
    store.grant("s2", "shell").unwrap();
    let rules: Vec<String> = store
        .grants("s1")
        .unwrap()
        .into_iter()
        .map(|g| g.rule)
        .collect();
    assert_eq!(rules, ["edits", "web"]);
    assert!(
        store
            .grants("s1")
            .unwrap()
            .iter()
            .all(|g| g.granted.ends_with('Z'))
    );
}
}

both! {
fn grants_are_seen_by_other_processes_connections(fx) {
    let store = fx.open();
    store.grant("s1", "edits").unwrap();
    let other = fx.target().open().unwrap();
    assert!(other.has_grant("s1", "edits").unwrap());
}
}

both! {
fn trust_is_kept_per_file_and_replaced_by_trusting_again(fx) {
    let store = fx.open();
    assert_eq!(store.trusted("/p/toolgate.toml").unwrap(), None);
    store.trust("/p/toolgate.toml", "aaa").unwrap();
    store.trust("/q/toolgate.toml", "ccc").unwrap();
    assert_eq!(store.trusted("/p/toolgate.toml").unwrap().as_deref(), Some("aaa"));
    store.trust("/p/toolgate.toml", "bbb").unwrap();
    assert_eq!(store.trusted("/p/toolgate.toml").unwrap().as_deref(), Some("bbb"));
    assert_eq!(fx.target().open().unwrap().trusted("/q/toolgate.toml").unwrap().as_deref(), Some("ccc"));
}
}
