#!/usr/bin/env python3
"""The runner behind scripts/flake-hunt.sh: runs each suite N times in a row
and tallies every test's outcomes from the runner's own per-test lines
(cargo's libtest, unittest -v, minitest -v, scripts/c-tests.sh). Start it
through flake-hunt.sh, which starts the services and the load.

A suite whose process fails with no failed test named (a crash, a timeout,
a failing setup) counts as one failure of the pseudo-test "(suite)".
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "flake-hunt")
SUITE_TIMEOUT = 1800  # seconds: a hung suite is a failure, not a hung hunt

# The failover suites print figures and run one test at a time, as test.sh runs them.
SERIAL_TARGETS = {"failover", "failover_matrix"}


def rust_binaries():
    """{target name: test binary} for the library's unit tests and tests/*.rs."""
    out = subprocess.run(
        ["cargo", "test", "--no-run", "--lib", "--bins", "--tests", "--message-format=json", "--quiet"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    bins = {}
    for line in out.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        if not msg.get("profile", {}).get("test"):
            continue
        kind = msg["target"]["kind"]
        name = "lib" if any(k.endswith("lib") for k in kind) else msg["target"]["name"]
        if "bin" in kind:
            name = f"bin-{name}"
        bins[name] = msg["executable"]
    return bins


def python_sites():
    """The Python package and the `confluent_kafka` compatibility package,
    each installed as a user would (pip, no build isolation), as
    scripts/bindings-test.sh installs them."""
    dirs = []
    for pkg in ("bindings/python", "bindings/python/compat"):
        d = tempfile.mkdtemp(prefix="flake-hunt-py-")
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
             "--no-deps", "--no-build-isolation", "--target", d, pkg],
            cwd=ROOT, check=True,
        )
        subprocess.run(["rm", "-rf", f"{pkg}/build"], cwd=ROOT)
        dirs.append(d)
    return dirs


# The Python files scripts/bindings-test.sh runs with more than gregor, and
# how: {file: [(variant, KAFKA_IMPL, path)]}, path "site" (gregor's package),
# "compat:site" (confluent_kafka being gregor's compatibility package) or ""
# (the real confluent-kafka).
PYTHON_VARIANTS = {
    "test_compat": [("confluent_kafka", "confluent_kafka", ""), ("gregor", "gregor", "site"),
                    ("compat", "confluent_kafka", "compat:site")],
    "test_compat_package": [("", "gregor", "compat:site")],
    "test_config": [("confluent_kafka", "confluent_kafka", ""), ("gregor", "gregor", "site")],
    "test_kip848": [("confluent_kafka", "confluent_kafka", ""), ("gregor", "gregor", "site")],
}


def suites(wanted):
    """[(suite name, argv, env, parser)] for the suites asked for."""
    def want(kind, name):
        return not wanted or kind in wanted or f"{kind}:{name}" in wanted

    found = []
    if any(w == "rust" or w.startswith("rust:") for w in wanted) or not wanted:
        for name, exe in sorted(rust_binaries().items()):
            if want("rust", name):
                argv = [exe] + (["--test-threads=1"] if name in SERIAL_TARGETS else [])
                found.append((f"rust:{name}", argv, {}, parse_libtest))
    for f in sorted(os.listdir(os.path.join(ROOT, "c-tests"))):
        name = f[:-2]
        if f.endswith(".c") and want("c", name):
            found.append((f"c:{name}", ["scripts/c-tests.sh", name], {}, parse_c))
    # the C tests test.sh also runs under valgrind (its list, read from it)
    with open(os.path.join(ROOT, "scripts/test.sh")) as f:
        m = re.search(r"scripts/c-tests\.sh --valgrind ([\w ]+)", f.read())
    for name in (m.group(1).split() if m else []):
        if want("valgrind", name):
            found.append((f"valgrind:{name}", ["scripts/c-tests.sh", "--valgrind", name], {}, parse_c))
    py = [f[:-3] for f in sorted(os.listdir(os.path.join(ROOT, "bindings/python/tests")))
          if f.startswith("test_") and f.endswith(".py") and want("python", f[:-3])]
    if py:
        site, compat = python_sites()
        paths = {"site": site, "compat:site": f"{compat}:{site}", "": ""}
        lib = os.path.join(ROOT, "target/debug/libgregor.so")
        for name in py:
            for variant, impl, path in PYTHON_VARIANTS.get(name, [("", "gregor", "site")]):
                env = {"KAFKA_IMPL": impl, "PYTHONPATH": paths[path], "GREGOR_LIBRARY": lib}
                suite = f"python:{name}" + (f"[{variant}]" if variant else "")
                found.append((suite, [sys.executable, f"bindings/python/tests/{name}.py", "-v"],
                              env, parse_unittest))
    for f in sorted(os.listdir(os.path.join(ROOT, "bindings/ruby/test"))):
        name = f[:-3]
        if f.startswith("test_") and f.endswith(".rb") and want("ruby", name):
            env = {"GREGOR_LIBRARY": os.path.join(ROOT, "target/debug/libgregor.so")}
            found.append((f"ruby:{name}", ["ruby", "-Ibindings/ruby/lib", f"bindings/ruby/test/{f}", "-v"],
                          env, parse_minitest))
    if want("mock", "mock"):
        found.append(("mock", ["scripts/mock-tests.sh"], {}, parse_none))
    return found


