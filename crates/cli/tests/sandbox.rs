//! `toolgate sandbox`, run as a real process: escape attempts that must
//! fail and legitimate work that must succeed, each proven on disk (a
//! marker file's content, a file that does not exist, a listener that saw no
//! connection), never by a message.

use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SECRET: &str = "TOPSECRET-7f3a";

struct Ws {
    _tmp: tempfile::TempDir,
    /// Outside the workspace: where escapes would land.
    outside: PathBuf,
    root: PathBuf,
    state: PathBuf,
}

const POLICY: &str = r#"
allow = ["Read", "Bash"]
deny = ["Read(**/*.pem)", "Read(.env*)", "Read(private/**)"]
"#;

impl Ws {
    fn new(policy: &str) -> Ws {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        let outside = base.join("outside");
        let state = base.join("state");
        for d in [&root, &outside, &state] {
            std::fs::create_dir(d).unwrap();
        }
        std::fs::write(root.join("toolgate.toml"), policy).unwrap();
        std::fs::write(root.join("readme.txt"), "hello inside").unwrap();
        std::fs::write(root.join("secret.pem"), SECRET).unwrap();
        std::fs::write(root.join(".env"), SECRET).unwrap();
        std::fs::write(root.join(".env.local"), SECRET).unwrap();
        std::fs::create_dir_all(root.join("private/deep")).unwrap();
        std::fs::write(root.join("private/deep/notes.txt"), SECRET).unwrap();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/key.pem"), SECRET).unwrap();
        // Other names of a denied file, made before the command starts.
        std::fs::hard_link(root.join("secret.pem"), root.join("sub/hardlink.txt")).unwrap();
        std::os::unix::fs::symlink(root.join("secret.pem"), root.join("symlink.txt")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("to-outside")).unwrap();
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .args(args)
                .current_dir(&root)
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .output()
                .unwrap();
            assert!(ok.status.success(), "{ok:?}");
        };
        git(&["init", "-q", "."]);
        git(&["add", "readme.txt"]);
        git(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "first commit",
        ]);
        Ws {
            _tmp: tmp,
            outside,
            root,
            state,
        }
    }

    fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_toolgate"));
        c.current_dir(&self.root)
            .env_remove("TOOLGATE_POLICY")
            .env("TOOLGATE_STATE_DIR", &self.state)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .arg("sandbox")
            .arg("--policy")
            .arg(self.root.join("toolgate.toml"));
        c
    }

    /// `toolgate sandbox -- bash -c SCRIPT` in the workspace.
    fn run(&self, script: &str) -> Output {
        self.cmd()
            .args(["--", "bash", "-c", script])
            .output()
            .unwrap()
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap_or_default()
    }
}

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `script`, which writes what it could read into files named
/// `out-*`, then `done` last; none may hold the secret.
fn assert_no_secret(ws: &Ws, script: &str, outs: &[&str]) {
    let out = ws.run(&format!("{script}\necho ran > done"));
    assert_eq!(ws.read("done"), "ran\n", "the script did not run: {out:?}");
    for o in outs {
        let got = ws.read(o);
        assert!(!got.contains(SECRET), "{o} holds the secret: {got:?}");
    }
}

#[test]
fn writes_outside_the_roots_fail() {
    let ws = Ws::new(POLICY);
    let o = ws.outside.display().to_string();
    let script = format!(
        "touch {o}/touched; \
         python3 -c \"open('{o}/python','w').write('x')\"; \
         echo x > to-outside/through-symlink; \
         cp readme.txt /tmp/../{}/copied; \
         echo x > /tmp/toolgate-sandbox-test-escape-$$; echo $$ > pid; \
         echo ok > inside.txt",
        o.trim_start_matches('/')
    );
    let out = ws.run(&script);
    assert_eq!(ws.read("inside.txt"), "ok\n", "{out:?}");
    let left: Vec<_> = std::fs::read_dir(&ws.outside).unwrap().collect();
    assert!(left.is_empty(), "files were written outside: {left:?}");
    let pid = ws.read("pid");
    let tmp_file = format!("/tmp/toolgate-sandbox-test-escape-{}", pid.trim());
    assert!(
        !Path::new(&tmp_file).exists(),
        "the shared /tmp was written"
    );
}

