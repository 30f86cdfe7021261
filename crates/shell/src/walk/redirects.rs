//! Redirects and the effects of operands: the file each names, relative
//! to the directory the command runs in.

use super::*;

impl<'o> Walker<'o> {
    pub(super) fn effect_cwd(&self, scope: &Scope, extra: Option<&Arg>) -> Option<Option<PathBuf>> {
        let base = match &scope.cwd {
            Cwd::Start => None,
            Cwd::At(p) => Some(p.clone()),
            Cwd::Unknown => return None,
        };
        match extra {
            None => Some(base),
            Some(a) if !a.literal => None,
            Some(a) => {
                let p = self.dir_path(&a.text, base.as_deref());
                Some(Some(p))
            }
        }
    }

    /// `text` (a directory as written) made absolute against `base` or
    /// the starting directory, lexically.
    pub(super) fn dir_path(&self, text: &str, base: Option<&Path>) -> PathBuf {
        let joined = if let Some(rest) = text
            .strip_prefix('~')
            .filter(|r| r.is_empty() || r.starts_with('/'))
        {
            match &self.opts.home {
                Some(h) => h.join(rest.trim_start_matches('/')),
                None => PathBuf::from(text),
            }
        } else if Path::new(text).is_absolute() {
            PathBuf::from(text)
        } else {
            match base
                .map(Path::to_path_buf)
                .or_else(|| self.opts.cwd.clone())
            {
                Some(b) => b.join(text),
                None => PathBuf::from(text),
            }
        };
        hazards::normalize(&joined)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn effect(
        &mut self,
        kind: EffectKind,
        arg: &Arg,
        origin: Origin,
        recursive: bool,
        delete: bool,
        command: Option<usize>,
        cwd: &Option<Option<PathBuf>>,
    ) {
        // Writing `/dev/null` (or the terminal, or standard output and
        // error, which redirects already account for) writes no file:
        // `curl -o /dev/null`, `cp a /dev/null`, `tee /dev/null`. Not for a
        // program that would replace the name rather than write through it
        // (`mv a /dev/null` as root swaps the device for a file).
        if kind == EffectKind::Write
            && !delete
            && arg.literal
            && tables::HARMLESS_DEVICES.contains(&arg.text.as_str())
            && !command.is_some_and(|i| self.replacing.contains(&i))
        {
            return;
        }
        let relative = !(arg.text.starts_with('/') || arg.text.starts_with('~'));
        let cwd_known = cwd.is_some();
        let literal = arg.literal && (kind == EffectKind::Fetch || !relative || cwd_known);
        // An argument may not be written at all: no hazard on a guess.
        if kind == EffectKind::Write && origin != Origin::Argument {
            if let Some((k, reason)) = hazards::device_write(&arg.text) {
                self.hazard(k, reason, command);
            }
        }
        if kind == EffectKind::Write && arg.literal {
            let path = self.written_path(&arg.text, cwd.clone().flatten().as_deref());
            self.written_files.insert(path);
        }
        let effect = TargetEffect {
            kind,
            target: arg.text.clone(),
            cwd: cwd.clone().flatten(),
            origin,
            recursive,
            delete,
            literal,
            command,
            filter: if recursive { arg.filter.clone() } else { None },
            listing: false,
            whole_dirs: false,
            tracked: None,
        };
        if self.made.is_empty() && self.made_anywhere.is_none() {
            self.out.effects.push(effect);
        } else {
            self.out.effects.push(effect.clone());
            self.made_effects(&effect);
        }
    }

    pub(super) fn redirect_subs(&mut self, r: &Redirect, scope: &Scope) {
        match &r.target {
            RedirTarget::Word(w) | RedirTarget::HereString(w) => {
                self.subs(w, scope);
            }
            RedirTarget::Heredoc { subs, evals, .. } => {
                let w = Word {
                    subs: subs.clone(),
                    evals: evals.clone(),
                    ..Word::default()
                };
                self.subs(&w, scope);
            }
        }
    }

    /// The arguments of a program with no operand table that name an
    /// existing file or directory (`python3 tool.py .env`, `./build
    /// --config=.env`), or one that could be created in an existing
    /// directory (`gcc -o out/a.out`): [`Origin::Argument`] reads (of what
    /// exists) and writes, which only the deny and ask rules naming those
    /// files judge. Options are skipped, but the value of `--name=VALUE`
    /// (or `-name=VALUE`) is looked at; so is the subcommand of a program that has them
    /// ([`crate::tables::SUBCOMMAND_PROGRAMS`]).
    pub(super) fn argument_files(
        &mut self,
        argv: &[Arg],
        idx: usize,
        cwd: &Option<Option<PathBuf>>,
    ) {
        // Where the command runs, as the effects' paths are resolved.
        let dir = cwd.clone().flatten();
        let guess = |w: &mut Self, kind: EffectKind, arg: &Arg| {
            w.effect(kind, arg, Origin::Argument, false, false, Some(idx), cwd);
        };
        let name = argv
            .first()
            .map(|a| a.text.rsplit('/').next().unwrap_or_default());
        let mut subcommand = name.is_some_and(|n| crate::tables::SUBCOMMAND_PROGRAMS.contains(&n));
        for a in argv.iter().skip(1) {
            // `cargo build`: the subcommand's name is not a file.
            if subcommand && !a.text.starts_with('-') {
                subcommand = false;
                continue;
            }
            if !a.literal {
                continue;
            }
            // URLs anywhere in the word: `pip install git+https://h/r`,
            // `--registry=https://h`, a program's text.
            if a.text.contains("://") {
                for url in crate::effects::net::urls_in_word(&a.text) {
                    guess(self, EffectKind::Fetch, &a.with_text(url));
                }
                continue;
            }
            let t = a.text.as_str();
            // `--name=VALUE`, and `-name=VALUE` as Go's and Java's tools
            // write them.
            let candidate = match t.strip_prefix('-') {
                Some(opt) => match opt.split_once('=') {
                    Some((_, v)) => v,
                    None => continue,
                },
                None => t,
            };
            if candidate.is_empty() || candidate.contains('\0') {
                continue;
            }
            let relative = !(candidate.starts_with('/') || candidate.starts_with('~'));
            if relative && cwd.is_none() {
                continue;
            }
            let path = self.dir_path(candidate, dir.as_deref());
            let exists = std::fs::symlink_metadata(&path).is_ok();
            // A file that does not exist yet may be created, when its
            // directory does (`gcc -o out/a.out`, `ssh-keygen -f keys/k`).
            let creatable = !exists
                && path
                    .parent()
                    .is_some_and(|p| p.as_os_str().is_empty() || p.is_dir());
            let arg = a.with_text(candidate);
            if exists {
                guess(self, EffectKind::Read, &arg);
            }
            if exists || creatable {
                guess(self, EffectKind::Write, &arg);
            }
        }
    }

    /// The effects of one list of redirects, in order; true when one writes
    /// a file. Output duplicated onto a descriptor above 2 (`>&3`,
    /// `> /dev/fd/3`) goes to whatever that descriptor was opened on: known
    /// when an earlier redirect of the same list opened it (`3>&1 1>&2
    /// 2>&3`), otherwise not. When the output so sent is the program's own
    /// (its stdout or stderr), the command cannot be analysed.
    pub(super) fn redirects(
        &mut self,
        list: &[Redirect],
        scope: &Scope,
        command: Option<usize>,
    ) -> bool {
        // Descriptors above 2 that an earlier redirect of the list pointed
        // at a known place.
        let mut known: Vec<u32> = Vec::new();
        let mut writes = false;
        for r in list {
            let target = output_descriptor(r);
            let unknown_target = target.is_some_and(|t| t > 2 && !known.contains(&t));
            let sources: &[u32] = match (r.fd, r.op.as_str()) {
                (Some(fd), _) => &[fd][..],
                (None, "&>" | "&>>") => &[1, 2],
                (None, op) if op.starts_with('>') => &[1],
                _ => &[],
            };
            if unknown_target && sources.iter().any(|s| *s == 1 || *s == 2) {
                let fd = target.unwrap_or_default();
                self.unknown(
                    format!(
                        "output goes to file descriptor {fd}, which the command does not open, \
                         so the file it writes is not known"
                    ),
                    command,
                );
            }
            for &src in sources.iter().filter(|s| **s > 2) {
                known.retain(|k| *k != src);
                if !unknown_target {
                    known.push(src);
                }
            }
            if self.redirect(r, scope, command) {
                writes = true;
            }
        }
        writes
    }

    /// The effect of a redirect; true when it writes a file.
    pub(super) fn redirect(&mut self, r: &Redirect, scope: &Scope, command: Option<usize>) -> bool {
        if command.is_none() {
            self.redirect_subs(r, scope);
        }
        let RedirTarget::Word(w) = &r.target else {
            return false;
        };
        let op = r.op.as_str();
        let dir = Self::work_dir(self.opts, scope);
        let mut args = Vec::new();
        self.expand(w, dir.as_deref(), &scope.vars, &mut args);
        let Some(arg) = args.first() else {
            return false;
        };
        if args.len() > 1 {
            self.unknown(
                format!("redirect target `{}` expands to several words", w.text),
                command,
            );
        }
        let dup = matches!(op, ">&" | "<&")
            && (arg.text == "-"
                || arg.text.chars().all(|c| c.is_ascii_digit())
                || arg.text.ends_with('-'));
        if dup || op.is_empty() {
            return false;
        }
        let kind = match op {
            "<" | "<&" => EffectKind::Read,
            _ => EffectKind::Write,
        };
        let cwd = self.effect_cwd(scope, None);
        if let Some(rest) = arg
            .text
            .strip_prefix("/dev/tcp/")
            .or_else(|| arg.text.strip_prefix("/dev/udp/"))
        {
            let proto = if arg.text.starts_with("/dev/tcp/") {
                "tcp"
            } else {
                "udp"
            };
            let url = match rest.split_once('/') {
                Some((host, port)) => format!("{proto}://{host}:{port}"),
                None => format!("{proto}://{rest}"),
            };
            self.effect(
                EffectKind::Fetch,
                &arg.with_text(url),
                Origin::Redirect,
                false,
                false,
                command,
                &cwd,
            );
            return false;
        }
        if arg.literal
            && (tables::HARMLESS_DEVICES.contains(&arg.text.as_str())
                || arg
                    .text
                    .strip_prefix("/dev/fd/")
                    .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())))
        {
            return false;
        }
        if op == "<>" {
            self.effect(
                EffectKind::Read,
                arg,
                Origin::Redirect,
                false,
                false,
                command,
                &cwd,
            );
        }
        self.effect(kind, arg, Origin::Redirect, false, false, command, &cwd);
        kind == EffectKind::Write
    }
}

/// The descriptor a redirect sends output to, when it is one: `>&N`, or an
/// output redirect to `/dev/fd/N`.
fn output_descriptor(r: &Redirect) -> Option<u32> {
    let RedirTarget::Word(w) = &r.target else {
        return None;
    };
    let digits = |t: &str| {
        (!t.is_empty() && t.chars().all(|c| c.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    match r.op.as_str() {
        ">&" => digits(&w.text),
        ">" | ">>" | ">|" | "&>" | "&>>" | "<>" => w.text.strip_prefix("/dev/fd/").and_then(digits),
        _ => None,
    }
}
