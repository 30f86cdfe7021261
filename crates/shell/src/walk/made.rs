//! What earlier commands of the same script made: links (`ln`, `cp -s`,
//! `cp -l`), moves (`mv`) and copies (`cp`, `install`), through which a
//! later path resolves, and trees whose contents are not known (an
//! extracted archive, a checked-out branch, a recursive copy, `rename`),
//! beneath which a later path may be a link to anywhere.
//!
//! A later path is walked component by component, as the kernel resolves
//! it: where it reaches a name an earlier command linked or moved, the rest
//! of it continues from what the name stands for (`ln -s /etc e; cat
//! e/../x` reads `/x`). Each path so found is an effect of its own, beside
//! the path as written; beneath an unknown tree, or after a link to a name
//! that is not literal, the path is an unknown.

use std::path::Component;

use super::*;
use crate::effects::parse_opts;

/// Most paths one effect may stand for through earlier links.
const PATHS_PER_EFFECT: usize = 32;

/// Most names recorded for one script; past it, every later path is unknown.
const MADE_LIMIT: usize = 512;

/// A name an earlier command made.
#[derive(Debug, Clone)]
pub(super) struct Made {
    /// The name, absolute (or relative to the start when that is unknown),
    /// normalised.
    at: PathBuf,
    how: How,
    /// The command, for reasons.
    by: String,
}

#[derive(Debug, Clone)]
enum How {
    /// The name stands for these paths: reading it reads them, and (when
    /// `writes`, a link or a move) writing beneath it writes them.
    Alias { from: Vec<PathBuf>, writes: bool },
    /// What lies beneath it is not known: any name there may be a link.
    Unknown,
}

/// Programs that mount a file system: what the mount point shows
/// afterwards is another tree.
const MOUNTERS: &[&str] = &[
    "mount",
    "bindfs",
    "sshfs",
    "fuse-overlayfs",
    "squashfuse",
    "fuse2fs",
    "fuse-zip",
    "archivemount",
    "guestmount",
    "rclone",
    "s3fs",
    "gocryptfs",
    "encfs",
];

/// Git commands that rewrite the work tree from the repository: a tracked
/// file may become a link.
const GIT_TREE_WRITERS: &[&str] = &[
    "checkout",
    "switch",
    "restore",
    "reset",
    "merge",
    "pull",
    "rebase",
    "cherry-pick",
    "revert",
    "stash",
    "am",
    "apply",
    "read-tree",
    "checkout-index",
    "clone",
    "worktree",
    "submodule",
    "bisect",
];

