#!/usr/bin/env python3
"""Rebuild the files of corpus/commands/ from their public sources.

    corpus/extract.py manpages  [--out corpus/commands/manpages.jsonl]
    corpus/extract.py scripts   [--out corpus/commands/debian-scripts.jsonl]
    corpus/extract.py debs DIR  [--out corpus/commands/debian-manpages.jsonl]
    corpus/extract.py tldr GITDIR     [--out corpus/commands/tldr.jsonl]
    corpus/extract.py nl2bash GITDIR  [--out corpus/commands/nl2bash.jsonl]
    corpus/extract.py table [DIR]   (the per-package table of corpus/README.md)

Every output line is one JSON object, {"source": ..., "command": ...}, with
the commands deduplicated within the file (first occurrence kept) and in the
order they were found. The rules are written down in corpus/README.md; this
file is what applies them. Nothing here makes a command up: each one is a
line of the source, with only the placeholder substitution below applied.

manpages: the English manual pages under /usr/share/man (sections 1, 5, 7, 8)
of the Debian packages installed on the machine, rendered by man(1) at a
width of 200 and read in two ways: (1) any line whose text starts with a
shell prompt (`$ ` or `% `, then a non-blank) is a command; (2) a line whose first word is the page's
own program (the page name, or its part before the first `-` or `_`: `git`
for git-log(1), `openssl` for openssl-req(1ssl)) is a command when it stands
in a section named EXAMPLE or EXAMPLES indented by at least 8 columns (the
section's prose is indented by 7), or in the block below a line ending in
a colon (`Example:`), indented deeper than that line, and its second word
is not one of the English words of PROSE (`find shall write ...` is prose). A line that ends
in a backslash continues on the next. Placeholders in angle brackets
(`<file>`, `<commit>`) are replaced by the concrete values of PLACEHOLDERS.
The 16,631 pages of the Google Cloud CLI (`gcloud_*`) would be 90% of the
corpus on their own: one page in GCLOUD_EVERY (in name order) is read, and
only its first command kept. Every command kept is one `bash -n` accepts.

debs: the same reading of the manual pages inside the Debian packages of DIR
(`apt-get download PKG...`; the list is in corpus/README.md), which are
unpacked, not installed.

scripts: the maintainer scripts of the installed Debian packages
(/var/lib/dpkg/info/*.{preinst,postinst,prerm,postrm,config}): each line that
is a complete command by itself (`bash -n` accepts it alone, and it is not
a bare keyword, brace, comment or function header) is a command.

tldr: the examples of the tldr-pages pages for Linux (`pages/common/*.md`
and `pages/linux/*.md` of a clone of github.com/tldr-pages/tldr, GITDIR its
git directory, read at HEAD): each line that is a whole inline code span
(`` `...` ``) is a command, with its `{{...}}` placeholders rendered as the
tldr clients render them: `{{[-a|--all]}}` (an option's short and long
spellings) becomes the first spelling, `-a`; any other `{{text}}` becomes its
text, a trailing ` ...` dropped and a `[x|y]` alternative inside it the first
one (`{{path/to/source.tar[.gz|.bz2]}}` is `path/to/source.tar.gz`). Every
command kept is one `bash -n` accepts.

nl2bash: the commands of the NL2Bash data set (`data/bash/all.cm` of a clone
of github.com/TellinaTool/nl2bash, GITDIR its git directory, read at HEAD),
one a line, each one `bash -n` accepts.

In every file, a line that opens a here-document is left out (its body is on
the lines after it).
"""

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GCLOUD_EVERY = 40

# `<name>` placeholders of manual pages: the first key contained in the
# lower-cased name decides; anything else becomes `value`.
PLACEHOLDERS = [
    ("commit", "HEAD~1"), ("rev", "HEAD~1"), ("tree-ish", "HEAD"), ("branch", "main"),
    ("remote", "origin"), ("repo", "origin"), ("tag", "v1.0"), ("url", "https://example.com/x"),
    ("host", "example.com"), ("user", "alice"), ("port", "8080"), ("dir", "src"),
    ("path", "src/main.rs"), ("file", "notes.txt"), ("pattern", "foo"), ("name", "example"),
    ("num", "3"), ("n", "3"),
]
PLACEHOLDER = re.compile(r"<([A-Za-z][A-Za-z0-9_.-]*)>")


def substitute(command: str) -> str:
    def value(m):
        name = m.group(1).lower()
        for key, concrete in PLACEHOLDERS:
            if key in name:
                return concrete
        return "value"
    return PLACEHOLDER.sub(value, command)


