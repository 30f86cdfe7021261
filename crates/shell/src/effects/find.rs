//! `find` and `fd`: the directories they list, and what their `-exec`,
//! `-delete` and `-fprint` do beneath them.

use super::*;

pub(super) fn find(args: &[Arg], d: &mut Derived) {
    let mut i = 0;
    let mut follows = false;
    // Leading options (-H -L -P -O3 -D opts).
    while let Some(a) = args.get(i) {
        match a.text.as_str() {
            "-L" => {
                follows = true;
                i += 1;
            }
            "-H" | "-P" => i += 1,
            "-D" => i += 2,
            t if t.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let mut roots = Vec::new();
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if a.literal && (t.starts_with('-') || t == "(" || t == "!" || t == ")") {
            break;
        }
        roots.push(a.clone());
        i += 1;
    }
    if roots.is_empty() {
        roots.push(Arg::lit("."));
    }
    // Which names each action meets, and which names find prints: the
    // files beneath the roots that pass, for a command given them.
    let selection = find_expr::select(args.get(i..).unwrap_or_default(), follows);
    // Finding names lists the directories beneath the roots, it does not
    // read the files in them: the names it prints (all of them when it
    // prints more than names, `-printf`, `-ls`). What `-exec` or `-delete`
    // does to everything beneath is added below.
    let shown = selection
        .as_ref()
        .and_then(|s| s.printed.clone())
        .map(|p| Filter {
            files: p.clone(),
            dirs: NameTest::Any,
            split: false,
            ignores: None,
        });
    // `-maxdepth 1` shows what the roots hold, no deeper.
    let deep = !args.windows(2).any(|w| {
        w[0].literal
            && w[0].text == "-maxdepth"
            && w[1].literal
            && matches!(w[1].text.as_str(), "0" | "1")
    });
    for r in &roots {
        d.add_filtered(
            Access::List,
            r,
            deep,
            shown.clone().and_then(Filter::or_none),
        );
    }
    let beneath = |filter: Option<&NameTest>| -> Vec<Arg> {
        roots
            .iter()
            .map(|r| Arg {
                beneath: true,
                filter: filter.and_then(|f| {
                    Filter {
                        files: f.clone(),
                        dirs: NameTest::Any,
                        split: false,
                        ignores: None,
                    }
                    .or_none()
                }),
                ..r.clone()
            })
            .collect()
    };
    d.output = selection
        .as_ref()
        .and_then(|s| s.printed.as_ref())
        .map(|p| beneath(Some(p)));
    let expr_start = i;
    let with_value = [
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-regex",
        "-iregex",
        "-type",
        "-xtype",
        "-size",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-perm",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-links",
        "-inum",
        "-maxdepth",
        "-mindepth",
        "-newer",
        "-anewer",
        "-cnewer",
        "-samefile",
        "-printf",
        "-fstype",
        "-lname",
        "-ilname",
        "-wholename",
        "-iwholename",
        "-used",
        "-context",
        "-regextype",
        "-files0-from",
    ];
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        i += 1;
        // A word in the place of a test or action that is only known when
        // it runs (`$X`, a glob such as `-del*`) may be `-delete` or `-exec`.
        if !a.literal || a.pattern.is_some() {
            d.unknowns.push(format!(
                "`find` expression word `{}` is only known when it runs, and may be an action",
                a.pattern.as_deref().unwrap_or(t)
            ));
            continue;
        }
        match t {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let guard = selection.as_ref().and_then(|s| {
                    s.actions
                        .iter()
                        .find(|(at, _)| expr_start + at == i - 1)
                        .map(|(_, g)| g)
                });
                let start = i;
                while let Some(a) = args.get(i) {
                    if a.literal
                        && (a.text == ";"
                            || (a.text == "+" && i > start && args[i - 1].text == "{}"))
                    {
                        break;
                    }
                    i += 1;
                }
                let mut argv = Vec::new();
                for a in args.get(start..i).unwrap_or_default() {
                    if a.literal && a.text == "{}" {
                        argv.extend(beneath(guard));
                    } else if a.literal && a.text.contains("{}") {
                        argv.push(Arg::dynamic(a.text.clone()));
                    } else {
                        argv.push(a.clone());
                    }
                }
                i += 1;
                if !argv.is_empty() {
                    d.nested.push(Nested::Argv {
                        argv,
                        wrapper: vec!["find".into(), t.into()],
                    });
                }
            }
            "-delete" => {
                // It removes the entries that reach it (a directory only
                // when empty): a name its condition excludes stays.
                let guard = selection.as_ref().and_then(|s| {
                    s.actions
                        .iter()
                        .find(|(at, _)| expr_start + at == i - 1)
                        .map(|(_, g)| g)
                });
                for b in beneath(guard) {
                    d.add(Access::Delete, &b, false);
                }
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                if let Some(f) = args.get(i) {
                    d.add(Access::Write, f, false);
                }
                i += if t == "-fprintf" { 2 } else { 1 };
            }
            _ if t.starts_with("-newer") && t.len() > 6 => i += 1,
            _ if with_value.contains(&t) => {
                if t == "-files0-from" {
                    if let Some(f) = args.get(i) {
                        d.add(Access::Read, f, false);
                    }
                }
                i += 1;
            }
            _ => {}
        }
    }
}

pub(super) fn fd(args: &[Arg], d: &mut Derived) {
    let exec_at = args.iter().position(|a| {
        a.literal && matches!(a.text.as_str(), "-x" | "-X" | "--exec" | "--exec-batch")
    });
    let (own, exec) = match exec_at {
        Some(p) => (&args[..p], args.get(p + 1..)),
        None => (args, None),
    };
    let o = parse_opts(
        own,
        "edEtcjS",
        &[
            "extension",
            "max-depth",
            "exclude",
            "type",
            "color",
            "threads",
            "size",
            "changed-within",
            "changed-before",
            "owner",
            "base-directory",
            "search-path",
            "format",
            "ignore-file",
        ],
        &[],
    );
    let mut roots: Vec<Arg> = o.operands.get(1..).unwrap_or_default().to_vec();
    roots.extend(o.values(&["--search-path", "--base-directory"]).cloned());
    if roots.is_empty() {
        roots.push(Arg::lit("."));
    }
    for r in &roots {
        d.add(Access::List, r, true);
    }
    if let Some(exec) = exec {
        let mut argv = Vec::new();
        let mut placed = false;
        for a in exec {
            if a.literal && a.text == ";" {
                break;
            }
            if a.literal && a.text.starts_with('{') && a.text.ends_with('}') {
                placed = true;
                for r in &roots {
                    argv.push(Arg {
                        beneath: true,
                        ..r.clone()
                    });
                }
            } else {
                argv.push(a.clone());
            }
        }
        // With no placeholder, fd appends each path found.
        if !placed && !argv.is_empty() {
            argv.extend(roots.iter().map(|r| Arg {
                beneath: true,
                ..r.clone()
            }));
        }
        if !argv.is_empty() {
            d.nested.push(Nested::Argv {
                argv,
                wrapper: vec!["fd".into(), "--exec".into()],
            });
        }
    }
}
