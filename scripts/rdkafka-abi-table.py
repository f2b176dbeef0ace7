#!/usr/bin/env python3
"""Writes rdkafka/abi/functions.tsv: one row per function the real
librdkafka exports, with its C signature read from librdkafka's public
headers (rdkafka.h, rdkafka_mock.h).

The exported names come from the real library (`nm -D --defined-only`);
the signatures from a tolerant parse of the headers: comments, `#if 0`
blocks and other preprocessor lines are dropped, `extern "C" {` is
transparent, struct/enum bodies and inline function bodies are skipped,
and what is left is split into declarations at `;`. Export and attribute
macros (`RD_EXPORT`, `RD_DEPRECATED`, `RD_FORMAT(...)`, any other
`RD_[A-Z_]+` marker, `__attribute__((...))`) are removed; `RD_DEPRECATED`
becomes the `deprecated` flag. A function-pointer parameter's type is
written as an abstract declarator, `ret (*)(types)`.

The table (tab-separated, `#` lines are comments):

    name  header  returns  parameters  abi  flags

- `returns`, `parameters`: C types with whitespace normalized; parameters
  are `name: type` joined by `; ` (`...` for a variadic tail, empty for
  none).
- `abi`: the calling-convention class of the return and of each parameter,
  `ret(p1,p2,...)`, from a closed vocabulary: `void`, `ptr` (any data or
  function pointer, arrays), `i8`..`i64`, `u8`..`u64`, `isize`, `usize`,
  `f32`, `f64`, and `...`. C `int` and every enum are `i32` (the enums'
  underlying type on every target librdkafka builds for with GCC/Clang);
  typedefs are resolved through the headers. A type the script cannot
  classify (a struct by value, an unknown name) is an error: the
  generator that reads the table must never guess.
- `flags`: `deprecated` (declared `RD_DEPRECATED`), `variadic`.

Every name nm lists must have a declaration, and only those names get a
row; the script fails otherwise, so the table is exactly the library's
export list.

Usage: scripts/rdkafka-abi-table.py [--check] [--lib PATH] [--include DIR]
  (defaults: $GREGOR_DEPS/librdkafka/{lib/librdkafka.so.1,include/librdkafka});
  --check compares with the committed table instead of writing it.
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TABLE = os.path.join(ROOT, "rdkafka", "abi", "functions.tsv")
DEPS = os.environ.get("GREGOR_DEPS", os.path.expanduser("~/.local/share/gregor-deps"))
HEADERS = ("rdkafka.h", "rdkafka_mock.h")

# Scalar C types by their spelling (qualifiers removed) -> ABI class.
SCALARS = {
    "void": "void",
    "char": "i8",
    "signed char": "i8",
    "unsigned char": "u8",
    "short": "i16",
    "short int": "i16",
    "unsigned short": "u16",
    "int": "i32",
    "signed": "i32",
    "signed int": "i32",
    "unsigned": "u32",
    "unsigned int": "u32",
    "long": "i64",
    "long int": "i64",
    "unsigned long": "u64",
    "long long": "i64",
    "unsigned long long": "u64",
    "int8_t": "i8",
    "int16_t": "i16",
    "int32_t": "i32",
    "int64_t": "i64",
    "uint8_t": "u8",
    "uint16_t": "u16",
    "uint32_t": "u32",
    "uint64_t": "u64",
    "size_t": "usize",
    "ssize_t": "isize",
    "float": "f32",
    "double": "f64",
}
QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "struct", "enum", "union"}


def die(msg):
    print(f"rdkafka-abi-table: {msg}", file=sys.stderr)
    sys.exit(1)


def strip_comments(text):
    """Blanks comments (string literals kept, newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def strip_preprocessor(text):
    """Drops directive lines (with continuations) and `#if 0` regions."""
    out, skip = [], 0
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i]
        d = line.strip()
        if d.startswith("#"):
            word = re.match(r"#\s*(\w*)", d).group(1)
            if skip:
                if word in ("if", "ifdef", "ifndef"):
                    skip += 1
                elif word == "endif" or (skip == 1 and word in ("else", "elif")):
                    skip -= 1
            elif re.match(r"#\s*if\s+0\b", d):
                skip = 1
        elif not skip:
            out.append(line)
        i += 1
    return "\n".join(out)


