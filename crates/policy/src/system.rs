//! The machine outside the workspace: the system and toolchain locations
//! every policy may read (the built-in read roots), and the places where
//! credentials live, which no broad allow opens (docs/policy.md, "Roots"
//! and "Credentials").

use std::path::{Path, PathBuf};

use std::sync::OnceLock;

use globset::{GlobSet, GlobSetBuilder};

use crate::file::Placed;
use crate::paths;
use crate::pattern::{self, Anchors};
use crate::rule::{Rule, Selector};

/// Read-only roots every policy has unless it removes them (`read_roots =
/// ["!/opt"]`): the system's programs, libraries, headers and
/// configuration, and the language toolchains and package caches under
/// the home directory (`~/`). An entry that does not exist is skipped.
/// `/etc` is one of them; its secrets are [credentials](CREDENTIALS).
pub const BUILTIN_READ_ROOTS: &[&str] = &[
    "/usr",
    "/opt",
    "/etc",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/nix/store",
    "/snap",
    // What the kernel says about the machine, not about a process.
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/version",
    "/proc/loadavg",
    "/proc/uptime",
    // Rust
    "~/.cargo/registry",
    "~/.cargo/git",
    "~/.rustup/toolchains",
    // JavaScript
    "~/.npm",
    "~/.nvm/versions",
    "~/.cache/yarn",
    "~/.local/share/pnpm",
    "~/.bun/install/cache",
    "~/.deno",
    // Python
    "~/.cache/pip",
    "~/.cache/uv",
    "~/.cache/pypoetry",
    "~/.local/lib",
    "~/.pyenv/versions",
    "~/.conda/pkgs",
    // Go
    "~/go/pkg/mod",
    "~/.cache/go-build",
    // JVM
    "~/.m2/repository",
    "~/.gradle/caches",
    "~/.gradle/wrapper/dists",
    "~/.sdkman/candidates",
    // Ruby, .NET, Haskell, OCaml, Lean
    "~/.rbenv/versions",
    "~/.gem/ruby",
    "~/.local/share/gem",
    "~/.nuget/packages",
    "~/.cabal/packages",
    "~/.ghcup/ghc",
    "~/.opam/default/lib",
    "~/.elan/toolchains",
];

/// Where credentials live: private keys, tokens, passwords, cookies, the
/// environment and memory of processes. Reading or writing one is denied
/// (`builtin:credentials`) whatever the roots say and whatever allows
/// reading broadly (`Read`, `Read(/**)`, `*`); only an allow rule that
/// names the exact file, with no wildcard, lifts it for that file.
/// `~/` is the home directory; the rest are absolute. Globs as path
/// patterns read them (`*` within a segment, `**` across).
pub const CREDENTIALS: &[&str] = &[
    "~/.ssh",
    "~/.ssh/**",
    "~/.aws",
    "~/.aws/**",
    "~/.azure/**",
    "~/.config/gcloud/**",
    "~/.kube/**",
    "~/.docker/config.json",
    "~/.docker/*.pem",
    "~/.docker/contexts/tls/**",
    "~/.netrc",
    "~/.gnupg",
    "~/.gnupg/**",
    "~/.password-store/**",
    "~/.local/share/keyrings/**",
    "~/.mozilla/**",
    "~/.config/google-chrome/**",
    "~/.config/chromium/**",
    "~/.config/BraveSoftware/**",
    "~/.config/microsoft-edge/**",
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.config/gh/hosts.yml",
    "~/.npmrc",
    "~/.yarnrc.yml",
    "~/.pypirc",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.gem/credentials",
    "~/.m2/settings.xml",
    "~/.m2/settings-security.xml",
    "~/.gradle/gradle.properties",
    "~/.terraform.d/credentials.tfrc.json",
    "~/.vault-token",
    "~/.pgpass",
    "~/.my.cnf",
    "~/.config/op/**",
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/sudoers.d/**",
    "/etc/ssh/*_key",
    "/etc/ssl/private",
    "/etc/ssl/private/**",
    "/etc/security/opasswd",
    "/etc/NetworkManager/system-connections/**",
    "/etc/wpa_supplicant/*.conf",
    "/etc/krb5.keytab",
    "/etc/letsencrypt/{accounts,archive,keys,live}/**",
    "/etc/credstore/**",
    "/etc/credstore.encrypted/**",
    "/root",
    "/root/**",
    "/run/secrets/**",
    "/var/run/secrets/**",
    "/proc/**/environ",
    "/proc/**/mem",
    "/proc/kcore",
];

