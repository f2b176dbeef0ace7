#!/usr/bin/env python3
"""The import-cycle check of the Python package: the modules of
bindings/python/gregor must import each other without a cycle.

Every .py file of the package is parsed with ``ast`` (nothing is imported
or run). An edge A -> B is an import of module B that runs when A loads:
a statement at module level, including one inside a class body or an
``if``/``try``/``with`` block there. Imports inside a function (or lambda)
run when it is called, after every module has loaded, so they do not
count; nor do those under ``if TYPE_CHECKING:``.

``from P import n`` is an edge to the submodule ``P.n`` when the package
has that file, else to ``P`` (``n`` is a name defined there). Importing a
submodule also runs its parent packages' ``__init__``: those are edges too,
except the importer's own enclosing packages, which are already loading
(``gregor`` always loads before ``gregor.error``, and a package's
``__init__`` importing its own submodules is what packages do). Compiled
modules (``gregor._native``) and other packages are not in the graph.

Usage: scripts/py_imports.py [--graph]   (exit 1 on a cycle, naming it)
"""

import ast
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layers import cycles as graph_cycles  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PKG_DIR = os.path.join(ROOT, "bindings", "python", "gregor")
PKG = "gregor"


def modules():
    """{module name: (path, is_package)} of every .py under the package."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(PKG_DIR):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        rel = os.path.relpath(dirpath, PKG_DIR)
        parts = [PKG] + ([] if rel == "." else rel.split(os.sep))
        for f in sorted(filenames):
            if not f.endswith(".py"):
                continue
            if f == "__init__.py":
                out[".".join(parts)] = (os.path.join(dirpath, f), True)
            else:
                out[".".join(parts + [f[:-3]])] = (os.path.join(dirpath, f), False)
    return out


def load_time_imports(tree):
    """The Import/ImportFrom nodes that run when the module loads."""
    found = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.orelse:
                    visit_stmt(stmt)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            visit(child)

    def visit_stmt(stmt):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            found.append(stmt)
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            visit(stmt)

    visit(tree)
    return found


def _is_type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def targets(node, name, is_package, mods):
    """The package modules an import statement of module ``name`` loads."""
    out = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            parts = alias.name.split(".")
            # `import gregor.a.b` loads gregor.a.b: the deepest module there is
            for i in range(len(parts), 0, -1):
                cand = ".".join(parts[:i])
                if cand in mods:
                    out.append(cand)
                    break
        return out
    if node.level:
        base = name.split(".") if is_package else name.split(".")[:-1]
        if node.level > 1:
            base = base[: len(base) - (node.level - 1)]
        if node.module:
            base = base + node.module.split(".")
        base = ".".join(base)
    else:
        base = node.module or ""
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        if alias.name != "*" and sub in mods:
            out.append(sub)
        elif base in mods:
            out.append(base)
    return out


def with_parents(target, importer, mods):
    """``target`` and the packages above it that loading it runs, leaving
    out the importer's own enclosing packages (already loading)."""
    enclosing = {".".join(importer.split(".")[:i]) for i in range(1, importer.count(".") + 2)}
    parts = target.split(".")
    out = [target]
    for i in range(len(parts) - 1, 0, -1):
        parent = ".".join(parts[:i])
        if parent in mods and parent not in enclosing:
            out.append(parent)
    return out


def graph():
    """{module: {imported module: [line, ...]}} and the modules' paths."""
    mods = modules()
    edges = {m: {} for m in mods}
    for name, (path, is_package) in mods.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=path)
        for node in load_time_imports(tree):
            for t in [p for t in targets(node, name, is_package, mods) for p in with_parents(t, name, mods)]:
                lines = edges[name].setdefault(t, []) if t != name else []
                if node.lineno not in lines:
                    lines.append(node.lineno)
    return edges, mods


def cycles(edges):
    """One cycle per strongly connected component of more than one module,
    as a path back to its first module: the cycle finder of
    scripts/layers.py, which checks the Rust modules the same way."""
    return [path + path[:1] for path in graph_cycles(edges)]


def main():
    edges, mods = graph()
    if "--graph" in sys.argv[1:]:
        for m in sorted(edges):
            print(m + ": " + " ".join(sorted(edges[m])))
    found = cycles(edges)
    for path in found:
        print("import cycle: " + " -> ".join(path), file=sys.stderr)
        for a, b in zip(path, path[1:]):
            rel = os.path.relpath(mods[a][0], ROOT)
            lines = ", ".join(str(n) for n in edges[a][b])
            print(f"    {a} -> {b}  ({rel} line {lines})", file=sys.stderr)
    if found:
        return 1
    print(f"py_imports: {len(mods)} modules of {PKG}, no import cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