def statements(text):
    """Top-level declarations ending in `;`, and the typedef'd enums.

    Yields ("decl", text) for each declaration and ("block", head, body,
    tail) for a braced definition (struct/enum/union, inline function)."""
    depth, start, i, n = 0, 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == "{":
            head = text[start:i]
            if re.fullmatch(r'\s*extern\s+"C"\s*', head):
                start = i + 1
                i += 1
                continue
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            body = text[i + 1:j - 1]
            if re.search(r"\)\s*$", head):  # a function definition (static inline)
                start = i = j
                continue
            k = text.find(";", j)
            k = n if k < 0 else k
            yield ("block", head, body, text[j:k])
            start = i = k + 1
        elif c == "}":  # closes `extern "C" {`
            start = i = i + 1
        elif c == ";":
            yield ("decl", text[start:i])
            start = i = i + 1
        else:
            i += 1


def norm(s):
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r"\s*\*\s*", " *", s)
    s = re.sub(r"\* +\*", "**", s).replace("* *", "**")
    s = re.sub(r"\*\s+(?=\*)", "*", s)
    s = re.sub(r"\(\s+", "(", s)
    s = re.sub(r"\s+\)", ")", s)
    s = re.sub(r"\s*,\s*", ", ", s)
    return s


def remove_attributes(s):
    """Removes export/attribute macros; returns (text, deprecated)."""
    deprecated = bool(re.search(r"\bRD_DEPRECATED\b", s))
    s = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", " ", s)
    s = re.sub(r"\bRD_[A-Z_]+\s*\([^()]*\)", " ", s)  # RD_FORMAT(printf, 2, 3)
    s = re.sub(r"\bRD_[A-Z_]+\b", " ", s)
    return s, deprecated


def split_top(s, sep=","):
    parts, depth, cur = [], 0, []
    for c in s:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def matching(s, i):
    """Index of the parenthesis closing the one at s[i]."""
    depth = 0
    for j in range(i, len(s)):
        depth += {"(": 1, ")": -1}.get(s[j], 0)
        if depth == 0:
            return j
    raise ValueError(f"unbalanced: {s}")


def parse_param(p):
    """(name, type) of one parameter as written; name may be ''."""
    p = norm(p)
    if p == "...":
        return ("...", "...")
    m = re.match(r"^(.*?)\(\s*\*\s*(\w*)\s*\)\s*(\(.*\))\s*$", p)
    if m:  # function pointer: ret (*name)(params)
        ret, name, plist = m.group(1), m.group(2), m.group(3)[1:-1]
        types = [parse_param(q)[1] for q in split_top(plist)] if plist.strip() else []
        return (name, f"{norm(ret)} (*)({', '.join(types)})")
    m = re.match(r"^(.*?)(\w+)\s*\[[^\]]*\]$", p)
    if m:  # array parameter: a pointer
        return (m.group(2), norm(m.group(1) + " *"))
    m = re.match(r"^(.*[\s*])(\w+)$", p)
    if m and strip_quals(m.group(1)):
        return (m.group(2), norm(m.group(1)))
    return ("", p)  # unnamed


def strip_quals(t):
    return " ".join(w for w in t.replace("*", " ").split() if w not in QUALIFIERS)


def parse_function(decl):
    """(name, returns, params, deprecated) of a function declaration, or None."""
    s, deprecated = remove_attributes(decl)
    s = norm(s)
    if not s or s.startswith("typedef") or s.startswith("extern "):
        return None
    m = re.search(r"\b(rd_kafka_\w+)\s*\(", s)
    if not m:
        return None
    ret = s[:m.start()].strip()
    if not ret or "(" in ret:
        return None
    open_ = m.end() - 1
    close = matching(s, open_)
    if s[close + 1:].strip():
        die(f"trailing text after the parameters of {m.group(1)}: {s[close + 1:]!r}")
    plist = s[open_ + 1:close].strip()
    params = [] if plist in ("", "void") else [parse_param(p) for p in split_top(plist)]
    return (m.group(1), norm(ret), params, deprecated)


