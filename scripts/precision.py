#!/usr/bin/env python3
"""How toolgate decides real shell commands under a developer's policy.

    scripts/precision.py [--no-build] [--toolgate PATH] [--policy FILE]
                         [--corpus DIR] [--timeout SECS] [--jobs N]
                         [--peer PATH] [--json] [--show CLASS] [--limit N] [--check]
                         [--sandbox] [--as-root]

Every command of corpus/commands/*.jsonl (one {"source", "command"} object a
line; a command listed in two files is decided once) becomes a Claude Code
`Bash` call and is decided by `toolgate check --batch -` under
corpus/developer.toml, copied as the toolgate.toml of a throw-away workspace
that holds a few files (src/main.rs, src/lib.rs, Cargo.toml, README.md,
notes.txt, tests/, docs/, .env, .git/): relative paths resolve inside it,
`~` is a home directory outside it. The commands are split among --jobs
processes (2: the machine's cores); each prints one decision a line as it
goes, so a command whose decision takes longer than --timeout is a hang (the
process is killed and the next one goes on from the command after it), and a
process that ends before answering a command is a crash on that command.

Printed (and with --json, as one JSON object):

- total: commands decided; crashes: a non-zero exit or a panic, or an
  answer that is not a decision of the call (`invalid-call`); hangs:
  commands not decided within --timeout;
- unanalysable: decisions with an action of kind `unknown`;
- parse failures: commands with an unknown the parser gave (text it could
  not parse, or would read otherwise than bash), and how many of those
  `bash -n` accepts (valid bash, or a script inside it that bash would
  refuse only when it runs);
- allow / ask / deny;
- **allowed-program commands** (the issue's key figure): a command *uses
  only allowed programs* when it has at least one `exec` action and the
  argv of every `exec` action starts with the literal words of some
  `Bash(..)` allow rule of the policy, the words before the first one
  holding a `*` (`Bash(cargo *)` names `cargo`, `Bash(git diff *)` names
  `git diff`, `Bash(git status)` names `git status`). The argv is the one
  toolgate reports, wrappers (`xargs`, `timeout`, `env`) stripped; a program
  given by path (`/usr/bin/cat`) is not the name. Printed: how many such
  commands there are and the share of them that is *not allowed*, overall
  and among those that *stay inside the workspace* (every read and write
  action's resolved path is the workspace or beneath it, and no fetch);
- **allowed commands with effects their allow did not name**: commands
  decided `allow` with a `write` action (a write, or a delete) that a
  redirect or an option turns on (`sort -o f`, `find -delete`), although
  no `Edit`/`Write` allow rule names its path, listed one a line. A write
  that is what the allowed command is for (an operand of `cargo fmt`, which
  rewrites the sources; `"via": "operand of .."`) is named by the allow of
  the command, and counted apart.

Run as root, the deciders run as the user `nobody` (`setpriv`), as a
developer's agent would: as root every directory (other users' homes,
`/etc/ssl/private`) can be listed, and a listing of `/` then reaches the
credential locations there. `--as-root` keeps root.

`--sandbox` decides every command as a host that runs it inside toolgate's OS
sandbox would (`toolgate check --sandbox`): an ask the sandbox answers is an
allow (`sandbox:holds`); compare the ask counts of a run with and without it.

`--show CLASS` lists examples of a class (up to --limit, default 20):
crash, hang, unanalysable, parse-failure, parse-failure-valid, allow, ask, deny, not-allowed (allowed-program
commands not allowed), not-allowed-inside (the same, inside the workspace),
unnamed-effects, guessed-writes (allowed commands whose only unnamed writes
are such guesses: the files a program with no operand table is given, which
it may write; only deny and ask rules judge them), operand-writes (allowed
commands whose writes are their operands'), `rule:ID` (decided by that rule, e.g.
`rule:hard:outside-roots`, `rule:default` for no rule), or, with --peer,
peer-risky (cc-toolgate's allows in which toolgate finds a write, a delete,
a catastrophic shape or an unanalysable part), each with its source.
`--check` exits 1 on any crash or hang (what the test tier runs).
`--peer PATH` also runs cc-toolgate 0.6.3 (`cargo install cc-toolgate
--version 0.6.3 --locked --root DIR`, then `--peer DIR/bin/cc-toolgate`) on
every command, with its built-in configuration, and prints its
allow/ask/deny and how many of its allows toolgate's analysis finds a
write, a delete or unanalysable code in.

Builds toolgate with `cargo build --release -p toolgate` first, unless
--no-build or --toolgate.
"""

