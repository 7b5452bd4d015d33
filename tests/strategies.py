"""What the property tests draw text from."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# Every character UTF-8 encodes: all of Unicode but the surrogates, what ``st.text()`` draws
# by default. Asked for by category here: asked for by codec (``text()``'s default,
# ``characters(codec="utf-8")``), hypothesis finds the same set by encoding each of the
# 1,114,112 code points, 1.3 s of a fresh clone's run (its tables are kept in .hypothesis/).
UNICODE = st.characters(exclude_categories=["Cs"])


# The examples each property draws: 80 in the whole suite (CI's run), fewer in the quick
# loop (tests/runner.py sets TALLY_FUZZ_EXAMPLES to its QUICK_EXAMPLES for ``-m "not slow"``
# unless it is set already), as many as asked for with TALLY_FUZZ_EXAMPLES.
EXAMPLES = 80


def fuzz(*allowed: HealthCheck) -> settings:
    """The settings of the suite's property tests: TALLY_FUZZ_EXAMPLES examples (``EXAMPLES``
    by default), no deadline (a loaded machine is not a slow tally), and hypothesis's too_slow
    check off, with ``allowed`` besides (function_scoped_fixture, for a property that takes
    a test's fixture knowing each example shares it)."""
    return settings(
        max_examples=int(os.environ.get("TALLY_FUZZ_EXAMPLES", str(EXAMPLES))),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, *allowed],
    )
