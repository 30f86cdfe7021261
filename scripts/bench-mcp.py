#!/usr/bin/env python3
"""Added latency per `tools/call` through `toolgate mcp`.

The same MCP server (`@modelcontextprotocol/server-everything`, its `echo`
tool) is called N times in a row, once directly and once through the
gateway (a policy that allows `echo`, the ledger written for every call).
The client is raw JSON-RPC lines over pipes, so its own cost is small and
the same on both sides; both connections stay open and the calls alternate
between them, so both see the same load. Prints p50 and p99 of each and
the added latency (the difference of the percentiles), and the gateway's
own CPU time per call (its threads' on-CPU time over the measured calls,
from /proc).

    scripts/bench-mcp.py [--calls N] [--no-build] [--profile release|hook] [--elicitation] [--floor]

`--elicitation` has the client declare that it can show approval forms (as
clients that support MCP elicitation do), so that the gateway's approver
for an ask is the form rather than the queue; the calls are allowed either
way.

`--floor` also measures `scripts/relay-floor.c` (built with `cc`), a relay
that only copies the bytes both ways: what two more pipe hops add on this
machine, the least any stdio gateway can add.

Needs scripts/install-mcp.sh; builds toolgate first (unless --no-build):
in release, or with `--profile hook` as `cargo install --profile hook`
builds what users install (fat LTO; several minutes more). Everything it
writes goes to a temporary folder.
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARTS = Path(os.environ.get("TOOLGATE_MCP_DIR", Path.home() / ".cache/toolgate-mcp"))
EVERYTHING = PARTS / "npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
POLICY = 'allow = ["mcp__everything__echo"]\n'


def percentile(xs, p):
    xs = sorted(xs)
    k = (len(xs) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


class Session:
    """One MCP connection over a process's stdin/stdout, raw JSON-RPC lines."""

    def __init__(self, cmd, env, capabilities):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env, bufsize=0)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": capabilities,
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.request("tools/list", {})

    def send(self, obj):
        self.p.stdin.write((json.dumps(obj) + "\n").encode())

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("the server ended early")
            msg = json.loads(line)
            if msg.get("id") == rid:
                return msg

    def echo(self):
        """One `echo` call; its latency in microseconds."""
        t = time.perf_counter_ns()
        r = self.request("tools/call", {"name": "echo", "arguments": {"message": "hello"}})
        dt = (time.perf_counter_ns() - t) / 1000
        if r.get("result", {}).get("isError") or "error" in r:
            raise SystemExit(f"echo failed: {r}")
        return dt

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


def cpu_ns(pid):
    """On-CPU time of every thread of process `pid` so far, in nanoseconds
    (the first field of each thread's schedstat)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--profile", choices=["release", "hook"], default="release")
    ap.add_argument("--elicitation", action="store_true")
    ap.add_argument("--floor", action="store_true")
    a = ap.parse_args()
    if not EVERYTHING.exists():
        raise SystemExit("run scripts/install-mcp.sh first")
    if not a.no_build:
        subprocess.run(["cargo", "build", "--profile", a.profile, "-q", "-p", "toolgate",
                        "--bin", "toolgate"], cwd=ROOT, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    toolgate = target / a.profile / "toolgate"
    server = ["node", str(EVERYTHING), "stdio"]
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "toolgate.toml").write_text(POLICY)
        env = dict(os.environ, TOOLGATE_STATE_DIR=str(Path(tmp, "state")))
        gw = [str(toolgate), "mcp", "--policy", str(Path(tmp, "toolgate.toml")),
              "--name", "everything", "--"] + server
        # Both connections stay open and calls alternate between them, so
        # that both see the same machine load (this is a shared machine).
        caps = {"elicitation": {"form": {}}} if a.elicitation else {}
        direct_s, through_s = Session(server, env, caps), Session(gw, env, caps)
        floor_s = None
        if a.floor:
            relay = Path(tmp, "relay-floor")
            subprocess.run(["cc", "-O2", "-o", str(relay), str(ROOT / "scripts/relay-floor.c")],
                           check=True)
            floor_s = Session([str(relay)] + server, env, caps)
        sessions = [s for s in (direct_s, through_s, floor_s) if s]
        for _ in range(200):
            for s in sessions:
                s.echo()
        times = {id(s): [] for s in sessions}
        cpu_start = cpu_ns(through_s.p.pid)
        for _ in range(a.calls):
            for s in sessions:
                times[id(s)].append(s.echo())
        cpu = (cpu_ns(through_s.p.pid) - cpu_start) / 1000 / a.calls
        for s in sessions:
            s.close()
        direct, through = times[id(direct_s)], times[id(through_s)]
    d50, d99 = percentile(direct, 50), percentile(direct, 99)
    g50, g99 = percentile(through, 50), percentile(through, 99)
    print(f"{a.calls} calls of server-everything `echo`, microseconds per call")
    print(f"  direct           p50 {d50:8.1f}   p99 {d99:8.1f}")
    print(f"  toolgate mcp     p50 {g50:8.1f}   p99 {g99:8.1f}")
    print(f"  added            p50 {g50 - d50:8.1f}   p99 {g99 - d99:8.1f}")
    print(f"  gateway CPU      {cpu:8.1f} per call")
    if floor_s:
        f50, f99 = percentile(times[id(floor_s)], 50), percentile(times[id(floor_s)], 99)
        print(f"  a bare relay     p50 {f50:8.1f}   p99 {f99:8.1f}")
        print(f"  its added        p50 {f50 - d50:8.1f}   p99 {f99 - d99:8.1f}")


if __name__ == "__main__":
    main()
