"""`confluent_kafka` as gregor (gregor-confluent-kafka-compat).

Importing this package replaces itself in sys.modules with the module
``gregor``; ``confluent_kafka.X`` resolves to ``gregor.X`` (the same module
object, so classes, exceptions and isinstance checks are shared). See this
package's README for its limits.
"""

import importlib
import importlib.abc
import importlib.util
import os
import sys

import gregor


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """confluent_kafka.X is gregor.X, the same module object."""

    def find_spec(self, name, path=None, target=None):
        if not name.startswith("confluent_kafka."):
            return None
        try:
            if importlib.util.find_spec("gregor." + name[len("confluent_kafka."):]) is None:
                return None
        except ModuleNotFoundError:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        return importlib.import_module("gregor." + spec.name[len("confluent_kafka."):])

    def exec_module(self, module):
        pass


if not any(isinstance(f, _Alias) for f in sys.meta_path):
    sys.meta_path.insert(0, _Alias())
sys.modules["confluent_kafka"] = gregor

# GREGOR_COMPAT_EXTRA_PATH=DIR (an installed confluent_kafka package kept
# elsewhere): subpackages gregor does not have (schema_registry, ...) are
# loaded from there, running over gregor.
_extra = os.environ.get("GREGOR_COMPAT_EXTRA_PATH")
if _extra and _extra not in gregor.__path__:
    gregor.__path__.append(_extra)
