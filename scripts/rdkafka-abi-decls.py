#!/usr/bin/env python3
"""Writes rdkafka/abi/declarations.tsv: librdkafka 2.12.1's public types
and constants (everything but the functions, which are in functions.tsv),
in the order the headers declare them, so scripts/rdkafka-header.py can
write gregor's own rdkafka.h and rdkafka_mock.h from our tables alone.

Names, types, values and layouts only: no text of librdkafka's headers.
The declarations are found by rdkafka-abi-table.py's tolerant parser;
every value (enum members, object-like macros) is what a C program
compiled against the real header prints, so an expression in the header
becomes a number here.

Rows (tab-separated, `#` lines are comments): kind, header, name, type, value

    typedef  h  NAME      C type                      (opaque: `struct tag`)
    functype h  NAME      return type                 parameter types, `; `-joined
    forward  h  struct X
    enum     h  NAME      `enum`                      tag, if any
    const    h  MEMBER    the enum's type             value
    struct   h  tag       `struct`                    typedef name, if any
    field    h  S.a.b     C type (`union`/`struct` for a nested aggregate; arrays `char [64]`)
    define   h  NAME      C type of the value         value (a number, a C string or an enum member)
    vmacro   h  RD_KAFKA_V_X  VTYPE member            arguments `name: type; ...`
    macro    h  NAME(ARGS)                            replacement, in terms of the table's names

Types come in declaration order; the macros follow, by name (a macro is
expanded where it is used, so its place does not matter).

Usage: scripts/rdkafka-abi-decls.py [--check] [--include DIR]
"""

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("abitable", os.path.join(HERE, "rdkafka-abi-table.py"))
T = importlib.util.module_from_spec(spec)
spec.loader.exec_module(T)

ROOT = T.ROOT
OUT = os.path.join(ROOT, "rdkafka", "abi", "declarations.tsv")
PRELUDE = "#include <stdio.h>\n#include <inttypes.h>\n#include <sys/types.h>\n#include <sys/socket.h>\n"


def die(msg):
    print(f"rdkafka-abi-decls: {msg}", file=sys.stderr)
    sys.exit(1)


def fields(prefix, body, h, rows):
    """Rows for the members of a struct/union body, nested ones dotted."""
    for st in T.statements(body):
        if st[0] == "block":
            head, inner, tail = T.norm(st[1]), st[2], T.norm(st[3])
            kind = head.split()[0]
            path = f"{prefix}.{tail}"
            rows.append(("field", h, path, kind, ""))
            fields(path, inner, h, rows)
            continue
        decl = T.norm(T.remove_attributes(st[1])[0])
        if not decl:
            continue
        m = re.match(r"^(.*?)(\w+)\s*\[\s*(\d+)\s*\]$", decl)
        if m:
            rows.append(("field", h, f"{prefix}.{m.group(2)}", f"{T.norm(m.group(1))} [{m.group(3)}]", ""))
            continue
        name, ctype = T.parse_param(decl)
        if not name or "," in decl:
            die(f"cannot read the field {decl!r} of {prefix}")
        rows.append(("field", h, f"{prefix}.{name}", ctype, ""))


def header_rows(h, text):
    rows = []
    for st in T.statements(T.strip_preprocessor(T.strip_comments(text))):
        if st[0] == "block":
            head, body, tail = T.norm(st[1]), st[2], T.norm(st[3])
            words = head.split()
            typedef = words[0] == "typedef"
            if typedef:
                words = words[1:]
            kind, tag = words[0], (words[1] if len(words) > 1 else "")
            name = tail if typedef else ""
            if kind == "enum":
                rows.append(("enum", h, name or tag, "enum", tag))
                for m in T.split_top(body):
                    m = m.strip()
                    if m:
                        rows.append(("const", h, m.split("=")[0].strip(), name or f"enum {tag}", "?"))
            elif kind in ("struct", "union"):
                if not tag:
                    die(f"an untagged {kind} {name}: not supported")
                rows.append(("struct", h, tag, kind, name))
                fields(name or f"struct {tag}", body, h, rows)
            else:
                die(f"unexpected block {head!r}")
            continue
        decl = T.norm(T.remove_attributes(st[1])[0])
        if not decl.startswith("typedef "):
            m = re.fullmatch(r"struct (\w+)", decl)
            if m:
                rows.append(("forward", h, f"struct {m.group(1)}", "", ""))
            continue
        s = decl[len("typedef "):]
        m = re.match(r"^(.*?)\(\s*(\w+)\s*\)\s*\((.*)\)$", s)
        if m:
            params = [T.parse_param(p)[1] for p in T.split_top(m.group(3))] if m.group(3).strip() else []
            rows.append(("functype", h, m.group(2), T.norm(m.group(1)), "; ".join(params)))
            continue
        m = re.match(r"^(.*?)(\w+)$", s)
        if not m:
            die(f"cannot read the typedef {decl!r}")
        if m.group(2) == "ssize_t":  # the Windows branch's
            continue
        rows.append(("typedef", h, m.group(2), T.norm(m.group(1)), ""))
    return rows


def macros(include, h, before):
    src = PRELUDE + "".join(f"#include <librdkafka/{x}>\n" for x in before + [h])
    out = subprocess.run(["cc", "-dM", "-E", "-I", os.path.dirname(include), "-"], input=src,
                         capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"#define (RD_KAFKA_\w+)(\([^)]*\))? ?(.*)$", line)
        if m:
            found[m.group(1)] = (m.group(2), m.group(3))
    return found