import argparse
import collections
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKSPACE_FILES = {
    "src/main.rs": "fn main() {\n    println!(\"hello\");\n}\n",
    "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    "Cargo.toml": "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    "README.md": "# demo\n",
    "notes.txt": "draft\n",
    "tests/smoke.rs": "#[test]\nfn smoke() {}\n",
    "docs/index.md": "# docs\n",
    ".env": "SECRET=1\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/config": "[core]\n\trepositoryformatversion = 0\n",
}


def load_corpus(directory: Path):
    seen = set()
    rows = []
    for path in sorted(directory.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if row["command"] in seen:
                continue
            seen.add(row["command"])
            row["file"] = path.stem
            rows.append(row)
    return rows


def allowed_names(policy: Path):
    """The word sequences the policy's Bash allow rules name (see the docstring)."""
    data = tomllib.loads(policy.read_text())
    selectors = list(data.get("allow", [])) + list(data.get("policy", {}).get("allow", []))
    for rule in data.get("rule", []):
        if rule.get("effect") == "allow":
            selectors += rule.get("match", [])
    names = []
    for selector in selectors:
        if selector == "Bash" or not selector.startswith("Bash("):
            if selector in ("Bash", "*"):
                names.append(())
            continue
        pattern = selector[len("Bash("):-1].removesuffix(":*")
        words = []
        for word in pattern.split():
            if "*" in word:
                break
            words.append(word)
        names.append(tuple(words))
    return names


def guessed(action) -> bool:
    """Whether an action is a guess: a file named by an argument of a
    program with no operand table, which it may read or write, or not
    (`"via": "argument of ..."`); only deny and ask rules judge those."""
    return str(action.get("via", "")).startswith("argument")


def operand(action) -> bool:
    """Whether an action is what an allowed command is for: an operand of
    a command whose table says it writes it (`cargo fmt` rewrites the
    sources), `"via": "operand of ..."`. The allow names the command, and
    so the write; a write an option or a redirect turns on is not."""
    return str(action.get("via", "")).startswith("operand")


def uses_allowed_programs(actions, names):
    execs = [a["action"]["argv"] for a in actions if a["action"]["kind"] == "exec"]
    if not execs:
        return False
    return all(any(tuple(argv[:len(n)]) == n for n in names) for argv in execs)


def why_not_allowed(value):
    """Why an allowed-program command was not allowed, from the actions
    that decided it: the policy's own rules (a deny or ask rule matched a
    file it reaches; a write no Edit rule allows, which takes the default),
    a hard limit, a value known only when the command runs (`$F`, `$(..)`),
    another part that cannot be analysed, or a command no rule names."""
    decision = value["decision"]
    deciding = [a for a in value.get("actions", []) if a.get("decision") == decision]
    rule = value.get("rule") or ""
    if rule.startswith(("hard:", "builtin:")):
        return "hard limit"
    if rule.startswith(("deny[", "ask[")):
        return "deny or ask rule"
    kinds = {a["action"]["kind"] for a in deciding}
    if "unknown" in kinds:
        reasons = " ".join(a["action"].get("reason", "") for a in deciding
                           if a["action"]["kind"] == "unknown")
        if "not a literal" in reasons or "not literal" in reasons or "only known when" in reasons:
            return "value known only when it runs"
        return "unanalysable"
    if "write" in kinds:
        return "write no rule allows"
    return "command no rule allows"


def inside(actions, workspace: str):
    for a in actions:
        action = a["action"]
        if action["kind"] == "fetch":
            return False
        if action["kind"] in ("read", "write"):
            path = action["path"]
            if path != workspace and not path.startswith(workspace + "/"):
                return False
    return True


def make_workspace(tmp: Path, policy: Path):
    ws = tmp / "workspace"
    for name, text in WORKSPACE_FILES.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text)
    (ws / ".git" / "refs" / "heads").mkdir(parents=True, exist_ok=True)
    (ws / ".git" / "objects").mkdir(parents=True, exist_ok=True)
    shutil.copy(policy, ws / "toolgate.toml")
    (tmp / "home").mkdir()
    (tmp / "state").mkdir()
    return ws.resolve()


