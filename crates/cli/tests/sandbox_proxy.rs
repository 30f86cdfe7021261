//! `toolgate sandbox` with a policy that allows fetches of some hosts: the
//! command reaches them through toolgate's proxy, and nothing else. Real
//! processes, real HTTP on the host's 127.0.0.1, each result proven by what
//! the server saw, a file's content, or a ledger row.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

const POLICY: &str = r#"
allow = ["Read", "Bash"]
"#;

/// An HTTP server on the host's 127.0.0.1: serves the files of `dir`
/// (`/a/` serves `a/index.html`), or `HELLO-FROM-HOST PATH`; remembers
/// every request head it got.
struct Server {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (dir, log) = (dir.to_path_buf(), Arc::clone(&seen));
        std::thread::spawn(move || {
            for s in listener.incoming() {
                let Ok(s) = s else { continue };
                let (dir, log) = (dir.clone(), Arc::clone(&log));
                std::thread::spawn(move || serve(s, &dir, &log));
            }
        });
        Server { port, seen }
    }

    fn paths(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter_map(|h| h.split(' ').nth(1).map(str::to_string))
            .collect()
    }

    fn head_of(&self, path: &str) -> String {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .find(|h| h.split(' ').nth(1) == Some(path))
            .cloned()
            .unwrap_or_default()
    }
}

