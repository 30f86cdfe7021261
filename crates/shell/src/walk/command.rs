//! One simple command: its words expanded, wrappers stripped, then the
//! command that runs, with its effects, unknowns and hazards.

use super::*;

/// Whether a command name is the system's program of that name: a bare
/// name (found on `PATH`, whose changes are unknowns) or a path in the
/// system's own program directories, which the workspace cannot write.
pub(super) fn system_program(name: &str) -> bool {
    if !name.contains('/') {
        return true;
    }
    ["/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/"]
        .iter()
        .any(|dir| {
            name.strip_prefix(dir)
                .is_some_and(|rest| !rest.is_empty() && !rest.contains('/'))
        })
}

impl<'o> Walker<'o> {
    pub(super) fn simple(&mut self, s: &Simple, scope: &mut Scope) {
        let start = self.out.commands.len();
        let first = s.words.first().map(|w| w.text.as_str());
        // A declaration's `NAME=value` operands are given once expanded.
        let declaration = first.is_some_and(is_declaration);
        // `IFS=, read a b`: bash reads no IFS from its environment, and a
        // prefix assignment applies after the command's words expand, so
        // only the builtins that split input meet it.
        let splits_input = matches!(first, Some("read" | "mapfile" | "readarray"));
        let mut given = Vec::new();
        // Assignments run left to right: a value sees the variables
        // assigned before it on the line as not known.
        let mut assigned = HashSet::new();
        for a in &s.assigns {
            for v in &a.value {
                if !assigned.is_empty() && !v.evals.is_empty() {
                    let vars = crate::arith::Overlay {
                        vars: &scope.vars,
                        unknown: &assigned,
                    };
                    self.evals(v, &vars);
                    self.walk_subs(v, scope);
                } else {
                    self.subs(v, scope);
                }
            }
            if s.assigns.len() > 1 {
                assigned.insert(a.name.clone());
            }
            if s.words.is_empty() {
                let value = self.assign_value(a, scope);
                self.give(&a.name, &value, None, "the script assigns");
            } else if !(declaration || a.name == "IFS" && splits_input) {
                let value = self.assign_value(a, scope);
                self.give(&a.name, &value, Some(&mut given), "the command is given");
            }
        }
        let dir = Self::work_dir(self.opts, scope);
        let mut args = Vec::new();
        for w in &s.words {
            self.subs(w, scope);
            self.expand(w, dir.as_deref(), &scope.vars, &mut args);
        }
        for r in &s.redirects {
            self.redirect_subs(r, scope);
        }
        self.attribute_assignments(s, scope);
        self.declaration(s, &args, scope);
        self.assignments(s, &args, scope);
        if declaration {
            self.declared_env(&args);
        }
        let sub_fetched = self.out.commands[start..].iter().any(is_fetcher);
        if args.is_empty() {
            if !s.assigns.is_empty() {
                self.out.assignments.push(s.text.clone());
            }
            self.redirects(&s.redirects, scope, None);
            return;
        }
        let outer = Rc::clone(&scope.env);
        if !given.is_empty() {
            Rc::make_mut(&mut scope.env).extend(given);
        }
        self.run_argv(args, Vec::new(), s, scope, sub_fetched, None);
        scope.env = outer;
    }

    /// Strips wrappers from `argv` and analyses what runs. Variables a
    /// wrapper gives (`env VAR=x`) reach only what it runs, and the
    /// directory a wrapper changes to (`env -C DIR`, `nsenter --wd=DIR`)
    /// is the outer one again afterwards.
    pub(super) fn run_argv(
        &mut self,
        argv: Vec<Arg>,
        wrappers: Vec<Vec<String>>,
        s: &Simple,
        scope: &mut Scope,
        sub_fetched: bool,
        cmd_cwd: Option<Arg>,
    ) {
        let outer = Rc::clone(&scope.env);
        let mut outer_cwd = None;
        self.unwrap_and_run_in(
            argv,
            wrappers,
            s,
            scope,
            sub_fetched,
            cmd_cwd,
            &mut outer_cwd,
        );
        if let Some(cwd) = outer_cwd {
            scope.cwd = cwd;
        }
        scope.env = outer;
    }

    /// The working directory a wrapper gives the command it runs (`env -C
    /// DIR`, `unshare --wd=DIR`, `sudo -D DIR`): the command's own, as
    /// after `cd DIR`, so that its relative paths, the project files it
    /// reads there (a Makefile, `package.json`, the repository git
    /// discovers) and the roots meet DIR; `outer` keeps the directory to
    /// return to. A directory that is not literal leaves it unknown.
    fn wrapper_dir(&mut self, name: &str, dir: &Arg, scope: &mut Scope, outer: &mut Option<Cwd>) {
        if outer.is_none() {
            *outer = Some(scope.cwd.clone());
        }
        if !dir.literal {
            self.unknown(
                format!(
                    "`{name}` runs the command in a directory that is not literal: `{}`",
                    dir.text
                ),
                None,
            );
            scope.cwd = Cwd::Unknown;
            return;
        }
        let base = match &scope.cwd {
            Cwd::At(p) => Some(p.clone()),
            Cwd::Start => None,
            Cwd::Unknown => {
                if !Path::new(&dir.text).is_absolute() && !dir.text.starts_with('~') {
                    return;
                }
                None
            }
        };
        let path = self.dir_path(&dir.text, base.as_deref());
        if path.as_os_str().len() > MAX_CWD_LEN {
            self.unknown(
                format!("`{name}` runs the command in a path longer than {MAX_CWD_LEN} bytes"),
                None,
            );
            scope.cwd = Cwd::Unknown;
            return;
        }
        scope.cwd = Cwd::At(path);
    }