/// The locations of [`CREDENTIALS`] that name one path each, `dir/**`
/// read as `dir`, `~/` expanded in `home`; those that hold `home` itself
/// are left out (masking them would hide the home directory whole).
pub(crate) fn credential_locations(home: Option<&Path>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for entry in CREDENTIALS {
        let entry = entry.strip_suffix("/**").unwrap_or(entry);
        if entry.contains(['*', '?', '[', '{']) {
            continue;
        }
        let Some(path) = expand(entry, home) else {
            continue;
        };
        if home.is_some_and(|h| h.starts_with(&path)) || out.contains(&path) {
            continue;
        }
        out.push(path);
    }
    out
}

/// The built-in read roots that exist, as canonical paths, less those the
/// policy removes (`"!PATH"` entries of `read_roots`, also canonical).
pub(crate) fn builtin_read_roots(home: Option<&Path>, removed: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for entry in BUILTIN_READ_ROOTS {
        let Some(abs) = expand(entry, home) else {
            continue;
        };
        // A root must exist to be canonical; one that does not is not
        // there to read.
        let Ok(real) = std::fs::canonicalize(&abs) else {
            continue;
        };
        if removed.iter().any(|r| paths::is_within(&real, r)) || out.contains(&real) {
            continue;
        }
        out.push(real);
    }
    out
}

/// `~/x` in `home`, or an absolute path as it is.
fn expand(entry: &str, home: Option<&Path>) -> Option<PathBuf> {
    match entry.strip_prefix("~/") {
        Some(rest) => home.map(|h| h.join(rest)),
        None => Some(PathBuf::from(entry)),
    }
}

