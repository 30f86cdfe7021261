//! What the OS sandbox (`toolgate-sandbox`) needs to know of a policy: the
//! paths it must mask or keep read-only, whether the network is open, and
//! whether the sandbox is on at all.
//!
//! The sandbox resolves these against the file system when a command starts;
//! the engine itself never acts on them.

use std::path::{Path, PathBuf};

use globset::Candidate;

use crate::effect::Effect;
use crate::file::{Placed, SandboxSetting};
use crate::index::literal_dir;
use crate::pattern::{self, Anchors};
use crate::policy::Policy;
use crate::rule::{Rule, Selector};

/// The literal leading directories of the Read deny patterns that have one
/// (`/home/u/.ssh` for `Read(~/.ssh/**)`), so that the sandbox can look for
/// denied paths there as well as in the roots.
pub(crate) fn deny_read_bases(
    rules: &[(Rule, Vec<Placed<Selector>>)],
    anchors: &Anchors,
) -> Vec<PathBuf> {
    let mut bases: Vec<PathBuf> = Vec::new();
    for (rule, sels) in rules {
        if rule.effect != Effect::Deny {
            continue;
        }
        for sel in sels {
            let Selector::Read(Some(p)) = &sel.value else {
                continue;
            };
            // INVARIANT: the index compiled these patterns already, so they
            // are valid; one that is not yields no base rather than an error.
            let Ok(glob) = pattern::path_glob(p, anchors) else {
                continue;
            };
            let Some(dir) = literal_dir(&glob).filter(|d| !d.is_empty()) else {
                continue;
            };
            let dir = PathBuf::from(dir);
            if !bases.contains(&dir) {
                bases.push(dir);
            }
        }
    }
    bases
}

impl Policy {
    /// `[policy] sandbox`: on unless the policy turns it off.
    pub fn sandbox(&self) -> SandboxSetting {
        self.sandbox
    }

    /// toolgate's state directory, resolved (writes there are a hard limit):
    /// the one the store must be opened in.
    pub fn state_dir(&self) -> Option<&Path> {
        self.state_dir.as_deref()
    }

    /// The policy file with its symlinks resolved, when there is a file.
    pub fn file_resolved(&self) -> Option<&Path> {
        self.file_real.as_deref()
    }

    /// The id of the Read deny rule that matches `path` (absolute, resolved),
    /// if any: the sandbox makes such a path unreadable.
    pub fn read_denied(&self, path: &Path) -> Option<&str> {
        self.first_deny(self.index.read(Effect::Deny), path)
    }

    /// The id of the deny rule that forbids writing `path` (absolute,
    /// resolved), if any: an `Edit`/`Write` deny, or a Read deny (which
    /// denies writes too). The sandbox keeps such a path read-only.
    pub fn write_denied(&self, path: &Path) -> Option<&str> {
        self.first_deny(self.index.write(Effect::Deny), path)
    }

    /// Whether any rule denies writes (with none, the sandbox needs not
    /// ask [`Policy::write_denied`] of every path).
    pub fn denies_writes(&self) -> bool {
        !self.index.write(Effect::Deny).is_empty()
    }

    /// The id of the `ask` rule that names writing `path` (absolute,
    /// resolved), if any. For a command allowed because the sandbox holds
    /// it (`sandbox:holds`), the sandbox keeps such a path read-only: the
    /// question the rule asks is never answered by the boundary.
    pub fn write_asked(&self, path: &Path) -> Option<&str> {
        self.first_deny(self.index.write(Effect::Ask), path)
    }

    /// Whether any rule asks about reads: the sandbox hides only what
    /// Read deny rules name, so a part the analysis cannot see could read
    /// what such a rule asks about, and nothing of the kind is held.
    pub fn asks_reads(&self) -> bool {
        !self.index.read(Effect::Ask).is_empty()
    }

    /// Whether any rule asks about writes (with none, the sandbox needs
    /// not ask [`Policy::write_asked`] of every path).
    pub fn asks_writes(&self) -> bool {
        !self.index.write(Effect::Ask).is_empty()
    }

