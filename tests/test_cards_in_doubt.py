"""A card the lurker check gave that the same check, run again, no longer gives (RULES L1, L3):
a post held for 审核 approved after the close, and the ballot with it. Before, `tally lurkers`
said "Ledger unchanged" and kept both cards with no word; the next day's third yellow made a
red (K1), the red sent the player off (K2), and day 3's count put the wrong player out, exit
0. Now the card is in doubt in the ledger until the director removes or keeps it: the run
says so, one line a card with the two commands, and exits 2; no K1 or K2 rests on it, and
the count that would treat the player as out stops, naming it (real HTTP, the local forum).
"""

from __future__ import annotations

import json

import pytest

from tally.cli import app
from tally.outputs.written.cardfile import load

from . import gamefiles
from .conftest import Runner
from .discuzgen import P, Thread

runner = Runner()
PLAYERS = ["alice", "bob", "carol", "eve", "frank"]
DAYS = {1: ("2024-05-06 09:30", "2024-05-06 21:30"), 2: ("2024-05-07 09:30", "2024-05-07 21:30"),
        3: ("2024-05-08 09:30", "2024-05-08 21:30")}  # fmt: skip
HEADER = "\ufeffday,player,colour,rule,reason,source\r\n"


def _talk(day: int, eve: int) -> Thread:
    t = Thread(str(200 + day), f"第{day}天讨论帖", {}, first_pid=10000 * day)
    t.add(P("导演A", f"2024-05-0{5 + day} 09:30:00", "讨论帖开门"))
    for player in PLAYERS:
        n = {"eve": eve, "carol": 4}.get(player, 6)
        for i in range(n):
            t.add(
                P(
                    player,
                    f"2024-05-0{5 + day} 1{PLAYERS.index(player)}:{10 + i}:00",
                    f"第{i + 1}条",
                )
            )
    return t


def _vote(day: int, ballots: dict[str, str]) -> Thread:
    t = Thread(str(300 + day), f"第{day}天投票帖", {}, first_pid=10000 * day + 5000)
    t.add(P("导演A", f"2024-05-0{5 + day} 09:30:00", "投票格式：\n投票对象：\n投票理由："))
    for i, (player, target) in enumerate(ballots.items()):
        t.add(
            P(player, f"2024-05-0{5 + day} 20:{10 + i}:00", f"投票对象：{target}\n投票理由：票型")
        )
    return t


ABSTAIN = dict.fromkeys(PLAYERS, "弃权")
# Day 3: with eve in, eve is out (3 votes); with eve sent off, bob (the votes for eve void).
DAY3 = {"alice": "eve", "bob": "eve", "carol": "eve", "eve": "bob", "frank": "bob"}


def _game(forum, tmp_path, *, approved: bool) -> object:  # type: ignore[no-untyped-def]
    """Day 1 with eve's 5th post and her ballot held for 审核 (not on the page) or approved."""
    urls = {}
    day1 = {p: t for p, t in ABSTAIN.items() if approved or p != "eve"}
    for day, (talk, vote) in {1: (_talk(1, 5 if approved else 4), _vote(1, day1)),
                              2: (_talk(2, 4), _vote(2, ABSTAIN)),
                              3: (_talk(3, 6), _vote(3, DAY3))}.items():  # fmt: skip
        urls[day] = (talk.serve(forum), vote.serve(forum))
    days = [gamefiles.day(d, urls[d][1], f"{o}:00", f"{c}:00", discussion=urls[d][0])
            for d, (o, c) in DAYS.items()]  # fmt: skip
    return gamefiles.write_game(tmp_path / "game.toml", *days, ruleset="000",
                                directors=["导演A"], players=PLAYERS)  # fmt: skip


def _lurkers(game, day: int, *extra: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["lurkers", "--game", str(game), "--day", str(day), "--fresh",
                               *extra])  # fmt: skip


def _rows(game):  # type: ignore[no-untyped-def]
    return [(c.day, c.player, c.colour.value, c.rule, c.source)
            for c in load(game.with_name("game.cards.csv"))]  # fmt: skip