#[test]
fn denied_files_read_as_empty_through_every_program_and_name() {
    let ws = Ws::new(POLICY);
    let mut outs = vec![
        "out-cat",
        "out-python",
        "out-hardlink",
        "out-symlink",
        "out-find",
        "out-env",
        "out-dir",
        "out-sub",
        "out-proc",
    ];
    let mut script = String::from(
        "cat secret.pem > out-cat 2>&1\n\
         python3 -c \"print(open('secret.pem').read())\" > out-python 2>&1\n\
         cat sub/hardlink.txt > out-hardlink 2>&1\n\
         cat symlink.txt > out-symlink 2>&1\n\
         find . -name '*.pem' -exec cat {} + > out-find 2>&1\n\
         cat .env .env.local > out-env 2>&1\n\
         cat private/deep/notes.txt > out-dir 2>&1; ls -R private >> out-dir 2>&1\n\
         cat sub/key.pem > out-sub 2>&1\n\
         cat /proc/$PPID/root$PWD/secret.pem /proc/$PPID/cwd/secret.pem > out-proc 2>&1\n",
    );
    if have("perl") {
        script.push_str("perl -e 'open(F, \"<\", \"secret.pem\"); print <F>' > out-perl 2>&1\n");
        outs.push("out-perl");
    }
    if have("dd") {
        script.push_str("dd if=secret.pem of=out-dd 2>/dev/null\n");
        outs.push("out-dd");
    }
    assert_no_secret(&ws, &script, &outs);
    // The masks hold for names made during the run too: a new hard link or
    // a copy of a masked file gets the mask, not the secret.
    assert_no_secret(
        &ws,
        "ln secret.pem out-newlink 2>/dev/null; cp secret.pem out-copy 2>/dev/null; \
         mv secret.pem out-moved 2>/dev/null; cat out-moved > out-moved-read 2>&1",
        &["out-newlink", "out-copy", "out-moved-read"],
    );
    // The files themselves are untouched.
    assert_eq!(ws.read("secret.pem"), SECRET);
    assert_eq!(ws.read("private/deep/notes.txt"), SECRET);
}

#[test]
fn masks_cannot_be_unmounted_even_by_root_inside() {
    let ws = Ws::new(POLICY);
    let out = ws.run(
        "umount secret.pem; echo \"umount=$?\" > status\n\
         umount -l private; echo \"umount-l=$?\" >> status\n\
         python3 -c \"import ctypes; l=ctypes.CDLL(None, use_errno=True); print(l.umount2(b'secret.pem', 2), ctypes.get_errno())\" >> status\n\
         cat secret.pem private/deep/notes.txt > out-after 2>&1",
    );
    let status = ws.read("status");
    assert!(
        status.contains("umount=") && !status.contains("umount=0"),
        "{status} {out:?}"
    );
    assert!(!status.contains("umount-l=0"), "{status}");
    assert!(
        status.contains("-1 1"),
        "umount2 did not fail with EPERM: {status}"
    );
    assert!(!ws.read("out-after").contains(SECRET));
}

/// A listener on 127.0.0.1 (and ::1 when there is one) that must see no
/// connection and no datagram.
struct Listeners {
    tcp4: TcpListener,
    tcp6: Option<TcpListener>,
    udp4: UdpSocket,
    /// A local daemon's pathname socket, outside the roots.
    unix: UnixListener,
    unix_path: PathBuf,
}

impl Listeners {
    fn new(dir: &Path) -> Listeners {
        let tcp4 = TcpListener::bind("127.0.0.1:0").unwrap();
        tcp4.set_nonblocking(true).unwrap();
        let tcp6 = TcpListener::bind("[::1]:0").ok();
        if let Some(l) = &tcp6 {
            l.set_nonblocking(true).unwrap();
        }
        let udp4 = UdpSocket::bind("127.0.0.1:0").unwrap();
        udp4.set_nonblocking(true).unwrap();
        let unix_path = dir.join("daemon.sock");
        let unix = UnixListener::bind(&unix_path).unwrap();
        unix.set_nonblocking(true).unwrap();
        Listeners {
            tcp4,
            tcp6,
            udp4,
            unix,
            unix_path,
        }
    }

    fn script(&self) -> String {
        let t = self.tcp4.local_addr().unwrap().port();
        let u = self.udp4.local_addr().unwrap().port();
        let mut s = format!(
            "python3 -c \"import socket; s=socket.create_connection(('127.0.0.1', {t}), 2); s.send(b'x')\" > out-tcp 2>&1\n\
             python3 -c \"import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('127.0.0.1', {u}))\" > out-udp 2>&1\n\
             (echo x > /dev/tcp/127.0.0.1/{t}) > out-devtcp 2>&1\n\
             (echo x > /dev/udp/127.0.0.1/{u}) > out-devudp 2>&1\n\
             python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{x}'); s.send(b'x')\" > out-unix 2>&1\n",
            x = self.unix_path.display()
        );
        if let Some(l) = &self.tcp6 {
            let p = l.local_addr().unwrap().port();
            s.push_str(&format!(
                "python3 -c \"import socket; s=socket.create_connection(('::1', {p}), 2); s.send(b'x')\" > out-tcp6 2>&1\n"
            ));
        }
        s
    }

