#!/usr/bin/env python3
"""Writes crates/cli/hook-layout.txt: the functions a hook process runs.

`toolgate-hook` is started once per tool call, and much of its start-up is
the kernel mapping in the pages of code it touches (one page fault per
64 KiB window of the executable that holds any of it). The release build
links the functions listed in crates/cli/hook-layout.txt first and next to
each other (LLD's `--symbol-ordering-file`, see crates/cli/build.rs), so the
code of a hook run sits in a few windows instead of being spread over the
whole executable.

This script finds those functions: it runs the release `toolgate-hook`
under valgrind's callgrind on realistic inputs of each client (allowed,
denied and asked calls; shell commands, file tools, an MCP tool), and
writes every function of the executable that ran: those of the first
input (an allowed `git status`, the commonest call), then what each further
input adds. Run it again after changes to the hook's path; a stale list
is harmless (names that no longer exist are skipped), only less effective.

    scripts/hook-layout.py [--no-build]

Needs valgrind. Symbol names are the same in any checkout of the same
source, dependencies and toolchain (cargo hashes a path dependency by its
place in the workspace, not on disk).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "crates/cli/hook-layout.txt"

POLICY = """\
allow = ["Read", "Bash(git status)", "Bash(git diff *)", "Bash(cargo test *)", "Edit(src/**)",
         "mcp__fs__read_text_file"]
ask   = ["Bash(git push *)"]
deny  = ["Read(.env)", "Bash(rm *)", "Bash(curl *)", "WebFetch(domain:*.internal)"]
"""


def inputs(project: Path):
    """(client, stdin) pairs covering the hook's common paths."""
    def claude(tool, tool_input, n):
        return ("claude", {
            "session_id": "2541e145-8d0e-4a38-9c4f-5f3b0e6a1c11",
            "transcript_path": "/home/dev/.claude/projects/-layout/2541e145.jsonl",
            "cwd": str(project), "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input, "tool_use_id": f"toolu_{n:06d}",
        })
    yield claude("Bash", {"command": "git status", "description": "status"}, 1)
    yield claude("Bash", {"command": "git status && rm -rf target"}, 2)
    yield claude("Bash", {"command": "git push origin main"}, 3)
    yield claude("Bash", {"command": "cargo test -p x 2>&1 | tail -n 20"}, 4)
    yield claude("Read", {"file_path": str(project / "src/lib.rs")}, 5)
    yield claude("Read", {"file_path": str(project / ".env")}, 6)
    yield claude("Edit", {"file_path": str(project / "src/lib.rs"),
                          "old_string": "a", "new_string": "b"}, 7)
    yield claude("mcp__fs__read_text_file", {"path": str(project / "src/lib.rs")}, 8)
    yield ("gemini", {
        "session_id": "g-1", "transcript_path": "/tmp/t.json", "cwd": str(project),
        "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00Z",
        "tool_name": "run_shell_command", "tool_input": {"command": "git diff HEAD"},
    })
    yield ("codex", {
        "session_id": "c-1", "transcript_path": None, "cwd": str(project),
        "hook_event_name": "PreToolUse", "model": "gpt-5", "permission_mode": "default",
        "turn_id": "t-1", "tool_name": "Bash", "tool_use_id": "call-1",
        "tool_input": {"command": "git status"},
    })


def executed(callgrind_out: Path, exe: Path):
    """Mangled names of the functions of `exe` that ran, in first-seen order.

    Every function that ran has a `fn=` block of its own cost, in the
    object named by the `ob=` line before it; names and objects are
    compressed to `(id)` after their first appearance, under any key.
    """
    names, objects, seen = {}, {}, []
    current_ob = None
    exe_s = str(exe.resolve())
    for line in callgrind_out.read_text(errors="replace").splitlines():
        m = re.match(r"^(c?ob|c?fn|f[lie]|cf[il])=\((\d+)\)(?: (.*))?$", line)
        if not m:
            continue
        key, ref, text = m.groups()
        table = objects if key.endswith("ob") else names if key.endswith("fn") else None
        if table is None:
            continue
        if text is not None:
            table[ref] = text
        if key == "ob":
            current_ob = objects.get(ref)
        elif key == "fn":
            # `name'2` is callgrind's mark for a recursive call; `0x...` and
            # `(below main)` are code without a symbol.
            name = re.sub(r"'\d+$", "", names.get(ref) or "")
            if name[:1] in ("", "(") or name.startswith("0x"):
                continue
            if current_ob == exe_s and name not in seen:
                seen.append(name)
    return seen


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-build", action="store_true", help="use the existing hook-profile build")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("valgrind is needed (apt-get install valgrind)")
    if not args.no_build:
        subprocess.run(["cargo", "build", "--profile", "hook", "-p", "toolgate", "--quiet"],
                       cwd=ROOT, check=True)
    exe = ROOT / "target/hook/toolgate-hook"
    if not exe.is_file():
        sys.exit(f"{exe} is missing: run without --no-build")

    order = []
    with tempfile.TemporaryDirectory(prefix="toolgate-layout-") as tmp:
        tmp = Path(tmp).resolve()
        project = tmp / "project"
        (project / "src").mkdir(parents=True)
        (project / "src/lib.rs").write_text("pub fn a() {}\n")
        (project / "toolgate.toml").write_text(POLICY)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp / "home"),
               "TOOLGATE_STATE_DIR": str(tmp / "state"), "LANG": "C.UTF-8"}
        for n, (client, payload) in enumerate(inputs(project)):
            out = tmp / f"callgrind.{n}"
            done = subprocess.run(
                ["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=yes",
                 f"--callgrind-out-file={out}", str(exe), client],
                input=json.dumps(payload).encode(), capture_output=True, env=env, cwd=project)
            if not out.exists():
                sys.exit(f"callgrind wrote nothing for input {n}: {done.stderr.decode()[-2000:]}")
            # Each input's new functions in name order: the list is the same
            # from one run of this script to the next.
            known = set(order)
            order += sorted({name for name in executed(out, exe) if name not in known})
    if not order:
        sys.exit("no functions of toolgate-hook were seen")
    header = [
        "# The functions a toolgate-hook run executes, linked first and together",
        "# (LLD --symbol-ordering-file, crates/cli/build.rs). Written by",
        "# scripts/hook-layout.py; stale names are skipped by the linker.",
    ]
    OUT.write_text("\n".join(header + order) + "\n")
    print(f"{len(order)} functions written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