    #[allow(clippy::too_many_arguments)]
    fn unwrap_and_run_in(
        &mut self,
        mut argv: Vec<Arg>,
        mut wrappers: Vec<Vec<String>>,
        s: &Simple,
        scope: &mut Scope,
        sub_fetched: bool,
        cmd_cwd: Option<Arg>,
        outer_cwd: &mut Option<Cwd>,
    ) {
        // The directories wrappers ran the command in, each with the
        // directory it was named in: read as `make -C DIR` reads its own.
        let mut wrapper_dirs: Vec<(Arg, Option<Option<PathBuf>>)> = Vec::new();
        let mut xargs: Option<Option<String>> = None;
        let mut privilege = None;
        // Files the wrappers themselves write (`strace -o f`), with the
        // directory each was opened in.
        let mut wrapper_writes: Vec<(Arg, Option<Option<PathBuf>>)> = Vec::new();
        loop {
            let Some(first) = argv.first() else { return };
            if !first.literal {
                break;
            }
            let name = base_name(&first.text).to_string();
            let by_path = (!system_program(&first.text)).then(|| first.text.clone());
            if privilege.is_none() && tables::known(&name).privilege {
                privilege = Some(name.clone());
            }
            let step = wrappers::step(&name, &argv);
            if let (Some(path), Step::Wrapper { .. } | Step::Shell { .. }) = (&by_path, &step) {
                // Followed all the same, so that deny rules and hard limits
                // still meet what it would run if it were the real one.
                self.unknown(
                    format!(
                        "`{path}` is a program of the workspace, not the system's `{name}`: what it runs is not known"
                    ),
                    None,
                );
            }
            match step {
                Step::Wrapper {
                    wrapper,
                    rest,
                    cwd,
                    env,
                    unknown,
                    xargs: x,
                } => {
                    let mut given = Vec::new();
                    for (var, value) in env {
                        self.give(&var, &value, Some(&mut given), &format!("`{name}` sets"));
                    }
                    if !given.is_empty() {
                        Rc::make_mut(&mut scope.env).extend(given);
                    }
                    if let Some(u) = unknown {
                        self.unknown(u, None);
                    }
                    let (files, why) = wrappers::writes(&name, &argv);
                    if let Some(u) = why {
                        self.unknown(u, None);
                    }
                    let dir = self.effect_cwd(scope, cmd_cwd.as_ref());
                    wrapper_writes.extend(files.into_iter().map(|f| (f, dir.clone())));
                    if let Some(dir) = cwd {
                        wrapper_dirs.push((dir.clone(), self.effect_cwd(scope, cmd_cwd.as_ref())));
                        self.wrapper_dir(&name, &dir, scope, outer_cwd);
                    }
                    if x.is_some() {
                        xargs = x;
                    }
                    wrappers.push(wrapper);
                    argv = rest;
                }
                Step::Shell { wrapper, script } => {
                    if crate::tables::SHELLS.contains(
                        &wrapper
                            .first()
                            .map_or("", |w| w.rsplit('/').next().unwrap_or(w)),
                    ) {
                        if let Some(why) = crate::risky::shell_options(&wrapper) {
                            self.unknown(why, None);
                        }
                    }
                    if let Some(p) = privilege.take() {
                        self.hazard(
                            "privilege",
                            format!("`{p}` runs a command with other privileges"),
                            None,
                        );
                    }
                    let mut w = wrappers.clone();
                    w.push(wrapper);
                    // `eval` and `.` run in this shell and may assign anything.
                    if matches!(name.as_str(), "eval" | "source" | "." | "trap") {
                        forget_all(&mut scope.vars);
                    }
                    // A trap's code runs between later commands.
                    if name == "trap" {
                        self.vars_off = true;
                    }
                    self.wrapper_writes(std::mem::take(&mut wrapper_writes), None);
                    self.wrapper_dir_reads(std::mem::take(&mut wrapper_dirs), None);
                    if self.shell(&name, script, w, s, scope, sub_fetched, &argv) {
                        return;
                    }
                    break;
                }
                Step::None => break,
            }
        }
        let idx = self.out.commands.len();
        self.emit(
            argv,
            wrappers,
            s,
            scope,
            sub_fetched,
            cmd_cwd,
            xargs,
            privilege,
        );
        if !wrapper_writes.is_empty() {
            if let Some(c) = self.out.commands.get_mut(idx) {
                c.read_only = false;
            }
            self.wrapper_writes(wrapper_writes, Some(idx));
        }
        // A program that reads its project from the directory it runs in
        // (one toolgate has no operand table for, git): the directory
        // is read, as `make -C DIR` and `npm --prefix DIR` read theirs.
        let program = self
            .out
            .commands
            .get(idx)
            .and_then(|c| c.argv.first())
            .map(|n| base_name(n).to_string());
        let project = program
            .as_deref()
            .is_some_and(|n| n == "git" || tables::known(n).spec.is_none());
        if project {
            if wrapper_dirs.is_empty()
                && matches!(scope.cwd, Cwd::At(_))
                && program.as_deref() != Some("git")
            {
                // The directory a `cd` of the script left it in, the same
                // way (`cd /elsewhere && npm test` runs that package's
                // scripts). git's is the repository it finds there, which
                // is unanalysable when it is not the one git finds where
                // the command started.
                if let Some(dir) = Self::work_dir(self.opts, scope) {
                    let dir = Arg::lit(dir.to_string_lossy().into_owned());
                    wrapper_dirs.push((dir, Some(None)));
                }
            }
            self.wrapper_dir_reads(wrapper_dirs, Some(idx));
        }
    }