def _closed_then_approved(forum, tmp_path):  # type: ignore[no-untyped-def]
    game = _game(forum, tmp_path, approved=False)
    first = _lurkers(game, 1, "--json")
    assert first.exit_code == 0, first.output
    assert [(c["player"], c["rule"]) for c in json.loads(first.stdout)["cards"]] == [
        ("carol", "L1"), ("eve", "L1"), ("eve", "L3")]  # fmt: skip
    return _game(forum, tmp_path, approved=True)  # the moderator approves both held posts


@pytest.mark.rules("L1", "L3")
def test_a_card_the_check_no_longer_gives_is_in_doubt_said_and_exits_2(forum, tmp_path):
    game = _closed_then_approved(forum, tmp_path)
    # A card by hand is never questioned, a struck card stays struck.
    ledger = game.with_name("game.cards.csv")
    ledger.write_text(ledger.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
                      .replace(HEADER.strip("\ufeff\r\n") + "\n", HEADER)
                      + "1,frank,yellow,L8,刷屏,director\r\n", encoding="utf-8")  # fmt: skip
    again = _lurkers(game, 1, "--json")
    assert again.exit_code == 2, again.output
    data = json.loads(again.stdout)
    assert data["cards"] == [{"player": "carol", "colour": "yellow", "rule": "L1",
                              "reason": "第1天发言4条（少于5条）"}]  # fmt: skip
    doubt = {d["rule"]: d for d in data["ledger"]["doubt"]}
    assert set(doubt) == {"L1", "L3"} and all(d["player"] == "eve" for d in doubt.values())
    assert doubt["L1"]["why"] == (
        "5 posts on day 1 now (1 more than when the card was written: approved, restored or "
        "merged in since)"
    )
    assert doubt["L3"]["why"] == "a counted ballot on day 1 now"
    assert doubt["L1"]["remove"] == f"tally cards remove --game {game} --day 1 eve yellow L1"
    assert doubt["L1"]["keep"] == f"tally cards keep --game {game} --day 1 eve yellow L1"
    assert "in doubt" in again.stderr and "eve L1 of day 1" in again.stderr
    # Marked in the ledger, in its six columns (an older tally reads it), not dropped.
    assert _rows(game) == [(1, "carol", "yellow", "L1", "tally"), (1, "eve", "yellow", "L1", "doubt"),
                           (1, "eve", "yellow", "L3", "doubt"), (1, "frank", "yellow", "L8", "director")]  # fmt: skip
    assert "eve" not in data["ledger"]["totals"]  # a card in doubt counts for nothing yet
    # The table: one line a card, with the way out; and again on the next run.
    table = _lurkers(game, 1)
    assert table.exit_code == 2
    line = next(x for x in table.stdout.splitlines() if "IN DOUBT" in x and "(L1)" in x)
    assert (
        "5 posts on day 1 now" in line
        and f"tally cards remove --game {game} --day 1 eve yellow L1" in line
    )


@pytest.mark.rules("L1", "L3", "K1", "K2")
def test_no_red_rests_on_a_card_in_doubt_and_the_count_that_would_send_off_stops(forum, tmp_path):
    game = _closed_then_approved(forum, tmp_path)
    # Day 2 at once, without day 1 checked again: it reads day 1 and finds the cards.
    day2 = _lurkers(game, 2, "--json")
    assert day2.exit_code == 2, day2.output
    data = json.loads(day2.stdout)
    assert [(c["player"], c["rule"]) for c in data["ledger"]["new"]] == [("carol", "L1"), ("eve", "L1")]  # fmt: skip
    assert data["ledger"]["sent_off"] == []
    assert data["ledger"]["undecided"] == ["eve"]
    assert [w["player"] for w in data["ledger"]["waiting"]] == ["eve"]  # K1 waits
    assert (2, "eve", "red", "K1", "tally") not in _rows(game)
    # Day 3's count would put eve out or count her: it stops, naming the cards.
    url = _vote(3, DAY3).serve(forum)
    votes = runner.invoke(app, ["votes", url, "--game", str(game), "--fresh"])
    assert votes.exit_code == 2, votes.output
    assert "eve's yellow card (L1) for day 1" in votes.stderr
    assert f"tally cards remove --game {game} --day 1 eve yellow L1" in votes.stderr
    morning = runner.invoke(
        app, ["announce", "--game", str(game), "--day", "2", "--kind", "morning"]
    )
    assert morning.exit_code == 2 and "in doubt" in morning.stderr
    # The director takes both back: eve plays on day 3, and she is the one voted out.
    for rule in ("L1", "L3"):
        done = runner.invoke(
            app, ["cards", "remove", "--game", str(game), "--day", "1", "eve", "yellow", rule]
        )
        assert done.exit_code == 0, done.output
    assert (1, "eve", "yellow", "L1", "struck") in _rows(game)
    counted = runner.invoke(app, ["votes", url, "--game", str(game), "--fresh", "--json"])
    assert counted.exit_code == 0, counted.output
    assert json.loads(counted.stdout)["outcome"]["player"] == "eve"
    assert _lurkers(game, 2).exit_code == 0  # struck stays struck: nothing in doubt


