//! `tar` and `unzip`: the archive, the directory written into, and the
//! files read or listed.

use super::*;

pub(super) fn tar(spec: &Spec, args: &[Arg], d: &mut Derived) {
    let mut args: Vec<Arg> = args.to_vec();
    // Old style: `tar xzf a.tgz` is `tar -x -z -f a.tgz`.
    if let Some(first) = args.first() {
        if first.literal
            && !first.text.starts_with('-')
            && first.text.chars().all(|c| c.is_ascii_alphabetic())
        {
            let letters: Vec<char> = first.text.chars().collect();
            let mut rebuilt = Vec::new();
            let mut values = args[1..].iter();
            for c in letters {
                rebuilt.push(Arg::lit(format!("-{c}")));
                if "fCTXbIKNgLVH".contains(c) {
                    if let Some(v) = values.next() {
                        rebuilt.push(v.clone());
                    }
                }
            }
            rebuilt.extend(values.cloned());
            args = rebuilt;
        }
    }
    let o = parse_opts(&args, spec.short_args, spec.long_args, &[]);
    if o.has(&[
        "--to-command",
        "--checkpoint-action",
        "--info-script",
        "--new-volume-script",
        "-F",
        "-I",
        "--use-compress-program",
        "--rmt-command",
        "--rsh-command",
    ]) || o.opts.iter().any(|(n, _)| n.starts_with("--use-compress"))
    {
        d.unknowns.push("`tar` option runs a program".into());
    }
    let archive: Option<Arg> = o.values(&["-f", "--file"]).next().cloned();
    // `-f host:file` is an archive on another host, reached by running
    // `rsh` (or `--rsh-command`), unless `--force-local`.
    if let Some(a) = &archive {
        let remote = a
            .text
            .split_once(':')
            .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'));
        if remote && !o.has(&["--force-local"]) {
            d.unknowns.push(format!(
                "`tar -f {}` is an archive on another host, reached by a remote shell",
                a.text
            ));
        }
    }
    for f in o.values(&["--index-file", "--volno-file"]) {
        d.add(Access::Write, f, false);
    }
    let dir: Arg = o
        .values(&["-C", "--directory"])
        .next()
        .cloned()
        .unwrap_or_else(|| Arg::lit("."));
    for f in o.values(&[
        "-T",
        "--files-from",
        "-X",
        "--exclude-from",
        "--group-map",
        "--owner-map",
    ]) {
        d.add(Access::Read, f, false);
    }
    // The files a `-T` list names are archived (or extracted) as well.
    if o.values(&["-T", "--files-from"])
        .any(|v| !(v.literal && v.text == "/dev/null"))
    {
        d.unknowns
            .push("`tar -T` archives the files its list names, which are not known here".into());
    }
    let extract = o.has(&["-x", "--extract", "--get"]);
    let snapshots: Vec<Arg> = o.values(&["-g", "--listed-incremental"]).cloned().collect();
    let create = o.has(&[
        "-c",
        "--create",
        "-r",
        "--append",
        "-u",
        "--update",
        "-A",
        "--catenate",
        "--concatenate",
        "--delete",
    ]);
    if extract {
        if let Some(a) = &archive {
            d.add(Access::Read, a, false);
        }
        d.add(Access::WriteDir, &dir, true);
    } else if create {
        if let Some(a) = &archive {
            d.add(Access::Write, a, false);
        }
        for f in &o.operands {
            let f = if dir.text != "." && f.literal && !f.text.starts_with('/') {
                f.with_text(format!("{}/{}", dir.text.trim_end_matches('/'), f.text))
            } else {
                f.clone()
            };
            d.add(Access::Read, &f, true);
        }
    } else {
        if let Some(a) = &archive {
            d.add(Access::Read, a, false);
        }
    }
    for f in &snapshots {
        // Creating updates the snapshot file; listing and extracting read it.
        let access = if create { Access::Write } else { Access::Read };
        d.add(access, f, false);
    }
    d.read_only = !extract && !create && o.has(&["-t", "--list"]);
}