impl<'o> Walker<'o> {
    /// Records what the command `argv` (effects `found`) made, for the
    /// later commands of the script.
    pub(super) fn record_made(
        &mut self,
        name: &str,
        argv: &[Arg],
        found: &[effects::Found],
        cwd: &Option<Option<PathBuf>>,
    ) {
        let args = argv.get(1..).unwrap_or_default();
        let text = display(argv);
        let makes_names = matches!(
            name,
            "ln" | "link" | "mv" | "cp" | "install" | "rename" | "prename" | "file-rename"
        ) || MOUNTERS.contains(&name);
        let Some(base) = cwd else {
            if makes_names || found.iter().any(|f| f.access == Access::WriteDir) {
                self.made_anywhere = Some(format!(
                    "`{text}` makes names in a directory that is not known"
                ));
            }
            return;
        };
        let base = base.clone();
        let abs = |w: &Self, t: &str| w.dir_path(t, base.as_deref());
        let mut made: Vec<(PathBuf, How)> = Vec::new();
        match name {
            "ln" | "link" | "mv" | "cp" | "install" => {
                let o = parse_opts(
                    args,
                    "tSmogCZ",
                    &[
                        "target-directory",
                        "suffix",
                        "backup",
                        "mode",
                        "owner",
                        "group",
                        "strip-program",
                        "reflink",
                        "sparse",
                        "preserve",
                        "no-preserve",
                    ],
                    &[],
                );
                if name == "install" && o.has(&["-d", "--directory"]) {
                    return;
                }
                if o.operands.iter().any(|a| !a.literal)
                    || o.values(&["-t", "--target-directory"]).any(|a| !a.literal)
                {
                    self.made_anywhere = Some(format!("`{text}` makes a name that is not literal"));
                    return;
                }
                let symbolic = (name == "ln" && o.has(&["-s", "--symbolic"]))
                    || (name == "cp" && o.has(&["-s", "--symbolic-link"]));
                let hard = name == "link"
                    || (name == "ln" && !symbolic)
                    || (name == "cp" && o.has(&["-l", "--link"]));
                let tree = name == "cp"
                    && !symbolic
                    && !hard
                    && o.has(&["-r", "-R", "-a", "--recursive", "--archive"]);
                let relative = name == "ln" && o.has(&["-r", "--relative"]);
                let no_dir = o.has(&["-T", "--no-target-directory"]);
                let target = o.values(&["-t", "--target-directory"]).next().cloned();
                let ops = &o.operands;
                // Each source and the names it may get: `DEST/base` when
                // DEST is a directory (as it may be, made earlier), DEST
                // itself when it is not.
                let mut pairs: Vec<(&Arg, Vec<String>)> = Vec::new();
                let base_of = |a: &Arg| base_name(a.text.trim_end_matches('/')).to_string();
                let join = |d: &str, b: &str| format!("{}/{b}", d.trim_end_matches('/'));
                match (&target, ops.split_last()) {
                    (Some(t), _) => {
                        for a in ops {
                            pairs.push((a, vec![join(&t.text, &base_of(a))]));
                        }
                    }
                    (None, Some((dest, srcs))) if !srcs.is_empty() => {
                        for a in srcs {
                            let mut names = Vec::new();
                            // An existing directory is not replaced.
                            let dir = abs(self, &dest.text).is_dir();
                            if (srcs.len() == 1 && !dir) || no_dir {
                                names.push(dest.text.clone());
                            }
                            if !no_dir {
                                names.push(join(&dest.text, &base_of(a)));
                            }
                            pairs.push((a, names));
                        }
                    }
                    (None, Some((only, _))) if matches!(name, "ln" | "link") => {
                        pairs.push((only, vec![base_of(only)]));
                    }
                    _ => {}
                }
                for (src, names) in pairs {
                    for n in names {
                        let at = abs(self, &n);
                        let how = if tree {
                            How::Unknown
                        } else if symbolic && name == "ln" && !relative {
                            // A link's target is read from the link's
                            // directory.
                            let from = if src.text.starts_with(['/', '~']) {
                                abs(self, &src.text)
                            } else {
                                let dir = at.parent().map(Path::to_path_buf);
                                hazards::normalize(&dir.unwrap_or_default().join(&src.text))
                            };
                            How::Alias {
                                from: vec![from],
                                writes: true,
                            }
                        } else {
                            How::Alias {
                                from: vec![abs(self, &src.text)],
                                writes: symbolic || hard || name == "mv",
                            }
                        };
                        made.push((at, how));
                    }
                }
            }
            // `rename FROM TO FILES` (util-linux) or `rename EXPR FILES`
            // (perl): the new names are computed; what the directories of
            // the files hold afterwards is not known.
            "rename" | "prename" | "file-rename" => {
                for a in args.iter().filter(|a| !a.text.starts_with('-')) {
                    if !a.literal {
                        self.made_anywhere =
                            Some(format!("`{text}` renames files that are not literal"));
                        return;
                    }
                    let p = abs(self, &a.text);
                    if let Some(dir) = p.parent() {
                        made.push((dir.to_path_buf(), How::Unknown));
                    }
                }
            }
            // A mount point shows another tree (`mount --bind secrets a`
            // then `cat a/k` reads `secrets/k`); a FUSE file system shows
            // whatever it serves. Without a literal mount point (`mount -a`,
            // `mount DEV` from fstab), any name may be one.
            _ if MOUNTERS.contains(&name) => {
                let o = parse_opts(
                    args,
                    "toOLUTNp",
                    &[
                        "types",
                        "options",
                        "test-opts",
                        "label",
                        "uuid",
                        "fstab",
                        "namespace",
                        "source",
                        "target",
                        "target-prefix",
                        "options-mode",
                        "options-source",
                        "port",
                        "config",
                    ],
                    &[],
                );
                let point = o
                    .values(&["--target"])
                    .next()
                    .or_else(|| (o.operands.len() >= 2).then(|| o.operands.last()).flatten());
                match point {
                    Some(p) if p.literal && o.operands.iter().all(|a| a.literal) => {
                        made.push((abs(self, &p.text), How::Unknown));
                    }
                    // `mount` alone lists what is mounted.
                    _ if name == "mount" && o.operands.is_empty() && !o.has(&["-a", "--all"]) => {}
                    _ if name == "rclone"
                        && o.operands.first().is_none_or(|a| a.text != "mount") => {}
                    _ => {
                        self.made_anywhere = Some(format!(
                            "`{text}` mounts a file system where it is not known"
                        ));
                        return;
                    }
                }
            }
            _ => {}
        }
        // Directories an archive, a patch or a download is unpacked into,
        // and git's work tree when git rewrites it.
        for f in found {
            let unpacks = f.access == Access::WriteDir
                || (name == "git" && f.access == Access::Write && f.recursive);
            if unpacks {
                if !f.arg.literal {
                    self.made_anywhere = Some(format!(
                        "`{text}` writes a tree into a directory that is not literal"
                    ));
                    return;
                }
                let at = abs(self, &f.arg.text);
                if f.access == Access::WriteDir {
                    self.unpacks_over_made(&at, &f.arg.text, &text);
                }
                made.push((at, How::Unknown));
            }
        }
        if name == "git"
            && args
                .iter()
                .any(|a| GIT_TREE_WRITERS.contains(&a.text.as_str()))
        {
            let dir = base.clone().or_else(|| self.opts.cwd.clone());
            let top = dir.as_deref().map(work_tree).unwrap_or_default();
            made.push((top, How::Unknown));
        }
        for (at, how) in made {
            if self.made.len() >= MADE_LIMIT {
                self.made_anywhere = Some(format!(
                    "the script makes more than {MADE_LIMIT} links, moves and trees"
                ));
                return;
            }
            // What the source stands for through earlier links.
            let how = match how {
                How::Alias { from, writes } => {
                    let mut all = Vec::new();
                    for f in from {
                        let (more, _) = self.through(&f, self.made.len());
                        all.push(f);
                        all.extend(more);
                    }
                    How::Alias { from: all, writes }
                }
                other => other,
            };
            self.made.push(Made {
                at,
                how,
                by: text.clone(),
            });
        }
    }

