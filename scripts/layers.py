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

Inside a module, its submodules and the module's own file (its mod.rs, or
lib.rs, or the x.rs beside x/) must not form a cycle either: for each set
of files that reach each other, the check reports one cycle with the
imports that close it. A submodule
depends on the parent's file when it names an item the file defines
(`super::X`, `crate::a::X`, `use` trees, the names a `use super::*` file
spells out); a name the file only imports or re-exports (`pub use
child::X`, `pub(crate) use`, globs) counts as the submodule that defines
it. The parent's file depends on a submodule when its own code names the
submodule's items: paths (`self::child::X`, `use child::X`, and the bare
`child::f()` of Rust 2018), a name it re-exports and uses itself, or a
method the submodule adds to a type of the file (`impl Producer { fn f }`
in a child, `self.f()` in mod.rs). Its `mod x;` declarations and pure `pub
use` re-exports are not dependencies.

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
            return [[seg, "*"]], j + 1
        sub, i = parse_tree(s, j)
        return [[seg] + p for p in sub], i
    k = re.compile(r"\s+as\s+" + IDENT).match(s, i)
    return [[seg]], (k.end() if k else i)


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


class Ref:
    """One path a file names: where, the module it lands in, the rest of
    the path after that module (the item), and whether it ends in a glob."""

    def __init__(self, pos, line, target, rest, glob, test):
        self.pos, self.line, self.target = pos, line, target
        self.rest, self.glob, self.test = rest, glob, test


def references(mod, mods):
    """A Ref for every `crate::`, `gregor::`, `super::` and `self::` path
    the file names."""
    text = open(mod.file).read()
    s = strip(text) + "\n\n"
    scopes = inline_scopes(s)
    refs = []
    for m in re.finditer(r"(?<![A-Za-z0-9_$:])(crate|gregor|super|self)\s*::\s*", s):
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
        elif i < len(s) and s[i] == "*":
            paths = [["*"]]
        else:
            paths = [[]]
        line = s.count("\n", 0, pos) + 1
        for p in paths:
            glob = bool(p) and p[-1] == "*"
            full = base + tuple(x for x in p if x not in ("self", "*"))
            # the longest prefix that is a module
            target = ()
            for k in range(len(full), -1, -1):
                if full[:k] in mods:
                    target = full[:k]
                    break
            refs.append(Ref(pos, line, target, full[len(target):], glob, test))
    return refs


ITEM = re.compile(r"^[ \t]*(?:pub(?:\s*\([^)]*\))?\s+)?(?:(?:const|async|unsafe|extern)\s+)*"
                  r"(?:(?:fn|struct|enum|trait|type|const|static(?:\s+mut)?|union|macro_rules!)\s+(" + IDENT + r")"
                  r"|mod\s+(" + IDENT + r")\s*\{)", re.M)
KEYWORDS = {"fn", "mut", "_", "unsafe", "extern"}


def top_level(s):
    """s with everything inside braces blanked (newlines kept), except the
    body of a macro called at the top (`kafka_struct! { ... }`), whose
    items are the file's items."""
    out, stack = list(s), []
    for i, c in enumerate(s):
        if c == "{":
            macro = not any(stack) and re.search(IDENT + r"!\s*$", s[max(0, i - 80):i])
            stack.append(not macro)
            if not macro:
                continue
        elif c == "}" and stack:
            if stack.pop():
                pass
            elif not any(stack):
                continue
        if any(stack) and c != "\n":
            out[i] = " "
    return "".join(out)


def use_decls(s):
    """(start, end, is public, leaves) of every `use` declaration; a leaf is
    (path segments, the name it binds or None, whether it is a glob)."""
    out = []
    for m in re.finditer(r"(?<![A-Za-z0-9_$])(pub(?:\s*\([^)]*\))?\s+)?use\s+", s):
        end = s.find(";", m.end())
        if end < 0:
            continue
        toks = re.findall(r"::|" + IDENT + r"|[{},*]", s[m.end():end])
        leaves = []
        try:
            use_tree(toks, 0, [], leaves)
        except IndexError:
            pass
        out.append((m.start(), end + 1, bool(m.group(1)), leaves))
    return out