pub(super) fn unzip(args: &[Arg], d: &mut Derived) {
    let mut operands = Vec::new();
    let mut dir = None;
    let mut list_only = false;
    let mut i = 0;
    let mut excluding = false;
    while let Some(a) = args.get(i) {
        i += 1;
        let t = a.text.as_str();
        if a.literal && t.starts_with('-') && t.len() > 1 {
            excluding = false;
            match t {
                "-d" => {
                    dir = args.get(i).cloned();
                    i += 1;
                }
                "-x" => excluding = true,
                "-P" | "-O" | "-I" => i += 1,
                _ => {
                    if t.chars().skip(1).any(|c| "lvtzZpc".contains(c)) {
                        list_only = true;
                    }
                    if let Some(rest) = t.strip_prefix("-d") {
                        dir = Some(a.with_text(rest));
                    }
                }
            }
        } else if !excluding {
            operands.push(a.clone());
        }
    }
    if let Some(archive) = operands.first() {
        d.add(Access::Read, archive, false);
    }
    if !list_only {
        d.add(
            Access::WriteDir,
            &dir.unwrap_or_else(|| Arg::lit(".")),
            true,
        );
    }
    d.read_only = list_only;
}

/// cpio, ar, 7-Zip and pax: extracting writes the names the archive holds
/// into a directory (a recursive write of it, as `tar x` is); creating
/// from names read on standard input (`cpio -o`, `cpio -p`, `pax -w`
/// without operands) reads files not named here.
pub(super) fn other_archivers(name: &str, args: &[Arg], d: &mut Derived) {
    let flags = |a: &Arg| a.literal && a.text.starts_with('-') && !a.text.starts_with("--");
    let has = |letter: char| {
        args.iter()
            .any(|a| flags(a) && a.text[1..].contains(letter))
    };
    let long = |wanted: &str| args.iter().any(|a| a.literal && is_option(&a.text, wanted));
    let operands: Vec<&Arg> = args
        .iter()
        .filter(|a| !(a.literal && a.text.starts_with('-')))
        .collect();
    let names_from_input = |d: &mut Derived| {
        d.unknowns.push(format!(
            "`{name}` reads the names of the files it archives from its input"
        ));
    };
    match name {
        "cpio" => {
            if has('i') || long("--extract") {
                let dir = args
                    .iter()
                    .position(|a| a.literal && (a.text == "-D" || a.text == "--directory"))
                    .and_then(|i| args.get(i + 1))
                    .cloned()
                    .unwrap_or_else(|| Arg::lit("."));
                d.add(Access::WriteDir, &dir, true);
            } else if has('o') || has('p') || long("--create") || long("--pass-through") {
                names_from_input(d);
            }
        }
        "ar" => {
            // `ar KEYS ARCHIVE MEMBERS`: the keys may go without a dash.
            let Some((keys, rest)) = args.split_first() else {
                return;
            };
            let k = keys.text.trim_start_matches('-');
            if !keys.literal {
                d.unknowns.push("`ar` operation is not literal".into());
            } else if k.contains('x') {
                d.add(Access::WriteDir, &Arg::lit("."), true);
            } else if k.contains(['r', 'q', 'd', 'm', 's']) {
                if let Some((archive, members)) = rest.split_first() {
                    d.add(Access::Write, archive, false);
                    for m in members {
                        d.add(Access::Read, m, false);
                    }
                }
            } else if let Some(archive) = rest.first() {
                d.add(Access::Read, archive, false);
            }
        }
        "pax" => {
            if has('r') && has('w') {
                names_from_input(d);
            } else if has('r') {
                d.add(Access::WriteDir, &Arg::lit("."), true);
            } else if has('w') {
                if operands.is_empty() {
                    names_from_input(d);
                }
                for f in &operands {
                    d.add(Access::Read, f, true);
                }
            }
        }
        // 7-Zip: `7z COMMAND ARCHIVE [FILES]`, `-oDIR` for where it extracts.
        _ => {
            let Some((cmd, rest)) = operands.split_first() else {
                return;
            };
            let out = args
                .iter()
                .find_map(|a| a.text.strip_prefix("-o").map(|d| a.with_text(d)));
            match cmd.text.as_str() {
                "x" | "e" => {
                    if let Some(archive) = rest.first() {
                        d.add(Access::Read, archive, false);
                    }
                    d.add(
                        Access::WriteDir,
                        &out.unwrap_or_else(|| Arg::lit(".")),
                        true,
                    );
                }
                "a" | "u" | "d" | "rn" => {
                    if let Some((archive, files)) = rest.split_first() {
                        d.add(Access::Write, archive, false);
                        for f in files {
                            d.add(Access::Read, f, true);
                        }
                    }
                }
                _ => {
                    if let Some(archive) = rest.first() {
                        d.add(Access::Read, archive, false);
                    }
                }
            }
            // `@LIST` and `-i@LIST` name the files in a list file.
            if args
                .iter()
                .any(|a| !a.literal || a.text.starts_with('@') || a.text.starts_with("-i@"))
            {
                d.unknowns.push(format!(
                    "`{name}` archives the files a list names, or words that are not literal"
                ));
            }
        }
    }
}
