"""Builds gregor._native, the compiled hot paths (src/_native.c, producer.c, consumer.c), with the
system C compiler against libgregor's header, gregor.h. The header is looked
for in: $GREGOR_INCLUDE; the repository's include/ (an in-tree build:
``pip install bindings/python``); ``pkg-config --cflags gregor`` (after
``make install``); /usr/local/include and /usr/include. The module is not
linked to libgregor: it calls into the libgregor the package loads at run
time (gregor._lib: $GREGOR_LIBRARY, a copy next to the package, or the
system's), so the two can never be different copies.
"""
import os
import shutil
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def header_dirs():
    cands = []
    env = os.environ.get("GREGOR_INCLUDE")
    if env:
        cands.append(env)
    cands.append(os.path.join(HERE, "..", "..", "include"))
    if shutil.which("pkg-config"):
        try:
            out = subprocess.run(["pkg-config", "--cflags-only-I", "gregor"], capture_output=True, text=True,
                                 check=False).stdout
            cands += [f[2:] for f in out.split() if f.startswith("-I")]
        except OSError:
            pass
    cands += ["/usr/local/include", "/usr/include"]
    for d in cands:
        if os.path.exists(os.path.join(d, "gregor.h")):
            return [os.path.abspath(d)]
    raise SystemExit(
        "gregor: gregor.h not found (looked in: " + ", ".join(cands) + "); set GREGOR_INCLUDE to the directory "
        "holding it (the repository's include/, or $PREFIX/include after `make install`)"
    )


setup(
    ext_modules=[
        Extension(
            "gregor._native",
            sources=["src/_native.c", "src/producer.c", "src/consumer.c"],
            depends=["src/native.h"],
            include_dirs=header_dirs(),
            libraries=["dl"],
            # hidden: the files share helpers, but the module exports only PyInit__native
            extra_compile_args=["-O2", "-std=gnu11", "-Wall", "-Wno-missing-field-initializers", "-fvisibility=hidden"],
        )
    ]
)
