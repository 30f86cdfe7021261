//! `cd`, `pushd`, `popd` and `dirs -c`: the directory later commands run
//! in. (`OLDPWD`, which `cd -` goes to, and `DIRSTACK`, whose elements
//! `popd` goes to, are in the environment table: a script that assigns
//! them is unanalysable.)

use super::*;

impl<'o> Walker<'o> {
    pub(super) fn change_dir(&mut self, name: &str, argv: &[Arg], scope: &mut Scope, idx: usize) {
        scope.dir_changes += 1;
        if name == "dirs" {
            // `dirs -c` empties the stack (a later `popd` fails and stays);
            // the other options only print it.
            if argv
                .iter()
                .skip(1)
                .any(|a| !a.literal || (a.text.starts_with('-') && a.text.contains('c')))
            {
                scope.dir_stack.clear();
            }
            return;
        }
        // `pushd -n`/`popd -n` change the stack and not the directory, and
        // `popd +N`/`-N` drop an entry without changing directory: not
        // followed.
        let stack_only = name != "cd"
            && argv.iter().skip(1).any(|a| {
                !a.literal
                    || (a.text.starts_with('-') && a.text.len() > 1 && a.text[1..].contains('n'))
                    || (name == "popd" && (a.text.starts_with('+') || a.text.starts_with('-')))
                    // `pushd +N`/`-N` rotates the stack to its Nth entry.
                    || (name == "pushd"
                        && a.text.len() > 1
                        && (a.text.starts_with('+') || a.text.starts_with('-'))
                        && a.text[1..].bytes().all(|b| b.is_ascii_digit()))
            });
        if stack_only {
            self.unknown(
                format!("`{name}` with these arguments changes the directory stack in a way not followed"),
                Some(idx),
            );
            scope.dir_stack.clear();
            scope.oldpwd = Some(scope.cwd.clone());
            scope.cwd = Cwd::Unknown;
            return;
        }
        // Where `cd -` goes is `$OLDPWD`, where `popd` goes an element of
        // `DIRSTACK`: a script may assign either.
        let oldpwd_set = self.dir_vars_named || scope.vars.contains_key("OLDPWD");
        let stack_set = self.dir_vars_named || scope.vars.contains_key("DIRSTACK");
        let operands: Vec<&Arg> = argv
            .iter()
            .skip(1)
            .filter(|a| {
                !(a.literal
                    && a.text.starts_with('-')
                    && a.text.len() > 1
                    && !a.text[1..].starts_with(|c: char| c.is_ascii_digit()))
            })
            .collect();
        // `-P` (links resolved as it goes, where the walk follows the
        // logical path), `-e`, `-@`, an option bash does not know, or a
        // second operand (`cd: too many arguments`): not followed.
        let odd_option = argv.iter().skip(1).any(|a| {
            a.literal
                && a.text.starts_with('-')
                && a.text.len() > 1
                && a.text != "--"
                && a.text != "-L"
                && !(name != "cd" && a.text[1..].starts_with(|c: char| c.is_ascii_digit()))
        });
        if odd_option || (name == "cd" && operands.len() > 1) {
            self.unknown(
                format!("`{name}` with these arguments is not followed (an option other than `-L`, or more than one directory)"),
                Some(idx),
            );
            scope.oldpwd = Some(scope.cwd.clone());
            scope.cwd = Cwd::Unknown;
            return;
        }
        let target = match (name, operands.first()) {
            ("popd", _) => match scope.dir_stack.pop() {
                Some(d) if !stack_set => d,
                _ => Cwd::Unknown,
            },
            ("cd", None) => match &self.opts.home {
                Some(h) => Cwd::At(h.clone()),
                None => Cwd::Unknown,
            },
            (_, None) => match scope.dir_stack.pop() {
                Some(d) if !stack_set => {
                    scope.dir_stack.push(scope.cwd.clone());
                    d
                }
                _ => Cwd::Unknown,
            },
            (_, Some(a)) if a.literal && a.text == "-" && !oldpwd_set => {
                scope.oldpwd.clone().unwrap_or(Cwd::Unknown)
            }
            (_, Some(a)) if a.literal && a.text == "-" => Cwd::Unknown,
            (_, Some(a)) if a.literal && !a.text.starts_with('+') => {
                let base = match &scope.cwd {
                    Cwd::At(p) => Some(p.clone()),
                    Cwd::Start => None,
                    Cwd::Unknown => {
                        if !Path::new(&a.text).is_absolute() && !a.text.starts_with('~') {
                            scope.oldpwd = Some(scope.cwd.clone());
                            return;
                        }
                        None
                    }
                };
                Cwd::At(self.dir_path(&a.text, base.as_deref()))
            }
            (_, Some(a)) => {
                let t = a.text.clone();
                self.unknown(
                    format!("`{name}` to a directory that is not literal: `{t}`"),
                    Some(idx),
                );
                scope.oldpwd = Some(scope.cwd.clone());
                scope.cwd = Cwd::Unknown;
                return;
            }
        };
        if let Cwd::At(p) = &target {
            if p.as_os_str().len() > MAX_CWD_LEN {
                self.unknown(
                    format!("`{name}` leads to a path longer than {MAX_CWD_LEN} bytes"),
                    Some(idx),
                );
                scope.cwd = Cwd::Unknown;
                return;
            }
        }
        // A directory that is not there now: bash's `cd` fails and stays
        // where it was, and what follows a `;` or `||` runs there, not
        // where the walk would take it (`cd nothere; cat .env`).
        // (Only where the walk stands on the file system as it is: the
        // starting directory exists; and not for what an earlier part of
        // the script makes, `mkdir -p b && cd b`.)
        let grounded = self.opts.cwd.as_ref().is_some_and(|c| c.is_dir());
        if let (Cwd::At(p), true) = (&target, grounded) {
            let abs = if p.is_absolute() {
                Some(p.clone())
            } else {
                self.opts.cwd.as_ref().map(|c| c.join(p))
            };
            let abs = abs.map(|a| self.written_path(&a.to_string_lossy(), None));
            let why = abs.as_ref().and_then(|a| {
                if self.removed_at_or_above(a) {
                    Some("an earlier part of the script removes or moves")
                } else if self.made_at_or_above(a) {
                    None
                } else if !a.is_dir() {
                    Some("is not a directory now")
                } else if std::fs::metadata(a.join(".")).is_err() {
                    // Looking up `dir/.` needs the right to search `dir`,
                    // as entering it does.
                    Some("cannot be entered by this user")
                } else {
                    None
                }
            });
            if let Some(why) = why {
                self.unknown(
                    format!(
                        "`{name}` to `{}`, which {why}: where it fails, bash stays where it was",
                        p.display()
                    ),
                    Some(idx),
                );
                scope.oldpwd = Some(scope.cwd.clone());
                scope.cwd = Cwd::Unknown;
                return;
            }
        }
        if name == "pushd" && !operands.is_empty() {
            scope.dir_stack.push(scope.cwd.clone());
        }
        if target == Cwd::Unknown && scope.cwd != Cwd::Unknown {
            self.unknown(
                format!("`{name}` leaves the working directory unknown"),
                Some(idx),
            );
        }
        scope.oldpwd = Some(scope.cwd.clone());
        scope.cwd = target;
    }

    /// Whether an earlier command of the script deletes `path` or a
    /// directory above it (`rm -rf d`, `cargo clean`, the source of `mv`).
    fn removed_at_or_above(&self, path: &Path) -> bool {
        self.out.effects.iter().any(|e| {
            e.delete && {
                let at = self.written_path(&e.target, e.cwd.as_deref());
                path.starts_with(&at)
            }
        })
    }
}
