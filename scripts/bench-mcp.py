#!/usr/bin/env python3
"""Added latency per `tools/call` through `toolgate mcp`.

The same MCP server (`@modelcontextprotocol/server-everything`, its `echo`
tool) is called N times in a row, once directly and once through the
gateway (a policy that allows `echo`, the ledger written for every call).
The client is raw JSON-RPC lines over pipes, so its own cost is small and
the same on both sides. Prints p50 and p99 of each and the added latency.

    scripts/bench-mcp.py [--calls N] [--no-build]

Needs scripts/install-mcp.sh; builds toolgate in release first (unless
--no-build). Everything it writes goes to a temporary folder.
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


def run(cmd, calls, env, warmup=100):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env, bufsize=0)
    out = p.stdout

    def send(obj):
        p.stdin.write((json.dumps(obj) + "\n").encode())

    def reply(want):
        while True:
            line = out.readline()
            if not line:
                raise SystemExit(f"{cmd[0]} ended early")
            msg = json.loads(line)
            if msg.get("id") == want:
                return msg

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}})
    reply(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    reply(1)
    times = []
    for i in range(warmup + calls):
        rid = 10 + i
        t = time.perf_counter_ns()
        send({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
              "params": {"name": "echo", "arguments": {"message": "hello"}}})
        r = reply(rid)
        dt = time.perf_counter_ns() - t
        if r.get("result", {}).get("isError"):
            raise SystemExit(f"echo refused: {r}")
        if i >= warmup:
            times.append(dt / 1000)
    p.stdin.close()
    p.wait(timeout=10)
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    if not EVERYTHING.exists():
        raise SystemExit("run scripts/install-mcp.sh first")
    if not a.no_build:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "toolgate"], cwd=ROOT, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    toolgate = target / "release/toolgate"
    server = ["node", str(EVERYTHING), "stdio"]
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "toolgate.toml").write_text(POLICY)
        env = dict(os.environ, TOOLGATE_STATE_DIR=str(Path(tmp, "state")))
        gw = [str(toolgate), "mcp", "--policy", str(Path(tmp, "toolgate.toml")),
              "--name", "everything", "--"] + server
        direct = run(server, a.calls, env)
        through = run(gw, a.calls, env)
    d50, d99 = percentile(direct, 50), percentile(direct, 99)
    g50, g99 = percentile(through, 50), percentile(through, 99)
    print(f"{a.calls} calls of server-everything `echo`, microseconds per call")
    print(f"  direct           p50 {d50:8.1f}   p99 {d99:8.1f}")
    print(f"  toolgate mcp     p50 {g50:8.1f}   p99 {g99:8.1f}")
    print(f"  added            p50 {g50 - d50:8.1f}   p99 {g99 - d99:8.1f}")


if __name__ == "__main__":
    main()
