"""RULES C1-C8: weights, bonuses and outcomes, in each ruleset where they differ."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tally.errors import GameFileError
from tally.rules.counting.count import weight_of
from tally.rules.game.names import Roster, normalise
from tally.rules.game.rulesets import PRESETS

from .votekit import PLAYERS, T, change, game, run, totals, vote

# -- C1: weights -----------------------------------------------------------------------------


def test_C1_000_sheriff_and_deputy_exactly():
    """2.5 + 1.5 + 1 is 5, exactly (Decimal, not float)."""
    t = (
        T()
        .post("甲", "08 10:00", vote("丁"))
        .post("乙", "08 10:01", vote("丁"))
        .post("丙", "08 10:02", vote("丁"))
    )
    result = run(game("000", day='sheriff = "甲"\ndeputy = "乙"'), t)
    assert result.totals[0].votes == Decimal("5") and str(result.totals[0].votes) == "5.0"
    assert result.outcome.player == "丁"


def test_C1_023_sheriff_counts_two():
    t = (
        T()
        .post("甲", "08 10:00", vote("丁"))
        .post("乙", "08 10:01", vote("戊"))
        .post("丙", "08 10:02", vote("戊"))
    )
    result = run(game("023", day='sheriff = "甲"\ndeputy = "乙"'), t)
    assert totals(result) == {"丁": "2", "戊": "2"}


@pytest.mark.parametrize("alive,weight", [(8, 2), (12, 2), (14, 2), (15, 3), (19, 3), (20, 4)])
def test_C1_245_dictator_formula(alive, weight):
    """独裁: +1, and from 10 alive every 5 more add +1 (tally reads 15-19 alive as +1 more)."""
    g = game("245", day='sheriff = "甲"\nsheriff_declaration = "独裁"')
    assert weight_of("甲", g.day(2), g.rules, alive)[0] == weight
    plain = game("245", day='sheriff = "甲"\nsheriff_declaration = "秩序"')
    assert weight_of("甲", plain.day(2), plain.rules, alive)[0] == 1


def test_C1_game_file_weights_for_mihun_and_shanzhan():
    t = (
        T()
        .post("甲", "08 10:00", vote("丁"))
        .post("乙", "08 10:01", vote("戊"))
        .post("丙", "08 10:02", vote("戊"))
    )
    result = run(game("M126", day='weights = { "甲" = 3, "乙" = 0 }'), t)  # 善战 3, 迷魂 0
    assert totals(result) == {"丁": "3", "戊": "1"}


def test_C1_245_deputy_immune_to_mihun():
    g = game("245", day='deputy = "乙"\nweights = { "乙" = 0, "丙" = 0 }')
    assert weight_of("乙", g.day(2), g.rules, 8) == (Decimal(1), "deputy, immune to 迷魂")
    assert weight_of("丙", g.day(2), g.rules, 8)[0] == 0
    g000 = game("000", day='deputy = "乙"\nweights = { "乙" = 0 }')
    assert weight_of("乙", g000.day(2), g000.rules, 8)[0] == 0


# -- C2: the slandered -----------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["000", "245", "023", "M126", "default"])
def test_C2_slandered_plus_two_in_every_ruleset(ruleset):
    t = T().post("甲", "08 10:00", vote("丁")).post("乙", "08 10:01", vote("戊"))
    result = run(game(ruleset, day='slandered = ["戊"]'), t)
    assert totals(result) == {"戊": "3", "丁": "1"}
    assert result.totals[0].bonuses == ((Decimal(2), "slandered (诽谤)", "C2"),)


# -- C3: 众志成城 -----------------------------------------------------------------------------


def test_C3_unity_bonus_when_more_than_half_of_the_trapped_agree():
    day = 'trapped = ["甲", "乙", "丙", "丁", "戊"]'
    t = T()
    for voter, target in [
        ("甲", "己"),
        ("乙", "己"),
        ("丙", "己"),
        ("丁", "庚"),
        ("戊", "庚"),
        ("辛", "庚"),
    ]:
        t.post(voter, "08 10:00", "投票对象：" + target)
    result = run(game("M126", day=day), t)
    assert totals(result) == {"己": "6", "庚": "3"}  # 3 votes + 3 × 1
    assert result.totals[0].bonuses[0][2] == "C3"
    two_of_five = T().post("甲", "08 10:00", "投票对象：己").post("乙", "08 10:01", "投票对象：己")
    assert totals(run(game("M126", day=day), two_of_five)) == {"己": "2"}
    # Other rulesets have no 众志成城.
    assert totals(run(game("000", day=day), t.__class__().post("甲", "08 10:00", vote("己")))) == {
        "己": "1"
    }


# -- C4: the day-1 sheriff election ----------------------------------------------------------


def test_C4_first_to_reach_the_top_count():
    t = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:10", vote("丁"))
    t.post("戊", "08 11:00", vote("丁")).post("己", "08 12:00", vote("丙"))
    result = run(game("000", number=1), t, day=1)
    assert result.kind == "sheriff"
    assert (result.outcome.result, result.outcome.player, result.outcome.code) == (
        "sheriff",
        "丁",
        "first_to_reach",
    )
    assert "丁 reached it first" in result.outcome.note


def test_C4_a_change_away_and_back_counts_from_the_last_reach():
    t = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:10", vote("丙"))
    t.comment(2, "甲", "08 10:20", change("丁"))  # 丙 drops to 1
    t.post("戊", "08 11:00", vote("丁")).post(
        "己", "08 12:00", vote("丙")
    )  # 丁 2 at 11:00, 丙 2 at 12:00
    result = run(game("000", number=1), t, day=1)
    assert totals(result) == {"丙": "2", "丁": "2"}
    assert result.outcome.player == "丁"


def test_C4_unique_top_and_no_votes():
    assert (
        run(game("000", number=1), T().post("甲", "08 10:00", vote("丙")), day=1).outcome.code
        == "most_votes"
    )
    assert run(game("000", number=1), T(), day=1).outcome.result == "none"
    # Seed 003 elects nobody: day 1 is an elimination day there.
    assert run(game("M126", number=1), T(), day=1).kind == "elimination"


# -- C5: ties --------------------------------------------------------------------------------


def _tie() -> T:
    """甲 (sheriff) and 乙 vote 丙; 丁 and 戊 vote 己: 2 : 2 with plain weights."""
    t = (
        T()
        .post("甲", "08 10:00", "投票对象：丙\n投票理由：x")
        .post("乙", "08 10:01", "投票对象：丙\n投票理由：x")
    )
    return t.post("丁", "08 10:02", "投票对象：己\n投票理由：x").post(
        "戊", "08 10:03", "投票对象：己\n投票理由：x"
    )


@pytest.mark.parametrize(
    "ruleset,day,outcome",
    [
        # seed 000: the 侍僧 dies instead of the tied
        ("000", 'acolyte = "辛"', ("eliminated", "辛", "tie_acolyte")),
        # seed 002: the sheriff's target
        ("023", "", ("eliminated", "丙", "tie_sheriff_target")),
        # seed 001: no unique maximum, so the sheriff's target
        ("245", "", ("eliminated", "丙", "tie_sheriff_target")),
        # seed 003: nobody has more than half of all votes (C6)
        ("M126", "", ("none", None, "no_majority")),
    ],
)
def test_C5_the_same_tie_three_ways(ruleset, day, outcome):
    weights = 'weights = { "甲" = 1 }\nsheriff = "甲"\n' + day
    result = run(game(ruleset, day=weights), _tie())
    assert totals(result) == {"丙": "2", "己": "2"}
    o = result.outcome
    assert (o.result, o.player, o.code) == outcome


def test_C5_000_acolyte_dies_when_nobody_votes():
    result = run(game("000", day='acolyte = "辛"'), T())
    assert (result.outcome.player, result.outcome.code) == ("辛", "no_votes_acolyte")
    assert run(game("023", day='acolyte = "辛"'), T()).outcome.result == "none"


def test_C5_sheriff_target_outside_the_tie_is_flagged_and_nobody_is_out():
    t = _tie().post("庚", "08 11:00", "投票对象：辛\n投票理由：x")
    t.posts[1] = t.posts[1].__class__(
        **{**t.posts[1].__dict__, "author": "庚"}
    )  # 庚 votes 丙 instead of 甲
    t.posts[-1] = t.posts[-1].__class__(
        **{**t.posts[-1].__dict__, "author": "甲"}
    )  # the sheriff votes 辛
    result = run(game("023", day='sheriff = "甲"\nweights = { "甲" = 1 }'), t)
    assert (result.outcome.result, result.outcome.code) == ("none", "tie_none")
    assert [f.rule for f in result.flags if f.rule != "accounts"] == ["C5"]


# -- C6: more than half of all votes ---------------------------------------------------------


def test_C6_abstentions_count_in_the_half():
    t = T()
    for voter, target in [
        ("甲", "丙"),
        ("乙", "丙"),
        ("丁", "丙"),
        ("戊", "己"),
        ("庚", "弃权"),
        ("辛", "弃权"),
    ]:
        t.post(voter, "08 10:00", "投票对象：" + target)
    result = run(game("M126"), t)
    assert (result.outcome.result, result.outcome.code) == ("none", "no_majority")  # 3 of 6
    t.post("己", "08 11:00", "投票对象：丙")
    result = run(game("M126"), t)
    assert (result.outcome.result, result.outcome.player) == ("eliminated", "丙")  # 4 of 7
    assert result.count.cast == 7
    # Without C6 a plurality is enough.
    assert run(game("M126", rules="majority_of_all = false"), t).outcome.code == "plurality"


# -- C7: what is published -------------------------------------------------------------------


def test_C7_visibility_per_preset():
    seen = {name: (r.publish_counts, r.publish_voters) for name, r in PRESETS.items()}
    assert seen == {
        "default": (True, True),
        "000": (True, True),
        "245": (False, True),
        "023": (True, True),
        "M126": (True, False),
    }


# -- C8: immunities --------------------------------------------------------------------------


def test_C8_immune_top_player_is_not_out():
    t = T().post("甲", "08 10:00", vote("丙"))
    result = run(game("000", day='immune = ["丙"]'), t)
    assert (result.outcome.result, result.outcome.code) == ("none", "immune")
    assert "平安日" in result.outcome.note


# -- [rules] overrides -----------------------------------------------------------------------


def test_rules_override_and_mistakes():
    assert game(
        "023", rules="sheriff_weight = 2.5\nmax_changes = 2"
    ).rules.sheriff_weight == Decimal("2.5")
    with pytest.raises(
        GameFileError,
        match=r"'rules.sherif_weight': is not a rule tally knows \(did you mean 'sheriff_weight'\?\)",
    ):
        game("000", rules="sherif_weight = 2")
    with pytest.raises(GameFileError, match=r"'rules.change_via': must be a list of 'comment'"):
        game("000", rules='change_via = ["pm"]')
    with pytest.raises(GameFileError, match=r"'rules.require_reason': must be true or false"):
        game("000", rules="require_reason = 1")


# -- names -----------------------------------------------------------------------------------


def test_names_fold_width_case_and_invisible_characters():
    roster = Roster(["Kiwi", "月影", "Mika"], {"月影": ["小月"]})
    for spelling in ("kiwi", "ＫＩＷＩ", "K\u200biwi", "\ufeffKiwi ", "kiwi\u3164"):
        assert roster.match(spelling).player == "Kiwi", spelling
    assert roster.match("小月").player == "月影"  # alias
    assert normalise("  a \u3000 b ") == "a b"


def test_names_lookalikes_are_flagged_not_merged():
    roster = Roster(["Mika", "kiwi"])
    fake = roster.match("Мika")  # Cyrillic М
    assert fake.player is None and fake.lookalike == "Mika" and fake.suggestions == ("Mika",)
    t = T().post("甲", "08 10:00", vote("Мika"))
    result = run(game("000", players=[*PLAYERS, "Mika"]), t)
    b = result.ballots[0]
    assert (b.status, b.reason, b.suggestions) == ("void", "unknown_target", ("Mika",))
    assert "looks like 'Mika'" in b.flags[0] and result.flags[0].rule == "lookalike"