def bash_accepts(text: str) -> bool:
    done = subprocess.run(["bash", "-n", "-c", text], capture_output=True, timeout=10)
    return done.returncode == 0


HEREDOC = re.compile(r"<<(?!<)")


def write(out: Path, rows):
    """Write the rows, deduplicated; a line opening a here-document is left
    out, since its body is on the lines after it."""
    seen = set()
    kept = []
    for source, command in rows:
        command = command.strip()
        if not command or command in seen or HEREDOC.search(command):
            continue
        seen.add(command)
        kept.append({"source": source, "command": command})
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as f:
        for row in kept:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{out}: {len(kept)} commands", file=sys.stderr)


# ---------------------------------------------------------------- man pages

def package_of(paths):
    """{path: (package, version)} through dpkg -S and dpkg-query."""
    owner = {}
    chunk = 200
    for i in range(0, len(paths), chunk):
        done = subprocess.run(["dpkg", "-S", *map(str, paths[i:i + chunk])],
                              capture_output=True, text=True)
        for line in done.stdout.splitlines():
            pkg, _, path = line.partition(": ")
            owner[path.strip()] = pkg.split(":")[0].split(",")[0].strip()
    versions = {}
    for pkg in set(owner.values()):
        done = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg],
                              capture_output=True, text=True)
        versions[pkg] = done.stdout.strip()
    return {p: (owner.get(str(p), "?"), versions.get(owner.get(str(p)), "?")) for p in paths}


def render(page: Path) -> str:
    env = dict(os.environ, MANWIDTH="200", LANG="C.UTF-8", MAN_KEEP_FORMATTING="")
    done = subprocess.run(["man", "-l", "-P", "cat", str(page)], capture_output=True,
                          env=env, timeout=60)
    text = subprocess.run(["col", "-bx"], input=done.stdout, capture_output=True).stdout
    return text.decode("utf-8", "replace")


def program_of(page: Path) -> str:
    name = page.name.removesuffix(".gz").rsplit(".", 1)[0]
    for prefix in ("git-", "gcloud_"):
        if name.startswith(prefix):
            return prefix[:-1]
    return name


# A line starting with the program's name but reading as a sentence
# ("find shall write ...", "curl will ...") is prose, not a command.
PROSE = {"is", "are", "was", "shall", "will", "can", "cannot", "does", "has", "have", "may",
         "might", "must", "should", "would", "uses", "used", "the", "a", "an", "to", "and",
         "also", "supports", "reads", "writes", "returns", "then", "treats", "exits", "ignores",
         "prints", "only", "works", "currently", "accepts", "itself", "which", "that", "knows",
         "tries", "expects", "allows", "provides", "needs", "displays", "creates", "sends",
         "looks", "assumes", "stops", "runs", "makes", "gets", "takes", "first", "when", "if",
         "in", "of", "on", "for", "with", "or", "as", "by", "not", "never", "always", "now"}
PROMPT = re.compile(r"^\s*[$%] (\S.*)$")
SECTION = re.compile(r"^([A-Z][A-Z /-]+)\s*$")


def indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def commands_of(text: str, program: str):
    """The command lines of one rendered page (the rules in the module docstring)."""
    programs = {program, program.split("-")[0], program.split("_")[0]}
    lines = text.splitlines()
    section = ""
    colon_indent = None  # indentation of the last line ending in ":", while its block lasts
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = SECTION.match(line)
        if m and not line.startswith(" "):
            section = m.group(1).strip()
            colon_indent = None
            i += 1
            continue
        if line.strip() and colon_indent is not None and indent(line) <= colon_indent:
            colon_indent = None
        command = None
        words = line.split()
        p = PROMPT.match(line)
        if p:
            command = p.group(1)
        elif words and words[0] in programs and not (len(words) > 1 and words[1] in PROSE) and (
                (section in ("EXAMPLE", "EXAMPLES") and indent(line) >= 8)
                or colon_indent is not None):
            command = line.strip()
        elif line.rstrip().endswith(":"):
            colon_indent = indent(line)
        i += 1
        if command is None:
            continue
        while command.endswith("\\") and i < len(lines) and lines[i].strip():
            command = command[:-1].rstrip() + " " + lines[i].strip()
            i += 1
        out.append(command)
    return out


def candidates_of(pages):
    """The pages that can give anything: a prompt or an EXAMPLE(S) section."""
    out = []
    for page in pages:
        try:
            raw = gzip.open(page).read()
        except OSError:
            continue
        if re.search(rb"^\.SH \"?EXAMPLES?\"?|\$ |\\\$ ", raw, re.M):
            out.append(page)
    return out


