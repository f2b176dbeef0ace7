#!/usr/bin/env python3
"""The layer check: every module path the library's code names (`crate::...`,
`super::...`, `self::...`, `gregor::...`, `use` trees included; comments and
strings left out) must point at the same layer or one below.

The layers are read from the ```layers block of docs/ARCHITECTURE.md, so the
map and the check are one table. Each line of that block is

    <module path>: <module path> <module path> ...

meaning the module on the left may use the modules on the right (and their
submodules, and what they in turn may use); a module always may use itself
and its own submodules, and falls under the line of its closest listed
ancestor. Lines are ordered bottom up and a module may name only modules
listed above its own line, so the table cannot describe a cycle. A module of the crate that no line names
is an error, so a new module gets a place in the map.

Inside a module, its submodules (siblings) must not form a cycle either: the
check reports every sibling cycle with the imports that close it.

No source file of the crate may be longer than 1,500 lines.

Code under `#[cfg(test)]` (test modules and files) is checked too, except the
test-only modules a line marks with a leading `test ` (not checked, and
usable from test code of any layer).

Usage: scripts/layers.py [--graph]   (exit 1 on a violation)
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "src")
DOC = os.path.join(ROOT, "docs", "ARCHITECTURE.md")
MAX_LINES = 1500


def strip(text):
    """Blanks comments, string and char literals (newlines kept, so line
    numbers stay right)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\[^']{1,10}|[^'\\])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def parse_tree(s, i):
    """Parses a path tree at s[i:] (after `crate::`); returns (paths, end)."""
    paths = []
    if s[i] == "{":
        i += 1
        while True:
            while s[i].isspace() or s[i] == ",":
                i += 1
            if s[i] == "}":
                return paths, i + 1
            sub, i = parse_tree(s, i)
            paths.extend(sub)
    m = re.compile(IDENT).match(s, i)
    if not m:
        return [[]], i
    seg = m.group(0)
    i = m.end()
    j = i
    while j < len(s) and s[j] in " \t\n":
        j += 1
    if s.startswith("::", j):
        j += 2
        while s[j] in " \t\n":
            j += 1
        if s[j] == "*":
            return [[seg]], j + 1
        sub, i = parse_tree(s, j)
        return [[seg] + p for p in sub], i
    return [[seg]], i


class Module:
    def __init__(self, path, file, test):
        self.path = path  # tuple of segments
        self.file = file
        self.test = test


def find_mods(text, stripped):
    """`mod x;` declarations with their #[path] and #[cfg(test)], and the
    modules src/lib.rs's `inside!(x);` declares. A module declared twice
    (under two `cfg`s) is yielded once."""
    seen = set()
    for m in re.finditer(r"((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;", stripped):
        attrs = text[m.start(1):m.end(1)]
        pm = re.search(r'#\[path\s*=\s*"([^"]+)"\]', attrs)
        if m.group(2) not in seen:
            seen.add(m.group(2))
            yield m.group(2), (pm.group(1) if pm else None), "cfg(test)" in attrs
    for m in re.finditer(r"\binside!\s*\(\s*(" + IDENT + r")\s*\)\s*;", stripped):
        if m.group(1) not in seen:
            seen.add(m.group(1))
            yield m.group(1), None, False


def collect(modpath, file, test, mods):
    mods[modpath] = Module(modpath, file, test)
    text = open(file).read()
    stripped = strip(text)
    d = os.path.dirname(file)
    base = os.path.basename(file)
    own_dir = d if base in ("mod.rs", "lib.rs") else os.path.join(d, base[:-3])
    for name, path, t in find_mods(text, stripped):
        if path:
            f = os.path.normpath(os.path.join(d, path))
        elif os.path.exists(os.path.join(own_dir, name + ".rs")):
            f = os.path.join(own_dir, name + ".rs")
        else:
            f = os.path.join(own_dir, name, "mod.rs")
        collect(modpath + (name,), f, test or t, mods)


def inline_scopes(stripped):
    """(start, end, name, is_test) of each inline `mod name { ... }`."""
    scopes = []
    for m in re.finditer(r"((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*\{", stripped):
        depth, j = 1, m.end()
        while j < len(stripped) and depth:
            if stripped[j] == "{":
                depth += 1
            elif stripped[j] == "}":
                depth -= 1
            j += 1
        scopes.append((m.end(), j, m.group(2), "cfg(test)" in m.group(1)))
    return scopes


def references(mod, mods):
    """(line, target module path, is_test) for every path the file names."""
    text = open(mod.file).read()
    s = strip(text) + "\n\n"
    scopes = inline_scopes(s)
    refs = []
    for m in re.finditer(r"(?<![A-Za-z0-9_$])(crate|gregor|super|self)\s*::\s*", s):
        pos = m.start()
        inner = [sc for sc in scopes if sc[0] <= pos < sc[1]]
        here = mod.path + tuple(sc[2] for sc in sorted(inner))
        test = mod.test or any(sc[3] for sc in inner)
        kind = m.group(1)
        i = m.end()
        if kind in ("crate", "gregor"):
            # `gregor::` is this crate too (`extern crate self as gregor`)
            base = ()
        elif kind == "self":
            base = here
        else:
            base = here[:-1]
            while s.startswith("super", i):
                k = re.compile(r"super\s*::\s*").match(s, i)
                if not k:
                    break
                base, i = base[:-1], k.end()
        if i < len(s) and (s[i] == "{" or re.match(IDENT, s[i])):
            paths, _ = parse_tree(s, i)
        else:
            paths = [[]]
        line = s.count("\n", 0, pos) + 1
        for p in paths:
            full = base + tuple(x for x in p if x not in ("self",))
            # the longest prefix that is a module
            target = ()
            for k in range(len(full), -1, -1):
                if full[:k] in mods:
                    target = full[:k]
                    break
            refs.append((line, target, test))
    return refs