    /// How many connections and datagrams arrived.
    fn arrivals(&self) -> usize {
        let mut n = 0;
        for l in std::iter::once(&self.tcp4).chain(self.tcp6.as_ref()) {
            loop {
                match l.accept() {
                    Ok(_) => n += 1,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => panic!("{e}"),
                }
            }
        }
        let mut buf = [0u8; 16];
        while self.udp4.recv_from(&mut buf).is_ok() {
            n += 1;
        }
        while self.unix.accept().is_ok() {
            n += 1;
        }
        n
    }
}

#[test]
fn the_network_is_closed_unless_a_rule_allows_fetches() {
    // The daemon's socket lies in $XDG_RUNTIME_DIR, where local daemons
    // keep theirs.
    let ws = Ws::new(POLICY);
    let l = Listeners::new(&ws.outside);
    let out = ws
        .cmd()
        .env("XDG_RUNTIME_DIR", &ws.outside)
        .args([
            "--",
            "bash",
            "-c",
            &format!("{}echo ran > done", l.script()),
        ])
        .output()
        .unwrap();
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    assert_eq!(
        l.arrivals(),
        0,
        "the listener saw a connection or a datagram"
    );

    // Under a policy that allows every fetch, the same script gets no
    // further: fetches go through toolgate's proxy, from a network
    // namespace of the command's own.
    let open = Ws::new(&format!(
        "{POLICY}\n[[rule]]\neffect = \"allow\"\nmatch = [\"WebFetch\"]\n"
    ));
    let l = Listeners::new(&open.outside);
    let out = open
        .cmd()
        .env("XDG_RUNTIME_DIR", &open.outside)
        .args([
            "--",
            "bash",
            "-c",
            &format!("{}echo ran > done", l.script()),
        ])
        .output()
        .unwrap();
    assert_eq!(open.read("done"), "ran\n", "{out:?}");
    assert_eq!(l.arrivals(), 0, "{out:?}");

    // Through the proxy, with a rule that names the address, the listener
    // is reached: the tests above can fail.
    let named = Ws::new(&format!(
        "{POLICY}\n[[rule]]\neffect = \"allow\"\nmatch = [\"WebFetch(ip:127.0.0.1)\"]\n"
    ));
    let l = Listeners::new(&named.outside);
    let port = l.tcp4.local_addr().unwrap().port();
    let out = named
        .run(&format!(
            "python3 -c \"import socket; s=socket.create_connection(('127.0.0.1', 3128), 2); s.sendall(b'CONNECT 127.0.0.1:{port} HTTP/1.1\\r\\n\\r\\n'); print(s.recv(100))\" > out 2>&1\necho ran > done"
        ));
    assert_eq!(named.read("done"), "ran\n", "{out:?}");
    assert!(named.read("out").contains("200"), "{}", named.read("out"));
    assert_eq!(l.arrivals(), 1, "{out:?}");
}

#[test]
fn git_metadata_stays_read_only_and_in_place() {
    let ws = Ws::new(POLICY);
    let config = ws.read(".git/config");
    std::fs::create_dir(ws.root.join(".claude")).unwrap();
    std::fs::write(ws.root.join(".claude/settings.json"), "{}").unwrap();
    let out = ws.run(
        "mv .claude .claude-moved; mkdir -p .claude; echo evil > .claude/settings.json\n\
         echo '[core] hooksPath = /tmp' >> .git/config\n\
         git config core.pager evil\n\
         echo evil > .git/hooks/pre-commit\n\
         mv .git .git-moved\n\
         rm -rf .git\n\
         mkdir -p fake/refs && ln -sfn fake .git\n\
         python3 -c \"import os; os.rename('fake', '.git')\"\n\
         echo ran > done",
    );
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    assert_eq!(ws.read(".git/config"), config);
    assert!(!ws.root.join(".git/hooks/pre-commit").exists());
    let meta = std::fs::symlink_metadata(ws.root.join(".git")).unwrap();
    assert!(meta.is_dir(), ".git was replaced");
    // git's own data is the command's to write (`rm -rf .git` takes
    // `HEAD`); its configuration, hooks and `.git` itself stay.
    assert!(ws.root.join(".git/hooks").is_dir());
    assert!(!ws.root.join(".git-moved").exists());
    assert_eq!(ws.read(".claude/settings.json"), "{}");
    assert!(!ws.root.join(".claude-moved").exists());
}