def pages_under(man: Path):
    pages = []
    for section in ("man1", "man5", "man7", "man8"):
        if not (man / section).is_dir():
            continue
        for page in sorted((man / section).iterdir()):
            if page.is_symlink() or not page.name.endswith(".gz"):
                continue
            pages.append(page)
    return pages


def from_pages(owned):
    """[(page, package, version)] -> [(source, command)], in page order."""
    def one(item):
        page, pkg, version = item
        try:
            cmds = commands_of(render(page), program_of(page))
        except subprocess.TimeoutExpired:
            return []
        name = page.name.removesuffix(".gz")
        if name.startswith("gcloud_"):
            cmds = cmds[:1]
        return [(f"man:{name} ({pkg} {version})", substitute(c)) for c in cmds]

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, owned))
    return [(s, c) for found in results for s, c in found if bash_ok_cached(c)]


def manpages(out: Path):
    pages = pages_under(Path("/usr/share/man"))
    gcloud = [p for p in pages if p.name.startswith("gcloud_")]
    keep_gcloud = set(gcloud[::GCLOUD_EVERY])
    pages = [p for p in pages if not p.name.startswith("gcloud_") or p in keep_gcloud]
    candidates = candidates_of(pages)
    owners = package_of(candidates)
    write(out, from_pages([(p, *owners[p]) for p in candidates]))


def debs(directory: Path, out: Path):
    """The manual pages inside Debian packages fetched with `apt-get download`."""
    import tempfile
    owned = []
    tmp = Path(tempfile.mkdtemp(prefix="corpus-debs-"))
    for deb in sorted(directory.glob("*.deb")):
        pkg = subprocess.run(["dpkg-deb", "-f", str(deb), "Package"], capture_output=True,
                             text=True).stdout.strip()
        version = subprocess.run(["dpkg-deb", "-f", str(deb), "Version"], capture_output=True,
                                 text=True).stdout.strip()
        root = tmp / pkg
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
        for page in candidates_of(pages_under(root / "usr/share/man")):
            owned.append((page, pkg, version))
    write(out, from_pages(owned))


_ok = {}


def bash_ok_cached(command: str) -> bool:
    if command not in _ok:
        _ok[command] = bash_accepts(command)
    return _ok[command]


# ---------------------------------------------------------------- maintainer scripts

SKIP_LINE = re.compile(r"^(#|fi$|done$|esac$|then$|else$|do$|\{$|\}$|;;$|\)$|[A-Za-z_][A-Za-z0-9_]*\s*\(\)\s*\{?$|set -e$|exit 0$)")


def scripts(out: Path):
    rows = []
    info = Path("/var/lib/dpkg/info")
    for script in sorted(info.iterdir()):
        if script.suffix not in (".preinst", ".postinst", ".prerm", ".postrm", ".config"):
            continue
        head = script.read_bytes()[:200]
        if not (head.startswith(b"#!/bin/sh") or head.startswith(b"#!/bin/bash")):
            continue
        pkg = script.stem.split(":")[0]
        version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg],
                                 capture_output=True, text=True).stdout.strip()
        for line in script.read_text(errors="replace").splitlines():
            text = line.strip()
            if not text or SKIP_LINE.match(text) or text.endswith("\\"):
                continue
            rows.append((f"dpkg:{script.name} ({pkg} {version})", text))
    rows = [(s, c) for s, c in rows if bash_ok_cached(c)]
    write(out, rows)


# ---------------------------------------------------------------- git snapshots

def git_show(gitdir: Path, spec: str) -> str:
    return subprocess.run(["git", "--git-dir", str(gitdir), "show", spec], capture_output=True,
                          check=True).stdout.decode("utf-8", "replace")