def read_table():
    text = open(DOC).read()
    m = re.search(r"```layers\n(.*?)```", text, re.S)
    if not m:
        sys.exit(f"{DOC}: no ```layers block")
    order, allowed, testonly = [], {}, set()
    for raw in m.group(1).splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        left, _, right = line.partition(":")
        left = left.strip()
        if left.startswith("test "):
            left = left[5:].strip()
            testonly.add(tuple(left.split("::")))
        key = tuple(left.split("::"))
        uses = [tuple(x.split("::")) for x in right.split()]
        for u in uses:
            if u not in allowed and not any(u[:len(o)] == o for o in allowed):
                sys.exit(f"{DOC}: `{left}` uses `{'::'.join(u)}`, which is not on a line above it")
        order.append(key)
        allowed[key] = uses
    return order, allowed, testonly


def owner(path, order):
    """The table entry a module falls under: its longest listed prefix."""
    best = None
    for o in order:
        if path[:len(o)] == o and (best is None or len(o) > len(best)):
            best = o
    return best


def closure(key, allowed):
    seen, todo = set(), [key]
    while todo:
        k = todo.pop()
        for u in allowed.get(k, []):
            if u not in seen:
                seen.add(u)
                todo.append(u)
    return seen


def main():
    mods = {}
    collect((), os.path.join(SRC, "lib.rs"), False, mods)
    order, allowed, testonly = read_table()
    errors = []
    for p, mod in sorted(mods.items()):
        if p and owner(p, order) is None:
            errors.append(f"{os.path.relpath(mod.file, ROOT)}: module `{'::'.join(p)}` has no line in the layer table of docs/ARCHITECTURE.md")
    edges = {}
    for p, mod in sorted(mods.items()):
        if not p:
            continue
        me = owner(p, order)
        reach = closure(me, allowed) if me else set()
        for line, target, test in references(mod, mods):
            if not target:
                continue
            edges.setdefault((p, target), (os.path.relpath(mod.file, ROOT), line))
            if me is None or me in testonly:
                continue
            to = owner(target, order)
            if to is None or to == me or target[:len(p)] == p:
                continue
            if to in testonly and test:
                continue
            ok = any(to[:len(u)] == u for u in reach) or to[:len(me)] == me
            if not ok:
                errors.append(f"{os.path.relpath(mod.file, ROOT)}:{line}: `{'::'.join(p)}` uses `{'::'.join(target)}`, "
                              f"but `{'::'.join(me)}` may use only: {', '.join('::'.join(u) for u in allowed[me]) or 'nothing'}")
    # no source file of the crate over MAX_LINES: a file that long holds
    # more than one room
    for p, mod in sorted(mods.items()):
        with open(mod.file) as f:
            n = sum(1 for _ in f)
        if n > MAX_LINES:
            errors.append(f"{os.path.relpath(mod.file, ROOT)}: {n} lines, more than {MAX_LINES}: split it")
    # sibling cycles inside every module
    for parent in sorted(mods):
        kids = sorted(k for k in mods if len(k) == len(parent) + 1 and k[:len(parent)] == parent)
        graph = {k: set() for k in kids}
        for (a, b) in edges:
            ka = next((k for k in kids if a[:len(k)] == k), None)
            kb = next((k for k in kids if b[:len(k)] == k), None)
            if ka and kb and ka != kb:
                graph[ka].add(kb)
        for cycle in cycles(graph):
            where = []
            for x, y in zip(cycle, cycle[1:] + cycle[:1]):
                f, ln = next(v for (a, b), v in sorted(edges.items()) if a[:len(x)] == x and b[:len(y)] == y)
                where.append(f"{'::'.join(x)} -> {'::'.join(y)} ({f}:{ln})")
            errors.append("cycle: " + "; ".join(where))
    if "--graph" in sys.argv:
        top = {}
        for (a, b) in edges:
            if a[:1] != b[:1] and b:
                top.setdefault(a[0], set()).add(b[0])
        for k in sorted(top):
            print(f"{k}: {' '.join(sorted(top[k]))}")
    for e in errors:
        print(e)
    if errors:
        print(f"layers: {len(errors)} problem(s): imports against the layer order of docs/ARCHITECTURE.md, cycles, or files too long", file=sys.stderr)
        return 1
    print(f"layers: {len(mods)} modules, {len(edges)} module imports, all in layer order")
    return 0


def cycles(graph):
    """One cycle per strongly connected component of more than one node."""
    index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for comp in comps:
        # a shortest cycle through the first node, by breadth-first search
        start = min(comp)
        prev, todo = {start: None}, [start]
        found = None
        while todo and not found:
            v = todo.pop(0)
            for w in sorted(graph[v]):
                if w == start:
                    found = v
                    break
                if w in comp and w not in prev:
                    prev[w] = v
                    todo.append(w)
        path, v = [], found
        while v is not None:
            path.append(v)
            v = prev[v]
        out.append(list(reversed(path)))
    return out


if __name__ == "__main__":
    sys.exit(main())