#[test]
fn the_policy_file_and_the_state_directory_stay_read_only() {
    let ws = Ws::new(POLICY);
    std::fs::write(ws.state.join("toolgate.db"), "state").unwrap();
    let out = ws.run(&format!(
        "echo 'allow = [\"*\"]' >> toolgate.toml\n\
         mv toolgate.toml moved.toml\n\
         ln -sf readme.txt toolgate.toml\n\
         echo x > {s}/toolgate.db; touch {s}/new\n\
         echo ran > done",
        s = ws.state.display()
    ));
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    assert_eq!(ws.read("toolgate.toml"), POLICY);
    assert!(
        std::fs::symlink_metadata(ws.root.join("toolgate.toml"))
            .unwrap()
            .is_file()
    );
    assert_eq!(
        std::fs::read_to_string(ws.state.join("toolgate.db")).unwrap(),
        "state"
    );
    assert!(!ws.state.join("new").exists());

    // A state directory inside the workspace is bound read-only as well.
    let inner = ws.root.join("state");
    std::fs::create_dir(&inner).unwrap();
    let out = ws
        .cmd()
        .env("TOOLGATE_STATE_DIR", &inner)
        .args([
            "--",
            "bash",
            "-c",
            "touch state/new; mv state state2; echo ran > done2",
        ])
        .output()
        .unwrap();
    assert_eq!(ws.read("done2"), "ran\n", "{out:?}");
    assert!(!inner.join("new").exists());
    assert!(inner.is_dir());
}

#[test]
fn legitimate_work_runs() {
    let ws = Ws::new(POLICY);
    let mut script = String::from(
        "set -e\n\
         cat readme.txt > out-read\n\
         mkdir -p build && echo written > build/new.txt\n\
         head -c 4 /usr/bin/env | od -c | head -1 > out-usr\n\
         grep -c root /etc/passwd > out-etc\n\
         git status --short > out-status\n\
         git log --format=%s > out-log\n\
         t=$(mktemp) && echo temp > \"$t\" && cat \"$t\" > out-mktemp && rm \"$t\"\n\
         ls secret.pem > out-ls\n",
    );
    let cc = have("cc");
    if cc {
        script.push_str(
            "printf '#include <stdio.h>\\nint main(void){puts(\"compiled\");return 0;}\\n' > hello.c\n\
             cc -o hello hello.c && ./hello > out-cc\n",
        );
    }
    script.push_str("echo ran > done\n");
    let out = ws.run(&script);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(ws.read("done"), "ran\n");
    assert_eq!(ws.read("out-read"), "hello inside");
    assert_eq!(ws.read("build/new.txt"), "written\n");
    assert!(
        ws.read("out-usr").contains("E   L   F"),
        "{}",
        ws.read("out-usr")
    );
    assert_ne!(ws.read("out-etc").trim(), "0");
    assert!(
        ws.read("out-status").contains("?? build/"),
        "{}",
        ws.read("out-status")
    );
    assert_eq!(ws.read("out-log"), "first commit\n");
    assert_eq!(ws.read("out-mktemp"), "temp\n");
    assert_eq!(ws.read("out-ls"), "secret.pem\n");
    if cc {
        assert_eq!(ws.read("out-cc"), "compiled\n");
    }
}

#[test]
fn exit_status_is_the_commands_and_failures_to_start_are_told_apart() {
    let ws = Ws::new(POLICY);
    let code = |args: &[&str]| ws.cmd().args(args).output().unwrap().status.code();
    assert_eq!(code(&["--", "true"]), Some(0));
    assert_eq!(code(&["--", "bash", "-c", "exit 7"]), Some(7));
    // Killed by a signal, as the command itself would be (`toolgate
    // sandbox` becomes the command).
    let killed = ws
        .cmd()
        .args(["--", "bash", "-c", "kill -9 $$"])
        .output()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(killed.status.signal(), Some(9), "{killed:?}");
    assert_eq!(code(&["--", "no-such-command-here"]), Some(127));
    assert_eq!(code(&["--", "./readme.txt"]), Some(126));
    assert_eq!(code(&[]), Some(125));
    assert_eq!(code(&["--bogus-flag", "--", "true"]), Some(125));

    let bad = Ws::new("[policy]\nsandbox = \"maybe\"\n");
    let out = bad
        .cmd()
        .args(["--", "bash", "-c", "echo ran > done"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125));
    assert!(!bad.root.join("done").exists());
}

fn ledger_rules(state: &Path) -> Vec<(String, String, String)> {
    let store = toolgate_store::Store::open(state.join("toolgate.db")).unwrap();
    store
        .rows(&toolgate_store::RowFilter::default())
        .unwrap()
        .into_iter()
        .map(|r| {
            (
                r.record.rule.unwrap_or_default(),
                r.record.outcome.to_string(),
                r.record.input,
            )
        })
        .collect()
}

#[test]
fn running_without_the_sandbox_is_explicit_and_recorded() {
    let ws = Ws::new(POLICY);
    let target = ws.outside.join("unsandboxed");
    let script = format!("echo x > {}", target.display());
    let out = ws
        .cmd()
        .args(["--no-sandbox", "--", "bash", "-c", &script])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(target.exists(), "--no-sandbox did not run unsandboxed");
    let rows = ledger_rules(&ws.state);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].0, "sandbox:no-sandbox-flag");
    assert_eq!(rows[0].1, "executed");
    assert!(rows[0].2.contains("unsandboxed"), "{rows:?}");

    let off = Ws::new(&format!("[policy]\nsandbox = \"off\"\n{POLICY}"));
    let out = off
        .cmd()
        .args(["--", "bash", "-c", "cat secret.pem > out; exit 3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(off.read("out"), SECRET);
    let rows = ledger_rules(&off.state);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].0, "sandbox:off-in-policy");
    assert_eq!(rows[0].1, "failed");
}