    /// git run in a directory where it finds another repository than
    /// the one of the directory the command started in (a work tree or a
    /// plain directory holding `HEAD`, `objects/`, `refs/` and a `config`
    /// whose `core.fsmonitor` names a program, a submodule, another
    /// repository's `.git`): that repository's configuration and hooks,
    /// which the workspace's own checks do not cover, decide what git
    /// runs. Unanalysable.
    fn git_elsewhere(&mut self, scope: &Scope, idx: usize) {
        let Some(here) = Self::work_dir(self.opts, scope) else {
            return;
        };
        let Some(found) = effects::discovered_git_dir(&here) else {
            return;
        };
        // A repository found as a plain directory (`HEAD`, `objects/`,
        // `refs/`), not a `.git` or a directory inside one: any file
        // there can be written, the call's own directory may lie in it.
        let plain = !found
            .components()
            .any(|c| c.as_os_str() == std::ffi::OsStr::new(".git"));
        if plain {
            self.unknown(
                format!(
                    "`git` runs in `{}`, where it finds the repository `{}`, a directory of plain files, not a `.git`: its configuration can make git run programs",
                    here.display(),
                    found.display()
                ),
                Some(idx),
            );
            return;
        }
        if matches!(scope.cwd, Cwd::Start) {
            return;
        }
        let Some(start) = self.opts.cwd.as_deref() else {
            return;
        };
        if effects::discovered_git_dir(start).as_ref() != Some(&found) {
            self.unknown(
                format!(
                    "`git` runs in `{}`, where it finds the repository `{}`, not the workspace's: its configuration can make git run programs",
                    here.display(),
                    found.display()
                ),
                Some(idx),
            );
        }
    }

    /// rustup's proxies (`cargo`, `rustc`, ..) run the toolchain the
    /// nearest `rust-toolchain.toml` or `rust-toolchain` above their
    /// directory names; one with `path = "/dir"` runs `/dir/bin/cargo`,
    /// a program of anyone's. A file that names a path, or cannot be
    /// read, makes the command unanalysable. (Writing the files is
    /// judged by the policy.)
    fn rust_toolchain_path(&mut self, name: &str, scope: &Scope, idx: usize) {
        let Some(here) = Self::work_dir(self.opts, scope) else {
            return;
        };
        let mut at = Some(here.as_ref());
        while let Some(dir) = at {
            for file in ["rust-toolchain.toml", "rust-toolchain"] {
                let path = dir.join(file);
                if std::fs::symlink_metadata(&path).is_err() {
                    continue;
                }
                let why = match std::fs::read_to_string(&path) {
                    Ok(text) if !effects::toolchain_names_path(&text) => return,
                    Ok(_) => "names a toolchain by its path, whose programs then run",
                    Err(_) => "cannot be read, and may name a toolchain by its path",
                };
                self.unknown(
                    format!(
                        "`{name}` runs the toolchain `{}` chooses, which {why}",
                        path.display()
                    ),
                    Some(idx),
                );
                return;
            }
            at = dir.parent();
        }
    }

    /// The directories wrappers ran a program in, read.
    fn wrapper_dir_reads(&mut self, dirs: Vec<(Arg, Option<Option<PathBuf>>)>, idx: Option<usize>) {
        for (dir, cwd) in dirs {
            self.effect(
                EffectKind::Read,
                &dir,
                Origin::Operand,
                false,
                false,
                idx,
                &cwd,
            );
        }
    }

    /// Keeps a write of what a copy, move or link puts in its destination
    /// only where that destination is a directory: one when the command
    /// is decided, one an earlier part of the command writes, or one this
    /// cannot tell (a name not literal, a working directory not known).
    fn keep_writes_into_directories(
        &self,
        found: &mut Vec<effects::Found>,
        scope: &Scope,
        cmd_cwd: Option<&Arg>,
    ) {
        if !found.iter().any(|f| f.arg.pattern.is_some()) {
            return;
        }
        let base = Self::work_dir(self.opts, scope).map(|b| b.into_owned());
        let cwd_known = cmd_cwd.is_none() && base.is_some();
        found.retain_mut(|f| {
            let dir = match f.arg.pattern.as_deref() {
                Some(effects::INTO_DIR) => f
                    .arg
                    .text
                    .rsplit_once('/')
                    .map_or(".", |(d, _)| if d.is_empty() { "/" } else { d })
                    .to_string(),
                Some(effects::INTO_DIR_BENEATH) => f.arg.text.clone(),
                _ => return true,
            };
            f.arg.pattern = None;
            if !f.arg.literal || !cwd_known || dir.starts_with('~') || dir.contains('$') {
                return true;
            }
            let path = match &base {
                Some(b) => b.join(&dir),
                None => return true,
            };
            path.is_dir() || self.is_written(&dir, base.as_deref())
        });
    }

