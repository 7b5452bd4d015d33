"""ruff and mypy stay clean: run as part of the suite so that CI holds the line.

Both start once the tests are chosen, when these two are among them, and run beside the
other tests (tests/lint.py); these wait for their verdicts.
"""

from __future__ import annotations

from .lint import verdict


def test_ruff():
    verdict("ruff")


def test_mypy():
    verdict("mypy")