#[test]
fn check_reports_each_part() {
    // From a directory in /tmp, which the probe's command does not see.
    let cwd = tempfile::tempdir_in("/tmp").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["sandbox", "--check"])
        .current_dir(cwd.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for part in [
        "landlock",
        "namespaces",
        "seccomp",
        "no_new_privs",
        "ptrace",
    ] {
        assert!(text.contains(part), "{part} missing: {text}");
    }
    assert!(
        text.lines().filter(|l| l.starts_with("yes")).count() >= 7,
        "{text}"
    );
}

/// A workspace beneath /dev/shm, which `toolgate sandbox` cannot mount
/// over: the command runs in a sandboxed child instead, with the same
/// boundary.
#[test]
fn a_workspace_in_dev_shm_runs_in_a_sandboxed_child() {
    if !Path::new("/dev/shm").is_dir() {
        eprintln!("skipped: this machine has no /dev/shm");
        return;
    }
    let tmp = tempfile::tempdir_in("/dev/shm").unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    std::fs::write(root.join("toolgate.toml"), POLICY).unwrap();
    std::fs::write(root.join("secret.pem"), SECRET).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .current_dir(&root)
        .env_remove("TOOLGATE_POLICY")
        .env("TOOLGATE_STATE_DIR", root.join("state"))
        .args(["sandbox", "--", "bash", "-c"])
        .arg("cat secret.pem > out; touch /tmp/../dev/shm/escaped-$$; echo $$ > pid; exit 4")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    assert_eq!(std::fs::read_to_string(root.join("out")).unwrap(), "");
    let pid = std::fs::read_to_string(root.join("pid")).unwrap();
    assert!(!Path::new(&format!("/dev/shm/escaped-{}", pid.trim())).exists());
}

/// `TIOCSTI` pushes keystrokes into a terminal: the filter refuses it
/// (`EPERM`) before the kernel even looks at the descriptor, where an
/// unsandboxed call on a pipe fails with `ENOTTY`.
#[test]
fn keystrokes_cannot_be_pushed_into_a_terminal() {
    let ws = Ws::new(POLICY);
    let script = "python3 -c \"import fcntl, termios, errno\ntry:\n    fcntl.ioctl(1, termios.TIOCSTI, b'x')\n    print('pushed')\nexcept OSError as e:\n    print(errno.errorcode[e.errno])\" > out-tiocsti";
    let out = ws.run(script);
    assert_eq!(ws.read("out-tiocsti"), "EPERM\n", "{out:?}");
    let out = ws
        .cmd()
        .args(["--no-sandbox", "--", "bash", "-c", script])
        .output()
        .unwrap();
    assert_eq!(ws.read("out-tiocsti"), "ENOTTY\n", "{out:?}");
}

/// A Read deny rule that names a directory outside the roots (here with an
/// absolute pattern, as `Read(~/.ssh/**)` does with the home directory)
/// masks what is there too: reads outside the roots are otherwise open.
#[test]
fn denied_paths_outside_the_roots_are_masked_too() {
    let probe = Ws::new(POLICY);
    // Outside /tmp, /var/tmp and /dev/shm, which the command gets private
    // copies of (the build's own temp dir lies in /tmp when the checkout
    // does).
    let private = |p: &Path| {
        ["/tmp", "/var/tmp", "/dev/shm"]
            .iter()
            .any(|t| p.starts_with(t))
    };
    let base = [
        Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR"))),
        std::env::var_os("HOME").map(PathBuf::from),
    ]
    .into_iter()
    .flatten()
    .filter_map(|p| std::fs::canonicalize(p).ok())
    .find(|p| !private(p));
    let Some(base) = base else {
        eprintln!("skipped: neither the build's temp dir nor HOME lies outside /tmp");
        return;
    };
    let outside_dir = tempfile::tempdir_in(base).unwrap();
    let outside = std::fs::canonicalize(outside_dir.path()).unwrap();
    let keys = outside.join("keys");
    std::fs::create_dir(&keys).unwrap();
    std::fs::write(keys.join("id_ed25519"), SECRET).unwrap();
    std::fs::write(outside.join("public.txt"), "public").unwrap();
    let policy = format!(
        "{POLICY}\n[[rule]]\neffect = \"deny\"\nmatch = [\"Read(/{}/**)\"]\n",
        keys.display()
    );
    std::fs::write(probe.root.join("toolgate.toml"), &policy).unwrap();
    let out = probe.run(&format!(
        "cat {k}/id_ed25519 > out-key 2>&1; cat {o}/public.txt > out-public",
        k = keys.display(),
        o = outside.display()
    ));
    assert_eq!(probe.read("out-public"), "public", "{out:?}");
    assert!(!probe.read("out-key").contains(SECRET));
}