def first_line(lines):
    for line in lines:
        line = line.strip()
        if line:
            return line[:160]
    return ""


def parse_libtest(out):
    """{test: (ok, message)} from libtest's `test NAME ... ok|FAILED` lines."""
    res = {}
    for m in re.finditer(r"^test (\S+) \.\.\. (ok|FAILED)$", out, re.M):
        res[m.group(1)] = (m.group(2) == "ok", "")
    for m in re.finditer(r"^---- (\S+) stdout ----\n(.*?)(?=^---- |^failures:$)", out, re.M | re.S):
        body = m.group(2)
        p = re.search(r"panicked at [^\n]*:\n(.*)", body)
        msg = first_line(p.group(1).splitlines()) if p else first_line(body.splitlines()[-3:])
        res[m.group(1)] = (False, msg)
    return res


def parse_unittest(out):
    """{test: (ok, message)} from `python3 test_x.py -v`: every test named on
    a `test_x (module.Class.test_x)` line passed unless a FAIL or ERROR block
    names it (a test's own output may come between its name and its "ok")."""
    res = {}
    for m in re.finditer(r"^(test\w*) \(([\w.]+)\)", out, re.M):
        name = f"{m.group(2).rsplit('.' + m.group(1), 1)[0]}.{m.group(1)}"
        res[name] = (True, "")
    blocks = re.split(r"^={20,}$", out, flags=re.M)
    for b in blocks[1:]:
        h = re.match(r"\n(?:FAIL|ERROR): (test\w*) \(([\w.]+)\)", b)
        if not h:
            continue
        name = f"{h.group(2).rsplit('.' + h.group(1), 1)[0]}.{h.group(1)}"
        parts = b.split("-" * 70)
        tb = parts[1] if len(parts) > 1 else b  # the traceback, between the rules
        tail = [l for l in tb.splitlines() if l.strip() and not l.startswith(("Ran ", "FAILED", "OK"))]
        res[name] = (False, first_line(reversed(tail)) if tail else "")
    return res


def parse_minitest(out):
    """{test: (ok, message)} from `ruby test_x.rb -v`."""
    res = {}
    # a test's own output may come between "Class#test = " and "1.00 s = ."
    for m in re.finditer(r"^(\w+#\w+) = .*?[\d.]+ s = ([.FES])$", out, re.M | re.S):
        res[m.group(1)] = (m.group(2) in ".S", "")
    for m in re.finditer(r"^\s+\d+\) (?:Failure|Error):\n(\w+#\w+)[^\n]*\n(.*?)(?=^\s+\d+\) |^\d+ runs|\Z)",
                         out, re.M | re.S):
        res[m.group(1)] = (False, first_line(m.group(2).splitlines()))
    return res


