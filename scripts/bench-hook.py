#!/usr/bin/env python3
"""How long one hook process takes, start to exit.

The hook process is `toolgate-hook claude`, the lean executable that
`toolgate hook install claude` registers; `toolgate hook claude` (the same
code inside the whole command line) is measured beside it. Each run is a
whole hook process as Claude Code starts it: read a realistic
PreToolUse input on stdin, find and load a small policy, decide, append the
ledger row (to the spool beside the database, which the next process that
opens the database folds in; the count of ledger rows is checked at the
end), print the answer, exit. The same inputs go to the peer
cc-toolgate 0.6.3 (a Rust PreToolUse hook on tree-sitter-bash that keeps no
record), and to a minimal Python hook that only parses the JSON and prints
an allow. Prints medians, p90 and the ratios to toolgate.

    scripts/bench-hook.py [--runs N] [--no-build] [--profile hook|release] [--peer PATH] [--clients]
                          [--review] [--target-dir DIR]

`--review` measures the same allowed call again in a project whose policy
has a `[review]` table (a reviewer at an address nothing listens on),
interleaved with the plain project: a call the policy allows never reaches
the reviewer, so the two should not differ. `--target-dir` takes the
executables from another build (with `--no-build`).

`--clients` measures the same call through `toolgate-hook qwen|copilot|pi|
opencode|cursor` too, each in its client's payload, interleaved with the
Claude hook.

Builds toolgate with the `hook` profile first (what to install: whole-program
optimisation; unless --no-build); `--profile release` measures the quicker
build that `cargo run --release` makes. The peer is not a
dependency of the build; install it once with
`cargo install cc-toolgate --version 0.6.3 --locked --root DIR` and pass
`--peer DIR/bin/cc-toolgate` (default: `cc-toolgate` on PATH; skipped with
a note when absent). Everything it writes goes to a temporary folder that
is removed afterwards.
"""

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

POLICY = """\
allow = ["Read", "Bash(git status)", "Bash(git diff *)", "Bash(cargo test *)", "Edit(src/**)"]
ask   = ["Bash(git push *)"]
deny  = ["Read(.env)", "Bash(rm *)", "Bash(curl *)", "WebFetch(domain:*.internal)"]
"""

MINIMAL_HOOK = """\
import json, sys
json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
      "permissionDecision": "allow", "permissionDecisionReason": "ok"}}))
"""


def claude_input(project: Path, n: int) -> bytes:
    """A PreToolUse input shaped like the recorded fixture (tests/fixtures/claude/bash.json)."""
    return json.dumps({
        "session_id": "2541e145-8d0e-4a38-9c4f-5f3b0e6a1c11",
        "transcript_path": "/home/dev/.claude/projects/-bench/2541e145.jsonl",
        "cwd": str(project),
        "prompt_id": "fe48a6d7-0b1c-4e52-a1f9-3a0c2b7d9e44",
        "permission_mode": "default",
        "effort": {"level": "medium"},
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git status", "description": "Show the working tree status"},
        "tool_use_id": f"toolu_{n:06d}",
    }).encode()


def other_input(client: str, project: Path, n: int) -> bytes:
    """The same `git status` call as each other client's hook receives it
    (crates/hook/PROTOCOL.md)."""
    cmd = "git status"
    if client == "qwen":
        v = {"session_id": "9d1c", "transcript_path": "/t.jsonl", "cwd": str(project),
             "hook_event_name": "PreToolUse", "timestamp": "2026-12-01T19:54:35.740Z",
             "permission_mode": "yolo", "tool_name": "run_shell_command",
             "tool_input": {"command": cmd}, "tool_use_id": f"toolu_{n}", "tool_call_id": f"call_{n}"}
    elif client == "copilot":
        v = {"sessionId": "dea2", "timestamp": 1796154905143 + n, "cwd": str(project),
             "toolName": "bash", "toolArgs": {"command": cmd, "description": "status"}}
    elif client in ("pi", "opencode"):
        v = {"session_id": "0190", "cwd": str(project), "tool_name": "bash",
             "tool_input": {"command": cmd}, "call_id": f"call_{n}", "can_ask": False}
    elif client == "cursor":
        v = {"conversation_id": "c1", "generation_id": f"g{n}", "hook_event_name": "beforeShellExecution",
             "command": cmd, "cwd": str(project), "workspace_roots": [str(project)]}
    else:
        raise ValueError(client)
    return json.dumps(v).encode()


def allowed(stdout: bytes) -> bool:
    """Whether a hook's answer, in any client's shape, is an allow."""
    a = json.loads(stdout)
    for v in (a.get("hookSpecificOutput", {}).get("permissionDecision"),
              a.get("permissionDecision"), a.get("decision"), a.get("permission")):
        if v is not None:
            return v == "allow"
    return False