    fn first_deny(&self, rules: &crate::index::PathRules, path: &Path) -> Option<&str> {
        if rules.is_empty() {
            return None;
        }
        let cand = Candidate::new(path);
        let mut buf = Vec::new();
        let mut first = None;
        rules.each_match(path, &cand, &mut buf, |r, _| {
            first = Some(first.map_or(r, |f: usize| f.min(r)));
        });
        first.and_then(|r| self.rules.get(r)).map(|r| r.id.as_str())
    }

    /// Whether any Read deny rule exists (with none, the sandbox masks
    /// nothing and needs not look for other names of masked files).
    pub fn denies_reads(&self) -> bool {
        !self.index.read(Effect::Deny).is_empty()
    }

    /// The protected-path pattern (DESIGN §5) `path` falls under, if any:
    /// the sandbox keeps such a path read-only.
    pub fn protected_path(&self, path: &Path) -> Option<&str> {
        self.protected.find(path)
    }

    /// The hooks directory the configuration of the repository whose work
    /// tree's top is `top` names (`core.hooksPath`), if any: git runs what
    /// is there, so it is protected as `.git/hooks` is, and the sandbox
    /// keeps it read-only.
    pub fn git_hooks_dir(&self, top: &Path) -> Option<PathBuf> {
        let repo = crate::git_index::repo_at(top)?;
        crate::git_hooks::configured(&repo, self.home.as_deref())
    }

    /// Directories outside the roots where Read deny patterns point (their
    /// literal leading directories), for the sandbox to search as well.
    pub fn deny_read_bases(&self) -> &[PathBuf] {
        &self.deny_read_bases
    }

    /// Whether some rule allows fetching a URL (a `WebFetch` allow rule or
    /// `*`): then shell commands keep the network, since the kernel cannot
    /// tell one host from another. Otherwise the sandbox closes it.
    pub fn allows_network(&self) -> bool {
        !self.index.fetch(Effect::Allow).is_empty()
            || self
                .index
                .any
                .iter()
                .any(|&(r, _)| self.rules.get(r).is_some_and(|r| r.effect == Effect::Allow))
    }
}

#[cfg(test)]
mod tests {
    use crate::{LoadOptions, Policy, SandboxSetting};

    #[test]
    fn boundary_facts() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("toolgate.toml");
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        let opts = LoadOptions {
            home: Some(home.clone()),
            ..LoadOptions::default()
        };
        let p = Policy::from_toml(
            "[policy]\nsandbox = \"off\"\ndeny = [\"Read(**/*.pem)\", \"Read(~/.ssh/**)\"]\nallow = [\"WebFetch(domain:x.io)\"]\n",
            &file,
            &opts,
        )
        .unwrap();
        let root = &p.roots()[0];
        assert_eq!(p.sandbox(), SandboxSetting::Off);
        assert_eq!(p.read_denied(&root.join("a/k.pem")), Some("deny[0]"));
        assert_eq!(p.read_denied(&root.join("a/k.txt")), None);
        assert_eq!(p.write_denied(&root.join("a/k.pem")), Some("deny[0]"));
        assert_eq!(p.write_denied(&root.join("a/k.txt")), None);
        assert!(p.denies_writes());
        assert_eq!(p.protected_path(&root.join(".git/config")), Some(".git/**"));
        assert!(p.allows_network());
        assert!(p.denies_reads());
        assert_eq!(p.deny_read_bases(), [root.clone(), home.join(".ssh")]);

        let p = Policy::from_toml("allow = [\"Read\"]\n", &file, &opts).unwrap();
        assert_eq!(p.sandbox(), SandboxSetting::On);
        assert!(!p.allows_network());
        // An address rule alone allows fetches too.
        let p = Policy::from_toml("allow = [\"WebFetch(ip:10.0.0.0/8)\"]\n", &file, &opts).unwrap();
        assert!(p.allows_network());
        assert!(!p.denies_reads());
        assert!(!p.denies_writes());

        let p = Policy::from_toml("deny = [\"Edit(conf/**)\"]\n", &file, &opts).unwrap();
        let root = &p.roots()[0];
        assert_eq!(p.write_denied(&root.join("conf/a.toml")), Some("deny[0]"));
        assert_eq!(p.read_denied(&root.join("conf/a.toml")), None);
        assert!(p.denies_writes());
        assert!(!p.denies_reads());
    }
}
