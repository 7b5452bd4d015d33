"""What the property tests draw text from."""

from __future__ import annotations

from hypothesis import strategies as st

# Every character UTF-8 encodes: all of Unicode but the surrogates, what ``st.text()`` draws
# by default. Asked for by category here: asked for by codec (``text()``'s default,
# ``characters(codec="utf-8")``), hypothesis finds the same set by encoding each of the
# 1,114,112 code points, 1.3 s of a fresh clone's run (its tables are kept in .hypothesis/).
UNICODE = st.characters(exclude_categories=["Cs"])