    /// The files wrappers write (`strace -o f`, `time -o f`): writes an
    /// option turns on, judged as redirects are.
    fn wrapper_writes(&mut self, files: Vec<(Arg, Option<Option<PathBuf>>)>, idx: Option<usize>) {
        for (f, dir) in files {
            if f.literal && tables::HARMLESS_DEVICES.contains(&f.text.as_str()) {
                continue;
            }
            self.effect(
                EffectKind::Write,
                &f,
                Origin::Redirect,
                false,
                false,
                idx,
                &dir,
            );
        }
    }

    pub(super) fn is_fetched(&self, path: &str) -> bool {
        !self.fetched_files.is_empty() && self.fetched_files.contains(path.trim_start_matches("./"))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn emit(
        &mut self,
        argv: Vec<Arg>,
        wrappers: Vec<Vec<String>>,
        s: &Simple,
        scope: &mut Scope,
        sub_fetched: bool,
        cmd_cwd: Option<Arg>,
        xargs: Option<Option<String>>,
        privilege: Option<String>,
    ) {
        let idx = self.out.commands.len();
        let mut all_wrappers = scope.wrappers.clone();
        all_wrappers.extend(wrappers.iter().cloned());
        let name = argv
            .first()
            .map(|a| base_name(&a.text).to_string())
            .unwrap_or_default();
        let literal_name = argv.first().is_some_and(|a| a.literal);
        if !literal_name || tables::REPLACES_TARGET.contains(&name.as_str()) {
            self.replacing.insert(idx);
        }
        // `./cat` and `/tmp/x/cat` are programs of the workspace (or of
        // anyone), not the system's `cat`: never read-only.
        let system = argv.first().is_some_and(|a| system_program(&a.text));
        // The command takes its place now, so that the commands it runs
        // come after it; its argv and wrappers move in once it is done.
        self.out.commands.push(Command {
            argv: Vec::new(),
            non_literal: argv
                .iter()
                .enumerate()
                .filter(|(_, a)| !a.literal)
                .map(|(i, _)| i)
                .collect(),
            wrappers: Vec::new(),
            cwd: match &scope.cwd {
                Cwd::At(p) => Some(p.clone()),
                _ => None,
            },
            read_only: false,
            text: s.text.clone(),
            no_op: false,
        });
        if let Some(p) = privilege {
            self.hazard(
                "privilege",
                format!("`{p}` runs a command with other privileges"),
                Some(idx),
            );
        }
        if literal_name && let Some(what) = answers_the_gate(&name, &argv) {
            self.hazard(
                "self-approval",
                format!("`{what}` changes what toolgate lets run: the agent would answer its own questions"),
                Some(idx),
            );
        }
        if !literal_name {
            let t = argv.first().map(|a| a.text.clone()).unwrap_or_default();
            self.unknown(format!("command name is not literal: `{t}`"), Some(idx));
        }
        self.glob_positions(&argv, idx);
        if self.defining.contains(&name) && scope.concurrent {
            self.hazard(
                "fork-bomb",
                format!("function `{name}` starts copies of itself"),
                Some(idx),
            );
        }
        if let Some(&changes_cwd) = self.functions.get(&name) {
            if self.fn_cwd.get(&name).is_some_and(|at| *at != scope.cwd) {
                self.unknown(
                    format!(
                        "function `{name}` is called in another directory than the one its body was analysed in"
                    ),
                    Some(idx),
                );
            }
            if changes_cwd {
                self.cwd_unknown(scope, &format!("function `{name}` changes it"));
            }
        }
        if literal_name {
            self.evaluating_builtin(&name, &argv, s, scope, idx, !wrappers.is_empty());
            if self
                .fn_epoch
                .get(&name)
                .is_some_and(|&e| e < self.attr_epoch)
            {
                self.unknown(
                    format!(
                        "function `{name}` was defined before an integer or name-reference attribute was declared: its assignments may evaluate their values"
                    ),
                    Some(idx),
                );
            }
        }
        self.command_ran(&name, &argv, literal_name, scope);
        if name == "alias"
            && argv
                .iter()
                .skip(1)
                .any(|a| a.text.contains('=') || !a.literal)
        {
            self.unknown(
                "`alias` defines a command that is not analysed".into(),
                Some(idx),
            );
        }
        // `enable -n NAME` turns a builtin off (then `pwd`, `cd` or `test`
        // is whatever program of that name the path finds), `enable -f`
        // loads one from a shared object: code that is not analysed.
        if name == "enable"
            && argv
                .iter()
                .skip(1)
                .any(|a| !a.literal || !matches!(a.text.as_str(), "-a" | "-p" | "-s"))
        {
            self.unknown(
                "`enable` changes which builtins run, or loads one from a file".into(),
                Some(idx),
            );
        }
        if literal_name {
            let input_given = matches!(scope.stdin, Stdin::Pipe { .. })
                || s.redirects.iter().any(|r| {
                    r.fd.is_none_or(|fd| fd == 0) && r.op.starts_with('<') && r.op != "<("
                });
            for why in commands_given(&name, &argv, input_given) {
                self.unknown(why, Some(idx));
            }
        }
        if literal_name && self.is_fetched(&argv[0].text) {
            self.hazard(
                "download-exec",
                format!("`{}` runs a file fetched from the network", argv[0].text),
                Some(idx),
            );
        }
        let known = tables::known(&name);
        let runs_code =
            known.interpreter || known.shell || matches!(name.as_str(), "source" | "." | "eval");
        // What xargs reads becomes arguments of a shell or an interpreter:
        // the script of `sh -c` or `python3 -c` (`echo 'touch P' | xargs
        // -0 sh -c` runs it), or the files it runs.
        if literal_name && matches!(xargs, Some(None)) && runs_code {
            self.unknown(
                format!("`{name}` is given the words its input holds (`xargs`, `parallel`), which may be code it runs"),
                Some(idx),
            );
        }
        if runs_code {
            let stdin_fetched = matches!(scope.stdin, Stdin::Pipe { fetched: true, .. });
            let runs_fetched_file = argv
                .iter()
                .skip(1)
                .any(|a| a.literal && self.is_fetched(&a.text));
            if sub_fetched
                || runs_fetched_file
                || (stdin_fetched && reads_program_from_stdin(&argv))
            {
                self.hazard(
                    "download-exec",
                    format!("`{name}` runs a program fetched from the network"),
                    Some(idx),
                );
            }
        }
        let args = argv.get(1..).unwrap_or_default();
        let derive_args: Cow<'_, [Arg]> = if matches!(xargs, Some(None)) {
            let mut with_input = args.to_vec();
            with_input.push(Arg::dynamic("(xargs input)"));
            Cow::Owned(with_input)
        } else {
            Cow::Borrowed(args)
        };
        let mut d = if literal_name {
            effects::derive(&name, &derive_args)
        } else {
            Derived::default()
        };
        if literal_name && let Some(given) = self.given_names(args, &xargs, &wrappers, scope) {
            // Names `find` printed stand for files beneath its starting
            // points that its expression selects: followed only into a
            // program whose operands are files it reads.
            let alt = effects::derive(&name, &given);
            let mut printed = alt
                .found
                .iter()
                .filter(|f| f.arg.pattern.as_deref() == Some(PRINTED))
                .peekable();
            let reads = known.spec.is_some()
                && printed.peek().is_some()
                && printed.all(|f| matches!(f.access, Access::Read | Access::List));
            if reads {
                d = alt;
            }
        }
        // What `find` prints, for a command given its output.
        if literal_name && system && !self.functions.contains_key(&name) {
            if let Some(out) = d.output.take() {
                self.outputs.insert(idx, out);
            }
        }
        d.found
            .retain(|f| f.arg.pattern.as_deref() != Some("<process substitution>"));
        self.keep_writes_into_directories(&mut d.found, scope, cmd_cwd.as_ref());
        if literal_name {
            for dir in hazards::emptied_dirs(&name, &argv) {
                d.found.push(effects::Found {
                    access: Access::Delete,
                    arg: dir,
                    recursive: true,
                    by_option: false,
                });
            }
        }
        // A function of that name is what runs (its body was walked).
        if matches!(name.as_str(), "cd" | "pushd" | "popd" | "dirs")
            && !self.functions.contains_key(&name)
        {
            self.change_dir(&name, &argv, scope, idx);
        }
        let (found_haz, unknowns) = hazards::command(
            &name,
            &argv,
            &d,
            &hazards::Ctx {
                cwd: Self::work_dir(self.opts, scope).as_deref(),
                home: self.opts.home.as_deref(),
            },
        );
        for (kind, reason) in found_haz {
            self.hazard(kind, reason, Some(idx));
        }
        if !d.unknowns.is_empty() {
            d.read_only = false;
        }
        for u in unknowns.into_iter().chain(d.unknowns.drain(..)) {
            self.unknown(u, Some(idx));
        }
        if literal_name && name == "git" && d.cwd.is_none() {
            self.git_elsewhere(scope, idx);
        }
        if literal_name && tables::RUSTUP_PROXIES.contains(&name.as_str()) {
            self.rust_toolchain_path(&name, scope, idx);
        }
        let effect_cwd = self.effect_cwd(scope, cmd_cwd.as_ref().or(d.cwd.as_ref()));
        // A program or script an earlier part of this script wrote: what
        // it holds is not known when the command is decided.
        let ran = if argv[0].text.contains('/') {
            Some(argv[0].clone())
        } else {
            self.script_file.clone().or_else(|| {
                (known.interpreter || matches!(name.as_str(), "source" | "."))
                    .then(|| script_operand(&argv))
                    .flatten()
            })
        };
        if let Some(p) = ran.filter(|p| {
            p.literal && self.is_written(&p.text, effect_cwd.clone().flatten().as_deref())
        }) {
            self.unknown(
                format!(
                    "`{name}` runs `{}`, which an earlier part of this command writes",
                    p.text
                ),
                Some(idx),
            );
        }
        let env_writes = self.env_effects(&name, scope, idx, &effect_cwd);
        if let Some(file) = self.script_file.take() {
            // The script's own arguments (`bash tool.sh .env`), as a
            // program's: it may read or write the files they name.
            if let Some(at) = argv
                .iter()
                .position(|a| a.text == file.text && a.literal == file.literal)
            {
                d.arguments.extend(argv.iter().skip(at + 1).cloned());
            }
            if file.pattern.as_deref() != Some("<process substitution>") {
                d.found.push(effects::Found {
                    access: Access::Read,
                    arg: file,
                    recursive: false,
                    by_option: false,
                });
            }
        }
        let mut writes = env_writes;
        let fetcher = known.fetcher;
        let under_runner = all_wrappers.iter().any(|w| crate::is_runner(w));
        for f in &d.found {
            let (kind, delete, recursive) = match f.access {
                Access::Read | Access::List => (EffectKind::Read, false, f.recursive),
                Access::Tracked | Access::Repository | Access::WorkTree => {
                    (EffectKind::Read, false, true)
                }
                Access::Write => (EffectKind::Write, false, f.recursive),
                Access::Rewrite => (EffectKind::Write, false, true),
                Access::WorkTreeRemoved => (EffectKind::Write, false, true),
                Access::Delete => (EffectKind::Write, true, f.recursive),
                Access::WriteDir => (EffectKind::Write, false, true),
                Access::Fetch => (EffectKind::Fetch, false, false),
            };
            if kind == EffectKind::Write {
                writes = true;
                if fetcher && f.arg.literal {
                    self.fetched_files
                        .insert(f.arg.text.trim_start_matches("./").to_string());
                }
            }
            // A write an option turns on is judged as a redirect is, and
            // so is one of a command a runner runs (`npx rm -rf src`): the
            // runner's allow is a permission to run, not to write.
            // So is a fetch an option turns on (`cargo search --index
            // URL`, `npm test --registry=URL`): the tool's allow is not
            // one to fetch from any host; its URL meets the fetch rules.
            let origin = if (kind == EffectKind::Write && (f.by_option || under_runner))
                || (kind == EffectKind::Fetch && f.by_option)
            {
                Origin::Redirect
            } else {
                Origin::Operand
            };
            let first = self.out.effects.len();
            self.effect(
                kind,
                &f.arg,
                origin,
                recursive,
                delete,
                Some(idx),
                &effect_cwd,
            );
            if f.access == Access::List {
                // Paths find hands on: a directory among them is listed
                // whole; and what links lead to, when they are followed.
                let whole = f.arg.beneath
                    || effects::listing_follows(&name, argv.get(1..).unwrap_or_default());
                for e in &mut self.out.effects[first..] {
                    e.listing = true;
                    e.whole_dirs = whole;
                }
            }
            let tracked = match f.access {
                Access::Tracked => Some(crate::Tracked::Beneath),
                Access::Repository | Access::Rewrite => Some(crate::Tracked::Repository),
                Access::WorkTree | Access::WorkTreeRemoved => Some(crate::Tracked::WorkTree),
                _ => None,
            };
            if tracked.is_some() {
                for e in &mut self.out.effects[first..] {
                    e.tracked = tracked;
                }
            }
        }
        // A runner's arguments after its own words are the command it
        // runs, whose arguments that command's analysis looks at.
        let runner_words = d.nested.iter().find_map(|n| match n {
            Nested::Argv { wrapper, .. } if crate::is_runner(wrapper) => Some(wrapper.len()),
            _ => None,
        });
        if literal_name && known.spec.is_none() && !known.shell && known.wrapper.is_none() {
            let own = runner_words.map_or(argv.len(), |n| n.min(argv.len()));
            self.argument_files(&argv[..own], idx, &effect_cwd);
        } else if !d.arguments.is_empty() {
            let mut given = vec![argv[0].clone()];
            given.append(&mut d.arguments);
            self.argument_files(&given, idx, &effect_cwd);
        }
        for n in std::mem::take(&mut d.nested) {
            match n {
                Nested::Argv {
                    argv: inner,
                    wrapper,
                } => {
                    let Some(mut inner_scope) = self.deeper(scope) else {
                        continue;
                    };
                    let mut w = wrappers.clone();
                    w.push(wrapper);
                    self.run_argv(inner, w, s, &mut inner_scope, false, None);
                }
                Nested::Script {
                    text,
                    literal,
                    wrapper,
                } => {
                    let mut w = all_wrappers.clone();
                    w.push(wrapper);
                    if literal {
                        self.nested(&text, w, scope);
                    } else {
                        self.unknown(
                            format!("`{name}` runs a script that is not literal: `{text}`"),
                            Some(idx),
                        );
                    }
                }
            }
        }
        if self.redirects(&s.redirects, scope, Some(idx)) {
            writes = true;
        }
        if literal_name {
            self.record_made(&name, &argv, &d.found, &effect_cwd);
        }
        if let Some(c) = self.out.commands.get_mut(idx) {
            c.read_only = literal_name && system && d.read_only && !writes;
            c.no_op = literal_name
                && !name.contains('/')
                && argv.first().is_some_and(|a| !a.text.contains('/'))
                && all_wrappers.is_empty()
                && no_op_builtin(&name);
            c.argv = argv.into_iter().map(|a| a.text).collect();
            c.wrappers = all_wrappers;
        }
    }