def use_tree(toks, k, prefix, leaves):
    path = list(prefix)
    if toks[k] == "::":
        path, k = path + ["::"], k + 1
    while True:
        t = toks[k]
        if t == "{":
            k += 1
            while toks[k] != "}":
                k = k + 1 if toks[k] == "," else use_tree(toks, k, path, leaves)
            return k + 1
        if t == "*":
            leaves.append((path, None, True))
            return k + 1
        path, k = path + [t], k + 1
        if k < len(toks) and toks[k] == "::":
            k += 1
            continue
        name = t
        if k + 1 < len(toks) and toks[k] == "as":
            name, k = toks[k + 1], k + 2
        if path[-1] == "self":
            path = path[:-1]
            if name == "self":
                name = path[-1] if path else None
        leaves.append((path, name, False))
        return k


class File:
    """What the parent-child check needs of one module's file."""

    def __init__(self, mod, mods):
        self.mod = mod
        self.text = strip(open(mod.file).read()) + "\n\n"
        top = self.top = top_level(self.text)
        self.defined = {m.group(1) or m.group(2) for m in ITEM.finditer(top)} - KEYWORDS
        self.methods = set(re.findall(r"(?<![A-Za-z0-9_$])fn\s+(" + IDENT + r")", self.text))
        self.uses = use_decls(self.text)
        self.kids = {k[-1] for k in mods if len(k) == len(mod.path) + 1 and k[:-1] == mod.path}
        # the names its top-level `use`s bind, and its globs: path or None
        self.imports, self.globs = {}, []
        for start, _, _, leaves in self.uses:
            if top[start] == " ":
                continue
            for path, name, glob in leaves:
                full = self.resolve(path)
                if glob:
                    self.globs.append(full)
                elif name:
                    self.imports[name] = full

    def resolve(self, path):
        """The crate path a `use` path of this file's top level names, or
        None when it names another crate."""
        if not path:
            return None
        if path[0] in ("crate", "gregor"):
            return tuple(path[1:])
        if path[0] == "self":
            return self.mod.path + tuple(path[1:])
        if path[0] == "super":
            base = self.mod.path
            while path and path[0] == "super":
                base, path = base[:-1], path[1:]
            return base + tuple(path)
        if path[0] in self.kids or path[0] in self.defined:
            return self.mod.path + tuple(path)
        return None

    def line(self, pos):
        return self.text.count("\n", 0, pos) + 1

    def in_use(self, pos, public=None):
        return any(a <= pos < b and public in (None, p) for a, b, p, _ in self.uses)


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
    edges, refs = {}, {}
    for p, mod in sorted(mods.items()):
        refs[p] = references(mod, mods)
        if not p:
            continue
        me = owner(p, order)
        reach = closure(me, allowed) if me else set()
        for r in refs[p]:
            line, target, test = r.line, r.target, r.test
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
    # cycles inside every module, among its submodules and its own file
    files = {p: File(mod, mods) for p, mod in mods.items()}
    for parent in sorted(mods):
        kids = sorted(k for k in mods if len(k) == len(parent) + 1 and k[:len(parent)] == parent)
        if not kids:
            continue
        graph = family(parent, kids, mods, files, refs)
        for cycle in cycles({v: set(graph[v]) for v in graph}):
            where = []
            for x, y in zip(cycle, cycle[1:] + cycle[:1]):
                f, ln = graph[x][y]
                where.append(f"{node_name(x, parent, mods)} -> {node_name(y, parent, mods)} ({f}:{ln})")
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


def node_name(v, parent, mods):
    """A submodule by its path; the parent's own file as `path (mod.rs)`."""
    if v == parent:
        return f"{'::'.join(v) or 'crate'} ({os.path.basename(mods[v].file)})"
    return "::".join(v)


