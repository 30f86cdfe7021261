//! The other processes of the multi-process tests. The parent runs this
//! binary again with `--exact children::child` and a role in the
//! environment; without one, as in a normal test run, `child` does nothing.

use toolgate_store::Store;

use crate::support::{ARG_ENV, DB_ENV, ROLE_ENV, Target, executed, waiting};

#[test]
fn child() {
    let Some(role) = std::env::var_os(ROLE_ENV) else {
        return;
    };
    let db = Target(std::env::var(DB_ENV).expect("child needs a database"));
    let arg = std::env::var(ARG_ENV).unwrap_or_default();
    match role.to_str().expect("role is UTF-8") {
        "append" => append(&db, &arg),
        "crash-loop" => crash_loop(&db, &arg),
        "claim" => claim(&db, &arg),
        "hosts" => hosts(&db, &arg),
        "open-default" => open_default(),
        "spool-append" => spool_append(&arg),
        other => panic!("unknown child role `{other}`"),
    }
    // Exit before the harness prints its summary: the parent may have
    // stopped reading, and writing to a closed pipe would fail the child.
    std::io::Write::flush(&mut std::io::stdout()).expect("flush");
    std::process::exit(0);
}

/// Appends `count` rows as session `name`; arg is `name:count`.
fn append(db: &Target, arg: &str) {
    let (name, count) = arg.split_once(':').expect("name:count");
    let count: usize = count.parse().expect("count");
    let store = db.open().expect("child opens the store");
    for i in 0..count {
        store
            .append(&executed(name, &format!("{name}-{i}")))
            .expect("child appends");
    }
}

/// Appends forever, queueing an approval every tenth call, until killed.
/// Says `ready` once it has done some of both.
fn crash_loop(db: &Target, name: &str) {
    let store = db.open().expect("child opens the store");
    for i in 0u64.. {
        let call = format!("{name}-{i}");
        if i % 10 == 0 {
            let (record, pending) = waiting(name, &call);
            store
                .append_waiting(&record, &pending)
                .expect("child queues");
        } else {
            store.append(&executed(name, &call)).expect("child appends");
        }
        if i == 100 {
            println!("CHILD ready");
        }
    }
}

/// Tries to claim approval `arg`; prints whether it won.
fn claim(db: &Target, id: &str) {
    let store = db.open().expect("child opens the store");
    let won = store.claim_for_execution(id).expect("claim").is_some();
    println!("CHILD claimed={won}");
}

/// Opens the store in the state directory the parent names (`STATE_DIR`)
/// and appends one row; prints the database path.
fn open_default() {
    let dir = std::env::var_os("STATE_DIR").expect("the parent names the state directory");
    let store = Store::open_in(dir).expect("open the store in its state directory");
    store
        .append(&executed("default", "c1"))
        .expect("append to the default store");
    println!("CHILD path={}", store.path().display());
}

/// Plays several hosts: opens the store once per host (each its own
/// connections) and appends `count` rows from each, all at once; arg is
/// `name:hosts:count`.
fn hosts(db: &Target, arg: &str) {
    let mut parts = arg.split(':');
    let name = parts.next().expect("name");
    let hosts: usize = parts.next().and_then(|n| n.parse().ok()).expect("hosts");
    let count: usize = parts.next().and_then(|n| n.parse().ok()).expect("count");
    std::thread::scope(|s| {
        for h in 0..hosts {
            s.spawn(move || {
                let store = db.open().expect("host opens the store");
                let session = format!("{name}h{h}");
                for i in 0..count {
                    store
                        .append(&executed(&session, &format!("{session}-{i}")))
                        .expect("host appends");
                }
            });
        }
    });
}

/// Appends `count` rows as session `name` through a spooled store over the
/// state directory `dir`; arg is `dir:name:count`.
fn spool_append(arg: &str) {
    let mut parts = arg.rsplitn(3, ':');
    let count: usize = parts.next().expect("count").parse().expect("count");
    let name = parts.next().expect("name");
    let dir = parts.next().expect("dir");
    for i in 0..count {
        // One store per row, as one hook process per call.
        let store = Store::open_spooled(dir).expect("child opens the spooled store");
        store
            .append(&executed(name, &format!("{name}-{i}")))
            .expect("child spools");
    }
}