def git_head(gitdir: Path) -> str:
    return subprocess.run(["git", "--git-dir", str(gitdir), "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()


def bash_ok_all(rows):
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        ok = list(pool.map(lambda row: bash_accepts(row[1]), rows))
    return [row for row, good in zip(rows, ok) if good]


TLDR_CODE = re.compile(r"^`(.+)`$")
TLDR_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")
TLDR_OPTION = re.compile(r"^\[(-[^|\]]*)(\|[^\]]*)?\]$")
TLDR_ALTERNATIVE = re.compile(r"\[([^|\]]*)\|[^\]]*\]")


def tldr_render(command: str) -> str:
    """A tldr example as a client shows it (see the docstring's rules)."""
    def value(m):
        text = m.group(1)
        option = TLDR_OPTION.match(text)
        if option:
            return option.group(1)
        if text.endswith(" ..."):
            text = text[:-4]
        return TLDR_ALTERNATIVE.sub(lambda a: a.group(1), text)
    return TLDR_PLACEHOLDER.sub(value, command)


def tldr(gitdir: Path, out: Path):
    listing = subprocess.run(["git", "--git-dir", str(gitdir), "ls-tree", "-r", "--name-only",
                              "HEAD", "pages/common", "pages/linux"],
                             capture_output=True, text=True, check=True).stdout.split()
    rows = []
    for path in sorted(listing):
        if not path.endswith(".md"):
            continue
        for line in git_show(gitdir, f"HEAD:{path}").splitlines():
            code = TLDR_CODE.match(line.strip())
            if code:
                rows.append((f"tldr:{path[len('pages/'):]}", tldr_render(code.group(1))))
    write(out, bash_ok_all(rows))


def nl2bash(gitdir: Path, out: Path):
    text = git_show(gitdir, "HEAD:data/bash/all.cm")
    rows = [(f"nl2bash:all.cm:{n}", line) for n, line in enumerate(text.splitlines(), 1)
            if line.strip()]
    write(out, bash_ok_all(rows))


# ---------------------------------------------------------------- the table of corpus/README.md

def licence_of(copyright_text: str) -> str:
    """The licence a Debian copyright file states first (DEP-5 `License:`), else its wording."""
    for line in copyright_text.splitlines():
        if line.startswith("License:"):
            return line.split(":", 1)[1].strip()
    for words, name in (("Apache License", "Apache-2.0"), ("GNU General Public License", "GPL"),
                        ("MIT", "MIT"), ("BSD", "BSD")):
        if words in " ".join(copyright_text.split()):
            return name
    return "see its copyright file"


def table(debdir):
    """Print the per-package Markdown table: commands, version, licence."""
    copyrights = {}
    if debdir:
        for deb in sorted(Path(debdir).glob("*.deb")):
            pkg = subprocess.run(["dpkg-deb", "-f", str(deb), "Package"], capture_output=True,
                                 text=True).stdout.strip()
            tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], capture_output=True).stdout
            done = subprocess.run(["tar", "-xOf", "-", f"./usr/share/doc/{pkg}/copyright"],
                                  input=tar, capture_output=True)
            copyrights[pkg] = done.stdout.decode("utf-8", "replace")
    for name in ("manpages.jsonl", "debian-manpages.jsonl", "debian-scripts.jsonl"):
        path = ROOT / "corpus" / "commands" / name
        if not path.exists():
            continue
        counts = {}
        for line in path.read_text().splitlines():
            source = json.loads(line)["source"]
            pkg, version = source.rsplit(" (", 1)[1].rstrip(")").split(" ", 1)
            counts.setdefault((pkg, version), 0)
            counts[(pkg, version)] += 1
        print(f"\n`{name}`\n\n| package | version | commands | licence |\n| --- | --- | ---: | --- |")
        for (pkg, version), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            text = copyrights.get(pkg)
            if text is None:
                f = Path("/usr/share/doc") / pkg / "copyright"
                text = f.read_text(errors="replace") if f.exists() else ""
            print(f"| {pkg} | {version} | {n} | {licence_of(text)} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["manpages", "scripts", "debs", "tldr", "nl2bash",
                                         "table"])
    parser.add_argument("dir", nargs="?", type=Path,
                        help="debs: the folder of .deb files; tldr, nl2bash: the git directory")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    default = {"table": "", "manpages": "manpages.jsonl", "scripts": "debian-scripts.jsonl",
               "debs": "debian-manpages.jsonl", "tldr": "tldr.jsonl",
               "nl2bash": "nl2bash.jsonl"}[args.what]
    out = args.out or ROOT / "corpus" / "commands" / default
    if args.what == "manpages":
        manpages(out)
    elif args.what == "table":
        table(args.dir)
        return
    elif args.what in ("tldr", "nl2bash"):
        if not args.dir:
            parser.error(f"{args.what} needs the git directory of its clone")
        (tldr if args.what == "tldr" else nl2bash)(args.dir, out)
    elif args.what == "debs":
        if not args.dir:
            parser.error("debs needs the folder of .deb files")
        debs(args.dir, out)
    else:
        scripts(out)


if __name__ == "__main__":
    main()