    /// Globs whose expansion at run time can hold an action: one in the
    /// command name (`*`, `/bin/c?t`), or in an option's place (`-del*`,
    /// `--pr*`), is unknown; one that starts with a wildcard (`*`, `?x`)
    /// can match a file named `-delete` created before it runs, and is
    /// unknown when the script writes files (checked in [`Walker::run`]).
    pub(super) fn glob_positions(&mut self, argv: &[Arg], idx: usize) {
        if let Some(p) = argv.first().and_then(|a| a.pattern.as_deref()) {
            self.unknown(
                format!("command name is a glob: `{p}`, which names a program only when it runs"),
                Some(idx),
            );
        }
        for a in argv.iter().skip(1) {
            let Some(p) = a.pattern.as_deref() else {
                continue;
            };
            if p == "<process substitution>" {
                continue;
            }
            // `--include=*.rs` may only become another `--include=`; `-del*`
            // and `--pr*` may become any option.
            let name_part = p.split(['*', '?', '[']).next().unwrap_or(p);
            if p.starts_with('-') && !name_part.contains('=') {
                self.unknown(
                    format!(
                        "glob `{p}` stands where an option goes, and may expand to one when it runs"
                    ),
                    Some(idx),
                );
            } else if p.starts_with(['*', '?', '['])
                && !self.wild_globs.iter().any(|(i, q)| *i == idx && q == p)
            {
                self.wild_globs.push((idx, p.to_string()));
            }
        }
    }
}