@pytest.mark.rules("L1", "K1", "K2")
def test_a_card_in_doubt_kept_by_the_director_counts_with_its_red(forum, tmp_path):
    game = _closed_then_approved(forum, tmp_path)
    assert _lurkers(game, 2).exit_code == 2
    for rule in ("L1", "L3"):
        kept = runner.invoke(
            app, ["cards", "keep", "--game", str(game), "--day", "1", "eve", "yellow", rule]
        )
        assert kept.exit_code == 0, kept.output
    assert (2, "eve", "red", "K1", "tally") in _rows(game)  # K1 once kept
    again = _lurkers(game, 2, "--json")
    assert again.exit_code == 0, again.output  # the director's cards are never questioned
    assert json.loads(again.stdout)["ledger"]["sent_off"] == ["eve"]
    url = _vote(3, DAY3).serve(forum)
    counted = runner.invoke(app, ["votes", url, "--game", str(game), "--fresh", "--json"])
    assert counted.exit_code == 0, counted.output
    assert json.loads(counted.stdout)["outcome"]["player"] == "bob"


@pytest.mark.slow  # the report, its pictures drawn
@pytest.mark.rules("L1", "K1")
def test_the_report_shows_a_card_in_doubt_as_such_and_counts_it_nowhere(forum, tmp_path):
    """`tally report` left a card in doubt out of its ledger table without a word: it is
    listed, marked 待定 (the director decides; carol's card, still given, is not)."""
    game = _closed_then_approved(forum, tmp_path)
    assert _lurkers(game, 1).exit_code == 2
    out = tmp_path / "report.html"
    made = runner.invoke(app, ["report", "--game", str(game), "-o", str(out), "--fresh"])
    assert made.exit_code == 0, made.output
    page = out.read_text(encoding="utf-8")
    ledger = page.split('<section id="ledger">')[1].split("</section>")[0]
    rows = [r for r in ledger.split("<tr>") if 'data-player="eve"' in r]
    assert len(rows) == 2 and all("（待定：检查已不再给出此卡）" in r for r in rows)
    carol = next(r for r in ledger.split("<tr>") if 'data-player="carol"' in r)
    assert "待定" not in carol


@pytest.mark.rules("K1", "K2")
def test_a_K1_card_the_director_gave_by_hand_outlives_a_review():
    """The ledger made again (a card put in doubt, removed or kept) dropped every K1 card of
    the player, the director's own red among them: the send-off went with it (a cold read)."""
    from tally.rules.cards import ledger
    from tally.rules.cards.ledger import Card
    from tally.rules.verdicts import Colour

    yellow, red = Colour.YELLOW, Colour.RED
    cards, _ = ledger.add([], [Card(d, "eve", yellow, "L1", f"第{d}天发言4条") for d in (1, 2, 3)])
    cards.append(Card(2, "eve", red, "K1", "导演判红（手动）", "director"))
    out, doubted, _ = ledger.reviewed(cards, {1: []})
    assert [c.source for c in doubted] == ["doubt"]
    assert Card(2, "eve", red, "K1", "导演判红（手动）", "director") in out
    assert ledger.sent_off(out) == ["eve"]  # the director's red stands (tally's K1 waits)
    assert not [c for c in out if c.rule == "K1" and c.source == "tally"]


