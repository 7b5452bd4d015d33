"""docs/rulesets.md is written from the rulesets (issue 35): it cannot drift from them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tally.outputs.written.rulesets_doc import markdown, rows
from tally.rules.game.rulesets import PRESETS, ChangeMethod

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


@pytest.mark.rules("V1", "V2", "V6", "V8")
@pytest.mark.parametrize("key", ["000", "245", "023", "M126"])
def test_every_form_the_page_gives_is_read_as_it_says(key):
    """Issue 48: the page gave 000's change as `改票对象：名字`, and a change so written was void
    (no 改票理由). Each form the page shows is read by the ruleset's own reader as the
    ballot it says, with no problem."""
    from tally.outputs.written.rulesets_doc import forms
    from tally.rules.judging.ballot_text import read_ballot

    rules = PRESETS[key]
    made = forms(rules)
    assert {f.kind for f in made} == {"vote", "abstain", "change", "proxy"}
    for form in made:
        reading = read_ballot(form.text, require_reason=rules.require_reason,
                              abstain_word=rules.abstain_word,
                              change_reason=rules.change_requires_reason)  # fmt: skip
        assert reading.problem is None, (form.what, reading.problem)
        [ballot] = reading.ballots
        assert reading.proxy_for == form.proxy_for
        assert ballot.abstains == (form.kind == "abstain")
        shown = "\n".join(f"  {line}" for line in form.text.splitlines())
        assert f"  ```\n{shown}\n  ```" in markdown()  # the page shows it as it is read


@pytest.mark.rules("V1", "V2", "V3", "V6", "V8")
@pytest.mark.parametrize("key", ["000", "245", "023", "M126"])
def test_a_day_cast_in_the_pages_forms_counts_every_ballot(key):
    """The page's forms, posted as the page says (a change the ruleset's way), counted:
    the vote and the change, the abstention and the director's proxy ballot all stand."""
    from tally.outputs.written.rulesets_doc import forms

    from .votekit import T, game, run, status_of

    text = {f.what: f.text.replace("名字", "丁").replace("玩家", "丙") for f in forms(PRESETS[key])}
    short = "a change, its reason left out" if key in ("000", "M126") else "a change"
    t = T().post("甲", "08 10:00", text["a vote"].replace("丁", "乙"))
    t.post("乙", "08 10:05", text["an abstention"])
    t.post("导演", "08 10:10", text["a proxy ballot (代投)"])
    way = PRESETS[key].change_via[0]
    if way == ChangeMethod.COMMENT:
        t.comment(2, "甲", "08 11:00", text[short])
    else:
        t.post("甲", "08 11:00", text[short], reply=2 if way == ChangeMethod.REPLY else None,
               quote=2 if way == ChangeMethod.QUOTE else None)  # fmt: skip
    result = run(game(key), t)
    assert status_of(result, 2) == ("superseded", None)
    assert status_of(result, 3) == ("counted", None)
    assert status_of(result, 4) == ("counted", None)
    change = status_of(result, 2, comment=True) if way == ChangeMethod.COMMENT else status_of(result, 5)
    assert change == ("counted", None)
    assert {b.voter: b.kind for b in result.ballots if b.status == "counted"} == {
        "甲": "change", "乙": "abstain", "丙": "proxy"}
