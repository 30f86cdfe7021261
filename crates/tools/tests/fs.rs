//! read_file, write_file, list_dir: confinement, file types, limits,
//! atomicity.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use toolgate_tools::{
    Body, EntryKind, Limits, ToolError, Workspace, list_dir, read_file, write_file,
};

use crate::common::fixture;

fn is_refusal(e: &ToolError) -> bool {
    matches!(
        e,
        ToolError::Escapes { .. } | ToolError::OutsideRoots { .. }
    )
}

#[test]
fn reads_relative_and_absolute_paths_inside_the_root() {
    let fx = fixture();
    fs::create_dir(fx.path("sub")).unwrap();
    fs::write(fx.path("sub/a.txt"), "alpha\n").unwrap();

    let rel = read_file(&fx.ws, "sub/a.txt", None, &fx.limits).unwrap();
    assert_eq!(rel.body, Body::Text("alpha\n".into()));
    assert_eq!(rel.size, 6);
    assert_eq!(rel.path, fx.path("sub/a.txt"));

    let abs = fx.path("sub/a.txt");
    let abs = read_file(&fx.ws, abs.to_str().unwrap(), None, &fx.limits).unwrap();
    assert_eq!(abs.body, Body::Text("alpha\n".into()));

    // `..` that stays inside is fine.
    let inner = read_file(&fx.ws, "sub/../sub/./a.txt", None, &fx.limits).unwrap();
    assert_eq!(inner.body.as_text(), Some("alpha\n"));
}

#[test]
fn relative_paths_resolve_against_cwd() {
    let fx = fixture();
    fs::create_dir(fx.path("sub")).unwrap();
    fs::write(fx.path("sub/a.txt"), "in sub").unwrap();
    fs::write(fx.path("top.txt"), "at top").unwrap();
    let cwd = fx.path("sub");

    let a = read_file(&fx.ws, "a.txt", Some(&cwd), &fx.limits).unwrap();
    assert_eq!(a.body.as_text(), Some("in sub"));
    let top = read_file(&fx.ws, "../top.txt", Some(&cwd), &fx.limits).unwrap();
    assert_eq!(top.body.as_text(), Some("at top"));

    // From a cwd outside the roots, a relative path is outside too.
    let e = read_file(&fx.ws, "secret.txt", Some(&fx.outside), &fx.limits).unwrap_err();
    assert!(matches!(e, ToolError::OutsideRoots { .. }), "{e:?}");
}

#[test]
fn dotdot_traversal_never_leaves_the_root() {
    let fx = fixture();
    fs::create_dir(fx.path("a")).unwrap();
    let escape_via_root = format!("{}/../outside/secret.txt", fx.root.display());
    for path in [
        "../outside/secret.txt",
        "a/../../outside/secret.txt",
        "a/../a/../../outside/secret.txt",
        escape_via_root.as_str(),
    ] {
        let e = read_file(&fx.ws, path, None, &fx.limits).unwrap_err();
        assert!(is_refusal(&e), "{path}: {e:?}");
        let e = write_file(&fx.ws, path, "PWNED", None, &fx.limits).unwrap_err();
        assert!(is_refusal(&e), "{path}: {e:?}");
        let dir = path.trim_end_matches("/secret.txt");
        let e = list_dir(&fx.ws, dir, None, &fx.limits).unwrap_err();
        assert!(is_refusal(&e), "{dir}: {e:?}");
    }
    fx.assert_outside_untouched();
}

#[test]
fn absolute_paths_outside_the_roots_are_refused() {
    let fx = fixture();
    let secret = fx.outside.join("secret.txt");
    let secret = secret.to_str().unwrap();
    for path in [secret, "/etc/passwd", "/"] {
        let e = read_file(&fx.ws, path, None, &fx.limits).unwrap_err();
        assert!(matches!(e, ToolError::OutsideRoots { .. }), "{path}: {e:?}");
    }
    let e = write_file(&fx.ws, secret, "PWNED", None, &fx.limits).unwrap_err();
    assert!(matches!(e, ToolError::OutsideRoots { .. }), "{e:?}");
    let e = list_dir(&fx.ws, "/etc", None, &fx.limits).unwrap_err();
    assert!(matches!(e, ToolError::OutsideRoots { .. }), "{e:?}");
    fx.assert_outside_untouched();
}