/// A daemon's Unix socket, made by the test, that must see no connection.
struct Daemon {
    listener: UnixListener,
    /// The path (or, for an abstract socket, `\0NAME` as Python writes it).
    python: String,
}

impl Daemon {
    fn at(path: &Path) -> Daemon {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let listener = UnixListener::bind(path).unwrap();
        listener.set_nonblocking(true).unwrap();
        Daemon {
            listener,
            python: format!("'{}'", path.display()),
        }
    }

    fn abstract_named(name: &str) -> Daemon {
        use std::os::linux::net::SocketAddrExt;
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(name).unwrap();
        let listener = UnixListener::bind_addr(&addr).unwrap();
        listener.set_nonblocking(true).unwrap();
        Daemon {
            listener,
            python: format!("'\\0{name}'"),
        }
    }

    fn connect(&self, out: &str) -> String {
        format!(
            "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect({}); s.send(b'x')\" > {out} 2>&1\n",
            self.python
        )
    }

    fn arrivals(&self) -> usize {
        let mut n = 0;
        while self.listener.accept().is_ok() {
            n += 1;
        }
        n
    }
}

/// Removes a directory made outside the temp dirs when the test ends.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn unix_sockets_outside_the_roots_are_out_of_reach_at_any_depth() {
    if !have("python3") {
        eprintln!("skipped: python3 is not installed");
        return;
    }
    let ws = Ws::new(POLICY);
    let pid = std::process::id();
    let deep_tmp = tempfile::tempdir_in("/tmp").unwrap();
    let deep_var_tmp = tempfile::tempdir_in("/var/tmp").ok();
    let run = PathBuf::from(format!("/run/toolgate-test-{pid}"));
    let _cleanup = RemoveOnDrop(run.clone());
    let mut daemons = vec![
        ("tmp", Daemon::at(&deep_tmp.path().join("x/y/d.sock"))),
        ("outside", Daemon::at(&ws.outside.join("a/b/c/d.sock"))),
        (
            "abstract",
            Daemon::abstract_named(&format!("toolgate-test-{pid}")),
        ),
    ];
    if let Some(d) = &deep_var_tmp {
        daemons.push(("var-tmp", Daemon::at(&d.path().join("x/d.sock"))));
    }
    if std::fs::create_dir_all(run.join("u/0/app")).is_ok() {
        daemons.push(("run", Daemon::at(&run.join("u/0/app/docker.sock"))));
    } else {
        eprintln!("/run is not writable here: its part is skipped");
    }
    let mut script = String::new();
    for (name, d) in &daemons {
        script.push_str(&d.connect(&format!("out-{name}")));
    }

    // The control: outside the sandbox, every connection arrives.
    let out = Command::new("bash")
        .args(["-c", &script])
        .current_dir(&ws.root)
        .output()
        .unwrap();
    for (name, d) in &daemons {
        assert_eq!(
            d.arrivals(),
            1,
            "{name}: the control did not connect: {out:?}"
        );
    }

    let out = ws.run(&format!("{script}echo ran > done"));
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    for (name, d) in &daemons {
        if *name == "abstract" && !abstract_sockets_scoped() {
            eprintln!("landlock abi < 6: abstract sockets are not scoped here");
            continue;
        }
        assert_eq!(
            d.arrivals(),
            0,
            "{name}: reached from inside: {}",
            ws.read(&format!("out-{name}"))
        );
    }
}

/// Whether this kernel scopes abstract Unix sockets (Landlock ABI 6), as
/// `toolgate sandbox --check` reports it.
fn abstract_sockets_scoped() -> bool {
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["sandbox", "--check"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.starts_with("yes") && l.contains("abstract Unix sockets"))
}

#[test]
fn tmp_is_private_and_is_the_temp_dir() {
    let ws = Ws::new(POLICY);
    let host = tempfile::tempdir_in("/tmp").unwrap();
    std::fs::write(host.path().join("host.txt"), "host").unwrap();
    let out = ws.run(&format!(
        "ls {h} > out-ls 2>&1; echo private > /tmp/mine; cat /tmp/mine > out-mine\n\
         [ \"$(cd /tmp && pwd -P)\" != / ] && ls \"$TMPDIR\" > out-tmpdir\n\
         cd sub && ls ../../outside > ../out-up 2>&1; cd ..\n\
         echo ran > done",
        h = host.path().display()
    ));
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    assert!(
        !ws.read("out-ls").contains("host.txt"),
        "{}",
        ws.read("out-ls")
    );
    assert_eq!(ws.read("out-mine"), "private\n");
    assert!(
        ws.read("out-tmpdir").contains("mine"),
        "{}",
        ws.read("out-tmpdir")
    );
    assert!(!Path::new("/tmp/mine").exists());
    // Legitimate work in the workspace (beneath /tmp here) still runs.
    assert_eq!(ws.read("readme.txt"), "hello inside");
}