impl Walker<'_> {
    /// The arguments a command gets when the names `find` printed reach
    /// it: its input through `xargs` (appended, or in place of the `-I`
    /// string), or a `$(find ..)` word; `None` when none do.
    fn given_names(
        &self,
        args: &[Arg],
        xargs: &Option<Option<String>>,
        wrappers: &[Vec<String>],
        scope: &Scope,
    ) -> Option<Vec<Arg>> {
        // `xargs -d X` splits names at `X`, anything but a newline or NUL:
        // a name holding it becomes other paths.
        let delimited = wrappers
            .iter()
            .any(|w| w.first().is_some_and(|n| n == "xargs") && xargs_splits_elsewhere(&w[1..]));
        let piped = match (&scope.stdin, xargs) {
            (Stdin::Pipe { files: Some(f), .. }, Some(_)) if !delimited => Some(Rc::clone(f)),
            _ => None,
        };
        let mut out = Vec::with_capacity(args.len());
        let mut given = false;
        for a in args {
            if !a.literal {
                if let (Some(files), Some(Some(r))) = (&piped, xargs)
                    && &a.text == r
                {
                    out.extend(files.iter().cloned());
                    given = true;
                    continue;
                }
                if let Some(files) = self.sub_outputs.get(&a.text).filter(|_| !self.ifs_named) {
                    out.extend(files.iter().cloned());
                    given = true;
                    continue;
                }
            }
            out.push(a.clone());
        }
        if let (Some(files), Some(None)) = (&piped, xargs) {
            out.extend(files.iter().cloned());
            given = true;
        }
        given.then_some(out)
    }
}