def test_a_K1_card_is_not_kept_by_hand(forum, tmp_path):
    """`tally cards keep … red K1` said "added" twice and changed nothing: refused, as
    `tally cards remove` refuses one (a K1 card is made by the three below it)."""
    game = _closed_then_approved(forum, tmp_path)
    result = runner.invoke(app, ["cards", "keep", "--game", str(game), "--day", "1", "eve", "red",
                                 "K1"])  # fmt: skip
    assert result.exit_code == 2 and "a K1 card is made by the three cards below it" in result.stderr


def _late_vote(day: int, ballots: dict[str, str]) -> Thread:
    """Day 1's ballots of alice, bob and carol came a few minutes after the file's close
    (the director let them through: --late-ok)."""
    t = Thread(str(300 + day), f"第{day}天投票帖", {}, first_pid=10000 * day + 5000)
    t.add(P("导演A", f"2024-05-0{5 + day} 09:30:00", "投票格式：\n投票对象：\n投票理由："))
    for i, (player, target) in enumerate(ballots.items()):
        late = day == 1 and player in ("alice", "bob", "carol")
        at = f"21:3{i + 1}" if late else f"20:{10 + i}"
        t.add(P(player, f"2024-05-0{5 + day} {at}:00", f"投票对象：{target}\n投票理由：票型"))
    return t


@pytest.mark.rules("L1", "L3", "K1", "K2")
def test_a_day_checked_with_late_ok_is_checked_again_for_cards_in_doubt(forum, tmp_path,
                                                                         monkeypatch):  # fmt: skip
    """Day 1 carded with --late-ok; eve's held posts approved since: `tally lurkers --day 2`
    (no --late-ok) skipped day 1's check without a word and sent eve off (exit 0). Day 1 is
    checked again with its late ballots let through: eve's cards are in doubt, exit 2."""
    import tests.test_cards_in_doubt as here

    monkeypatch.setattr(here, "_vote", _late_vote)
    game = _game(forum, tmp_path, approved=False)
    assert _lurkers(game, 1, "--json").exit_code == 2  # the late ballots stop the plain run
    assert _lurkers(game, 1, "--json", "--late-ok").exit_code == 0
    game = _game(forum, tmp_path, approved=True)
    day2 = _lurkers(game, 2, "--json")
    assert day2.exit_code == 2, day2.output
    doubt = json.loads(day2.stdout)["ledger"]["doubt"]
    assert sorted((d["player"], d["rule"]) for d in doubt) == [("eve", "L1"), ("eve", "L3")]
    assert "eve" not in json.loads(day2.stdout)["ledger"]["sent_off"]


@pytest.mark.rules("L3")
def test_a_day_checked_with_late_ok_is_counted_with_its_late_ballots_let_through(forum, tmp_path,
                                                                                 monkeypatch):  # fmt: skip
    """`tally lurkers --day 1 --late-ok` over a day with three ballots after its close: the
    check let them through, and the day's own count, which says who it put out, let them
    through too; it said "day 1 is not counted here — … pass --late-ok …" to the director
    who had passed it, and took who was out from the game file alone."""
    import tests.test_cards_in_doubt as here

    monkeypatch.setattr(here, "_vote", _late_vote)
    game = _game(forum, tmp_path, approved=False)
    done = _lurkers(game, 1, "--json", "--late-ok")
    assert done.exit_code == 0, done.output
    assert "not counted here" not in done.stderr and "--late-ok" not in done.stderr
    assert "is not counted here" not in json.dumps(json.loads(done.stdout), ensure_ascii=False)


@pytest.mark.rules("L1")
def test_a_day_checked_says_nothing_of_the_days_after_it(forum, tmp_path):
    """`tally lurkers --day 1` of a three-day game: the days after it are none of its count's
    business; it said "day 2 is not counted here — its vote thread was not read — …" and the
    same of day 3 at every check of an earlier day."""
    game = _game(forum, tmp_path, approved=True)
    for day, said in ((1, []), (2, [])):
        done = _lurkers(game, day, "--json")
        assert done.exit_code == 0, done.output
        assert [line for line in done.stderr.splitlines() if "not counted here" in line] == said