#[test]
fn edit_denied_paths_are_read_only_inside() {
    let policy = format!(
        "{POLICY}\n[[rule]]\neffect = \"deny\"\nmatch = [\"Edit(protected.txt)\", \"Edit(conf/**)\"]\n"
    );
    let script = "echo x > protected.txt; echo x >> protected.txt; rm -f protected.txt\n\
                  mv protected.txt y; sed -i s/keep/changed/ protected.txt; truncate -s0 protected.txt\n\
                  echo x > conf/app.toml; rm -f conf/app.toml; sed -i s/keep/changed/ conf/app.toml\n\
                  touch conf/new.toml; mv conf conf2; rm -rf conf\n\
                  echo ran > done";
    let setup = |ws: &Ws| {
        std::fs::write(ws.root.join("protected.txt"), "keep").unwrap();
        std::fs::create_dir(ws.root.join("conf")).unwrap();
        std::fs::write(ws.root.join("conf/app.toml"), "keep").unwrap();
    };

    // The control: without the sandbox, the same script changes them.
    let ws = Ws::new(&policy);
    setup(&ws);
    let out = Command::new("bash")
        .args(["-c", script])
        .current_dir(&ws.root)
        .output()
        .unwrap();
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    assert_ne!(ws.read("protected.txt"), "keep");
    assert!(!ws.root.join("conf").exists());

    let ws = Ws::new(&policy);
    setup(&ws);
    let out = ws.run(script);
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    assert_eq!(ws.read("protected.txt"), "keep");
    assert_eq!(ws.read("conf/app.toml"), "keep");
    assert!(!ws.root.join("conf/new.toml").exists());
    assert!(!ws.root.join("y").exists());
    assert!(!ws.root.join("conf2").exists());
    // Other files stay writable.
    let out = ws.run("echo new > readme.txt");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(ws.read("readme.txt"), "new\n");
}

/// `[sandbox] writable` with `~` meaning `home` (beside the workspace).
fn writable_policy(entries: &str) -> String {
    format!("{POLICY}\n[sandbox]\nwritable = [{entries}]\n")
}

