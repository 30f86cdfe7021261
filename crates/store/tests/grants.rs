//! Session grants stay in their session.

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