fn serve(mut s: TcpStream, dir: &Path, log: &Mutex<Vec<String>>) {
    s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut b) {
            Ok(1) => head.push(b[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    log.lock().unwrap().push(head.clone());
    let path = head.split(' ').nth(1).unwrap_or("/").to_string();
    let mut file = dir.join(path.trim_start_matches('/'));
    if path.ends_with('/') {
        file = file.join("index.html");
    }
    let body = std::fs::read(&file)
        .ok()
        .filter(|_| !path.contains(".."))
        .unwrap_or_else(|| format!("HELLO-FROM-HOST {path}").into_bytes());
    let _ = s.write_all(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: text/html\r\nConnection: keep-alive\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    let _ = s.write_all(&body);
}

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    state: PathBuf,
}

impl Ws {
    fn new(policy: &str) -> Ws {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        let state = base.join("state");
        for d in [&root, &state] {
            std::fs::create_dir(d).unwrap();
        }
        std::fs::write(root.join("toolgate.toml"), policy).unwrap();
        Ws {
            _tmp: tmp,
            root,
            state,
        }
    }

    fn run(&self, script: &str) -> Output {
        Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .current_dir(&self.root)
            .env_remove("TOOLGATE_POLICY")
            .env("TOOLGATE_STATE_DIR", &self.state)
            .env("NO_PROXY", "localhost,127.0.0.1")
            .env("HTTP_PROXY", "http://127.0.0.1:9")
            .args(["sandbox", "--policy"])
            .arg(self.root.join("toolgate.toml"))
            .args(["--", "bash", "-c", script])
            .output()
            .unwrap()
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap_or_default()
    }

    /// The ledger's rows: (rule, outcome, input).
    fn ledger(&self) -> Vec<(String, String, String)> {
        let db = self.state.join("toolgate.db");
        if !db.exists() {
            return Vec::new();
        }
        let store = toolgate_store::Store::open(db).unwrap();
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
}

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A direct connection to the host's server, ignoring the proxy: written
/// to `out`, the request path `/direct-NAME`.
fn direct(port: u16, name: &str, out: &str) -> String {
    format!(
        "python3 -c \"import socket; s=socket.create_connection(('127.0.0.1', {port}), 2); s.sendall(b'GET /direct-{name} HTTP/1.0\\r\\n\\r\\n'); print(s.recv(100))\" > {out} 2>&1\n\
         (printf 'GET /direct-{name}-bash HTTP/1.0\\r\\n\\r\\n' > /dev/tcp/127.0.0.1/{port}) >> {out} 2>&1\n"
    )
}

#[test]
fn allowed_hosts_are_reached_through_the_proxy_and_nothing_else() {
    if !have("curl") || !have("python3") {
        eprintln!("curl or python3 missing: skipped");
        return;
    }
    let files = tempfile::tempdir().unwrap();
    let server = Server::start(files.path());
    let p = server.port;
    let ws = Ws::new(&format!(
        "{POLICY}\n[[rule]]\neffect = \"allow\"\nmatch = [\"WebFetch(domain:localhost)\"]\n"
    ));
    let script = format!(
        "env | grep -i _proxy | sort > out-env\n\
         curl -sS --max-time 10 http://localhost:{p}/plain > out-plain 2>&1\n\
         curl -sS --max-time 10 -p http://localhost:{p}/tunnel > out-tunnel 2>&1\n\
         python3 -c \"import urllib.request; print(urllib.request.urlopen('http://localhost:{p}/urllib', timeout=10).read().decode())\" > out-urllib 2>&1\n\
         curl -sS --max-time 10 -H 'Host: evil.example' http://localhost:{p}/host-header > out-host 2>&1\n\
         curl -sS --max-time 10 -o out-denied-body -w '%{{http_code}}' http://127.0.0.1:{p}/denied-plain > out-denied 2>/dev/null\n\
         curl -sS --max-time 10 -p -o /dev/null -w '%{{http_connect}}' http://127.0.0.1:{p}/denied-tunnel > out-denied-connect 2>/dev/null\n\
         curl -sS --max-time 10 -p -o /dev/null -w '%{{http_connect}}' http://[::ffff:127.0.0.1]:{p}/denied-v6 > out-denied-v6 2>/dev/null\n\
         {}\
         echo ran > done",
        direct(p, "allowed", "out-direct")
    );
    let out = ws.run(&script);
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");

    // The proxy variables name the proxy; NO_PROXY is gone.
    let env = ws.read("out-env");
    for v in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ] {
        assert!(
            env.contains(&format!("{v}={}", toolgate_sandbox::PROXY_URL)),
            "{v}: {env}"
        );
    }
    assert!(!env.to_ascii_lowercase().contains("no_proxy"), "{env}");

    // Plain HTTP, a CONNECT tunnel, and Python's urllib reach the allowed
    // host.
    assert_eq!(ws.read("out-plain"), "HELLO-FROM-HOST /plain", "{out:?}");
    assert_eq!(ws.read("out-tunnel"), "HELLO-FROM-HOST /tunnel");
    assert_eq!(ws.read("out-urllib"), "HELLO-FROM-HOST /urllib\n");
    // The origin gets the URL's host, whatever Host header the client set.
    let head = server.head_of("/host-header");
    assert!(head.contains(&format!("Host: localhost:{p}\r\n")), "{head}");
    assert!(!head.contains("evil.example"), "{head}");
    assert!(head.contains("Connection: close\r\n"), "{head}");

    // 127.0.0.1 is not `localhost` to the policy: refused, in any form.
    assert_eq!(ws.read("out-denied"), "403");
    assert!(
        ws.read("out-denied-body")
            .contains("toolgate's sandbox proxy"),
        "{}",
        ws.read("out-denied-body")
    );
    assert_eq!(ws.read("out-denied-connect"), "403");
    assert_eq!(ws.read("out-denied-v6"), "403");
    // A direct connection, ignoring the proxy, gets nowhere.
    let direct_out = ws.read("out-direct");
    assert!(!direct_out.contains("HELLO"), "{direct_out}");

    let paths = server.paths();
    assert_eq!(
        paths,
        ["/plain", "/tunnel", "/urllib", "/host-header"],
        "the server saw other requests"
    );

    // Each refusal is a ledger row.
    let rows = ws.ledger();
    assert_eq!(rows.len(), 3, "{rows:?}");
    for (rule, outcome, input) in &rows {
        assert_eq!(outcome, "blocked", "{rows:?}");
        assert!(input.contains("127.0.0.1"), "{input}");
        assert!(input.contains("\"sandbox\":\"proxy\""), "{input}");
        assert_ne!(rule, "sandbox:proxy-local-address", "{rows:?}");
    }
    assert!(rows.iter().any(|r| r.2.contains("CONNECT")), "{rows:?}");
}

#[test]
fn an_ip_rule_opens_loopback_and_a_broad_allow_does_not() {
    if !have("curl") {
        eprintln!("curl missing: skipped");
        return;
    }
    let files = tempfile::tempdir().unwrap();
    let server = Server::start(files.path());
    let p = server.port;
    let named = Ws::new(&format!(
        "{POLICY}\n[[rule]]\neffect = \"allow\"\nmatch = [\"WebFetch(ip:127.0.0.1)\"]\n"
    ));
    let out = named.run(&format!(
        "curl -sS --max-time 10 -p http://127.0.0.1:{p}/by-ip > out 2>&1\n\
         curl -sS --max-time 10 -o /dev/null -w '%{{http_code}}' http://localhost:{p}/by-name > out-name 2>/dev/null\n\
         echo ran > done"
    ));
    assert_eq!(named.read("done"), "ran\n", "{out:?}");
    assert_eq!(named.read("out"), "HELLO-FROM-HOST /by-ip", "{out:?}");
    assert_eq!(named.read("out-name"), "403");

    // Every fetch allowed: still no loopback (nor private, nor metadata)
    // address unless a rule names it, and a deny rule still holds.
    let broad = Ws::new(&format!(
        "{POLICY}\n[[rule]]\neffect = \"allow\"\nmatch = [\"WebFetch\"]\n\
         [[rule]]\neffect = \"deny\"\nmatch = [\"WebFetch(domain:blocked.example)\"]\n"
    ));
    let out = broad.run(&format!(
        "curl -sS --max-time 10 -p -o /dev/null -w '%{{http_connect}}' http://localhost:{p}/broad > out 2>/dev/null\n\
         curl -sS --max-time 10 -p -o /dev/null -w '%{{http_connect}}' http://169.254.169.254/latest > out-meta 2>/dev/null\n\
         curl -sS --max-time 10 -p -o /dev/null -w '%{{http_connect}}' https://blocked.example/ > out-deny 2>/dev/null\n\
         {}echo ran > done",
        direct(p, "broad", "out-direct")
    ));
    assert_eq!(broad.read("done"), "ran\n", "{out:?}");
    assert_eq!(broad.read("out"), "403");
    assert_eq!(broad.read("out-meta"), "403");
    assert_eq!(broad.read("out-deny"), "403");
    assert_eq!(server.paths(), ["/by-ip"]);
    let rows = broad.ledger();
    let rules: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(rules.len(), 3, "{rows:?}");
    assert_eq!(rules[..2], ["sandbox:proxy-local-address"; 2], "{rows:?}");
    // The deny rule's own id.
    assert!(
        !rules[2].is_empty() && !rules[2].starts_with("sandbox:"),
        "{rows:?}"
    );
    assert!(rows[2].2.contains("blocked.example"), "{rows:?}");
}

#[test]
fn without_an_allowed_fetch_there_is_no_proxy_and_no_network() {
    let files = tempfile::tempdir().unwrap();
    let server = Server::start(files.path());
    let p = server.port;
    let ws = Ws::new(POLICY);
    let out = ws.run(&format!(
        "env | grep -i _proxy > out-env\n\
         {}echo ran > done",
        direct(p, "closed", "out-direct")
    ));
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    // The host's own proxy variables are passed as they are, and lead
    // nowhere.
    assert!(!ws.read("out-env").contains(toolgate_sandbox::PROXY_URL));
    assert!(server.paths().is_empty(), "{:?}", server.paths());
}

#[test]
fn a_package_manager_installs_from_an_allowed_registry_only() {
    if !have("python3")
        || !Command::new("python3")
            .args(["-m", "pip", "--version"])
            .output()
            .is_ok_and(|o| o.status.success())
    {
        eprintln!("pip missing: skipped");
        return;
    }
    // A simple index with one wheel.
    let files = tempfile::tempdir().unwrap();
    let made = Command::new("python3")
        .arg("-c")
        .arg(
            "import zipfile, sys, os\n\
             d = sys.argv[1]\n\
             os.makedirs(d + '/simple/tgdemo', exist_ok=True)\n\
             w = 'tgdemo-1.0-py3-none-any.whl'\n\
             with zipfile.ZipFile(d + '/simple/tgdemo/' + w, 'w') as z:\n\
             \x20   z.writestr('tgdemo/__init__.py', 'VALUE = 42\\n')\n\
             \x20   z.writestr('tgdemo-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: tgdemo\\nVersion: 1.0\\n')\n\
             \x20   z.writestr('tgdemo-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n\
             \x20   z.writestr('tgdemo-1.0.dist-info/RECORD', '')\n\
             open(d + '/simple/tgdemo/index.html', 'w').write('<html><body><a href=\"' + w + '\">' + w + '</a></body></html>')\n\
             open(d + '/simple/index.html', 'w').write('<html><body><a href=\"tgdemo/\">tgdemo</a></body></html>')\n",
        )
        .arg(files.path())
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let server = Server::start(files.path());
    let p = server.port;
    // The interpreter itself, not a shim that writes beside itself.
    let python = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .unwrap();
    let python = String::from_utf8(python.stdout).unwrap().trim().to_string();
    let install = format!(
        "{python} -m pip install --no-cache-dir --disable-pip-version-check --no-deps \
         --index-url http://localhost:{p}/simple/ --target lib tgdemo > out-pip 2>&1; echo $? > out-status\n\
         PYTHONPATH=lib {python} -c 'import tgdemo; print(tgdemo.VALUE)' > out-import 2>&1\n\
         echo ran > done"
    );
    let allowed = Ws::new(&format!(
        "{POLICY}\n[[rule]]\neffect = \"allow\"\nmatch = [\"WebFetch(domain:localhost)\"]\n"
    ));
    let out = allowed.run(&install);
    assert_eq!(allowed.read("done"), "ran\n", "{out:?}");
    assert_eq!(
        allowed.read("out-status"),
        "0\n",
        "{}",
        allowed.read("out-pip")
    );
    assert_eq!(allowed.read("out-import"), "42\n");

    let other = Ws::new(&format!(
        "{POLICY}\n[[rule]]\neffect = \"allow\"\nmatch = [\"WebFetch(domain:pypi.org)\"]\n"
    ));
    let before = server.paths().len();
    let out = other.run(&install);
    assert_eq!(other.read("done"), "ran\n", "{out:?}");
    assert_ne!(other.read("out-status"), "0\n", "{}", other.read("out-pip"));
    assert!(!other.root.join("lib/tgdemo").exists());
    assert_eq!(server.paths().len(), before, "the registry saw a request");
    assert!(
        other.ledger().iter().any(|r| r.2.contains("localhost")),
        "{:?}",
        other.ledger()
    );
}
