"""What every pytest-xdist worker did first from a fresh clone, done once by pytest's own
process before the workers start (conftest.py, at the session's start).

From a fresh clone each worker, at the same moment as the other, rewrote the asserts of the
70 test modules (~3 s of a core), compiled tally and the tests' helpers (~1 s), and, at its
first text drawn, had hypothesis compute the unicode categories over every code point (and,
while pytest autoloaded its plugins, rewrite the asserts of hypothesis's whole package: ~1 s;
pyproject.toml names the plugins now, and only the plugin's module is). Each of these is
kept where the next process reads it: the rewritten modules and the bytecode in
``__pycache__/`` (ignored by git), hypothesis's table in ``.hypothesis/``. Done here once,
while ruff and mypy (started just before) use the other core, the workers find them made.
What is already kept and current costs a look.

The test modules are rewritten by pytest's own rewriting functions, the ones its import hook
calls; they are not a public interface, so anything unexpected about them leaves the work to
the workers, as before.
"""

from __future__ import annotations

import compileall
import importlib.util
import re
import warnings
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def before_the_workers(config: pytest.Config) -> None:
    if not getattr(config.option, "numprocesses", None):
        return  # one process: it does each once anyway
    _rewrite_the_test_modules(config)
    # Bytecode as the import system writes it (compileall skips what is current).
    compileall.compile_dir(ROOT / "tally", quiet=2)
    compileall.compile_dir(TESTS, quiet=2, maxlevels=0, rx=re.compile(r"(test_[^/]*|conftest)\.py$"))
    _hypothesis_tables()


def _rewrite_the_test_modules(config: pytest.Config) -> None:
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
        )

        state = config.stash[assertstate_key]
    except (ImportError, KeyError):  # another pytest, or --assert=plain
        return
    for module in sorted(TESTS.glob("test_*.py")):
        pyc = get_cache_dir(module) / (module.name[:-3] + PYC_TAIL)
        if _current(module, pyc):
            continue
        try:
            source_hash, code = _rewrite_test(module, config)
            pyc.parent.mkdir(exist_ok=True)
            _write_pyc(state, code, source_hash, pyc)
        except Exception:  # the module's own error is the worker's to report, in the tests
            continue


def _current(module: Path, pyc: Path) -> bool:
    """Whether ``pyc`` is the rewritten ``module`` as it is now: pytest's pycs are checked
    by the source's hash (PEP 552), in bytes 8 to 16."""
    try:
        with pyc.open("rb") as f:
            header = f.read(16)
    except OSError:
        return False
    return header[8:16] == importlib.util.source_hash(module.read_bytes())[:8]


def _hypothesis_tables() -> None:
    """One text drawn as the tests draw it (public API only), when hypothesis has not kept
    its table of categories here yet: it is made, and hypothesis's modules imported, and so
    rewritten, here."""
    if any((Path.cwd() / ".hypothesis" / "unicode_data").glob("*/charmap.json.gz")):
        return
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from hypothesis.errors import HypothesisSideeffectWarning

    from .strategies import UNICODE

    @settings(max_examples=1, database=None)
    @given(st.text(UNICODE))
    def draw(text: str) -> None:
        pass

    with warnings.catch_warnings():  # slow on purpose, once: said above
        warnings.simplefilter("ignore", HypothesisSideeffectWarning)
        draw()