    /// An unpack into `at` (an archive extracted, a tree written by names
    /// the command chooses) where an earlier part of the script made a
    /// name: at `at`, beneath it or above it. The earlier part may have
    /// left a link there (`tar -xf s.tar -C docs` planting `docs/l ->
    /// ../src`), and this one writes through it (`tar -xf t.tar -C docs`
    /// writing `l/main.rs` replaces `src/main.rs`); what either archive
    /// holds is not known, so where this one writes is not known. A path
    /// strictly beneath an earlier tree is already unknown by
    /// [`Walker::made_effects`]; this adds the same directory, and trees
    /// and links beneath it. Paths are compared as written and as they
    /// resolve now, so a link to the same directory is the same.
    fn unpacks_over_made(&mut self, at: &Path, written: &str, text: &str) {
        let real = |p: &Path| std::fs::canonicalize(p).ok();
        let at_real = real(at);
        let overlaps = |a: &Path, b: &Path| a.starts_with(b) || b.starts_with(a);
        let Some(m) = self.made.iter().find(|m| {
            overlaps(at, &m.at)
                || at_real
                    .as_deref()
                    .zip(real(&m.at))
                    .is_some_and(|(a, b)| overlaps(a, &b))
        }) else {
            return;
        };
        let reason = format!(
            "`{text}` writes names an archive chooses into `{written}`, where `{}` made `{}` earlier in the script, which may be a link it writes through",
            m.by,
            path_text(&m.at)
        );
        // The command this unpack belongs to: the one whose recursive
        // write of the directory was just recorded.
        let command = self
            .out
            .effects
            .iter()
            .rev()
            .find(|e| e.kind == EffectKind::Write && e.recursive && e.target == written)
            .and_then(|e| e.command);
        self.unknown(reason, command);
    }

    /// The paths `path` (absolute or relative to the start, as written
    /// beneath the directory the command runs in, not normalised) stands
    /// for through the first `upto` names made, besides itself, and why it
    /// is not known when it lies beneath an unknown tree.
    fn through(&self, path: &Path, upto: usize) -> (Vec<PathBuf>, Option<String>) {
        let mut out = Vec::new();
        let mut why = None;
        let comps: Vec<Component<'_>> = path.components().collect();
        self.walk_made(PathBuf::new(), &comps, upto, false, &mut out, &mut why);
        (out, why)
    }