#[test]
fn a_root_named_through_a_symlinked_alias_is_still_the_root() {
    let fx = fixture();
    fs::write(fx.path("a.txt"), "via alias").unwrap();
    let alias = fx.outside.parent().unwrap().join("alias");
    symlink(&fx.root, &alias).unwrap();
    let path = alias.join("a.txt");
    let got = read_file(&fx.ws, path.to_str().unwrap(), None, &fx.limits).unwrap();
    assert_eq!(got.body.as_text(), Some("via alias"));
    assert_eq!(got.path, fx.path("a.txt"));
}

#[test]
fn symlinks_to_outside_files_are_not_followed() {
    let fx = fixture();
    symlink(fx.outside.join("secret.txt"), fx.path("abs-link")).unwrap();
    symlink("../outside/secret.txt", fx.path("rel-link")).unwrap();
    for link in ["abs-link", "rel-link"] {
        let e = read_file(&fx.ws, link, None, &fx.limits).unwrap_err();
        assert!(is_refusal(&e), "{link}: {e:?}");
        // write_file refuses a symlink at the final component outright.
        let e = write_file(&fx.ws, link, "PWNED", None, &fx.limits).unwrap_err();
        assert!(matches!(e, ToolError::Symlink { .. }), "{link}: {e:?}");
        assert!(fs::symlink_metadata(fx.path(link)).unwrap().is_symlink());
    }
    fx.assert_outside_untouched();
}

#[test]
fn symlinked_parent_directories_outside_are_not_followed() {
    let fx = fixture();
    symlink(fx.outside.join("dir"), fx.path("abs-dir")).unwrap();
    symlink("../outside/dir", fx.path("rel-dir")).unwrap();
    for dir in ["abs-dir", "rel-dir"] {
        let file = format!("{dir}/secret.txt");
        let e = read_file(&fx.ws, &file, None, &fx.limits).unwrap_err();
        assert!(is_refusal(&e), "{file}: {e:?}");
        let e = list_dir(&fx.ws, dir, None, &fx.limits).unwrap_err();
        assert!(is_refusal(&e), "{dir}: {e:?}");
        for target in [
            file.clone(),
            format!("{dir}/new.txt"),
            format!("{dir}/n/e/w.txt"),
        ] {
            let e = write_file(&fx.ws, &target, "PWNED", None, &fx.limits).unwrap_err();
            assert!(is_refusal(&e), "{target}: {e:?}");
        }
    }
    fx.assert_outside_untouched();
}

#[test]
fn symlinks_that_stay_inside_are_followed() {
    let fx = fixture();
    fs::create_dir(fx.path("d")).unwrap();
    fs::write(fx.path("d/real.txt"), "real").unwrap();
    symlink("d/real.txt", fx.path("file-link")).unwrap();
    symlink("d", fx.path("dir-link")).unwrap();

    let got = read_file(&fx.ws, "file-link", None, &fx.limits).unwrap();
    assert_eq!(got.body.as_text(), Some("real"));
    let got = read_file(&fx.ws, "dir-link/real.txt", None, &fx.limits).unwrap();
    assert_eq!(got.body.as_text(), Some("real"));

    write_file(&fx.ws, "dir-link/new.txt", "new", None, &fx.limits).unwrap();
    assert_eq!(fs::read_to_string(fx.path("d/new.txt")).unwrap(), "new");
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let fx = fixture();
    let fifo = fx.path("pipe");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from(0o644),
        0,
    )
    .unwrap();
    let (tx, rx) = mpsc::channel();
    let ws = Workspace::open(std::slice::from_ref(&fx.root), &[]).unwrap();
    std::thread::spawn(move || {
        let _ = tx.send(read_file(&ws, "pipe", None, &Limits::default()));
    });
    let result = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("read_file blocked on a fifo");
    let e = result.unwrap_err();
    assert!(
        matches!(
            e,
            ToolError::WrongType {
                found: "a named pipe (fifo)",
                ..
            }
        ),
        "{e:?}"
    );
    // The fifo is not replaced by write_file either.
    let e = write_file(&fx.ws, "pipe", "x", None, &fx.limits).unwrap_err();
    assert!(matches!(e, ToolError::WrongType { .. }), "{e:?}");
}

