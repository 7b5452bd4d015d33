"""docs/rulesets.md is written from the rulesets (issue 35): it cannot drift from them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tally.outputs.written.rulesets_doc import markdown, rows
from tally.rules.rulesets import PRESETS, ChangeMethod

DOC = Path(__file__).resolve().parents[1] / "docs" / "rulesets.md"


def test_docs_rulesets_md_is_the_page_the_rulesets_make():
    assert DOC.read_text(encoding="utf-8") == markdown(), (
        "docs/rulesets.md is stale: run python -m tally.outputs.written.rulesets_doc docs/rulesets.md"
    )


def table(key: str) -> dict[str, str]:
    return {what: how for what, how, _ in rows(PRESETS[key])}


@pytest.mark.rules("V3", "C4")
def test_each_ruleset_says_how_a_change_is_posted_and_what_day_1_is():
    assert table("245")["a change on Discuz!"].startswith("the vote floor's 回复 button")
    assert table("023")["a change on Discuz!"].startswith("the vote floor's 引用 button")
    assert table("000")["a change on Discuz!"].startswith("the vote floor's 点评 button")
    assert table("000")["a change on Tieba"].startswith("a 楼中楼 under one's own vote floor")
    for key in ("000", "245", "023"):
        assert table(key)["day 1"].startswith("a sheriff election")
    assert table("M126")["day 1"] == "a vote like every day's (no sheriff election)"
    assert "only 嫌疑人 vote and stand" in table("023")["day 1"]


@pytest.mark.rules("V5", "C1", "C5", "L1")
def test_the_table_follows_the_fields_it_is_made_from():
    """Change a field and the line changes with it: nothing in the page is typed."""
    changed = dataclasses.replace(PRESETS["000"], change_window_minutes=10, min_posts=7,
                                  sheriff_weight=PRESETS["000"].sheriff_weight * 2,
                                  change_via=(ChangeMethod.QUOTE,))  # fmt: skip
    made = {what: how for what, how, _ in rows(changed)}
    assert "none in the last 10 minutes before the close" in made["changes"]
    assert made["carded"].startswith("fewer than 7 posts on a day (L1)")
    assert made["weights"].startswith("sheriff 5, deputy 1.5")
    assert made["a change on Discuz!"].startswith("the vote floor's 引用 button")
    assert "## `M126`" in markdown() and "## `default`" not in markdown()
    assert markdown({"x": changed}).count("none in the last 10 minutes") == 1