#[test]
fn a_granted_directory_is_writable_and_its_sibling_is_not() {
    let ws = Ws::new(&writable_policy("\"~/.npm\""));
    let home = ws.outside.parent().unwrap().join("home");
    std::fs::create_dir_all(home.join(".other")).unwrap();
    let h = home.display();
    let out = ws
        .cmd()
        .env("HOME", &home)
        .args([
            "--",
            "bash",
            "-c",
            &format!(
                "echo cached > {h}/.npm/entry; mkdir {h}/.npm/sub && echo deep > {h}/.npm/sub/f; \
                 echo no > {h}/.other/f; echo no > {h}/f; echo ran > done"
            ),
        ])
        .output()
        .unwrap();
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    // Made when it did not exist yet, then written inside.
    assert_eq!(
        std::fs::read_to_string(home.join(".npm/entry")).unwrap(),
        "cached\n"
    );
    assert_eq!(
        std::fs::read_to_string(home.join(".npm/sub/f")).unwrap(),
        "deep\n"
    );
    assert!(!home.join(".other/f").exists());
    assert!(!home.join("f").exists());

    // `policy show` names it with its file and line.
    let shown = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .current_dir(&ws.root)
        .env("HOME", &home)
        .env("TOOLGATE_STATE_DIR", &ws.state)
        .args(["policy", "show", "--policy"])
        .arg(ws.root.join("toolgate.toml"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    let line = POLICY.lines().count() + 3;
    assert!(
        text.contains(&format!(
            "{}  {}:{line}  (written `~/.npm`)",
            home.join(".npm").display(),
            ws.root.join("toolgate.toml").display()
        )) || text.contains(&format!("toolgate.toml:{line}  (written `~/.npm`)")),
        "{text}"
    );
}

#[test]
fn writable_never_grants_what_the_sandbox_keeps() {
    for entry in [
        "\"~\"",
        "\"~/.ssh\"",
        "\"~/.ssh/keys\"",
        "\"~/.config\"",
        "\"~/.cargo\"",
        "\"~/.local\"",
        "\"~/.npm/../\"",
        "\"/\"",
        "\"STATE\"",
        "\"BASE\"",
        "\"relative/cache\"",
    ] {
        let ws = Ws::new(POLICY);
        let base = ws.outside.parent().unwrap().to_path_buf();
        let home = base.join("home");
        std::fs::create_dir_all(&home).unwrap();
        let entry = entry
            .replace("STATE", &ws.state.display().to_string())
            .replace("BASE", &base.display().to_string());
        std::fs::write(ws.root.join("toolgate.toml"), writable_policy(&entry)).unwrap();
        let out = ws
            .cmd()
            .env("HOME", &home)
            .args(["--", "bash", "-c", "echo ran > done"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(125), "{entry}: {out:?}");
        assert!(!ws.root.join("done").exists(), "{entry}");
        let line = POLICY.lines().count() + 3;
        assert!(
            err.contains(&format!("toolgate.toml:{line}:")) && err.contains("[sandbox] writable"),
            "{entry}: {err}"
        );
    }
}

/// A command allowed only because the sandbox holds it (`sandbox:holds`)
/// runs with the boundary tightened: what an `ask` rule names for writing
/// is read-only, the credential locations are masked, and environment
/// variables that look like secrets are not passed. The same
/// command, written so that the analysis sees the write (a person was
/// asked, and approved), may write the file.
#[test]
fn a_held_command_cannot_write_asked_paths_or_read_credentials() {
    let ws = Ws::new(
        "allow = [\"Read\", \"Bash(echo *)\"]\nask = [\"Edit(Cargo.toml)\"]\n[policy]\ndefault = \"ask\"\n",
    );
    // Outside `/tmp`, which is private inside the sandbox: a home there
    // would be out of sight whatever the sandbox masks.
    let home_dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let home = std::fs::canonicalize(home_dir.path()).unwrap();
    assert!(!home.starts_with("/tmp"));
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), SECRET).unwrap();
    std::fs::write(home.join(".netrc"), SECRET).unwrap();
    std::fs::write(ws.root.join("Cargo.toml"), "original\n").unwrap();
    let run = |script: &str| {
        ws.cmd()
            .env("HOME", &home)
            .env("DEPLOY_API_TOKEN", SECRET)
            .args(["--", "bash", "-c", script])
            .output()
            .unwrap()
    };
    // Unanalysable: the write and the reads are out of the analysis' sight.
    let held = format!(
        "eval \"$(printf 'echo changed > Cargo.toml')\"; \
         eval \"$(printf 'cat %s/.ssh/id_ed25519 > out-key; cat %s/.netrc > out-netrc' {h} {h})\"; \
         eval \"$(printf 'env > out-env; cat /proc/self/environ > out-environ')\"; \
         echo ran > done",
        h = home.display()
    );
    let check = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .current_dir(&ws.root)
        .env("HOME", &home)
        .env("TOOLGATE_STATE_DIR", &ws.state)
        .args(["check", "--sandbox", "--policy"])
        .arg(ws.root.join("toolgate.toml"))
        .arg(serde_json::json!({"tool": "run_shell", "input": {"command": held}}).to_string())
        .output()
        .unwrap();
    let d: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(d["rule"], "sandbox:holds", "{d}");
    let out = run(&held);
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    assert_eq!(ws.read("Cargo.toml"), "original\n", "{out:?}");
    // Nothing a credential location or a secret-looking variable holds.
    assert!(ws.read("out-env").contains("PATH="), "{out:?}");
    for o in ["out-key", "out-netrc", "out-env", "out-environ"] {
        assert!(!ws.read(o).contains(SECRET), "{o}: {out:?}");
    }

    // Seen by the analysis: the ask rule asks; approved, it runs as written.
    let out = run("echo changed > Cargo.toml");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(ws.read("Cargo.toml"), "changed\n");
}

/// With the network closed, a container engine's socket in the home
/// directory (Docker Desktop's `~/.docker/run/docker.sock`), which would run
/// what it is sent outside the boundary, cannot be reached: the sockets
/// beneath `/run` are masked, `/tmp` is private, and these places are masked
/// too (Landlock refuses pathname sockets only from ABI 9).
#[test]
fn container_engine_sockets_in_the_home_directory_are_out_of_reach() {
    if !have("python3") {
        eprintln!("python3 missing: skipped");
        return;
    }
    let ws = Ws::new(POLICY);
    // Outside `/tmp`, which is private inside the sandbox.
    let home_dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let home = std::fs::canonicalize(home_dir.path()).unwrap();
    std::fs::create_dir_all(home.join(".docker/run")).unwrap();
    let sock = home.join(".docker/run/docker.sock");
    let listener = UnixListener::bind(&sock).unwrap();
    listener.set_nonblocking(true).unwrap();
    let script = format!(
        "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{}'); s.send(b'hi')\" \
         && echo connected > out-connected\necho ran > done",
        sock.display()
    );
    let out = ws
        .cmd()
        .env("HOME", &home)
        .args(["--", "bash", "-c", &script])
        .output()
        .unwrap();
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    assert!(!ws.root.join("out-connected").exists(), "{out:?}");
    match listener.accept() {
        Ok(_) => panic!("a connection arrived: {out:?}"),
        Err(e) => assert_eq!(e.kind(), ErrorKind::WouldBlock),
    }
}