class Types:
    """Typedef names of the headers and what each stands for."""

    def __init__(self):
        self.enums = set()
        self.aliases = {}  # name -> C type it names
        self.funcs = set()  # function typedefs (only used through pointers)
        self.structs = set()

    def add_block(self, head, body, tail):
        head = norm(head)
        if not head.startswith("typedef"):
            return
        names = [n.strip().lstrip("*") for n in tail.split(",") if n.strip()]
        kind = head.split()[1]
        for name in names:
            (self.enums if kind == "enum" else self.structs).add(name)

    def add_typedef(self, decl):
        s, _ = remove_attributes(decl)
        s = norm(s)
        if not s.startswith("typedef "):
            return
        s = s[len("typedef "):]
        m = re.match(r"^(.*?)\(\s*\*?\s*(\w+)\s*\)\s*\(.*\)$", s)
        if m:
            self.funcs.add(m.group(2))
            return
        m = re.match(r"^(.*?)(\w+)$", s)
        if m:
            self.aliases[m.group(2)] = norm(m.group(1))

    def abi(self, t, where):
        """ABI class of C type t."""
        if t == "...":
            return "..."
        if "*" in t or "(" in t or "[" in t:
            return "ptr"
        words = [w for w in t.split() if w not in ("const", "volatile")]
        base = " ".join(words)
        if base.startswith("enum "):
            return "i32"
        if base in SCALARS:
            return SCALARS[base]
        if base in self.enums:
            return "i32"
        if base in self.aliases:
            return self.abi(self.aliases[base], where)
        die(f"{where}: cannot classify the C type {t!r} passed by value")


def exported_names(lib):
    try:
        out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        die(f"nm -D {lib}: {e}")
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtWiI" and parts[2].startswith("rd_kafka_"):
            names.add(parts[2])
        elif len(parts) == 3:
            die(f"{lib} exports {parts[2]} ({parts[1]}), not a rd_kafka_ function: the table holds functions only")
    return names


def table(lib, include):
    names = exported_names(lib)
    types, decls = Types(), {}
    for h in HEADERS:
        path = os.path.join(include, h)
        try:
            text = open(path, encoding="utf-8").read()
        except OSError as e:
            die(f"{path}: {e}")
        for st in statements(strip_preprocessor(strip_comments(text))):
            if st[0] == "block":
                types.add_block(*st[1:])
                continue
            types.add_typedef(st[1])
            f = parse_function(st[1])
            if f and f[0] in decls:
                die(f"{f[0]} is declared twice ({decls[f[0]][0]} and {h})")
            if f:
                decls[f[0]] = (h,) + f[1:]
    missing = sorted(names - decls.keys())
    if missing:
        die(f"exported but not declared in {', '.join(HEADERS)}: {' '.join(missing)}")
    rows = []
    for name in sorted(names):
        h, ret, params, deprecated = decls[name]
        abi_ret = types.abi(ret, name)
        abi_params = [types.abi(t, f"{name}({pname})") for pname, t in params]
        flags = []
        if deprecated:
            flags.append("deprecated")
        if params and params[-1][1] == "...":
            flags.append("variadic")
        ptext = "; ".join("..." if t == "..." else f"{pname or '_'}: {t}" for pname, t in params)
        rows.append("\t".join([name, h, ret, ptext,
                               f"{abi_ret}({','.join(abi_params)})", ",".join(flags)]))
    return rows, len(decls)


def render(rows):
    head = [
        "# librdkafka 2.12.1's exported functions: one row per name `nm -D --defined-only librdkafka.so.1` lists.",
        "# Written by scripts/rdkafka-abi-table.py from the real library and its headers; do not edit by hand.",
        "# Columns (tab-separated): name, header, returns, parameters (`name: type; ...`),",
        "# abi (`ret(params)` classes: void ptr i8..i64 u8..u64 isize usize f32 f64 ...), flags.",
        "#name\theader\treturns\tparameters\tabi\tflags",
    ]
    return "\n".join(head + rows) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", default=os.path.join(DEPS, "librdkafka", "lib", "librdkafka.so.1"))
    ap.add_argument("--include", default=os.path.join(DEPS, "librdkafka", "include", "librdkafka"))
    ap.add_argument("--check", action="store_true", help="compare with the committed table")
    ap.add_argument("--output", default=TABLE)
    a = ap.parse_args()
    rows, declared = table(a.lib, a.include)
    text = render(rows)
    if a.check:
        try:
            old = open(a.output, encoding="utf-8").read()
        except OSError as e:
            die(f"{a.output}: {e}")
        if old != text:
            die(f"{os.path.relpath(a.output, ROOT)} is not what the headers and the library give; "
                "rerun scripts/rdkafka-abi-table.py")
        print(f"{os.path.relpath(a.output, ROOT)}: up to date ({len(rows)} functions)")
        return
    os.makedirs(os.path.dirname(a.output), exist_ok=True)
    with open(a.output, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{os.path.relpath(a.output, ROOT)}: {len(rows)} functions "
          f"({declared} declared in the headers)")


if __name__ == "__main__":
    main()