/// Whether xargs's options (`opts`, the words before its command) split
/// its input at something other than a newline or NUL (`-d ,`): a name
/// holding it becomes other paths. A value that is not a delimiter xargs
/// reads as a newline or NUL (`-d '\n'`, `-d '\0'`, `--delimiter=\n`,
/// a real newline), or one not seen (`--delimiter X`), counts as other.
fn xargs_splits_elsewhere(opts: &[String]) -> bool {
    let other = |d: &str| !matches!(d, "\\n" | "\n" | "\\0" | "\\x00" | "\\000");
    opts.iter()
        .enumerate()
        .any(|(i, o)| match o.strip_prefix("--delim") {
            Some(rest) => rest.split_once('=').is_none_or(|(_, d)| other(d)),
            // `-d X`, `-dX`, or in a cluster (`-rd,`, `-rd X`).
            None => {
                o.starts_with('-')
                    && !o.starts_with("--")
                    && o.find('d').is_some_and(|at| match o.get(at + 1..) {
                        Some(v) if !v.is_empty() => other(v),
                        _ => opts.get(i + 1).is_none_or(|v| other(v)),
                    })
            }
        })
}

/// The script file an interpreter runs (`python3 tool.py`, `node x.js`,
/// `source env.sh`): its first operand, unless an option gave the code
/// inline or named a module (`-c`, `-e`, `-m`, `-r`, `--eval`, `-p`).
fn script_operand(argv: &[Arg]) -> Option<Arg> {
    const INLINE: &[&str] = &[
        "-c",
        "-e",
        "-E",
        "-m",
        "-r",
        "--eval",
        "-p",
        "--print",
        "--command",
    ];
    for a in argv.iter().skip(1) {
        let t = a.text.as_str();
        if a.literal && t.starts_with('-') && t != "-" {
            if INLINE.contains(&t) || INLINE.iter().any(|i| i.len() == 2 && t.starts_with(i)) {
                return None;
            }
            continue;
        }
        return Some(a.clone());
    }
    None
}

