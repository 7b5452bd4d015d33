"""docs/rulesets.md is written from the rulesets (issue 35): it cannot drift from them."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tally.outputs.written.rulesets_doc import markdown, rows, rules_table, with_rules_table
from tally.rules.game.rulesets import PRESETS, ChangeMethod, Ruleset
from tally.rules.verdicts import TieStep

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rulesets.md"
DOC_ZH = ROOT / "docs" / "zh" / "rulesets.md"
GAME_FILE = ROOT / "docs" / "game-file.md"


def test_docs_rulesets_md_is_the_page_the_rulesets_make():
    assert DOC.read_text(encoding="utf-8") == markdown(), (
        "docs/rulesets.md is stale: run python -m tally.outputs.written.rulesets_doc docs/rulesets.md"
    )


def test_docs_zh_rulesets_md_is_the_page_the_rulesets_make_in_chinese():
    """Issue 52: the Chinese twin is written the same way, from the same rulesets, its words
    from the catalog; the two pages link each other at their tops."""
    from tally.i18n import Language

    chinese = markdown(language=Language.ZH)
    assert DOC_ZH.read_text(encoding="utf-8") == chinese, (
        "docs/zh/rulesets.md is stale: run python -m tally.outputs.written.rulesets_doc --zh "
        "docs/zh/rulesets.md"
    )
    assert chinese.startswith("# 内置规则集\n\nEnglish: [The built-in rulesets](../rulesets.md)\n")
    assert markdown().startswith("# The built-in rulesets\n\n中文：[内置规则集](zh/rulesets.md)\n")
    # The same tables, ruleset by ruleset, row by row, the same rule ids and ballot forms.
    english = markdown()
    def ids(page: str) -> list[str]:
        return [ln.split(" | ")[-1] for ln in page.splitlines()
                if ln.startswith("| ") and not ln.startswith("| | |")]  # fmt: skip

    assert ids(chinese) == ids(english) and len(ids(english)) == 4 * 12
    assert re.findall(r"^  .*$", chinese, re.M) == re.findall(r"^  .*$", english, re.M)
    assert "| 改票 | 限改1次；关门前60分钟内不许改 | V4, V5, V9 |" in chinese
    assert "| 票重 | 警长2.5票，执警1.5票；被诽谤+2 | C1, C2, C3 |" in chinese


def test_the_game_files_rules_table_is_the_one_the_rulesets_make():
    """Issue 51: docs/game-file.md's [rules] table was typed by hand; it is written from each
    field's type, the rule and meaning it says (``said``) and the presets' values."""
    text = GAME_FILE.read_text(encoding="utf-8")
    assert text == with_rules_table(text), (
        "docs/game-file.md's [rules] table is stale: run python -m "
        "tally.outputs.written.rulesets_doc --rules-table docs/game-file.md"
    )
    for f in dataclasses.fields(Ruleset):
        if f.name != "based_on":
            assert f.metadata.get("rule") and f.metadata.get("means"), f.name
    with pytest.raises(ValueError, match=r"^the page has no line that marks the \[rules\] table$"):
        with_rules_table("# A page\n\n| key | type |\n")


@pytest.mark.rules("C5", "V5")
def test_the_rules_table_follows_the_enums_and_the_presets():
    """A tie step's words come from TieStep, every value a game file may write from its enum,
    and each preset's value from the preset: nothing in the row is typed."""
    table = {line.split(" | ")[0][3:-1]: line for line in rules_table()[2:]}
    chain = table["tie_chain"]
    assert f"list of {', '.join(f'`{s}`' for s in TieStep)} | C5 |" in chain
    for step in TieStep:
        assert f"`{step}`: {step.says}" in chain
    assert chain.endswith("(acolyte, sheriff_target, none / sheriff_target, none / "
                          "sheriff_target, none / none) |")  # fmt: skip
    assert table["acceleration_share"].split(" | ")[1] == "`more_than_half` or `at_least_half`"
    assert "(none / progress / progress / progress, discussion; default: progress, discussion)" in (
        table["acceleration_threads"])
    changed = dataclasses.replace(PRESETS["000"], change_window_minutes=10)
    [row] = [r for r in rules_table({"x": changed}) if r.startswith("| `change_window_minutes`")]
    assert row.endswith("before the close (10) |") and "meaning (x)" in rules_table({"x": changed})[0]


@pytest.mark.rules("C5")
def test_the_rules_tables_c5_names_the_tie_steps_of_the_seed_games():
    """The rules table (README's, or the docs page it moved to) names the steps of the seed
    games' tie chains by the words TieStep gives each (``who``)."""
    steps = dict.fromkeys(s for r in PRESETS.values() for s in r.tie_chain)
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    rows_ = [ln for p in pages for ln in p.read_text(encoding="utf-8").splitlines()
             if ln.startswith("| C5 | ")]  # fmt: skip
    assert len(rows_) == 1, rows_
    assert f"({', '.join(s.who for s in steps)})" in rows_[0]


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
