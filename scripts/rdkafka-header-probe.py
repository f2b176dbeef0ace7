#!/usr/bin/env python3
"""Writes the two C files scripts/rdkafka-abi-check.sh ("header") compiles
to prove gregor's rdkafka.h and rdkafka_mock.h agree with librdkafka's.

  layout.c     from rdkafka/abi/declarations.tsv: prints every enum
               member's and #define's value and size, every enum's size,
               every struct's size and alignment, every field's offset and
               size, and what each RD_KAFKA_V_* macro expands to (the vtype
               and the size of each argument). Compiled once against each
               header, run, the outputs must be identical.
  redeclare.c  includes librdkafka's own headers, then repeats every
               prototype and every one-line typedef of OUR headers (read
               from the generated files, not the tables): a declaration
               that does not match librdkafka's is a compile error in C
               (conflicting types), so compiling it proves all prototypes
               and typedefs agree.

Usage: scripts/rdkafka-header-probe.py OUTDIR
"""

import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ABI = os.path.join(ROOT, "rdkafka", "abi")
OURS = os.path.join(ROOT, "rdkafka", "include", "librdkafka")
INCLUDES = "#include <librdkafka/rdkafka.h>\n#include <librdkafka/rdkafka_mock.h>\n"


def rows(name):
    with open(os.path.join(ABI, name), encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]


def layout(decls):
    c = ["#include <stddef.h>\n", INCLUDES,
         "#define P(name, v) printf(\"%s %lld %zu\\n\", name, (long long)(v), sizeof(v))\n",
         # a V macro's vtype and the size of each argument after it (what va_arg
         # reads); missing arguments are filled with chars, size 1
         "#define SZ4(n, a, b, c, d, ...) printf(\"%s vtype=%lld sizes %zu %zu %zu\\n\", n, "
         "(long long)(a), sizeof(b), sizeof(c), sizeof(d))\n",
         "#define SZ(n, ...) SZ4(n, __VA_ARGS__, (char)0, (char)0, (char)0)\n",
         "int main(void) {\n"]
    n = 0
    for kind, _h, name, ctype, value in decls:
        if kind == "const":
            c.append(f'P("{name}", {name});\n')
        elif kind == "define" and ctype == "string":
            c.append(f'printf("%s %s %zu\\n", "{name}", {name}, sizeof({name}));\n')
        elif kind == "define":
            c.append(f'P("{name}", {name});\n')
        elif kind == "macro":
            call = re.sub(r"\(.*\)", "(5)", name)
            c.append(f'P("{call}", {call});\n')
        elif kind == "vmacro":
            zeros = ", ".join("0" for _ in value.split("; "))
            c.append(f'SZ("{name}", {name}({zeros}));\n')
        elif kind == "enum":
            c.append(f'printf("sizeof %s %zu\\n", "{name}", sizeof({name}));\n')
        elif kind == "struct":
            t = value or f"struct {name}"
            c.append(f'printf("sizeof %s %zu align %zu\\n", "{t}", sizeof({t}), _Alignof({t}));\n')
        elif kind == "field":
            t, path = split_field(name)
            c.append(f'printf("%s offset %zu size %zu\\n", "{name}", offsetof({t}, {path}), '
                     f'sizeof((({t} *)0)->{path}));\n')
        else:
            continue
        n += 1
    c.append("return 0;\n}\n")
    return "".join(c), n


def split_field(name):
    """(struct type, member path) of a dotted field name."""
    if name.startswith("struct "):
        tag, path = name[len("struct "):].split(".", 1)
        return f"struct {tag}", path
    t, path = name.split(".", 1)
    return t, path


def redeclare():
    c = ["/* librdkafka's headers, then ours again: a mismatch is a conflicting declaration. */\n",
         INCLUDES]
    protos = typedefs = 0
    for h in ("rdkafka.h", "rdkafka_mock.h"):
        opened = None  # (struct|enum, tag) of a multi-line typedef being read
        for line in open(os.path.join(OURS, h), encoding="utf-8"):
            if line.startswith("RD_EXPORT "):
                c.append(line)
                protos += 1
            elif line.startswith("typedef ") and line.rstrip().endswith(";"):
                c.append(line)
                typedefs += 1
            elif m := re.match(r"typedef (struct|enum) (\w+) \{$", line.rstrip()):
                opened = m.groups()
            elif (m := re.match(r"\} (\w+);$", line.rstrip())) and opened:
                # the same tag and name again, as a one-line typedef
                c.append(f"typedef {opened[0]} {opened[1]} {m.group(1)};\n")
                typedefs += 1
                opened = None
            elif line.startswith("typedef enum {"):
                opened = None  # untagged: its size and values are layout.c's
    return "".join(c), protos, typedefs


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    text, n = layout(rows("declarations.tsv"))
    open(os.path.join(out, "layout.c"), "w").write(text)
    text, p, t = redeclare()
    open(os.path.join(out, "redeclare.c"), "w").write(text)
    print(f"[header] probes: {n} layout facts; {p} prototypes and {t} typedefs to redeclare", file=sys.stderr)


if __name__ == "__main__":
    main()
