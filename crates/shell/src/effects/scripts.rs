//! `perl` and `ruby` run on files: the script file they read, and with
//! `-n`, `-p` or `-i` the files they read line by line, and with `-i`
//! rewrite in place. What the program itself does is not analysed (it is
//! the user's rule that allows running it), but those files are operands
//! like `sed`'s: `perl -pi -e 's/a/b/' f` writes `f`, and a deny rule on
//! `f` applies to it. Without `-n`, `-p` or `-i` the arguments after the
//! program are the program's own (`@ARGV`), not known to be files.

use super::*;

/// Switch letters after which the rest of the cluster is the switch's
/// value (`-Mstrict`, `-I lib`, `-F,`, `-x`, `-C`, `-d`, `-D`, `-r`
/// (ruby's `-rjson`), `-W`, `-T` (ruby's level), `-K`, `-E` in ruby's
/// `-Eutf-8`) and so holds no more switches. `-l` and `-0` take only the
/// digits that follow them.
const VALUE_REST: &str = "MmIFxCdDrWTKE";

pub(super) fn perl_like(name: &str, args: &[Arg], d: &mut Derived) {
    let mut in_place = false;
    let mut line_loop = false;
    let mut program_given = false;
    let mut operands: Vec<&Arg> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        if !operands.is_empty() || !a.literal || t == "-" || !t.starts_with('-') {
            operands.push(a);
            continue;
        }
        if t == "--" {
            operands.extend(it.by_ref());
            break;
        }
        if t.starts_with("--") {
            // ruby's long options; none names a file toolgate tracks.
            continue;
        }
        let mut letters = t[1..].char_indices();
        while let Some((i, c)) = letters.next() {
            match c {
                'i' => {
                    // `-i` takes the rest of the cluster as the backup
                    // extension: `-pi.bak`, and `-pie` is `-p -i` with
                    // extension `e`.
                    in_place = true;
                    break;
                }
                'e' | 'E' if !(name == "ruby" && c == 'E') => {
                    program_given = true;
                    // The program is the rest of the cluster or the next
                    // argument.
                    if i + 2 == t.len() {
                        it.next();
                    }
                    break;
                }
                'n' | 'p' => line_loop = true,
                'l' | '0' => {
                    // `-l[octal]`, `-0[octal]`, `-0xHEX`.
                    let hex = c == '0' && letters.clone().next().is_some_and(|(_, n)| n == 'x');
                    if hex {
                        letters.next();
                    }
                    while letters.clone().next().is_some_and(|(_, n)| {
                        if hex {
                            n.is_ascii_hexdigit()
                        } else {
                            ('0'..='7').contains(&n)
                        }
                    }) {
                        letters.next();
                    }
                }
                c if VALUE_REST.contains(c) => {
                    if i + 2 == t.len() && matches!(c, 'I' | 'r' | 'E' | 'x' | 'C') {
                        // `-I DIR`, ruby's `-r LIB`: the value is the next
                        // argument.
                        it.next();
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    let files: &[&Arg] = if program_given {
        &operands
    } else {
        match operands.split_first() {
            Some((script, rest)) => {
                d.add(Access::Read, script, false);
                rest
            }
            None => &[],
        }
    };
    if !(in_place || line_loop) {
        // The program's own arguments: `<>` (perl) and `ARGF` (ruby) read
        // them as files, or the program does anything else with them.
        d.arguments = files.iter().map(|a| (*a).clone()).collect();
        return;
    }
    for f in files {
        d.add(Access::Read, f, false);
        if in_place {
            d.add(Access::Write, f, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files `perl`/`ruby ARGS` touch, as `r f` / `w f`.
    fn touched(name: &str, args: &[&str]) -> Vec<String> {
        let args: Vec<Arg> = args.iter().map(|a| Arg::lit(*a)).collect();
        let mut d = Derived::default();
        perl_like(name, &args, &mut d);
        d.found
            .iter()
            .map(|f| {
                let kind = if f.access == Access::Write { "w" } else { "r" };
                format!("{kind} {}", f.arg.text)
            })
            .collect()
    }

    #[test]
    fn in_place_edits_write_their_files() {
        for args in [
            &["-i", "-pe", "s/a/b/", "f"][..],
            &["-pi", "-e", "s/a/b/", "f"],
            &["-pi.bak", "-e", "s/a/b/", "f"],
            &["-i.orig", "-p", "-e", "s/a/b/", "f"],
            &["-lpi", "-e", "s/a/b/", "f"],
        ] {
            assert_eq!(touched("perl", args), ["r f", "w f"], "{args:?}");
        }
        assert_eq!(
            touched("ruby", &["-i", "-pe", "sub(/a/, 'b')", "f"]),
            ["r f", "w f"]
        );
        // `-pie`: `-i` with the extension `e`, so the next word is the
        // script file, and `f` is edited in place.
        assert_eq!(
            touched("perl", &["-pie", "prog.pl", "f"]),
            ["r prog.pl", "r f", "w f"]
        );
    }

    #[test]
    fn line_loops_read_their_files_and_plain_runs_only_the_script() {
        assert_eq!(touched("perl", &["-ne", "print", ".env"]), ["r .env"]);
        assert_eq!(
            touched("perl", &["-n", "script.pl", "a", "b"]),
            ["r script.pl", "r a", "r b"]
        );
        assert_eq!(
            touched("perl", &["script.pl", "3", "/etc/x"]),
            ["r script.pl"]
        );
        assert_eq!(
            touched("perl", &["-e", "print 1", "arg"]),
            Vec::<String>::new()
        );
        assert_eq!(
            touched("perl", &["-Mstrict", "-I", "lib", "script.pl"]),
            ["r script.pl"]
        );
        assert_eq!(
            touched("ruby", &["-rjson", "-e", "p 1"]),
            Vec::<String>::new()
        );
        assert_eq!(touched("perl", &["-p", "--", "-e"]), ["r -e"]);
        // `-l` and `-0` take digits only: `-lane` is `-l -a -n -e`.
        assert_eq!(touched("perl", &["-lane", "print", "f"]), ["r f"]);
        assert_eq!(
            touched("perl", &["-0777", "-pi", "-e", "s/a/b/", "f"]),
            ["r f", "w f"]
        );
        assert_eq!(touched("perl", &["-0xff", "-ne", "print", "f"]), ["r f"]);
    }
}