def measure(command, inputs, env, cwd, check):
    """Wall-clock milliseconds of each run of `command`."""
    times = []
    for stdin in inputs:
        start = time.perf_counter_ns()
        done = subprocess.run(command, input=stdin, capture_output=True, env=env, cwd=cwd)
        times.append((time.perf_counter_ns() - start) / 1e6)
        check(done)
    return times


def layout_coverage(exe: Path) -> str:
    """How much of crates/cli/hook-layout.txt the executable still has: a
    list gone stale (renamed functions, other dependency versions) no
    longer keeps the hook's code together (scripts/hook-layout.py)."""
    listed = [l.strip() for l in (ROOT / "crates/cli/hook-layout.txt").read_text().splitlines()
              if l.strip() and not l.startswith("#")]
    if not shutil.which("nm"):
        return "layout: not checked (no nm)"
    out = subprocess.run(["nm", str(exe)], capture_output=True, text=True).stdout
    present = {line.split()[-1] for line in out.splitlines() if line.strip()}
    found = sum(1 for name in listed if name in present)
    return (f"layout: {found} of the {len(listed)} functions in crates/cli/hook-layout.txt "
            f"are in toolgate-hook (rewrite the list with scripts/hook-layout.py when few are)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="runs of each hook (default 300)")
    parser.add_argument("--no-build", action="store_true", help="use the existing build")
    parser.add_argument("--profile", default="hook",
                        help="cargo profile to build and measure: hook (what to install, the default) or release")
    parser.add_argument("--peer", help="the cc-toolgate executable (default: cc-toolgate on PATH)")
    parser.add_argument("--clients", action="store_true",
                        help="also measure toolgate-hook for Qwen Code, Copilot CLI, Pi, OpenCode and Cursor")
    parser.add_argument("--review", action="store_true",
                        help="also measure an allowed call under a policy with a [review] table")
    parser.add_argument("--target-dir", help="where the build is (default: target/ in the repository)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    if not args.no_build:
        subprocess.run(["cargo", "build", "--profile", args.profile, "-p", "toolgate", "--quiet"],
                       cwd=ROOT, check=True)
    target = Path(args.target_dir) if args.target_dir else ROOT / "target"
    toolgate = target / args.profile / "toolgate"
    lean = target / args.profile / "toolgate-hook"
    if not toolgate.is_file() or not lean.is_file():
        sys.exit(f"{toolgate} or {lean} is missing: run without --no-build")

    tmp = Path(tempfile.mkdtemp(prefix="toolgate-bench-")).resolve()
    try:
        project = tmp / "project"
        (project / "src").mkdir(parents=True)
        (project / "toolgate.toml").write_text(POLICY)
        state = tmp / "state"
        hook_py = tmp / "minimal_hook.py"
        hook_py.write_text(MINIMAL_HOOK)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp / "home"),
               "TOOLGATE_STATE_DIR": str(state), "LANG": "C.UTF-8"}

        def toolgate_ok(done):
            answer = json.loads(done.stdout)
            if done.returncode != 0 or answer["hookSpecificOutput"]["permissionDecision"] != "allow":
                sys.exit(f"unexpected toolgate answer: {done}")

        def python_ok(done):
            if done.returncode != 0:
                sys.exit(f"the Python hook failed: {done}")

        def peer_ok(done):
            answer = json.loads(done.stdout)
            if done.returncode != 0 or answer["hookSpecificOutput"]["permissionDecision"] != "allow":
                sys.exit(f"unexpected cc-toolgate answer: {done}")

        peer = args.peer or shutil.which("cc-toolgate")
        if peer and not Path(peer).is_file():
            sys.exit(f"{peer} is not a file")

        warmup = 10
        inputs = [claude_input(project, n) for n in range(warmup + args.runs)]
        lean_cmd = [str(lean), "claude"]
        toolgate_cmd = [str(toolgate), "hook", "claude"]
        python_cmd = [sys.executable, str(hook_py)]
        # Interleaved in blocks, so that a burst of other load on the machine
        # hits both about equally.
        lh, tg, py, cc = [], [], [], []
        peer_cmd = [peer] if peer else None
        measure(lean_cmd, inputs[:warmup], env, project, toolgate_ok)
        measure(toolgate_cmd, inputs[:warmup], env, project, toolgate_ok)
        measure(python_cmd, inputs[:warmup], env, project, python_ok)
        if peer_cmd:
            measure(peer_cmd, inputs[:warmup], env, project, peer_ok)
        block = 50
        for start in range(warmup, warmup + args.runs, block):
            chunk = inputs[start:min(start + block, warmup + args.runs)]
            lh += measure(lean_cmd, chunk, env, project, toolgate_ok)
            tg += measure(toolgate_cmd, chunk, env, project, toolgate_ok)
            py += measure(python_cmd, chunk, env, project, python_ok)
            if peer_cmd:
                cc += measure(peer_cmd, chunk, env, project, peer_ok)

        # The hooks spooled their rows; any command that opens the store
        # folds them into the ledger.
        subprocess.run([str(toolgate), "audit", "verify"], env=env, cwd=project,
                       check=True, capture_output=True)
        rows = sqlite3.connect(state / "toolgate.db").execute("SELECT COUNT(*) FROM ledger").fetchone()[0]
        if rows != 2 * (warmup + args.runs):
            sys.exit(f"the ledger has {rows} rows, expected {2 * (warmup + args.runs)}")

        def p(values, q):
            return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]

        others = {}
        if args.clients:
            def other_ok(done):
                if done.returncode != 0 or not allowed(done.stdout):
                    sys.exit(f"unexpected toolgate answer: {done}")
            for client in ("qwen", "copilot", "pi", "opencode", "cursor"):
                cmd = [str(lean), client]
                ins = [other_input(client, project, n) for n in range(warmup + args.runs)]
                measure(cmd, ins[:warmup], env, project, other_ok)
                others[client] = []
            # Interleaved with the Claude hook again, in blocks.
            claude_again = []
            for start in range(warmup, warmup + args.runs, block):
                end = min(start + block, warmup + args.runs)
                claude_again += measure(lean_cmd, inputs[start:end], env, project, toolgate_ok)
                for client in others:
                    ins = [other_input(client, project, n) for n in range(start, end)]
                    others[client] += measure([str(lean), client], ins, env, project, other_ok)

        reviewed = []
        if args.review:
            # The same allowed call, in a project whose policy names a
            # reviewer: only an ask would reach it.
            rproject = tmp / "reviewed"
            (rproject / "src").mkdir(parents=True)
            (rproject / "toolgate.toml").write_text(
                POLICY + '\n[review]\napi = "openai"\nmodel = "m"\n'
                'base_url = "http://127.0.0.1:9/v1"\napi_key_env = "TOOLGATE_BENCH_NO_KEY"\n')
            rinputs = [claude_input(rproject, n) for n in range(warmup + args.runs)]
            measure(lean_cmd, rinputs[:warmup], env, rproject, toolgate_ok)
            plain_again = []
            for start in range(warmup, warmup + args.runs, block):
                end = min(start + block, warmup + args.runs)
                plain_again += measure(lean_cmd, inputs[start:end], env, project, toolgate_ok)
                reviewed += measure(lean_cmd, rinputs[start:end], env, rproject, toolgate_ok)

        lh_median, tg_median = statistics.median(lh), statistics.median(tg)
        py_median = statistics.median(py)
        print(f"runs per hook: {args.runs} (after {warmup} warm-up runs), {os.cpu_count()} CPUs")
        print(f"toolgate-hook claude  median {lh_median:6.2f} ms   p90 {p(lh, 90):6.2f} ms   "
              f"(policy load, decision, ledger row; what hook install registers)")
        print(f"toolgate hook claude  median {tg_median:6.2f} ms   p90 {p(tg, 90):6.2f} ms   "
              f"(the same inside the whole CLI; {rows} rows in all)")
        print(f"minimal Python hook   median {py_median:6.2f} ms   p90 {p(py, 90):6.2f} ms")
        if cc:
            cc_median = statistics.median(cc)
            print(f"cc-toolgate 0.6.3     median {cc_median:6.2f} ms   p90 {p(cc, 90):6.2f} ms   "
                  "(no record kept)")
            print(f"ratio (toolgate-hook / cc-toolgate): median {lh_median / cc_median:.2f}, "
                  f"p90 {p(lh, 90) / p(cc, 90):.2f}")
            print(f"ratio (toolgate hook / cc-toolgate): median {tg_median / cc_median:.2f}, "
                  f"p90 {p(tg, 90) / p(cc, 90):.2f}")
        else:
            print("cc-toolgate: not found (see --peer); not compared")
        print(f"ratio (toolgate-hook / Python): {lh_median / py_median:.2f}")
        if reviewed:
            pa, rv = statistics.median(plain_again), statistics.median(reviewed)
            print(f"toolgate-hook claude  median {pa:6.2f} ms   p90 {p(plain_again, 90):6.2f} ms   "
                  "(again, interleaved with the reviewed project)")
            print(f"  with [review]       median {rv:6.2f} ms   p90 {p(reviewed, 90):6.2f} ms   "
                  f"(an allowed call, never reviewed; ratio {rv / pa:.2f})")
        if others:
            ca = statistics.median(claude_again)
            print(f"toolgate-hook claude  median {ca:6.2f} ms   (again, interleaved with the clients below)")
            for client, t in others.items():
                m = statistics.median(t)
                print(f"toolgate-hook {client:<8} median {m:6.2f} ms   p90 {p(t, 90):6.2f} ms   "
                      f"ratio to claude {m / ca:.2f}")
        print(layout_coverage(lean))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
