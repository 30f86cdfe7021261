//! The command line, run as a real process.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn toolgate() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toolgate"));
    c.env_remove("TOOLGATE_POLICY");
    c
}

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Ws {
    fn new(policy: Option<&str>) -> Ws {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        if let Some(p) = policy {
            std::fs::write(root.join("toolgate.toml"), p).unwrap();
        }
        std::fs::write(root.join("README.md"), "hello").unwrap();
        Ws { _tmp: tmp, root }
    }

    fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut c = toolgate();
        c.args(args)
            .current_dir(&self.root)
            .env("HOME", self.root.join("home"))
            .env("TOOLGATE_STATE_DIR", self.root.join("state"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        if let Some(s) = stdin {
            // A process that exits before reading (a bad policy) closes
            // the pipe first; its exit status is the answer.
            if let Err(e) = input.write_all(s.as_bytes()) {
                assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
            }
        }
        drop(input);
        child.wait_with_output().unwrap()
    }
}

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn check_prints_the_decision_and_exits_0_whatever_it_is() {
    let ws = Ws::new(Some("allow = [\"Read\"]\ndeny = [\"Read(.env)\"]\n"));
    let out = ws.run(
        &[
            "check",
            r#"{"id":"c1","tool":"read_file","input":{"path":"README.md"}}"#,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = &json_lines(&out)[0];
    assert_eq!(d["id"], "c1");
    assert_eq!(d["decision"], "allow");
    assert_eq!(d["rule"], "allow[0]");
    assert_eq!(d["hard"], false);
    assert!(d["reason"].as_str().unwrap().contains("README.md"));
    assert_eq!(d["digest"].as_str().unwrap().len(), 64);

    let out = ws.run(
        &["check", "-"],
        Some(r#"{"tool":"read_file","input":{"path":".env"}}"#),
    );
    assert_eq!(out.status.code(), Some(0));
    let d = &json_lines(&out)[0];
    assert_eq!(
        (d["decision"].as_str(), d["rule"].as_str()),
        (Some("deny"), Some("deny[0]"))
    );

    let out = ws.run(
        &[
            "check",
            r#"{"tool":"read_file","input":{"path":"/var/log/syslog"}}"#,
        ],
        None,
    );
    let d = &json_lines(&out)[0];
    assert_eq!(
        (
            d["decision"].as_str(),
            d["rule"].as_str(),
            d["hard"].as_bool()
        ),
        (Some("deny"), Some("hard:outside-roots"), Some(true))
    );
}

#[test]
fn check_accepts_anthropic_and_openai_shapes() {
    let ws = Ws::new(Some("allow = [\"Read\"]\n"));
    let out = ws.run(
        &[
            "check",
            r#"{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"README.md"}}"#,
        ],
        None,
    );
    let d = &json_lines(&out)[0];
    assert_eq!(
        (d["id"].as_str(), d["decision"].as_str()),
        (Some("toolu_1"), Some("allow"))
    );
    let out = ws.run(
        &["check", r#"{"id":"call_9","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"README.md\"}"}}"#],
        None,
    );
    let d = &json_lines(&out)[0];
    assert_eq!(
        (d["id"].as_str(), d["decision"].as_str()),
        (Some("call_9"), Some("allow"))
    );
}

#[test]
fn built_in_policy_applies_without_a_file() {
    let ws = Ws::new(None);
    let out = ws.run(
        &[
            "check",
            r#"{"tool":"read_file","input":{"path":"README.md"}}"#,
        ],
        None,
    );
    assert_eq!(json_lines(&out)[0]["rule"], "builtin:read");
    let out = ws.run(
        &[
            "check",
            r#"{"tool":"write_file","input":{"path":"x","content":"y"}}"#,
        ],
        None,
    );
    assert_eq!(json_lines(&out)[0]["decision"], "ask");
}

#[test]
fn bad_calls_exit_2_with_one_line() {
    let ws = Ws::new(Some("allow = [\"Read\"]\n"));
    for (call, needle) in [
        ("not json", "not JSON"),
        (r#"{"input":{}}"#, "no `tool`"),
        (r#"{"tool":"read_file","input":[1]}"#, "not a JSON object"),
        ("[1,2]", "not a JSON object"),
    ] {
        let out = ws.run(&["check", call], None);
        assert_eq!(out.status.code(), Some(2), "{call}");
        assert!(out.stdout.is_empty());
        let e = stderr(&out);
        assert_eq!(e.trim_end().lines().count(), 1, "{e}");
        assert!(e.contains(needle), "{call}: {e}");
    }
    let out = ws.run(&["check"], None);
    assert_eq!(out.status.code(), Some(2));
    let out = ws.run(&["check", "--mode", "yolo", r#"{"tool":"x"}"#], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown mode `yolo`"));
}

#[test]
fn bad_policies_exit_2_naming_file_line_and_column() {
    let cases = [
        ("allow = [\"Read\"\n", "1:"),
        ("[policy]\nmode = \"yolo\"\n", "2:8: unknown mode `yolo`"),
        ("[policy]\ndefault = \"allow\"\n", "2:11: `default` must be"),
        (
            "[[rule]]\neffect = \"perhaps\"\nmatch = \"Read\"\n",
            "2:10: `effect`: unknown effect `perhaps`",
        ),
        ("deny = [\"Read(\"]\n", "1:9: malformed selector `Read(`"),
        ("deny = [\"Read([)\"]\n", "1:9: bad glob"),
        ("[policy]\nroot = [\".\"]\n", "unknown field `root`"),
        ("allow = [\"Bash(git \\\"status)\"]\n", "1:10:"),
    ];
    for (text, needle) in cases {
        let ws = Ws::new(Some(text));
        let out = ws.run(
            &[
                "check",
                r#"{"tool":"read_file","input":{"path":"README.md"}}"#,
            ],
            None,
        );
        assert_eq!(out.status.code(), Some(2), "{text}");
        let e = stderr(&out);
        assert_eq!(e.trim_end().lines().count(), 1, "{e}");
        assert!(e.contains("toolgate.toml"), "{e}");
        assert!(e.contains(needle), "{text:?}: {e}");
    }
    let ws = Ws::new(None);
    let out = ws.run(
        &["check", "--policy", "missing.toml", r#"{"tool":"x"}"#],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing.toml"));
}

#[test]
fn batch_answers_every_line_in_order() {
    let ws = Ws::new(Some("allow = [\"Read\"]\ndeny = [\"Read(.env)\"]\n"));
    let input = [
        r#"{"id":"a","tool":"read_file","input":{"path":"README.md"}}"#,
        r#"{"id":"b","tool":"read_file","input":{"path":".env"}}"#,
        "garbage",
        r#"{"id":"d","tool":"write_file","input":{"path":"x","content":""}}"#,
    ]
    .join("\n");
    let out = ws.run(&["check", "--batch", "-"], Some(&input));
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out);
    let got: Vec<(Value, Value)> = lines
        .iter()
        .map(|d| (d["id"].clone(), d["decision"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("a".into(), "allow".into()),
            ("b".into(), "deny".into()),
            (Value::Null, "deny".into()),
            ("d".into(), "deny".into())
        ]
    );
    assert!(stderr(&out).contains("-:3:"), "{}", stderr(&out));
}

#[test]
fn explain_shows_actions_rules_and_the_winner() {
    let ws = Ws::new(Some("allow = [\"Read\"]\ndeny = [\"Read(.env)\"]\n"));
    let out = ws.run(
        &["explain", r#"{"tool":"read_file","input":{"path":".env"}}"#],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("deny  `deny[0]`  Read(.env)"), "{text}");
    assert!(text.contains("allow `allow[0]`  Read"), "{text}");
    assert!(text.contains("decision: DENY by `deny[0]`"), "{text}");
}

fn examples_policy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/toolgate.toml")
}

#[test]
fn the_example_policy_passes_its_own_tests() {
    let ws = Ws::new(None);
    let p = examples_policy();
    let out = ws.run(&["test", p.to_str().unwrap()], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    let cases = text.lines().filter(|l| l.starts_with("ok ")).count();
    assert!(cases >= 20, "{cases} cases:\n{text}");
}

#[test]
fn a_wrong_expectation_fails_and_names_the_case() {
    let ws = Ws::new(None);
    let mut text = std::fs::read_to_string(examples_policy()).unwrap();
    text.push_str("\n[[test]]\nname = \"deliberately wrong\"\ncall = { tool = \"read_file\", input = { path = \".env\" } }\nexpect = \"allow\"\n");
    let p = ws.root.join("toolgate.toml");
    std::fs::write(&p, text).unwrap();
    let out = ws.run(&["test"], None);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("FAIL  deliberately wrong"), "{stdout}");
    assert!(stdout.contains("expected allow, got deny"), "{stdout}");
}