def parse_c(out):
    """{test: (ok, message)} from scripts/c-tests.sh's PASS/FAIL lines."""
    res = {}
    for m in re.finditer(r"^(PASS|FAIL) (\w+) \(([^)]*)\)\n?((?:    .*\n?)*)", out, re.M):
        detail = [l for l in m.group(4).splitlines() if "FAIL" in l or "error" in l.lower()]
        res[m.group(2)] = (m.group(1) == "PASS", first_line(detail) or m.group(3))
    return res


def parse_none(_out):
    return {}


def report(tally, runs_done, started, final):
    """Writes target/flake-hunt/table.txt (after every run, so a hunt cut
    short leaves its table) and, at the end, prints the summary. Returns how
    many tests failed at least once."""
    rows = sorted(tally.items(), key=lambda kv: (-kv[1][1], kv[0]))
    head = f"{'test':<90} {'runs':>5} {'fail':>5}  first failure"
    full = [head] + [f"{k:<90} {n:>5} {f:>5}  {msg}" for k, (n, f, msg) in rows]
    fails = sum(1 for _, (_, f, _) in rows if f)
    # stdout: each suite's totals, then every test that failed at least once
    per_suite = OrderedDict()
    for k, (n, f, _) in tally.items():
        s = per_suite.setdefault(k.split(" ", 1)[0], [0, 0, 0])
        s[0] += 1
        s[1] = max(s[1], n)
        s[2] += f
    summary = [f"{'suite':<40} {'tests':>6} {'runs':>5} {'failures':>9}"]
    summary += [f"{k:<40} {t:>6} {n:>5} {f:>9}" for k, (t, n, f) in per_suite.items()]
    failed_rows = [head] + [line for line, (_, (_, f, _)) in zip(full[1:], rows) if f]
    closing = (f"{len(tally)} tests, {fails} with a failure, {runs_done} runs, "
               f"{(time.time() - started) / 60:.0f} min")
    text = "\n".join(summary + [""] + (failed_rows if fails else ["no test failed"]) + [closing])
    if final:
        print(text)
    with open(os.path.join(OUT, "table.txt"), "w") as f:
        f.write("\n".join(summary + [""] + full + [closing]) + "\n")
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--minutes", type=float, default=0,
                    help="start no new run after this many minutes (0: no limit)")
    args = ap.parse_args()
    wanted = {w for w in args.only.split(",") if w}
    os.makedirs(OUT, exist_ok=True)
    todo = suites(wanted)
    if not todo:
        sys.exit(f"flake hunt: no suite matches {args.only!r}")
    # test -> [runs, failures, first failure message]
    tally = OrderedDict()
    started = time.time()
    runs_done = 0
    for run in range(1, args.runs + 1):
        if args.minutes and run > 1 and time.time() - started > args.minutes * 60:
            print(f"[flake hunt] {args.minutes:g} minutes passed: stopping after {runs_done} runs",
                  file=sys.stderr, flush=True)
            break
        for name, argv, extra, parse in todo:
            env = dict(os.environ, **extra)
            t0 = time.time()
            try:
                p = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True,
                                   errors="replace", timeout=SUITE_TIMEOUT)
                out, rc = p.stdout + p.stderr, p.returncode
            except subprocess.TimeoutExpired as e:
                out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
                rc = -1
                out += f"\n(suite timed out after {SUITE_TIMEOUT} s)"
            results = parse(out)
            failed = [t for t, (ok, _) in results.items() if not ok]
            if rc != 0 and not failed:
                results[""] = (False, first_line(reversed(out.strip().splitlines())) or f"exit {rc}")
                failed = [""]
            for t, (ok, msg) in results.items():
                key = f"{name} {t}".strip() if t else f"{name} (suite)"
                row = tally.setdefault(key, [0, 0, ""])
                row[0] += 1
                if not ok:
                    row[1] += 1
                    row[2] = row[2] or msg or f"exit {rc}"
            if failed:
                path = os.path.join(OUT, f"{name.replace(':', '-')}.run{run}.log")
                with open(path, "w") as f:
                    f.write(out)
            print(f"[flake hunt] run {run}/{args.runs} {name}: {len(results)} tests, "
                  f"{len(failed)} failed, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
        runs_done = run
        report(tally, runs_done, started, final=False)
    fails = report(tally, runs_done, started, final=True)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
