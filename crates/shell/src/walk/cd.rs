//! `cd`, `pushd` and `popd`: the directory later commands run in.

use super::*;

impl<'o> Walker<'o> {
    pub(super) fn change_dir(&mut self, name: &str, argv: &[Arg], scope: &mut Scope, idx: usize) {
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
        let target = match (name, operands.first()) {
            ("popd", _) => match scope.dir_stack.pop() {
                Some(d) => d,
                None => Cwd::Unknown,
            },
            ("cd", None) => match &self.opts.home {
                Some(h) => Cwd::At(h.clone()),
                None => Cwd::Unknown,
            },
            (_, None) => match scope.dir_stack.pop() {
                Some(d) => {
                    scope.dir_stack.push(scope.cwd.clone());
                    d
                }
                None => Cwd::Unknown,
            },
            (_, Some(a)) if a.literal && a.text == "-" => {
                scope.oldpwd.clone().unwrap_or(Cwd::Unknown)
            }
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
}