/// Why `name` (run as `argv`) runs commands it is given, which can run a
/// shell, when it does: a line editor reads its commands from its input,
/// and a screen editor whose input is not a terminal its keystrokes (`ed
/// x <<< '!cmd'`, `vim x <<< ':!cmd'`): ed, red and ex always, vi and vim
/// when `input_given` (redirected or piped). Clients and debuggers read
/// commands from their input, where one runs a local shell (gdb's
/// `shell`, sftp's and ftp's `!`, psql's and mysql's `\!`, mail's `~!`,
/// gnuplot's `system`), and some take them by option (`psql -c`, `mysql
/// -e`); a makefile or m4 input given inline (standard input, `--eval`)
/// is code. Names outside these lists cost one comparison each.
fn commands_given(name: &str, argv: &[Arg], input_given: bool) -> Vec<String> {
    let mut why = Vec::new();
    let line_editor = matches!(name, "ed" | "red" | "ex");
    let screen_editor = matches!(
        name,
        "vi" | "vim" | "nvim" | "view" | "vimdiff" | "gvim" | "rvim" | "rview" | "evim"
    );
    if (line_editor || (screen_editor && input_given)) && !args_only_ask_version(argv) {
        why.push(format!(
            "`{name}` reads editor commands from its input, which can run a shell (`!`) and write any file"
        ));
    }
    let command_reader = matches!(
        name,
        "gdb"
            | "lldb"
            | "sftp"
            | "ftp"
            | "lftp"
            | "psql"
            | "mysql"
            | "mariadb"
            | "smbclient"
            | "mail"
            | "mailx"
            | "gnuplot"
            | "octave"
            | "maxima"
    );
    if command_reader && input_given {
        why.push(format!(
            "`{name}` reads commands from its input, which can run a shell"
        ));
    }
    // An option among `short` (glued or not) or `long` (or a prefix of
    // one); with `dynamic`, a word not literal may be one too.
    let command_option = |short: &[&str], long: &[&str], dynamic: bool| {
        argv.iter().skip(1).any(|a| {
            let t = a.text.as_str();
            let opt = t.split_once('=').map_or(t, |(n, _)| n);
            (dynamic && !a.literal)
                || short
                    .iter()
                    .any(|f| t.starts_with(f) && !t.starts_with("--"))
                || (opt.len() > 2 && long.iter().any(|l| l.starts_with(opt)))
        })
    };
    let stdin_operand = || {
        argv.iter().skip(1).any(|a| {
            a.literal
                && matches!(
                    a.text.as_str(),
                    "-" | "/dev/stdin" | "-f-" | "--file=-" | "--makefile=-" | "-f/dev/stdin"
                )
        })
    };
    let runs_commands = match name {
        "psql" => command_option(&["-c", "-f"], &["--command", "--file"], true),
        "mysql" | "mariadb" => command_option(&["-e"], &["--execute", "--init-command"], true),
        // A word not literal is common here (`make -j$(nproc)`), and the
        // makefile runs as the allow says in any case.
        "make" | "gmake" | "bmake" => {
            stdin_operand() || command_option(&["-E"], &["--eval"], false)
        }
        "m4" => input_given || stdin_operand(),
        _ => false,
    };
    if runs_commands {
        why.push(format!(
            "`{name}` runs the commands it is given, which can run a shell"
        ));
    }
    why
}

/// The toolgate command that answers or widens the gate itself, when
/// `argv` is one: approving or declining a waiting call, accepting a
/// changed MCP tool, trusting a policy, installing or removing a client's
/// hook, moving the store. The agent must not do these for itself; the
/// commands that only read (`check`, `explain`, `approvals list`,
/// `audit`, `policy show`) are not among them.
fn answers_the_gate(name: &str, argv: &[Arg]) -> Option<String> {
    if !matches!(name, "toolgate" | "toolgate-hook") {
        return None;
    }
    let words: Vec<&str> = argv
        .iter()
        .skip(1)
        .filter(|a| !a.text.starts_with('-'))
        .map(|a| a.text.as_str())
        .collect();
    let changes = match words.as_slice() {
        ["approvals", "list", ..] | ["approvals"] => false,
        ["approvals", ..] | ["trust", ..] | ["store", ..] => true,
        ["mcp", "pins", sub, ..] => !matches!(*sub, "list" | "show"),
        ["hook", "install", ..] => true,
        _ => false,
    };
    // A word not known may be any of them.
    let dynamic = argv.iter().skip(1).any(|a| !a.literal);
    (changes
        || (dynamic
            && words
                .first()
                .is_some_and(|w| !matches!(*w, "check" | "explain" | "test"))))
    .then(|| {
        argv.iter()
            .map(|a| a.text.as_str())
            .take(4)
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// `--version` or `--help` alone: the program prints and exits.
fn args_only_ask_version(argv: &[Arg]) -> bool {
    argv.len() == 2
        && argv
            .get(1)
            .is_some_and(|a| a.literal && matches!(a.text.as_str(), "--version" | "--help" | "-V"))
}

/// Builtins that run no program and touch no file themselves: tests, and
/// those that change only the shell's own state, which the walk follows
/// (variables and their exports, shell options, the positional
/// parameters) and reports as unknown where it cannot (`export PATH=..`,
/// `declare -n`, `set -k`, `unset 'a[$(..)]'`). What their words expand
/// is a command of its own. `cd` is not one: where it fails, bash stays
/// where it was, and what follows a `;` runs there.
fn no_op_builtin(name: &str) -> bool {
    matches!(
        name,
        ":" | "true"
            | "false"
            | "test"
            | "["
            | "[["
            | "export"
            | "declare"
            | "typeset"
            | "local"
            | "readonly"
            | "unset"
            | "set"
            | "shift"
            | "wait"
            | "return"
            | "exit"
            | "break"
            | "continue"
    )
}