/// The credential locations for one home directory. Their globs are
/// parsed and compiled the first time a path beneath one of their literal
/// leading directories is asked about: most calls touch only the
/// workspace, and a hook is one process per call.
#[derive(Debug)]
pub(crate) struct Credentials {
    /// Each location as a glob, with the entry of [`CREDENTIALS`] it came
    /// from.
    globs: Vec<(String, &'static str)>,
    set: OnceLock<Option<(GlobSet, Vec<&'static str>)>>,
    /// The literal leading directory of each location (`/home/u/.ssh`,
    /// `/etc`, `/proc`): a path that lies beneath none of them matches
    /// none (the globs are case-sensitive and their literal part is a
    /// prefix of every path they match).
    bases: Vec<PathBuf>,
    /// The same bases as a tree of path components, so that whether a
    /// path lies beneath one takes one pass over the path's components
    /// (every path a decision meets is asked).
    base_tree: BaseTree,
    /// Paths an allow rule names exactly: `(path, write)`; reading (or,
    /// with `write`, writing) that one file is not refused.
    allowed: Vec<(PathBuf, bool)>,
}

impl Credentials {
    pub(crate) fn build(
        anchors: &Anchors,
        roots: &[PathBuf],
        rules: &[(Rule, Vec<Placed<Selector>>)],
    ) -> Self {
        // `/root` is root's home: when it is the home directory (an agent
        // running as root, as in many containers) or holds a workspace
        // root, its credentials are the home directory's entries, not all
        // of it.
        let root_home = Path::new("/root");
        let skip_root = anchors.home.as_deref() == Some(root_home)
            || roots.iter().any(|r| r.starts_with(root_home));
        let home = anchors.home.as_ref().map(|h| {
            globset::escape(&h.to_string_lossy())
                .trim_end_matches('/')
                .to_owned()
        });
        let mut globs = Vec::with_capacity(CREDENTIALS.len());
        let mut bases: Vec<PathBuf> = Vec::new();
        for entry in CREDENTIALS {
            if skip_root && entry.starts_with("/root") {
                continue;
            }
            let glob = match (entry.strip_prefix("~/"), &home) {
                (Some(rest), Some(h)) => format!("{h}/{rest}"),
                (Some(_), None) => continue,
                (None, _) => (*entry).to_string(),
            };
            let lit = glob
                .split_inclusive('/')
                .take_while(|s| !s.contains(['*', '?', '[', '{', '\\']))
                .collect::<String>();
            let base = lit.trim_end_matches('/');
            // Compared as text: the bases are few and short.
            if !bases.iter().any(|b| b.as_os_str() == base) {
                bases.push(PathBuf::from(base));
            }
            globs.push((glob, *entry));
        }
        let mut allowed = Vec::new();
        for (rule, sels) in rules {
            if rule.effect != crate::effect::Effect::Allow {
                continue;
            }
            for sel in sels {
                let (p, write) = match &sel.value {
                    Selector::Read(Some(p)) => (p, false),
                    Selector::Write(Some(p)) => (p, true),
                    _ => continue,
                };
                if let Some(path) = exact_path(p, anchors) {
                    allowed.push((path, write));
                }
            }
        }
        let mut base_tree = BaseTree::default();
        for b in &bases {
            base_tree.insert(b);
        }
        Credentials {
            globs,
            set: OnceLock::new(),
            bases,
            base_tree,
            allowed,
        }
    }

    /// The credential location `path` falls under, if any.
    pub(crate) fn find(&self, path: &Path) -> Option<&'static str> {
        if !self.base_tree.holds_prefix_of(path) {
            return None;
        }
        let Some((set, labels)) = self
            .set
            .get_or_init(|| {
                let mut b = GlobSetBuilder::new();
                let mut labels = Vec::with_capacity(self.globs.len());
                for (glob, label) in &self.globs {
                    // INVARIANT: the entries are valid globs and a home
                    // directory is escaped; one that failed would be
                    // skipped rather than refuse every policy.
                    if let Ok(g) = pattern::path_glob_builder(glob) {
                        b.add(g);
                        labels.push(*label);
                    }
                }
                b.build().ok().map(|set| (set, labels))
            })
            .as_ref()
        else {
            // Beneath a credential location, and its globs could not be
            // compiled: refused rather than read.
            return Some("~/.ssh, ~/.aws, /etc/shadow, ...");
        };
        let m = set.matches(path);
        m.first().and_then(|&i| labels.get(i).copied())
    }

    /// The literal directories (or files) the credential locations lie
    /// beneath.
    pub(crate) fn bases(&self) -> &[PathBuf] {
        &self.bases
    }

    /// Whether a credential location may lie in `dir` or beneath it.
    pub(crate) fn may_hold(&self, dir: &Path) -> bool {
        self.bases
            .iter()
            .any(|b| b.starts_with(dir) || dir.starts_with(b))
    }

    /// Whether an allow rule names exactly this file for this access.
    pub(crate) fn allowed(&self, path: &Path, write: bool) -> bool {
        self.allowed.iter().any(|(p, w)| p == path && *w == write)
    }
}

/// Paths as a tree of their components: whether one of them is a prefix
/// of a path (`Path::starts_with`, component by component) in one pass.
#[derive(Debug, Default)]
struct BaseTree {
    /// A path ends here.
    end: bool,
    children: Vec<(std::ffi::OsString, BaseTree)>,
}

impl BaseTree {
    fn insert(&mut self, path: &Path) {
        let mut node = self;
        for c in path.components() {
            let c = c.as_os_str();
            let i = match node.children.iter().position(|(n, _)| n == c) {
                Some(i) => i,
                None => {
                    node.children.push((c.to_owned(), BaseTree::default()));
                    node.children.len() - 1
                }
            };
            node = &mut node.children[i].1;
        }
        node.end = true;
    }