    fn walk_made(
        &self,
        start: PathBuf,
        comps: &[Component<'_>],
        upto: usize,
        aliased: bool,
        out: &mut Vec<PathBuf>,
        why: &mut Option<String>,
    ) {
        let mut cur = start;
        for (i, c) in comps.iter().enumerate() {
            match c {
                Component::CurDir => continue,
                Component::ParentDir => {
                    if !cur.pop() && !cur.has_root() {
                        cur.push("..");
                    }
                    continue;
                }
                other => cur.push(other.as_os_str()),
            }
            if !matches!(c, Component::Normal(_)) {
                continue;
            }
            for j in (0..upto.min(self.made.len())).rev() {
                let m = &self.made[j];
                match &m.how {
                    How::Unknown => {
                        if cur != m.at && cur.starts_with(&m.at) {
                            if why.is_none() {
                                *why = Some(format!(
                                    "`{}` lies beneath `{}`, whose contents `{}` made earlier in the script, so it may be a link to anywhere",
                                    path_text(&cur),
                                    path_text(&m.at),
                                    m.by
                                ));
                            }
                            return;
                        }
                    }
                    How::Alias { from, .. } => {
                        if cur == m.at {
                            // A file that is not a directory has nothing
                            // beneath it.
                            let deeper = comps[i + 1..]
                                .iter()
                                .any(|c| matches!(c, Component::Normal(_)));
                            for f in from {
                                if deeper && f.exists() && !f.is_dir() {
                                    continue;
                                }
                                if out.len() >= PATHS_PER_EFFECT {
                                    if why.is_none() {
                                        *why = Some(format!(
                                            "`{}` stands for too many paths through links made earlier",
                                            path_text(&cur)
                                        ));
                                    }
                                    return;
                                }
                                self.walk_made(f.clone(), &comps[i + 1..], j, true, out, why);
                            }
                        }
                    }
                }
            }
        }
        if aliased && !out.contains(&cur) {
            out.push(cur);
        }
    }

    /// The effects a path effect also has through what earlier commands
    /// made; called for each literal file effect.
    pub(super) fn made_effects(&mut self, effect: &TargetEffect) {
        if effect.kind == EffectKind::Fetch || !effect.literal {
            return;
        }
        if let Some(why) = &self.made_anywhere {
            let reason = format!("`{}`: {why}", effect.target);
            self.unknown(reason, effect.command);
            return;
        }
        let raw = self.raw_path(&effect.target, effect.cwd.as_deref());
        let (paths, why) = self.through(&raw, self.made.len());
        if let Some(why) = why {
            self.unknown(why, effect.command);
        }
        for p in paths {
            // A copy is read through; only links and moves are written
            // through.
            let writes = self.made.iter().any(|m| {
                matches!(&m.how, How::Alias { from, writes: true } if from.iter().any(|f| p.starts_with(f)))
            });
            if effect.kind == EffectKind::Write && !writes {
                continue;
            }
            self.out.effects.push(TargetEffect {
                target: path_text(&p),
                cwd: None,
                ..effect.clone()
            });
        }
    }

    /// `text` joined to `base` (or the starting directory), `~` expanded,
    /// `.` and `..` removed by text: how a file written earlier in the
    /// script is recognised when a later part runs it.
    pub(super) fn written_path(&self, text: &str, base: Option<&Path>) -> PathBuf {
        use std::path::Component;
        let mut out = PathBuf::new();
        for c in self.raw_path(text, base).components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                other => out.push(other),
            }
        }
        out
    }

    /// Whether an earlier part of the script made `path` or something at
    /// or above it (a link, a move, a copy, a written file or directory).
    pub(super) fn made_at_or_above(&self, path: &Path) -> bool {
        self.made.iter().any(|m| path.starts_with(&m.at))
            || self.written_files.iter().any(|w| path.starts_with(w))
    }

    /// Whether `text`, run where `base` is, is a file written earlier in
    /// the script.
    pub(super) fn is_written(&self, text: &str, base: Option<&Path>) -> bool {
        !self.written_files.is_empty()
            && self.written_files.contains(&self.written_path(text, base))
    }

    /// `text` joined to `base` (or the starting directory), `~` expanded,
    /// not normalised: `..` is applied while walking it.
    fn raw_path(&self, text: &str, base: Option<&Path>) -> PathBuf {
        if let Some(rest) = text
            .strip_prefix('~')
            .filter(|r| r.is_empty() || r.starts_with('/'))
        {
            if let Some(h) = &self.opts.home {
                return h.join(rest.trim_start_matches('/'));
            }
        }
        if Path::new(text).is_absolute() {
            return PathBuf::from(text);
        }
        match base
            .map(Path::to_path_buf)
            .or_else(|| self.opts.cwd.clone())
        {
            Some(b) => b.join(text),
            None => PathBuf::from(text),
        }
    }
}

fn path_text(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The work tree `dir` lies in: the nearest directory holding `.git`, or
/// `dir` itself.
fn work_tree(dir: &Path) -> PathBuf {
    dir.ancestors()
        .take(64)
        .find(|d| d.join(".git").symlink_metadata().is_ok())
        .unwrap_or(dir)
        .to_path_buf()
}