def family(parent, kids, mods, files, refs):
    """The dependency graph of a module's submodules and its own file (the
    node `parent`): {node: {node: (file, line) of the first import}}."""
    graph = {v: {} for v in [parent] + kids}
    me = files[parent]

    def kid(path):
        return next((k for k in kids if path[:len(k)] == k), None)

    def add(a, b, file, line):
        if a is not None and b is not None and a != b:
            where = (os.path.relpath(file, ROOT), line)
            graph[a][b] = min(graph[a].get(b, where), where)

    def name_in_parent(name):
        """The node that defines `name` as the parent's file sees it: the
        file itself, or the submodule a re-export or a glob takes it from."""
        if name in me.defined:
            return parent
        if name in me.imports:
            return kid(me.imports[name] or ())
        for g in me.globs:
            k = kid(g or ())
            if k and g in files and (name in files[g].defined or name in files[g].imports):
                return k
        return None

    # the submodules: what they name of each other and of the parent's file
    for a in mods:
        ka = kid(a)
        if ka is None:
            continue
        for r in refs[a]:
            if r.target == parent and r.rest:
                add(ka, name_in_parent(r.rest[0]), mods[a].file, r.line)
            elif r.target == parent and r.glob:
                # `use super::*`: the parent's names the file spells out
                for m in re.finditer(r"(?<![A-Za-z0-9_$.:])" + IDENT, files[a].text):
                    if m.group(0) in files[a].defined:
                        continue
                    if m.group(0) in me.defined or m.group(0) in me.imports or m.group(0) in me.kids:
                        v = name_in_parent(m.group(0)) or kid(parent + (m.group(0),))
                        add(ka, v, mods[a].file, files[a].line(m.start()))
            else:
                add(ka, kid(r.target), mods[a].file, r.line)
    # the parent's own code, without its `pub use` re-exports: paths into
    # submodules (bare `child::` too), and re-exported names it uses itself
    file = mods[parent].file
    for r in refs[parent]:
        if not me.in_use(r.pos, public=True):
            add(parent, kid(r.target), file, r.line)
    reexported = {}
    for start, _, public, leaves in me.uses:
        for path, name, glob in leaves:
            full = me.resolve(path)
            if not public:
                add(parent, kid(full or ()), file, me.line(start))
            elif glob and full in files and kid(full):
                for n in files[full].defined:
                    reexported.setdefault(n, kid(full))
            elif name and kid(full or ()):
                reexported[name] = kid(full)
    if me.kids:
        bare = r"(?<![A-Za-z0-9_$.:])(" + "|".join(sorted(me.kids)) + r")\s*::"
        for m in re.finditer(bare, me.text):
            if not me.in_use(m.start()):
                add(parent, parent + (m.group(1),), file, me.line(m.start()))
    # methods a submodule adds to a type of the parent's file (`impl
    # Producer { ... }` in a child) that the parent's own code calls
    calls = {}
    for a in mods:
        if kid(a) and a != parent:
            for m, ty in inherent_methods(files[a], me.defined - files[a].defined).items():
                if m not in me.methods:
                    calls.setdefault(m, (kid(a), ty))
    for m in re.finditer(r"(?:\.\s*|(?<![A-Za-z0-9_$])(" + IDENT + r")\s*::\s*)(" + IDENT + r")\s*(?:::\s*<[^;{}()]*>\s*)?\(", me.text):
        k = calls.get(m.group(2))
        if k and m.group(1) in (None, "Self", k[1]) and not me.in_use(m.start()):
            add(parent, k[0], file, me.line(m.start()))
    if reexported:
        names = r"(?<![A-Za-z0-9_$.:])(" + "|".join(sorted(reexported)) + r")(?![A-Za-z0-9_$])(?!\s*:(?!:))"
        for m in re.finditer(names, me.text):
            # a function is called (a lowercase name alone is often a variable)
            called = re.compile(r"\s*(?:::\s*<[^;{}()]*>\s*)?[(!]").match(me.text, m.end())
            if not me.in_use(m.start()) and (called or not m.group(1)[0].islower()):
                add(parent, reexported[m.group(1)], file, me.line(m.start()))
    return graph


def inherent_methods(f, types):
    """{method: type} of the file's top-level `impl T { ... }` blocks (not
    trait impls) for a type among `types`."""
    out = {}
    for m in re.finditer(r"(?<![A-Za-z0-9_$])impl\s*(?:<[^{;]*?>\s*)?(" + IDENT + r")\s*(?:<[^{;]*?>\s*)?\{", f.top):
        if m.group(1) not in types:
            continue
        depth, j = 1, m.end()
        while j < len(f.text) and depth:
            depth += {"{": 1, "}": -1}.get(f.text[j], 0)
            j += 1
        body = f.text[m.end():j - 1]
        for fm in re.finditer(r"(?<![A-Za-z0-9_$])fn\s+(" + IDENT + r")", top_level(body)):
            out.setdefault(fm.group(1), m.group(1))
    return out


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