#[test]
fn a_device_is_refused_without_reading_it() {
    // /dev/zero would never end; as a read root it is reachable but refused.
    let fx = fixture();
    let ws = Workspace::open(std::slice::from_ref(&fx.root), &["/dev".into()]).unwrap();
    let e = read_file(&ws, "/dev/zero", None, &fx.limits).unwrap_err();
    assert!(
        matches!(
            e,
            ToolError::WrongType {
                found: "a character device",
                ..
            }
        ),
        "{e:?}"
    );
    // A read root is not writable.
    let e = write_file(&ws, "/dev/null", "x", None, &fx.limits).unwrap_err();
    assert!(matches!(e, ToolError::OutsideRoots { .. }), "{e:?}");
}

#[test]
fn a_large_file_is_refused_with_its_size() {
    let fx = fixture();
    let big = fs::File::create(fx.path("big.bin")).unwrap();
    big.set_len(3 << 20).unwrap();
    let e = read_file(&fx.ws, "big.bin", None, &fx.limits).unwrap_err();
    assert!(
        matches!(
            e,
            ToolError::FileTooLarge {
                size: 3145728,
                limit: 1048576,
                ..
            }
        ),
        "{e:?}"
    );

    fs::write(fx.path("ten.txt"), "0123456789").unwrap();
    let small = Limits {
        max_read_bytes: 9,
        ..Limits::default()
    };
    let e = read_file(&fx.ws, "ten.txt", None, &small).unwrap_err();
    assert!(
        matches!(e, ToolError::FileTooLarge { size: 10, .. }),
        "{e:?}"
    );
    let exact = Limits {
        max_read_bytes: 10,
        ..Limits::default()
    };
    let ok = read_file(&fx.ws, "ten.txt", None, &exact).unwrap();
    assert_eq!(ok.body.as_text(), Some("0123456789"));
}

#[test]
fn binary_files_are_summarised() {
    let fx = fixture();
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend([0u8, 0, 0, 13, b'I', b'H', b'D', b'R']);
    fs::write(fx.path("img.png"), &png).unwrap();
    let got = read_file(&fx.ws, "img.png", None, &fx.limits).unwrap();
    assert_eq!(
        got.body,
        Body::Binary {
            kind: "PNG image".into(),
            len: 16
        }
    );

    fs::write(fx.path("latin1.txt"), b"caf\xe9").unwrap();
    let got = read_file(&fx.ws, "latin1.txt", None, &fx.limits).unwrap();
    assert!(matches!(got.body, Body::Binary { len: 4, .. }), "{got:?}");
}

#[test]
fn directories_are_not_read_as_files() {
    let fx = fixture();
    fs::create_dir(fx.path("d")).unwrap();
    let e = read_file(&fx.ws, "d", None, &fx.limits).unwrap_err();
    assert!(
        matches!(
            e,
            ToolError::WrongType {
                found: "a directory",
                ..
            }
        ),
        "{e:?}"
    );
    let e = read_file(&fx.ws, "missing.txt", None, &fx.limits).unwrap_err();
    assert!(matches!(e, ToolError::NotFound { .. }), "{e:?}");
}

#[test]
fn write_creates_missing_parents_inside_the_root() {
    let fx = fixture();
    let report = write_file(&fx.ws, "a/b/c.txt", "deep\n", None, &fx.limits).unwrap();
    assert!(report.created);
    assert_eq!(report.bytes, 5);
    assert_eq!(report.path, fx.path("a/b/c.txt"));
    assert_eq!(report.created_dirs, [fx.path("a"), fx.path("a/b")]);
    assert_eq!(fs::read_to_string(fx.path("a/b/c.txt")).unwrap(), "deep\n");

    // Existing parents are not reported again.
    let report = write_file(&fx.ws, "a/b2/d.txt", "x", None, &fx.limits).unwrap();
    assert_eq!(report.created_dirs, [fx.path("a/b2")]);

    // A file in the way of a parent is an error, not a replacement.
    fs::write(fx.path("plain"), "keep").unwrap();
    let e = write_file(&fx.ws, "plain/x.txt", "x", None, &fx.limits).unwrap_err();
    assert!(matches!(e, ToolError::WrongType { .. }), "{e:?}");
    assert_eq!(fs::read_to_string(fx.path("plain")).unwrap(), "keep");
}

