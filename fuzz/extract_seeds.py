#!/usr/bin/env python3
"""Rebuilds fuzz/seeds/ from the test suites: policies, calls, shell
commands and hook inputs that the tests already use.

Usage: python3 fuzz/extract_seeds.py [REPO_ROOT]
"""
import re, os, glob, hashlib, json, sys
root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
out = os.path.join(root, "fuzz/seeds")

def lits(src):
    """Every Rust string literal (plain and raw) in a source text."""
    res = []
    i = 0
    pat = re.compile(r'r(#*)"|"')
    while True:
        m = pat.search(src, i)
        if not m: break
        if m.group(0).startswith('r'):
            # make sure `r` starts a token
            if m.start() > 0 and (src[m.start()-1].isalnum() or src[m.start()-1] == '_'):
                i = m.start() + 1; continue
            hashes = m.group(1)
            end = src.find('"' + hashes, m.end())
            if end < 0: break
            res.append(src[m.end():end]); i = end + 1 + len(hashes)
        else:
            if m.start() > 0 and src[m.start()-1] == "'":
                i = m.end(); continue
            j = m.end(); buf = []
            while j < len(src) and src[j] != '"':
                if src[j] == '\\':
                    c = src[j+1]
                    if c == 'n': buf.append('\n')
                    elif c == 't': buf.append('\t')
                    elif c == '\n':
                        j += 2
                        while j < len(src) and src[j] in ' \t\n': j += 1
                        continue
                    elif c in '\\"\'0': buf.append({'0': '\0'}.get(c, c))
                    else: buf.append('\\' + c)
                    j += 2
                else:
                    buf.append(src[j]); j += 1
            res.append(''.join(buf)); i = j + 1
    return res

def save(target, texts):
    d = os.path.join(out, target); os.makedirs(d, exist_ok=True)
    n = 0
    for t in sorted(set(texts)):
        if not t.strip(): continue
        h = hashlib.sha1(t.encode()).hexdigest()[:16]
        open(os.path.join(d, h), "w").write(t); n += 1
    print(target, n)

def read(p): return open(os.path.join(root, p)).read()

# Policies: the example, the built-in policy, and TOML texts in the tests.
pol = [read("examples/toolgate.toml")]
for f in glob.glob(os.path.join(root, "crates/*/tests/*.rs")) + glob.glob(os.path.join(root, "crates/policy/src/*.rs")):
    for s in lits(open(f).read()):
        if re.search(r'^\s*(\[policy\]|\[\[rule\]\]|\[\[test\]\]|\[tool\.|allow\s*=|ask\s*=|deny\s*=|default\s*=)', s, re.M):
            pol.append(s)
save("policy_toml", pol)

# Calls: JSON objects with a tool name in the tests.
calls = []
for f in glob.glob(os.path.join(root, "crates/*/tests/*.rs")) + glob.glob(os.path.join(root, "crates/policy/src/*.rs")):
    for s in lits(open(f).read()):
        t = s.strip()
        if t.startswith("{") and ('"tool"' in t or '"name"' in t or '"function"' in t):
            calls.append(t)
for f in glob.glob(os.path.join(root, "crates/hook/tests/fixtures/*/*.json")):
    v = json.load(open(f))
    if "tool_name" in v:
        calls.append(json.dumps({"id": "c1", "tool": v["tool_name"], "client": os.path.basename(os.path.dirname(f)), "cwd": v.get("cwd"), "input": v.get("tool_input")}))
save("call_parse", calls)

# Shell commands: the first argument of each `check(..)` in the analyser's tests.
src = read("crates/shell/tests/analyze.rs")
cmds = []
for m in re.finditer(r'\bcheck\(\s*', src):
    l = lits(src[m.end():m.end()+4000])
    rest = src[m.end():].lstrip()
    if rest.startswith('"') or rest.startswith('r"') or rest.startswith('r#'):
        cmds.append(l[0])
for f in glob.glob(os.path.join(root, "crates/shell/tests/*.rs")):
    for s in lits(open(f).read()):
        if len(s) > 1 and not s.startswith("/") and re.match(r'^[\x20-\x7e\n\t]+$', s) and re.search(r'[ ;|&$`<>()]', s):
            cmds.append(s)
save("shell_analyze", cmds)

# Calls to decide: the calls above, and each shell command as a `run_shell` call.
save("decide_call", calls + [json.dumps({"tool": "run_shell", "input": {"command": c}}) for c in cmds])

for client in ("claude", "gemini"):
    save(client + "_input", [open(f).read() for f in glob.glob(os.path.join(root, "crates/hook/tests/fixtures/%s/*.json" % client))]
         + [s for f in glob.glob(os.path.join(root, "crates/hook/tests/*.rs")) for s in lits(open(f).read()) if s.strip().startswith("{") and "tool_name" in s])