def unprivileged(as_root, programs):
    """The prefix that runs a decider as the user `nobody` when this script
    runs as root: a developer's agent does not run as root, and as root
    every directory of the machine (other users' homes, `/etc/ssl/private`)
    can be listed, which a listing of `/` then meets. Empty with
    --as-root, when not root, or when `nobody` cannot run `programs` (a
    clone beneath a directory only root may enter): then it says so."""
    if as_root or os.geteuid() != 0 or not shutil.which("setpriv"):
        return []
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    for program in programs:
        try:
            ok = subprocess.run([*prefix, program, "--version"], capture_output=True,
                                timeout=30).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if not ok:
            print(f"note: the user nobody cannot run {program}; deciding as root "
                  "(a listing of / then meets what only root can list)", file=sys.stderr)
            return []
    return prefix


def call_line(i, command):
    return json.dumps({"id": str(i), "tool": "Bash", "client": "claude",
                       "input": {"command": command}}) + "\n"


def run_part(toolgate, ws, env, part, timeout, sandbox=False, prefix=()):
    """Decide (index, command) pairs in one process, restarting after a crash or hang.

    Returns {index: ("ok", decision) | ("crash", text) | ("hang", None)}."""
    results = {}
    pending = list(part)
    while pending:
        proc = subprocess.Popen([*prefix, toolgate, "check", "--batch", "-"]
                                + (["--sandbox"] if sandbox else []),
                                cwd=ws, env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        lines = queue.Queue()
        stderr = []

        def write(proc=proc, todo=list(pending)):
            try:
                for i, command in todo:
                    proc.stdin.write(call_line(i, command))
                proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass

        def read(proc=proc, lines=lines):
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        def drain(proc=proc, stderr=stderr):
            stderr.append(proc.stderr.read())

        threads = [threading.Thread(target=f, daemon=True) for f in (write, read, drain)]
        for t in threads:
            t.start()
        done = 0
        outcome = None
        for i, _ in pending:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                proc.kill()
                results[i] = ("hang", None)
                outcome = "restart"
                break
            if line is None:
                proc.wait()
                threads[2].join(5)
                text = f"exit {proc.returncode}: " + "".join(stderr).strip()[-2000:]
                results[i] = ("crash", text)
                outcome = "restart"
                break
            decision = json.loads(line)
            if decision.get("rule") == "invalid-call" or decision.get("id") != str(i):
                results[i] = ("crash", f"not a decision of call {i}: {line.strip()[:500]}")
            else:
                results[i] = ("ok", decision)
            done += 1
        if outcome is None:
            proc.wait()
            threads[2].join(5)
            if proc.returncode != 0:
                # Every call was answered, but the process failed at the end.
                last = pending[-1][0]
                results[last] = ("crash", f"exit {proc.returncode} after the last answer: "
                                 + "".join(stderr).strip()[-2000:])
            pending = []
        else:
            pending = pending[done + 1:]
        for t in threads[:2]:
            t.join(1)
    return results


def run_peer(peer, ws, env, command, timeout, prefix=()):
    payload = json.dumps({"session_id": "precision", "transcript_path": "/dev/null",
                          "cwd": str(ws), "hook_event_name": "PreToolUse",
                          "tool_name": "Bash", "tool_input": {"command": command}})
    try:
        done = subprocess.run([*prefix, peer], input=payload, capture_output=True, text=True,
                              cwd=ws, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang"
    if done.returncode == 2:
        return "deny"
    if done.returncode != 0:
        return "crash"
    if not done.stdout.strip():
        return "ask"  # no opinion: Claude Code's own permission prompt
    try:
        answer = json.loads(done.stdout)
        return answer["hookSpecificOutput"]["permissionDecision"]
    except (ValueError, KeyError, TypeError):
        return "crash"


def pct(part, whole):
    return 100.0 * part / whole if whole else 0.0


def parse_failure(reason):
    """Whether an unknown's reason is the parser's: text it could not parse,
    or read otherwise than bash does."""
    return (reason.startswith("cannot parse")
            or "the grammar does not read it as bash does" in reason)


def bash_accepts(command):
    """Whether `bash -n` accepts the command (it checks the syntax of the
    command itself, not of a script it hands to another shell). A syntax
    error inside `[[ .. ]]` is printed while bash 5.2 still exits 0, so an
    error printed counts as refusal too."""
    try:
        done = subprocess.run(["bash", "-n", "-c", command], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              timeout=10)
        return done.returncode == 0 and not done.stderr.strip()
    except (OSError, subprocess.TimeoutExpired):
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-build", action="store_true", help="use target/release/toolgate as it is")
    parser.add_argument("--toolgate", help="the toolgate executable (implies --no-build)")
    parser.add_argument("--policy", type=Path, default=ROOT / "corpus" / "developer.toml")
    parser.add_argument("--corpus", type=Path, default=ROOT / "corpus" / "commands")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds one decision may take")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--peer", help="the cc-toolgate executable to compare with")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--show", metavar="CLASS", help="list examples of CLASS (see above)")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--check", action="store_true", help="exit 1 on any crash or hang")
    parser.add_argument("--sandbox", action="store_true",
                        help="decide as a host that runs shell commands inside toolgate's sandbox "
                             "(`check --sandbox`): asks the sandbox answers are allows")
    parser.add_argument("--as-root", action="store_true",
                        help="when run as root, decide as root (default: as the user nobody, "
                             "as a developer's agent runs)")
    args = parser.parse_args()

    toolgate = args.toolgate
    if not toolgate:
        if not args.no_build:
            subprocess.run(["cargo", "build", "--release", "-p", "toolgate", "--quiet"],
                           cwd=ROOT, check=True)
        toolgate = str(ROOT / "target" / "release" / "toolgate")
    toolgate = str(Path(toolgate).resolve())
    rows = load_corpus(args.corpus)
    if not rows:
        sys.exit(f"no commands under {args.corpus}")
    names = allowed_names(args.policy)
    per_source = collections.Counter(r["file"] for r in rows)

    started = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="toolgate-precision-"))
    try:
        ws = make_workspace(tmp, args.policy)
        prefix = unprivileged(args.as_root, [toolgate])
        if prefix:
            tmp.chmod(0o755)
            for d in (tmp / "home", tmp / "state"):
                os.chown(d, 65534, 65534)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp / "home"),
               "LANG": "C.UTF-8", "TOOLGATE_STATE_DIR": str(tmp / "state")}
        indexed = list(enumerate(r["command"] for r in rows))
        jobs = max(1, args.jobs)
        parts = [indexed[k::jobs] for k in range(jobs)]
        results = {}
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for part in pool.map(lambda p: run_part(toolgate, ws, env, p, args.timeout, args.sandbox,
                                                    prefix), parts):
                results.update(part)
        peer = {}
        if args.peer:
            peer_bin = str(Path(args.peer).resolve())
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                answers = pool.map(lambda ic: run_peer(peer_bin, ws, env, ic[1], args.timeout, prefix),
                                   indexed)
                peer = dict(zip((i for i, _ in indexed), answers))
        elapsed = time.monotonic() - started
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    classes = collections.defaultdict(list)
    counts = collections.Counter()
    rules = collections.Counter()
    for i, row in enumerate(rows):
        status, value = results[i]
        if status != "ok":
            classes[status].append((i, value))
            continue
        decision = value["decision"]
        actions = value.get("actions", [])
        counts[decision] += 1
        classes[decision].append((i, value))
        rule = value.get("rule") or "default"
        rules[(decision, rule)] += 1
        classes["rule:" + rule].append((i, value))
        if any(a["action"]["kind"] == "unknown" for a in actions):
            classes["unanalysable"].append((i, value))
        if any(a["action"]["kind"] == "unknown" and parse_failure(a["action"].get("reason", ""))
               for a in actions):
            classes["parse-failure"].append((i, value))
        if uses_allowed_programs(actions, names):
            classes["allowed-program"].append((i, value))
            stays = inside(actions, str(ws))
            if stays:
                classes["allowed-program-inside"].append((i, value))
            if decision != "allow":
                classes["not-allowed"].append((i, value))
                if stays:
                    classes["not-allowed-inside"].append((i, value))
        if decision == "allow":
            writes = [a for a in actions if a["action"]["kind"] == "write"]
            if any(not guessed(a) and not operand(a) for a in writes):
                classes["unnamed-effects"].append((i, value))
            elif any(operand(a) for a in writes):
                classes["operand-writes"].append((i, value))
            elif writes:
                classes["guessed-writes"].append((i, value))

    # A parse failure of a command `bash -n` accepts: valid bash (or a
    # script inside it, `bash -c '..'`, that bash would refuse when it runs).
    classes["parse-failure-valid"] = [(i, v) for i, v in classes["parse-failure"]
                                      if bash_accepts(rows[i]["command"])]
    ap = len(classes["allowed-program"])
    api = len(classes["allowed-program-inside"])
    figures = {
        "total": len(rows),
        "sources": dict(per_source),
        "seconds": round(elapsed, 1),
        "crashes": len(classes["crash"]),
        "hangs": len(classes["hang"]),
        "unanalysable": len(classes["unanalysable"]),
        "parse_failures": len(classes["parse-failure"]),
        "parse_failures_bash_accepts": len(classes["parse-failure-valid"]),
        "allow": counts["allow"], "ask": counts["ask"], "deny": counts["deny"],
        "allowed_program": ap,
        "allowed_program_not_allowed": len(classes["not-allowed"]),
        "allowed_program_not_allowed_pct": round(pct(len(classes["not-allowed"]), ap), 1),
        "allowed_program_inside": api,
        "allowed_program_inside_not_allowed": len(classes["not-allowed-inside"]),
        "allowed_program_inside_not_allowed_pct":
            round(pct(len(classes["not-allowed-inside"]), api), 1),
        "not_allowed_inside_why": collections.Counter(
            why_not_allowed(v) for _, v in classes["not-allowed-inside"]).most_common(),
        "not_allowed_by_rule": collections.Counter(
            (v.get("rule") or "default") for _, v in classes["not-allowed"]).most_common(),
        "unnamed_effects": [rows[i]["command"] for i, _ in classes["unnamed-effects"]],
        "guessed_writes": len(classes["guessed-writes"]),
        "operand_writes": len(classes["operand-writes"]),
        "by_file": {
            name: {
                "commands": per_source[name],
                "allowed_program": sum(1 for i, _ in classes["allowed-program"]
                                       if rows[i]["file"] == name),
                "allowed_program_not_allowed": sum(1 for i, _ in classes["not-allowed"]
                                                   if rows[i]["file"] == name),
            } for name in sorted(per_source)},
    }
    if peer:
        pc = collections.Counter(peer.values())
        risky = [i for i, answer in peer.items() if answer == "allow"
                 and results[i][0] == "ok"
                 and any(a["action"]["kind"] in ("write", "unknown", "hazard")
                         for a in results[i][1].get("actions", []))]
        def kinds(i):
            acts = [a["action"] for a in results[i][1].get("actions", [])]
            return {
                "hazard": any(a["kind"] == "hazard" for a in acts),
                "delete": any(a["kind"] == "write" and a.get("delete") for a in acts),
                "write": any(a["kind"] == "write" for a in acts),
                "unknown": any(a["kind"] == "unknown" for a in acts),
            }
        found = [kinds(i) for i in risky]
        figures["peer"] = {
            "allow": pc["allow"], "ask": pc["ask"], "deny": pc["deny"],
            "crashes": pc["crash"], "hangs": pc["hang"],
            "allowed_program_not_allowed": sum(1 for i, _ in classes["allowed-program"]
                                               if peer[i] != "allow"),
            "allowed_program_inside_not_allowed": sum(
                1 for i, _ in classes["allowed-program-inside"] if peer[i] != "allow"),
            "allows_with_writes_or_code": len(risky),
            "allows_with": {k: sum(1 for f in found if f[k])
                            for k in ("hazard", "delete", "write", "unknown")},
            "allows_toolgate_decides": dict(collections.Counter(
                results[i][1]["decision"] for i, a in peer.items()
                if a == "allow" and results[i][0] == "ok")),
            "allows_with_writes_or_code_examples": [rows[i]["command"] for i in risky[:50]],
        }

    if args.show:
        name = args.show
        chosen = classes.get(name, [])
        if name == "peer-risky" and peer:
            chosen = [(i, results[i][1]) for i in risky]
        print(f"{len(chosen)} commands in class {args.show}")
        for i, value in chosen[:args.limit]:
            row = rows[i]
            print(f"\n[{row['source']}]\n  {row['command']}")
            if isinstance(value, dict):
                print(f"  -> {value['decision']} ({value.get('rule') or 'default'}): "
                      f"{value.get('reason', '')[:300]}")
                for a in value.get("actions", []):
                    kind = a["action"]["kind"]
                    if (kind == "unknown" and args.show == "unanalysable") or (
                            kind == "write" and args.show in ("unnamed-effects", "guessed-writes")):
                        what = a["action"].get("reason") or a["action"].get("path")
                        print(f"     {kind}: {what[:300]}")
            elif value:
                print(f"  -> {value[:500]}")
    elif args.json:
        print(json.dumps(figures, indent=2))
    else:
        f = figures
        print(f"commands: {f['total']} ({', '.join(f'{k} {v}' for k, v in sorted(per_source.items()))}); "
              f"{f['seconds']} s")
        print(f"crashes: {f['crashes']}   hangs (>{args.timeout:g} s): {f['hangs']}   "
              f"unanalysable: {f['unanalysable']} ({pct(f['unanalysable'], f['total']):.1f}%)")
        print(f"parse failures: {f['parse_failures']}, of commands bash -n accepts "
              f"{f['parse_failures_bash_accepts']}")
        print(f"allow {f['allow']}   ask {f['ask']}   deny {f['deny']}")
        print(f"allowed-program commands: {ap}; not allowed: {f['allowed_program_not_allowed']} "
              f"({f['allowed_program_not_allowed_pct']}%)")
        print(f"  inside the workspace: {api}; not allowed: "
              f"{f['allowed_program_inside_not_allowed']} "
              f"({f['allowed_program_inside_not_allowed_pct']}%)")
        print("  not allowed, by deciding rule: " + ", ".join(
            f"{rule} {n}" for rule, n in f["not_allowed_by_rule"][:8]))
        print("  not allowed inside the workspace, why: " + ", ".join(
            f"{why} {n}" for why, n in f["not_allowed_inside_why"]))
        print(f"allowed commands with effects their allow did not name: "
              f"{len(f['unnamed_effects'])}")
        print(f"  (not counted: {f['guessed_writes']} allowed commands whose only such writes "
              f"are files a program with no operand table is given and may write, and "
              f"{f['operand_writes']} whose writes are what the allowed command is for, "
              f"as `cargo fmt` rewrites the sources)")
        by_program = collections.defaultdict(list)
        for i, value in classes["unnamed-effects"]:
            writers = [a["action"]["argv"][0] for a in value["actions"]
                       if a["action"]["kind"] == "exec"]
            by_program[writers[0] if len(set(writers)) == 1 else "(pipelines)"].append(i)
        for program, found in sorted(by_program.items(), key=lambda kv: -len(kv[1])):
            print(f"  {program} ({len(found)}):")
            for i in found:
                print(f"    {rows[i]['command']}")
        if peer:
            p = f["peer"]
            print(f"cc-toolgate 0.6.3 (built-in configuration): allow {p['allow']}   "
                  f"ask {p['ask']}   deny {p['deny']}   crashes {p['crashes']}   hangs {p['hangs']}")
            print(f"  allowed-program commands not allowed: {p['allowed_program_not_allowed']} "
                  f"({pct(p['allowed_program_not_allowed'], ap):.1f}%), inside the workspace "
                  f"{p['allowed_program_inside_not_allowed']} "
                  f"({pct(p['allowed_program_inside_not_allowed'], api):.1f}%)")
            w = p["allows_with"]
            print(f"  allowed although toolgate finds a write, a delete or unanalysable code: "
                  f"{p['allows_with_writes_or_code']} (a catastrophic shape {w['hazard']}, "
                  f"a delete {w['delete']}, a write {w['write']}, unanalysable {w['unknown']})")
            t = p["allows_toolgate_decides"]
            print(f"  its allows, as toolgate decides them: allow {t.get('allow', 0)}   "
                  f"ask {t.get('ask', 0)}   deny {t.get('deny', 0)}")
    if args.check and (figures["crashes"] or figures["hangs"]):
        print(f"precision --check: {figures['crashes']} crashes, {figures['hangs']} hangs",
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