#[test]
fn write_replaces_atomically_and_leaves_no_temp_files() {
    let fx = fixture();
    fs::create_dir(fx.path("d")).unwrap();
    let first = write_file(&fx.ws, "d/f.sh", "echo one\n", None, &fx.limits).unwrap();
    assert!(first.created);
    fs::set_permissions(fx.path("d/f.sh"), fs::Permissions::from_mode(0o750)).unwrap();
    let inode_before = rustix::fs::stat(fx.path("d/f.sh")).unwrap().st_ino;

    let second = write_file(&fx.ws, "d/f.sh", "echo two\n", None, &fx.limits).unwrap();
    assert!(!second.created);
    assert_eq!(fs::read_to_string(fx.path("d/f.sh")).unwrap(), "echo two\n");
    let meta = fs::metadata(fx.path("d/f.sh")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o750, "mode kept");
    // Replaced by rename: a new inode, not the old one rewritten in place.
    assert_ne!(
        rustix::fs::stat(fx.path("d/f.sh")).unwrap().st_ino,
        inode_before
    );

    let names: Vec<_> = fs::read_dir(fx.path("d"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["f.sh"]);

    // A failed write (the target is a directory) leaves no temp file either.
    fs::create_dir(fx.path("d/sub")).unwrap();
    let e = write_file(&fx.ws, "d/sub", "x", None, &fx.limits).unwrap_err();
    assert!(matches!(e, ToolError::WrongType { .. }), "{e:?}");
    let mut names: Vec<_> = fs::read_dir(fx.path("d"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["f.sh", "sub"]);
}

#[test]
fn write_refuses_a_symlink_even_to_an_inside_file() {
    let fx = fixture();
    fs::write(fx.path("target.txt"), "original").unwrap();
    symlink("target.txt", fx.path("link")).unwrap();
    let e = write_file(&fx.ws, "link", "changed", None, &fx.limits).unwrap_err();
    assert!(matches!(e, ToolError::Symlink { .. }), "{e:?}");
    assert_eq!(
        fs::read_to_string(fx.path("target.txt")).unwrap(),
        "original"
    );
    assert!(fs::symlink_metadata(fx.path("link")).unwrap().is_symlink());
}

#[test]
fn write_caps_content_size() {
    let fx = fixture();
    let limits = Limits {
        max_write_bytes: 4,
        ..Limits::default()
    };
    let e = write_file(&fx.ws, "x.txt", "12345", None, &limits).unwrap_err();
    assert!(
        matches!(
            e,
            ToolError::ContentTooLarge {
                size: 5,
                limit: 4,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(!fx.path("x.txt").exists());
    write_file(&fx.ws, "x.txt", "1234", None, &limits).unwrap();
    assert_eq!(fs::read_to_string(fx.path("x.txt")).unwrap(), "1234");
}

#[test]
fn write_refuses_directory_paths_and_the_root_itself() {
    let fx = fixture();
    let root = fx.root.to_str().unwrap().to_string();
    for path in ["newdir/", ".", "..", root.as_str()] {
        let e = write_file(&fx.ws, path, "x", None, &fx.limits).unwrap_err();
        assert!(
            matches!(e, ToolError::WrongType { .. } | ToolError::Escapes { .. }),
            "{path}: {e:?}"
        );
    }
    assert!(!fx.path("newdir").exists());
    fx.assert_outside_untouched();
}

#[test]
fn read_roots_are_readable_but_not_writable() {
    let fx = fixture();
    let ws = Workspace::open(
        std::slice::from_ref(&fx.root),
        std::slice::from_ref(&fx.outside),
    )
    .unwrap();
    let secret = fx.outside.join("secret.txt");
    let got = read_file(&ws, secret.to_str().unwrap(), None, &fx.limits).unwrap();
    assert_eq!(got.body.as_text(), Some("SECRET"));
    let listing = list_dir(&ws, fx.outside.to_str().unwrap(), None, &fx.limits).unwrap();
    assert_eq!(listing.total, 2);

    let e = write_file(&ws, secret.to_str().unwrap(), "PWNED", None, &fx.limits).unwrap_err();
    assert!(matches!(e, ToolError::OutsideRoots { .. }), "{e:?}");
    fx.assert_outside_untouched();
}

#[test]
fn list_dir_sorts_marks_kinds_and_caps() {
    let fx = fixture();
    fs::write(fx.path("b.txt"), "").unwrap();
    fs::create_dir(fx.path("a")).unwrap();
    symlink("b.txt", fx.path("c")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        fx.path("d"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from(0o644),
        0,
    )
    .unwrap();
    fs::write(fx.path("Z"), "").unwrap();

    let all = list_dir(&fx.ws, ".", None, &fx.limits).unwrap();
    let shown: Vec<String> = all.entries.iter().map(|e| e.to_string()).collect();
    assert_eq!(shown, ["Z", "a/", "b.txt", "c@", "d|"]);
    assert_eq!(all.total, 5);
    assert_eq!(all.entries[1].kind, EntryKind::Dir);

    let capped = list_dir(
        &fx.ws,
        fx.root.to_str().unwrap(),
        None,
        &Limits {
            max_dir_entries: 2,
            ..Limits::default()
        },
    )
    .unwrap();
    let shown: Vec<String> = capped.entries.iter().map(|e| e.to_string()).collect();
    assert_eq!(shown, ["Z", "a/"]);
    assert_eq!(capped.total, 5);
    assert_eq!(capped.omitted(), 3);
    assert!(capped.to_string().contains("3 more entries"));
}

#[test]
fn list_dir_of_a_large_directory_keeps_the_smallest_names() {
    let fx = fixture();
    fs::create_dir(fx.path("many")).unwrap();
    for i in (0..500).rev() {
        fs::write(fx.path(&format!("many/f{i:04}")), "").unwrap();
    }
    let limits = Limits {
        max_dir_entries: 10,
        ..Limits::default()
    };
    let listing = list_dir(&fx.ws, "many", None, &limits).unwrap();
    let names: Vec<&str> = listing.entries.iter().map(|e| e.name.as_str()).collect();
    let expected: Vec<String> = (0..10).map(|i| format!("f{i:04}")).collect();
    assert_eq!(names, expected);
    assert_eq!(listing.total, 500);
}

#[test]
fn list_dir_refuses_files() {
    let fx = fixture();
    fs::write(fx.path("f"), "").unwrap();
    let e = list_dir(&fx.ws, "f", None, &fx.limits).unwrap_err();
    assert!(
        matches!(e, ToolError::Io { .. } | ToolError::WrongType { .. }),
        "{e:?}"
    );
}

#[test]
fn workspace_rejects_bad_roots() {
    let fx = fixture();
    assert!(matches!(
        Workspace::open(&[], &[]),
        Err(ToolError::BadRoot { .. })
    ));
    assert!(matches!(
        Workspace::open(&["relative".into()], &[]),
        Err(ToolError::BadRoot { .. })
    ));
    assert!(matches!(
        Workspace::open(&[fx.path("missing")], &[]),
        Err(ToolError::BadRoot { .. })
    ));
    fs::write(fx.path("file"), "").unwrap();
    assert!(matches!(
        Workspace::open(&[fx.path("file")], &[]),
        Err(ToolError::BadRoot { .. })
    ));
}

#[test]
fn errors_name_the_path_as_written() {
    let fx = fixture();
    let e = read_file(&fx.ws, "../outside/secret.txt", None, &fx.limits).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("`../outside/secret.txt`"), "{msg}");
    assert!(msg.starts_with(|c: char| !c.is_uppercase()), "{msg}");
    assert!(Path::new(&fx.root).is_absolute());
}
