//! Properties over generated input: no panic on any bytes, limits hold, and
//! every command of a generated script is found however it is nested.

use proptest::prelude::*;
use toolgate_shell::{Options, analyze};

fn opts() -> Options {
    Options {
        cwd: Some("/nonexistent/w".into()),
        home: Some("/home/u".into()),
        ..Options::default()
    }
}

/// A generated script and the marker files its `touch` commands name.
#[derive(Debug, Clone)]
struct Script {
    text: String,
    markers: Vec<String>,
}

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,6}",
        "[a-z]{1,4}".prop_map(|w| format!("'{w} x'")),
        "[a-z]{1,4}".prop_map(|w| format!("\"{w} $y\"")),
        Just("$v".to_string()),
        Just("-n".to_string()),
        Just("2>/dev/null".to_string()),
    ]
}

fn leaf() -> impl Strategy<Value = Script> {
    (
        any::<u32>(),
        prop::collection::vec(word(), 0..3),
        any::<bool>(),
    )
        .prop_map(|(id, args, backquote)| {
            let marker = format!("m{id}");
            let cmd = format!("touch {marker} {}", args.join(" "));
            let text = if backquote {
                format!("echo `{}`", cmd.trim())
            } else {
                cmd.trim().to_string()
            };
            Script {
                text,
                markers: vec![marker],
            }
        })
}

fn script() -> impl Strategy<Value = Script> {
    leaf().prop_recursive(4, 24, 2, |inner| {
        let pair = (inner.clone(), inner.clone());
        prop_oneof![
            (
                pair.clone(),
                prop::sample::select(vec![";", " && ", " || ", " | ", " & ", "\n", " |& "])
            )
                .prop_map(|((a, b), sep)| join(
                    &a,
                    &b,
                    &format!("{}{sep}{}", a.text, b.text)
                )),
            inner
                .clone()
                .prop_map(|a| wrap(&a, format!("( {} )", a.text))),
            inner
                .clone()
                .prop_map(|a| wrap(&a, format!("{{ {}; }}", a.text))),
            pair.clone().prop_map(|(a, b)| join(
                &a,
                &b,
                &format!("if {}; then {}; fi", a.text, b.text)
            )),
            pair.clone().prop_map(|(a, b)| join(
                &a,
                &b,
                &format!("while {}; do {}; done", a.text, b.text)
            )),
            inner
                .clone()
                .prop_map(|a| wrap(&a, format!("for x in a b; do {}; done", a.text))),
            inner
                .clone()
                .prop_map(|a| wrap(&a, format!("case $x in a|b) {};; *) ;; esac", a.text))),
            (inner.clone(), any::<u16>())
                .prop_map(|(a, id)| wrap(&a, format!("fn{id}() {{ {}; }}", a.text))),
            inner
                .clone()
                .prop_map(|a| wrap(&a, format!("echo \"x $( {} ) y\"", a.text))),
            inner
                .clone()
                .prop_map(|a| wrap(&a, format!("X=$( {} ) cat f", a.text))),
            inner
                .clone()
                .prop_map(|a| wrap(&a, format!("diff <( {} ) f", a.text))),
            inner
                .clone()
                .prop_map(|a| wrap(&a, format!("{{ {}; }} > out.txt", a.text))),
            inner.clone().prop_map(|a| {
                if a.text.contains('\'') {
                    a
                } else {
                    wrap(&a, format!("bash -c '{}'", a.text))
                }
            }),
            inner.prop_map(|a| {
                if a.text.contains('\'') {
                    a
                } else {
                    wrap(&a, format!("timeout 5 env X=1 eval '{}'", a.text))
                }
            }),
        ]
    })
}

fn wrap(a: &Script, text: String) -> Script {
    Script {
        text,
        markers: a.markers.clone(),
    }
}

fn join(a: &Script, b: &Script, text: &str) -> Script {
    let mut markers = a.markers.clone();
    markers.extend(b.markers.iter().cloned());
    Script {
        text: text.to_string(),
        markers,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let a = analyze(&text, &opts());
        for e in &a.effects {
            prop_assert!(e.command.is_none_or(|i| i < a.commands.len()));
        }
    }

    #[test]
    fn never_panics_on_shell_like_text(text in "[a-z $'\"`(){};|&<>\\\\\n#*?=~-]{0,200}") {
        let a = analyze(&text, &opts());
        for c in &a.commands {
            prop_assert!(c.non_literal.iter().all(|&i| i < c.argv.len()));
        }
    }

    /// Both limits: a command longer than `max_len` is one unknown and
    /// nothing else; a command nested `levels.len()` deep is never followed
    /// past `max_depth`, and one that is not followed has one unknown that
    /// says so.
    #[test]
    fn limits_hold(
        levels in prop::collection::vec(0usize..6, 0..12),
        max_depth in 0usize..24,
        max_len in 0usize..300,
    ) {
        let mut text = "touch deep".to_string();
        for kind in &levels {
            text = match kind {
                0 => format!("echo $( {text} )"),
                1 => format!("( {text} )"),
                2 => format!("{{ {text}; }}"),
                3 => format!("if true; then {text}; fi"),
                4 => format!("while true; do {text}; done"),
                _ => format!("cat <({text})"),
            };
        }
        let o = Options { max_depth, max_len, ..opts() };
        let a = analyze(&text, &o);
        if text.len() > max_len {
            prop_assert!(a.commands.is_empty() && a.effects.is_empty() && a.unknowns.len() == 1);
            prop_assert!(a.unknowns[0].reason.contains("byte limit"));
            return Ok(());
        }
        let found = a.commands.iter().any(|c| c.argv == ["touch", "deep"]);
        let too_deep = a.unknowns.iter().filter(|u| u.reason.contains("nesting deeper")).count();
        // Never followed past the limit, never dropped without an unknown.
        if levels.len() > max_depth {
            prop_assert!(!found, "{text}: followed past depth {max_depth}");
        }
        prop_assert_eq!(found, too_deep == 0, "{}: {:?} {:?}", text, a.commands, a.unknowns);
        prop_assert!(too_deep <= 1);
        // The parser counts a compound command inside a substitution as two
        // levels; within half the limit, everything is followed.
        if 2 * levels.len() < max_depth {
            prop_assert!(found, "{text}: cut before depth {max_depth}: {:?}", a.unknowns);
        }
    }

    #[test]
    fn every_generated_command_is_found(s in script()) {
        let a = analyze(&s.text, &opts());
        prop_assert!(
            !a.unknowns.iter().any(|u| u.reason.contains("cannot parse")),
            "{}: {:?}", s.text, a.unknowns
        );
        for m in &s.markers {
            let found = a.commands.iter().any(|c| c.argv.first().map(String::as_str) == Some("touch") && c.argv.get(1) == Some(m));
            prop_assert!(found, "`{}` not found in {:?}\nscript:\n{}", m, a.commands.iter().map(|c| c.argv.join(" ")).collect::<Vec<_>>(), s.text);
            prop_assert!(a.effects.iter().any(|e| &e.target == m), "no effect for {}", m);
        }
    }
}