def macro_rows(include):
    rows, seen = [], {}
    for i, h in enumerate(T.HEADERS):
        ms = macros(include, h, list(T.HEADERS[:i]))
        for name in sorted(ms):
            if name in seen:
                continue
            seen[name] = h
            args, repl = ms[name]
            if args is None:
                rows.append(("define", h, name, "?", "?"))
            elif name.startswith("RD_KAFKA_V_"):
                m = re.match(r"_LRK_TYPECHECK\d?\((\w+), (.*?)\), ", repl)
                if not m:
                    die(f"cannot read the macro {name}")
                parts = T.split_top(m.group(2))
                argv = [f"{parts[k + 1]}: {parts[k]}" for k in range(0, len(parts), 2)]
                rows.append(("vmacro", h, name, m.group(1), "; ".join(argv)))
            elif name == "RD_KAFKA_OFFSET_TAIL":
                rows.append(("macro", h, f"{name}{args}", "", "RD_KAFKA_OFFSET_TAIL_BASE - (CNT)"))
            else:
                die(f"function-like macro {name}: not known to this script")
    return rows


def cstring(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def values(include, rows):
    """Fills in the `?`s by compiling and running a program against the real headers."""
    src = [PRELUDE] + [f"#include <librdkafka/{h}>\n" for h in T.HEADERS]
    src.append("#define TY(x) _Generic((x), int: \"int\", unsigned: \"unsigned\", long: \"long\", "
               "unsigned long: \"unsigned long\", long long: \"long long\", "
               "unsigned long long: \"unsigned long long\", char *: \"string\", const char *: \"string\", "
               "default: \"?\")\n")
    src.append("int main(void) {\n")
    for kind, h, name, ctype, value in rows:
        if kind == "const":
            src.append(f'printf("%s\\t%lld\\n", "{name}", (long long){name});\n')
        elif kind == "define":
            # both branches must compile for either kind of value, hence the uintptr_t casts
            src.append(f'printf("%s\\t%s\\t", "{name}", TY({name}));\n'
                       f'_Generic(({name}), char *: printf("%s\\n", (const char *)(uintptr_t)({name})), '
                       f'const char *: printf("%s\\n", (const char *)(uintptr_t)({name})), '
                       f'default: printf("%lld\\n", (long long)(uintptr_t)({name})));\n')
    src.append("return 0; }\n")
    with tempfile.TemporaryDirectory() as d:
        c, exe = os.path.join(d, "v.c"), os.path.join(d, "v")
        open(c, "w").write("".join(src))
        r = subprocess.run(["cc", "-std=gnu11", "-w", "-I", os.path.dirname(include), c, "-o", exe],
                           capture_output=True, text=True)
        if r.returncode:
            die(f"the value program does not compile:\n{r.stderr[:3000]}")
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    got = {}
    for line in out.splitlines():
        parts = line.split("\t")
        got[parts[0]] = parts[1:]
    members = {r[2] for r in rows if r[0] == "const"}
    res = []
    for kind, h, name, ctype, value in rows:
        if kind == "const":
            value = got[name][0]
        elif kind == "define":
            ty, v = got[name]
            if ty == "?":
                die(f"{name}: a value of unexpected type")
            ctype = ty
            if ty == "string":
                value = cstring(v)
            else:
                v = str(int(v) - (1 << 64) if int(v) >= 1 << 63 else int(v))
                # a macro naming an enum member stays that name
                _, repl = macros_cache[name]
                value = repl if repl in members else v
        res.append((kind, h, name, ctype, value))
    return res


macros_cache = {}


def build(include):
    rows = []
    for h in T.HEADERS:
        rows += header_rows(h, open(os.path.join(include, h), encoding="utf-8").read())
    for i, h in enumerate(T.HEADERS):
        macros_cache.update(macros(include, h, list(T.HEADERS[:i])))
    rows += macro_rows(include)
    return values(include, rows)


def render(rows):
    head = [
        "# librdkafka 2.12.1's public types and constants (functions: functions.tsv), in declaration order.",
        "# Written by scripts/rdkafka-abi-decls.py from the real headers; do not edit by hand.",
        "# Columns (tab-separated): kind, header, name, type, value; the kinds are described in the script.",
        "#kind\theader\tname\ttype\tvalue",
    ]
    return "\n".join(head + ["\t".join(r) for r in rows]) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--include", default=os.path.join(T.DEPS, "librdkafka", "include", "librdkafka"))
    ap.add_argument("--check", action="store_true", help="compare with the committed table")
    ap.add_argument("--output", default=OUT)
    a = ap.parse_args()
    rows = build(a.include)
    text = render(rows)
    counts = {}
    for r in rows:
        counts[r[0]] = counts.get(r[0], 0) + 1
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    rel = os.path.relpath(a.output, ROOT)
    if a.check:
        old = open(a.output, encoding="utf-8").read() if os.path.exists(a.output) else ""
        if old != text:
            die(f"{rel} is not what the headers give; rerun scripts/rdkafka-abi-decls.py")
        print(f"{rel}: up to date ({summary})")
        return
    with open(a.output, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{rel}: {summary}")


if __name__ == "__main__":
    main()
