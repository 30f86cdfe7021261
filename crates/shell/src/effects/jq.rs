//! jq (and gojq, jaq): the files it reads, as jq's own option parser
//! reads its command line.
//!
//! jq takes a short option anywhere in a cluster (`-nrf` is `-n -r -f`),
//! and `-f` is a flag: with it the first operand is the file the program
//! is read from, whatever word follows `-f` (`jq -f -n prog.jq`). A
//! program read from a file is not analysed (it may `import` data files,
//! as a literal program that says so is unanalysable too), and
//! `--run-tests FILE` compiles and runs the programs a test file holds,
//! printing each one it cannot compile: both read the file they name and
//! are unanalysable.

use super::{Derived, each, words_of};
use crate::tables::Access;
use crate::words::Arg;

/// Long options that take one value, and those that take a name and a
/// file (`--rawfile NAME FILE`); `-L DIR` (or `-LDIR`) takes one too.
const ONE_VALUE: &[&str] = &["--indent", "--library-path"];
const NAME_AND_VALUE: &[&str] = &["--arg", "--argjson"];
const NAME_AND_FILE: &[&str] = &["--slurpfile", "--rawfile", "--argfile"];

pub(super) fn jq(args: &[Arg], d: &mut Derived) {
    let mut operands: Vec<Arg> = Vec::new();
    let mut from_file = false;
    let mut rest_are_args = false;
    let mut end = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let t = a.text.as_str();
        let option = !end && a.literal && t.starts_with('-') && t != "-";
        if !option {
            // After `--args`/`--jsonargs`, operands past the program are
            // strings, not files.
            if !rest_are_args || operands.is_empty() {
                operands.push(a.clone());
            }
            continue;
        }
        if t == "--" {
            end = true;
            continue;
        }
        if let Some(long) = t.strip_prefix("--") {
            let long = format!("--{long}");
            if NAME_AND_FILE.contains(&long.as_str()) {
                if let Some(f) = args.get(i + 1) {
                    d.add(Access::Read, f, false);
                }
                i += 2;
            } else if NAME_AND_VALUE.contains(&long.as_str()) {
                i += 2;
            } else if ONE_VALUE.contains(&long.as_str()) {
                i += 1;
            } else if long == "--from-file" {
                from_file = true;
            } else if long == "--run-tests" {
                if let Some(f) = args.get(i) {
                    d.add(Access::Read, f, false);
                }
                d.unknowns
                    .push("`jq --run-tests` runs the programs a test file holds".into());
                return;
            } else if matches!(long.as_str(), "--args" | "--jsonargs") {
                rest_are_args = true;
            }
            continue;
        }
        // A short cluster: every letter in it counts, as jq reads it.
        let letters = &t[1..];
        if letters.contains('f') {
            from_file = true;
        }
        if let Some(at) = letters.find('L') {
            if at + 1 == letters.len() {
                i += 1;
            }
        }
    }
    if from_file {
        d.unknowns
            .push("`jq` program read from a file is not analysed".into());
        each(d, Access::Read, &operands, false);
        return;
    }
    if let Some(program) = operands.first() {
        if words_of(&program.text).any(|w| matches!(w, "import" | "include")) {
            d.unknowns.push(format!(
                "`jq` program loads modules or data files: `{}`",
                program.text
            ));
        }
    }
    each(
        d,
        Access::Read,
        operands.get(1..).unwrap_or_default(),
        false,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn derived(cmd: &str) -> Derived {
        let args: Vec<Arg> = cmd.split_whitespace().map(Arg::lit).collect();
        let mut d = Derived::default();
        jq(&args, &mut d);
        d
    }

    fn reads(cmd: &str) -> Vec<String> {
        derived(cmd)
            .found
            .iter()
            .filter(|f| f.access == Access::Read)
            .map(|f| f.arg.text.clone())
            .collect()
    }

    #[test]
    fn a_program_file_in_any_cluster_is_read_and_not_analysed() {
        for cmd in [
            "-nf .env",
            "-fn .env",
            "-rf .env README.md",
            "-sRf .env",
            "-f -n .env",
            "--from-file .env",
        ] {
            let d = derived(cmd);
            assert!(!d.unknowns.is_empty(), "{cmd}");
            assert!(
                reads(cmd).contains(&".env".to_string()),
                "{cmd}: {:?}",
                reads(cmd)
            );
        }
        let d = derived("--run-tests .env");
        assert!(!d.unknowns.is_empty());
        assert_eq!(reads("--run-tests .env"), [".env"]);
    }

    #[test]
    fn filters_files_and_values() {
        assert_eq!(reads(". a.json b.json"), ["a.json", "b.json"]);
        assert_eq!(reads("-r .x a.json"), ["a.json"]);
        assert_eq!(reads("--arg f .env . a.json"), ["a.json"]);
        assert_eq!(reads("--rawfile s .env -n $s"), [".env"]);
        assert_eq!(reads("-n --args $ARGS .env"), Vec::<String>::new());
        assert_eq!(reads("-L lib -n 1"), Vec::<String>::new());
        assert_eq!(reads("-- -1 a.json"), ["a.json"]);
        assert!(derived(". a.json").unknowns.is_empty());
        assert!(!derived("import \"x\" as x; x a.json").unknowns.is_empty());
    }
}
