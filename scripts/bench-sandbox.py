#!/usr/bin/env python3
"""The start-up cost of `toolgate sandbox`: `toolgate sandbox -- true`
against `bash -c true`, median over many runs.

Each sandboxed run does what a real one does: find and load the policy,
decide whether the command is one the sandbox holds, walk the workspace for
denied and protected paths, build the Landlock ruleset and the seccomp
filter, create the staging directory, enter the user and mount namespaces
(twice), bind the masks and read-only paths, restrict itself, exec `true`,
wait, and clean up.

    scripts/bench-sandbox.py [--runs N] [--no-build] [--profile release|hook]

Both executables that run the sandbox are measured: `toolgate sandbox`,
and `toolgate-hook sandbox`, which is what a hook registered with
`--sandbox` rewrites each shell command to (the lean executable starts
faster). `--profile hook` measures `toolgate-hook` as `cargo install
--profile hook` builds it (fat LTO; its build takes several minutes).

With a policy that allows fetches of one host, each run also starts
toolgate's proxy (a process of its own, outside the sandbox) and gives the
command a network namespace of its own with the proxy's listener in it;
that case is measured too.

The workspace is a small git repository (a few dozen files, two denied
ones, `.git`) in a temporary folder that is removed afterwards. Builds
first (unless --no-build).
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

POLICY = """\
allow = ["Read", "Bash"]
deny  = ["Read(**/*.pem)", "Read(.env*)"]
"""

PROXY_POLICY = POLICY + """[[rule]]
effect = "allow"
match  = ["WebFetch(domain:pypi.org)"]
"""


def measure(argv, runs, cwd, env):
    """Median and p90 wall time, and median CPU time (user + system of
    the process and its children), in seconds."""
    times, cpu = [], []
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        r = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
        if r.returncode != 0:
            sys.exit(f"{argv} exited with {r.returncode}")
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9)], statistics.median(cpu)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--profile", choices=["release", "hook"], default="release")
    args = ap.parse_args()
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if args.profile == "release":
        build = ["cargo", "build", "--release", "-q", "-p", "toolgate"]
        exes = [target / "release" / "toolgate", target / "release" / "toolgate-hook"]
    else:
        build = ["cargo", "build", "--profile", "hook", "-q", "-p", "toolgate", "--bin", "toolgate-hook"]
        exes = [target / "hook" / "toolgate-hook"]
    if not args.no_build:
        subprocess.run(build, cwd=ROOT, check=True)
    exes = [e for e in exes if e.exists()]
    if not exes:
        sys.exit(f"no executable built in {target / args.profile}")

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        (ws / "src").mkdir(parents=True)
        for i in range(40):
            (ws / "src" / f"m{i}.rs").write_text(f"// module {i}\n")
        (ws / "key.pem").write_text("secret\n")
        (ws / ".env").write_text("TOKEN=x\n")
        (ws / "toolgate.toml").write_text(POLICY)
        (Path(tmp) / "proxy.toml").write_text(PROXY_POLICY)
        subprocess.run(["git", "init", "-q", str(ws)], check=True)
        env = dict(os.environ, TOOLGATE_STATE_DIR=str(Path(tmp) / "state"))
        env.pop("TOOLGATE_POLICY", None)

        plain = ["bash", "-c", "true"]
        measure(plain, 10, ws, env)
        for exe in exes:
            sandboxed = [str(exe), "sandbox", "--", "true"]
            proxied = [str(exe), "sandbox", "--policy", str(Path(tmp) / "proxy.toml"),
                       "--workspace", str(ws), "--", "true"]
            # Warm up the page cache and the binary.
            measure(sandboxed, 10, ws, env)
            measure(proxied, 10, ws, env)
            results.append((exe, measure(sandboxed, args.runs, ws, env),
                            measure(proxied, args.runs, ws, env)))
        b_med, b_p90, b_cpu = measure(plain, args.runs, ws, env)

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    ms = lambda s: f"{s * 1000:.2f} ms"
    print(f"runs: {args.runs}, profile {args.profile}, load average {load}")
    print(f"bash -c true: median {ms(b_med)} (p90 {ms(b_p90)}), CPU {ms(b_cpu)}")
    for exe, (s_med, s_p90, s_cpu), (p_med, p_p90, p_cpu) in results:
        name = f"{exe.name} sandbox -- true"
        print(f"{name}: median {ms(s_med)} (p90 {ms(s_p90)}), CPU {ms(s_cpu)}")
        print(f"  with the proxy: median {ms(p_med)} (p90 {ms(p_p90)}), CPU {ms(p_cpu)}")
        print(f"  added by the sandbox: {ms(s_med - b_med)} wall, {ms(s_cpu - b_cpu)} CPU (median against median)")
        print(f"  with the proxy:       {ms(p_med - b_med)} wall, {ms(p_cpu - b_cpu)} CPU (median against median)")


if __name__ == "__main__":
    main()