    /// Whether some inserted path is `path` or a prefix of it.
    fn holds_prefix_of(&self, path: &Path) -> bool {
        let mut node = self;
        if node.end {
            return true;
        }
        for c in path.components() {
            let c = c.as_os_str();
            match node.children.iter().find(|(n, _)| n == c) {
                Some((_, next)) if next.end => return true,
                Some((_, next)) => node = next,
                None => return false,
            }
        }
        false
    }
}

/// The one path a pattern names, when it names exactly one: anchored
/// (it holds a `/`), no wildcard, no trailing `/` (which means everything
/// beneath).
fn exact_path(p: &str, anchors: &Anchors) -> Option<PathBuf> {
    if p.contains(['*', '?', '[', ']', '{', '}', '\\']) || !p.contains('/') || p.ends_with('/') {
        return None;
    }
    let glob = pattern::path_glob(p, anchors).ok()?;
    Some(paths::normalize_lexically(Path::new(&glob)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree answers as `Path::starts_with` over the bases does, for
    /// paths spelt with doubled slashes, `.` components and trailing ones.
    #[test]
    fn the_base_tree_is_starts_with_over_the_bases() {
        let bases = [
            "/home/u/.ssh",
            "/home/u/.aws",
            "/etc/shadow",
            "/proc",
            "/root/.config/gh",
        ];
        let mut tree = BaseTree::default();
        for b in bases {
            tree.insert(Path::new(b));
        }
        for p in [
            "/home/u/.ssh",
            "/home/u/.ssh/id_rsa",
            "/home/u//.ssh/./id_rsa",
            "/home/u/.sshx",
            "/home/u",
            "/home/u/.aws/",
            "/etc/shadow",
            "/etc/shadow-",
            "/etc",
            "/proc/self/environ",
            "/root/.config/gh/hosts.yml",
            "/root/.config",
            "/tmp/x",
            "/",
            "relative/.ssh",
        ] {
            let want = bases.iter().any(|b| Path::new(p).starts_with(b));
            assert_eq!(tree.holds_prefix_of(Path::new(p)), want, "{p}");
        }
    }

    fn anchors(home: &Path) -> Anchors {
        Anchors {
            home: Some(home.to_path_buf()),
            policy_dir: PathBuf::from("/w"),
            root: PathBuf::from("/w"),
        }
    }

    #[test]
    fn credential_locations() {
        let c = Credentials::build(&anchors(Path::new("/home/u")), &[], &[]);
        for p in [
            "/home/u/.ssh/id_rsa",
            "/home/u/.ssh",
            "/home/u/.aws/credentials",
            "/home/u/.config/gcloud/application_default_credentials.json",
            "/home/u/.kube/config",
            "/home/u/.docker/config.json",
            "/home/u/.netrc",
            "/home/u/.gnupg/private-keys-v1.d/x.key",
            "/home/u/.mozilla/firefox/x.default/cookies.sqlite",
            "/home/u/.config/google-chrome/Default/Login Data",
            "/home/u/.git-credentials",
            "/home/u/.config/gh/hosts.yml",
            "/home/u/.npmrc",
            "/home/u/.pypirc",
            "/home/u/.cargo/credentials.toml",
            "/etc/shadow",
            "/etc/gshadow",
            "/etc/sudoers",
            "/etc/sudoers.d/90-cloud",
            "/etc/ssh/ssh_host_ed25519_key",
            "/root/.bashrc",
            "/proc/self/environ",
            "/proc/1/environ",
            "/proc/1/task/1/environ",
            "/proc/42/mem",
            "/run/secrets/db",
        ] {
            assert!(c.find(Path::new(p)).is_some(), "{p}");
        }
        for p in [
            "/etc/passwd",
            "/etc/os-release",
            "/etc/ssh/ssh_host_ed25519_key.pub",
            "/etc/ssh/sshd_config",
            "/home/u/.cargo/registry/src/x/lib.rs",
            "/home/u/.docker/buildx/x",
            "/home/u/project/.ssh/x",
            "/proc/cpuinfo",
            "/usr/lib/python3/os.py",
        ] {
            assert!(c.find(Path::new(p)).is_none(), "{p}");
        }
    }

    #[test]
    fn root_as_home_keeps_its_workspace() {
        let c = Credentials::build(&anchors(Path::new("/root")), &[], &[]);
        assert!(c.find(Path::new("/root/project/src/main.rs")).is_none());
        assert!(c.find(Path::new("/root/.ssh/id_rsa")).is_some());
        let c = Credentials::build(
            &anchors(Path::new("/home/u")),
            &[PathBuf::from("/root/ws")],
            &[],
        );
        assert!(c.find(Path::new("/root/ws/a")).is_none());
        assert!(c.find(Path::new("/home/u/.aws/config")).is_some());
    }

    #[test]
    fn only_an_exact_path_is_lifted() {
        let a = anchors(Path::new("/home/u"));
        assert_eq!(
            exact_path("~/.aws/config", &a),
            Some(PathBuf::from("/home/u/.aws/config"))
        );
        assert_eq!(
            exact_path("//etc/shadow", &a),
            Some(PathBuf::from("/etc/shadow"))
        );
        for p in [
            "~/.aws/**",
            "~/.aws/",
            "//**",
            ".netrc",
            "~/.ssh/id_*",
            "~/.{aws,ssh}/x",
        ] {
            assert_eq!(exact_path(p, &a), None, "{p}");
        }
    }

    #[test]
    fn builtin_roots_exist_and_can_be_removed() {
        let all = builtin_read_roots(None, &[]);
        let usr = std::fs::canonicalize("/usr").unwrap();
        assert!(all.contains(&usr));
        let less = builtin_read_roots(None, std::slice::from_ref(&usr));
        assert!(!less.iter().any(|r| r.starts_with(&usr)), "{less:?}");
        assert!(builtin_read_roots(None, &[PathBuf::from("/")]).is_empty());
    }
}
