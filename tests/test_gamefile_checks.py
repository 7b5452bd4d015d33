"""The game file checked against the threads and against tally's own counts, on a
real-shaped 023 game (pages built from a real Discuz! X3.5's post blocks, served on
loopback): every slip a director makes at 21:30 gives one sentence, or the right count.

The game: day 1 elects kiwi sheriff (4 votes to 墨染's 2). On day 2 白露 and 墨染 have 5
each with kiwi's 2 (023's sheriff weight): the sheriff's target 墨染 is out (C5). Without
the sheriff, 白露 would be out on 5 to 4. On day 3 墨染 is out, and a ballot of theirs is
void (V9). Each day's first post states its close, as directors do.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tally.cli import app
from tally.commands.votes import vote_day
from tally.errors import GameFileError, InputError
from tally.forums.reader import Reader, Reading
from tally.outputs.written import charts
from tally.rules.game.gamefile import load_game, parse_game

from . import gamefiles
from .conftest import FakeClock, Runner
from .discuzgen import P
from .discuzgen import Thread as Pages

runner = Runner()
CHINA = ZoneInfo("Asia/Shanghai")
PLAYERS = ["kiwi", "墨染", "白露", "青山", "冷月", "小眯", "阿澈", "风铃", "南瓜", "雪见", "月影"]
AFTER = "2024-11-30 12:00"  # every day closed


def talk(tid: str, day: int, opens: str, closes: str) -> Pages:
    t = Pages(tid, f"[A01] 月下古堡 第{'一二三'[day - 1]}天讨论帖", {}, first_pid=int(tid) * 100)
    t.add(P("导演A", f"{opens}:00", f"第{day}天讨论帖开门\n关门：{closes}"))
    for i, who in enumerate(PLAYERS):
        t.add(P(who, f"{opens[:10]} 1{i % 10}:{i:02d}:00", f"{who}第{day}天的发言"))
    return t


def election() -> Pages:
    t = Pages("801", "[A01] 月下古堡 第一天 警长竞选投票帖", {}, first_pid=80100)
    t.add(P("导演A", "2024-11-23 09:30:00", "投票格式：\n投票对象：\n投票理由：\n投票截止：11月24日 21:30"))
    for i, (who, target) in enumerate(
        [("冷月", "kiwi"), ("小眯", "kiwi"), ("阿澈", "kiwi"), ("风铃", "kiwi"),
         ("白露", "墨染"), ("青山", "墨染")]
    ):  # fmt: skip
        t.add(P(who, f"2024-11-23 1{i}:00:00", f"投票对象：{target}\n投票理由：竞选"))
    return t


def day2_vote(*, close: str = "关门：11月26日 21:30", extra: list[P] | None = None) -> Pages:
    t = Pages("803", "[A01] 月下古堡 第二天投票帖", {}, first_pid=80300)
    t.add(P("导演A", "2024-11-25 09:30:00", f"投票格式：\n投票对象：\n投票理由：\n{close}"))
    votes = [("青山", "白露"), ("冷月", "白露"), ("小眯", "白露"), ("阿澈", "白露"),
             ("风铃", "白露"), ("kiwi", "墨染"), ("南瓜", "墨染"), ("雪见", "墨染"),
             ("白露", "墨染"), ("墨染", "青山")]  # fmt: skip
    for i, (who, target) in enumerate(votes):  # floors 2-11
        t.add(P(who, f"2024-11-25 1{i}:10:00", f"投票对象：{target}\n投票理由：第二天"))
    t.add(*(extra or []))
    return t


def day3_vote() -> Pages:
    t = Pages("805", "[A01] 月下古堡 第三天投票帖", {}, first_pid=80500)
    t.add(P("导演A", "2024-11-27 09:30:00", "投票格式：\n投票对象：\n投票理由：\n关门：11月28日 21:30"))
    t.add(P("青山", "2024-11-27 10:00:00", "投票对象：白露\n投票理由：第三天"))  # 2
    t.add(P("墨染", "2024-11-27 11:00:00", "投票对象：白露\n投票理由：诈尸"))  # 3: out since day 2
    return t


DAYS = {  # day: (opens, closes, the close as the first posts say it)
    1: ("2024-11-23 09:30", "2024-11-24 21:30", "11月24日 21:30"),
    2: ("2024-11-25 09:30", "2024-11-26 21:30", "11月26日 21:30"),
    3: ("2024-11-27 09:30", "2024-11-28 21:30", "11月28日 21:30"),
}


def serve(forum, vote2: Pages | None = None) -> dict[str, str]:
    urls = {f"talk{d}": talk(str(700 + d), d, o, c).serve(forum) for d, (o, _, c) in DAYS.items()}
    urls |= {"vote1": election().serve(forum), "vote2": (vote2 or day2_vote()).serve(forum)}
    urls["vote3"] = day3_vote().serve(forum)
    return urls


def game_text(urls: dict[str, str], day2: Mapping[str, object] | None = None, day1: bool = True,
              day3: Mapping[str, object] | None = None) -> str:  # fmt: skip
    """The game's text; ``day2`` and ``day3``: what a test adds to a day (a sheriff, someone
    dead, …)."""
    added = {2: day2 or {}, 3: day3 or {}}
    days = [gamefiles.day(d, urls[f"vote{d}"], f"{opens}:00", f"{closes}:00",
                          discussion=urls[f"talk{d}"], **added.get(d, {}))
            for d, (opens, closes, _) in DAYS.items() if d != 1 or day1]  # fmt: skip
    return gamefiles.game_toml(*days, name="[A01] 月下古堡", ruleset="023", directors=["导演A"],
                               players=PLAYERS, rules={"election_voters": []})


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "game.toml"
    path.write_text(text, encoding="utf-8")
    return path


def invoke(*args: str, now: str = AFTER):
    return runner.invoke(app, list(args), obj=FakeClock(now, CHINA).env(), env={"COLUMNS": "250"})


def one_sentence(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("tally:")]
    assert len(lines) == 1, result.stderr
    return lines[0]


def library(now: str = AFTER) -> Reader:
    """The library's way in, as a script would take it: one Reader."""
    return Reader(FakeClock(now, CHINA).env(), Reading(use_cache=False))


def votes_json(game: Path, url: str, *extra: str) -> dict:
    result = invoke("votes", url, "--game", str(game), "--json", "-q", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# -- 1. state carried from tally's own counts ---------------------------------------------


def test_C4_C5_the_sheriff_the_election_made_counts_on_day_2_without_a_sheriff_line(forum, tmp_path):
    """The day-2 entry names no sheriff: kiwi, whom day 1 elected, breaks the 5:5 tie."""
    urls = serve(forum)
    game = write(tmp_path, game_text(urls))
    data = votes_json(game, urls["vote2"])
    assert {(t["player"], t["votes"]) for t in data["totals"][:2]} == {("白露", 5), ("墨染", 5)}
    assert (data["outcome"]["player"], data["outcome"]["rule"]) == ("墨染", "tie_sheriff_target")
    assert data["facts"]["sheriff"] == {
        "player": "kiwi", "from": "derived", "day": 1, "note": "day 1's election",
    }  # fmt: skip
    table = invoke("votes", urls["vote2"], "--game", str(game), "-q").stdout
    assert "From the earlier days' counts (not in the game file): sheriff kiwi (day 1's election)" in table
    # The library gives the same count (a script is checked as the command is).
    loaded = load_game(game)
    with Reader(FakeClock(AFTER, CHINA).env(), Reading(use_cache=False)) as reader:
        result = vote_day(loaded, [urls["vote2"]], reader=reader)
    assert result.outcome.player == "墨染" and result.day.sheriff == "kiwi"


def test_C4_a_sheriff_the_election_did_not_make_stops_the_count(forum, tmp_path):
    urls = serve(forum)
    game = write(tmp_path, game_text(urls, {"sheriff": "白露"}))
    said = one_sentence(invoke("votes", urls["vote2"], "--game", str(game)))
    assert said == (
        f"tally: day 1's election made kiwi sheriff; day 2 in {game} names 白露 sheriff — fix "
        'the name, or give sheriff_change = "…" saying how the badge passed'
    )
    with pytest.raises(GameFileError, match="names 白露 sheriff"), library() as reader:
        vote_day(load_game(game), [urls["vote2"]], reader=reader)
    # Said why (the badge passed by the rules of the game): counted so, from the game file.
    game.write_text(game_text(urls, {"sheriff": "白露", "sheriff_change": "警徽移交"}), encoding="utf-8")
    data = votes_json(game, urls["vote2"])
    assert data["facts"]["sheriff"] == {
        "player": "白露", "from": "game file", "day": 2, "note": "警徽移交",
    }  # fmt: skip
    # The same name as the election made is no disagreement.
    game.write_text(game_text(urls, {"sheriff": "kiwi"}), encoding="utf-8")
    assert votes_json(game, urls["vote2"])["facts"]["sheriff"]["from"] == "game file"


def test_V9_a_player_voted_out_is_dead_on_later_days(forum, tmp_path):
    urls = serve(forum)
    game = write(tmp_path, game_text(urls))  # day 3 lists nobody dead
    data = votes_json(game, urls["vote3"])
    by_floor = {b["floor"]: (b["status"], b["reason"]) for b in data["ballots"]}
    assert by_floor[3] == ("void", "dead_voter")  # 墨染, voted out on day 2
    assert data["facts"]["dead"] == [
        {"player": "墨染", "from": "derived", "day": 3, "note": "voted out on day 2"}
    ]
    # The sheriff carries on to day 3 as well.
    assert data["facts"]["sheriff"]["player"] == "kiwi"


def test_a_sheriff_who_is_out_must_hand_on_the_badge(forum, tmp_path):
    """kiwi is out before day 3 (a night kill): day 3 must say who holds the badge."""
    urls = serve(forum)
    game = write(tmp_path, game_text(urls, day3={"dead": ["kiwi"]}))
    said = one_sentence(invoke("votes", urls["vote3"], "--game", str(game)))
    assert said == (
        f"tally: day 1's election made kiwi sheriff, and kiwi is out; day 3 in {game} names no "
        'sheriff — add sheriff = "…" (who holds the badge now) or sheriff = "none" (the badge '
        "is gone)"
    )
    game.write_text(game_text(urls, day3={"dead": ["kiwi"], "sheriff": "none"}), encoding="utf-8")
    data = votes_json(game, urls["vote3"])
    assert data["facts"]["sheriff"] == {
        "player": None, "from": "game file", "day": 3,
        "note": "no sheriff (kiwi is out: the badge passed)",
    }  # fmt: skip
    # A successor named for a sheriff who is out needs no reason: the badge passed.
    game.write_text(game_text(urls, day3={"dead": ["kiwi"], "sheriff": "青山"}), encoding="utf-8")
    assert votes_json(game, urls["vote3"])["facts"]["sheriff"]["player"] == "青山"


@pytest.mark.slow
def test_the_report_counts_day_2_with_the_sheriff_of_day_1(forum, tmp_path):
    urls = serve(forum)
    game = write(tmp_path, game_text(urls))
    out = tmp_path / "report.html"
    made = invoke("report", "--game", str(game), "-o", str(out), "-q")
    assert made.exit_code == 0, made.output
    page = out.read_text(encoding="utf-8")
    assert "kiwi 以 4 票当选警长" in page  # day 1
    assert "平票（5 票），按警长投票对象，墨染 被投票出局" in page  # day 2, with kiwi's weight


# -- 2. every thread is the day's thread ------------------------------------------------------


def test_a_copied_days_block_with_day_1s_vote_thread_is_refused_at_load(forum, tmp_path):
    urls = serve(forum)
    text = game_text(urls).replace(urls["vote2"], urls["vote1"])
    with pytest.raises(GameFileError, match="is day 1's vote thread too") as info:
        parse_game(text, source="game.toml")
    assert str(info.value) == (
        f"game.toml, key 'day 2.vote': {urls['vote1']} is day 1's vote thread too; each day "
        "votes in a thread of its own (a [[days]] block copied and not edited?)."
    )


def test_another_days_thread_stops_votes_and_lurkers_before_any_card(forum, tmp_path):
    """Day 1 is not in the file, and day 2's vote is day 1's election thread: its title and
    its dates say so; no L3 card is written for the players who 'did not vote'."""
    urls = serve(forum)
    game = write(tmp_path, game_text(urls, day1=False).replace(urls["vote2"], urls["vote1"]))
    expected = (
        "tally: thread 801 “[A01] 月下古堡 第一天 警长竞选投票帖” is titled for day 1, not day 2; "
        f"{game} names no vote thread for day 1"
    )
    assert one_sentence(invoke("votes", urls["vote1"], "--game", str(game))) == expected
    lurk = invoke("lurkers", "--game", str(game), "--day", "2")
    assert one_sentence(lurk) == expected
    assert not (tmp_path / "game.cards.csv").exists()
    env = FakeClock(AFTER, CHINA).env()
    with pytest.raises(InputError, match="is titled for day 1, not day 2"), Reader(env) as reader:
        vote_day(load_game(game), [urls["vote1"]], reader=reader)


def test_a_thread_opened_on_another_day_stops(forum, tmp_path):
    """No day in its title: the thread's dates tell (opened and voted on day 1)."""
    plain = election()
    plain.title = "[A01] 月下古堡 投票帖"
    urls = serve(forum)
    urls["vote2"], urls["vote1"] = plain.serve(forum), "http://127.0.0.1:9/thread-998-1-1.html"
    game = write(tmp_path, game_text(urls))
    said = one_sentence(invoke("votes", urls["vote2"], "--game", str(game)))
    assert said == (
        "tally: thread 801 “[A01] 月下古堡 投票帖” was opened 11-23 09:30, in day 1's window, not "
        f"in day 2's (11-25 09:30 to 11-26 21:30); day 1's vote thread in {game} is "
        "http://127.0.0.1:9/thread-998-1-1.html"
    )


# -- 3. the close checked against the thread ---------------------------------------------------


def test_S2_a_close_typed_wrong_is_held_against_the_first_post(forum, tmp_path):
    urls = serve(forum)
    wrong = game_text(urls).replace("closes = 2024-11-26T21:30:00", "closes = 2024-11-26T09:30:00")
    game = write(tmp_path, wrong)
    with pytest.raises(InputError, match="says the close is 11-26 21:30"), library() as reader:
        vote_day(load_game(game), [urls["vote2"]], reader=reader)
    said = one_sentence(invoke("votes", urls["vote2"], "--game", str(game)))
    assert said == (
        "tally: the first post of thread 803 says the close is 11-26 21:30 (“关门：11月26日 "
        f"21:30”), and {game} says day 2 closes 11-26 09:30: fix closes, or say why they differ "
        'with close_changed = "…" under day 2'
    )


def test_S2_a_close_changed_after_the_first_post_says_why(forum, tmp_path):
    urls = serve(forum)
    moved = "closes = 2024-11-26T22:00:00\nclose_changed = \"延长到22:00，见进程帖\"\n"
    text = game_text(urls).replace("closes = 2024-11-26T21:30:00\n", moved)
    data = votes_json(write(tmp_path, text), urls["vote2"])
    assert data["close_changed"] == "延长到22:00，见进程帖" and data["closes"].endswith("22:00:00+08:00")


def test_S2_many_ballots_after_the_close_stop_the_count_unless_the_director_means_it(forum, tmp_path):
    """No close in the first posts: four ballots after a close typed 15:30 still say so."""
    plain = day2_vote(close="")
    urls = serve(forum, plain)
    text = game_text(urls).replace("closes = 2024-11-26T21:30:00", "closes = 2024-11-25T15:30:00")
    # Without day 2's discussion thread, whose first post says the close.
    text = text.replace(f'discussion = "{urls["talk2"]}"\n', "")
    game = write(tmp_path, text)
    said = one_sentence(invoke("votes", urls["vote2"], "--game", str(game)))
    assert said == (
        "tally: 4 of 10 ballots in thread 803 were posted after day 2's close 11-25 15:30, the "
        f"last at 11-25 19:10: is the close right? Fix closes in {game}, or pass --late-ok "
        "(late_ok = true under day 2) if they really are late."
    )
    data = votes_json(game, urls["vote2"], "--late-ok")
    assert data["late_ok"] is True
    assert sum(b["reason"] == "after_close" for b in data["ballots"]) == 4
    # Said once in the game file, for every command and run.
    game.write_text(text.replace("closes = 2024-11-25T15:30:00\n", "closes = 2024-11-25T15:30:00\nlate_ok = true\n"), encoding="utf-8")
    assert votes_json(game, urls["vote2"])["late_ok"] is True


# -- 4. every post in the vote thread is accounted for ----------------------------------------


def test_V6_L3_a_post_that_is_no_ballot_is_listed_everywhere_and_named_on_its_card(forum, tmp_path):
    """月影 writes "同上，跟一票" quoting 南瓜's ballot: no ballot; every output lists it."""
    vote = day2_vote(extra=[P("月影", "2024-11-25 20:00:00", "同上，跟一票", quote=8)])  # 12
    urls = serve(forum, vote)
    game = write(tmp_path, game_text(urls))
    data = votes_json(game, urls["vote2"])
    [row] = [b for b in data["ballots"] if b["floor"] == 12]
    assert (row["status"], row["voter"], row["kind"], row["words"]) == (
        "not_a_ballot", "月影", None, "同上，跟一票",
    )  # fmt: skip
    assert "月影" in data["not_voted"]
    with library() as reader:
        result = vote_day(load_game(game), [urls["vote2"]], reader=reader)
    assert [(r.floor, r.player, r.words) for r in result.remarks] == [(12, "月影", "同上，跟一票")]
    table = invoke("votes", urls["vote2"], "--game", str(game), "-q").stdout
    assert "not a ballot" in table and "同上，跟一票" in table
    post = invoke("announce", "--game", str(game), "--day", "2", "-q").stdout
    assert "]12楼[/url] 月影：不是选票" in post  # 023: 投票格式有误的投票将算作废票 (V7)
    lurk = invoke("lurkers", "--game", str(game), "--day", "2", "--json", "-q")
    assert lurk.exit_code == 0, lurk.output
    cards = {c["player"]: c["reason"] for c in json.loads(lurk.stdout)["cards"] if c["rule"] == "L3"}
    assert cards["月影"] == "第2天未投票（投票帖12楼的发言不是选票）"
    db = tmp_path / "g.sqlite"
    assert invoke("archive", "--game", str(game), "--db", str(db), "-q").exit_code == 0
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select voter, status, note from ballots where day = 2 and floor = 12").fetchall()
    assert rows == [("月影", "not_a_ballot", "同上，跟一票")]


# -- 6. a picture before the close --------------------------------------------------------------


@pytest.mark.slow  # a picture drawn (docs/contributing.md, Set up: the slow tests)
def test_a_chart_before_the_close_is_headed_as_a_standing(forum, tmp_path):
    urls = serve(forum)
    game = write(tmp_path, game_text(urls))
    loaded = load_game(game)
    with Reader(FakeClock("2024-11-26 20:07", CHINA).env(), Reading(use_cache=False)) as reader:
        result = vote_day(loaded, [urls["vote2"]], reader=reader)
    assert result.provisional
    heading = charts.day_figure(result, "墨染 被投票出局。")._suptitle.get_text()
    assert heading == "第2天投票 暂计（截至 11-26 20:07，未结票）"
    png = tmp_path / "day2.png"
    made = invoke("votes", urls["vote2"], "--game", str(game), "--chart", str(png), "-q", now="2024-11-26 20:07")
    assert made.exit_code == 0 and png.stat().st_size > 1000


def test_a_placeholder_init_wrote_is_refused_by_the_library_too():
    text = 'name = "TODO: [A01] 月下古堡"\nruleset = "023"\nplayers = ["甲"]\n[rules]\nelection_voters = []\n'
    with pytest.raises(GameFileError, match=r"tally proposed '\[A01\] 月下古堡'"):
        parse_game(text, source="game.toml")
    with pytest.raises(GameFileError, match="choose the game's rules"):
        parse_game(text.replace('"023"', '"TODO"'), source="game.toml")


def test_watch_in_the_library_refuses_another_days_thread_with_the_sentence_of_votes(forum, tmp_path):
    from tally.commands.watch import read_polls

    urls = serve(forum)
    game = load_game(write(tmp_path, game_text(urls)))
    refused = pytest.raises(InputError, match="is day 2's discussion thread, not a vote thread")
    with refused, library("2024-11-26 20:00") as reader:
        next(read_polls(game, urls["talk2"], reader=reader))


# -- a day tally cannot count: what the later days rest on ------------------------------------


def _day1_gone(forum, tmp_path: Path) -> tuple[dict[str, str], Path]:
    """Day 1's vote thread no longer reads (404): day 2 cannot know its sheriff by a count."""
    urls = serve(forum)
    urls["vote1"] = forum.url("forum.php?mod=viewthread&tid=899")  # never served
    return urls, write(tmp_path, game_text(urls))


@pytest.mark.rules("C4", "C5")
def test_C5_a_result_resting_on_a_day_not_counted_is_never_posted(forum, tmp_path):
    """Seen on a real X3.5: a watch whose cache could not count day 1 took no sheriff from it
    and posted 'nobody out' unattended. Without the sheriff the 5:5 tie is 5:4 for 白露: a
    count that says so is shown with its warning, and --post refuses it before any request
    to the forum's reply box."""
    urls, game = _day1_gone(forum, tmp_path)
    shown = invoke("votes", urls["vote2"], "--game", str(game), "-q")
    assert shown.exit_code == 0 and "day 1 is not counted here" in shown.stderr
    posted = invoke("announce", "--game", str(game), "--day", "2", "--post", "--yes", "-q")
    assert posted.exit_code == 7, posted.output
    said = [line for line in posted.stderr.splitlines() if line.startswith("tally:")][-1]
    assert said.startswith("tally: day 2's count rests on a day tally could not count here: day 1")
    assert said.endswith("a result that may be wrong is not posted: make that day count (its "
                         "sentence says how), then post.")  # fmt: skip
    assert not any("mod=post" in path for path in forum.requests)


@pytest.mark.rules("C4", "C5")
def test_C4_the_result_tally_posted_for_a_day_it_cannot_count_is_carried(forum, tmp_path):
    """Day 1's result as tally posted it (the journal of posts) stands for the days after it
    when day 1 cannot be counted again: kiwi is sheriff, and the tie goes to kiwi's target."""
    from tally.journal import POSTED, Entry, Journal, journal_path

    urls, game = _day1_gone(forum, tmp_path)
    outcome = {"result": "sheriff", "player": "kiwi", "ballots": []}
    entry = Entry(load_game(game).id, 1, "close", "0" * 64, "2024-11-24T21:31:00+08:00",
                  state=POSTED, pid="80108", floor=8, outcome=outcome)  # fmt: skip
    Journal(journal_path(game)).write(entry)
    data = votes_json(game, urls["vote2"])
    assert (data["outcome"]["player"], data["outcome"]["rule"]) == ("墨染", "tie_sheriff_target")
    sheriff = data["facts"]["sheriff"]
    assert (sheriff["player"], sheriff["from"], sheriff["day"]) == ("kiwi", "derived", 1)
    assert sheriff["note"].startswith("day 1's result as tally posted it (the journal of posts;")
    assert data["facts"]["unchecked"] == []


@pytest.mark.rules("K2", "V9")
def test_K2_a_red_card_puts_the_player_out_from_the_next_day(tmp_path):
    """The run's setup reads who the card ledger sends off; a day after the card's day stands
    with them out (a fact from the ledger), the card's own day does not (the ledger says the
    day, not the hour)."""
    import dataclasses

    from tally.commands.run import with_ledger
    from tally.rules.counting.state import Carried, FactKind, Source, resolve
    from tally.rules.verdicts import OutcomeResult

    days = [
        gamefiles.day(n, f"https://bbs.example.com/thread-{n}-1-1.html",
                      f"2024-05-0{n + 6}T09:00:00", f"2024-05-0{n + 6}T21:00:00")
        for n in (1, 2, 3)
    ]  # fmt: skip
    game_file = gamefiles.write_game(tmp_path / "g.toml", *days, ruleset=None,
                                     players=["alice", "bob", "heidi"])  # fmt: skip
    assert with_ledger(load_game(game_file)).sent_off == {}  # no ledger: nobody
    (tmp_path / "g.cards.csv").write_text(
        "\ufeffday,player,colour,rule,reason,source\r\n"
        "1,bob,yellow,L1,第1天发言不足,tally\r\n"
        "2,heidi,red,L8,刷屏,director\r\n3,heidi,red,K1,第3张黄牌,tally\r\n",
        encoding="utf-8",
    )
    game = with_ledger(load_game(game_file))
    assert game.sent_off == {"heidi": 2}  # the first red card, and only red ones
    day2, facts2 = resolve(game, game.day(2), Carried())
    assert "heidi" not in day2.dead and not facts2
    day3, facts3 = resolve(game, game.day(3), Carried())
    assert day3.out_at("heidi", day3.opens)
    [fact] = facts3
    assert (fact.what, fact.player, fact.source, fact.day) == (FactKind.DEAD, "heidi", Source.LEDGER, 2)
    assert "red card for day 2 (K2" in fact.note
    # A player the game file already has out is not said out twice.
    filed = dataclasses.replace(game.day(3), dead=("heidi",))
    assert [f.source for f in resolve(game, filed, Carried())[1]] == [Source.GAME_FILE]
    # Carried past day 3, heidi is still out by the card, not by the game file.
    state = Carried().after(day3, OutcomeResult.NONE, None, game.sent_off)
    assert state.out["heidi"] == (3, "sent off by a red card for day 2 (K2, the card ledger)")
    four = dataclasses.replace(game.day(3), day=4)
    [again] = resolve(game, four, state)[1]
    assert (again.source, again.day) == (Source.LEDGER, 2)


@pytest.mark.rules("K1", "K2")
def test_K2_a_red_three_yellows_make_sends_off_from_the_last_of_them(tmp_path):
    """A yellow for day 1 added after those for days 2 and 3 makes a red (K1) written for
    day 1: it is made when the last yellow is, so it sends the player off after day 3, not
    from day 2 (whose result was posted long ago)."""
    from tally.commands.run import with_ledger

    game_file = gamefiles.write_game(
        tmp_path / "g.toml",
        gamefiles.day(1, "https://bbs.example.com/thread-1-1-1.html", "2024-05-07T09:00:00",
                      "2024-05-07T21:00:00"),
        ruleset=None, players=["alice", "bob"],
    )  # fmt: skip
    (tmp_path / "g.cards.csv").write_text(
        "\ufeffday,player,colour,rule,reason,source\r\n"
        "2,bob,yellow,L1,a,tally\r\n3,bob,yellow,L1,b,tally\r\n1,bob,yellow,L8,c,director\r\n"
        "1,bob,red,K1,3张黄牌折算为红牌（K1）,tally\r\n",
        encoding="utf-8",
    )
    assert with_ledger(load_game(game_file)).sent_off == {"bob": 3}


def test_a_day_whose_discussion_is_its_vote_thread_is_checked_in_the_same_order(tmp_path):
    """The close its first post says is held last, after every check of the thread as the
    vote thread (here: an election thread on a day that is not the election's), also when
    the game file gives one thread as both (found in a cold read: the close came first)."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    from tally.errors import InputError
    from tally.model import Post, Thread
    from tally.rules.cards import lurkers
    from tally.rules.game.gamefile import load_game

    url = "https://tieba.baidu.com/p/8800999"
    path = gamefiles.write_game(
        tmp_path / "game.toml", gamefiles.day(2, url, closes="2024-05-09T22:00:00", discussion=url),
        name="T", ruleset="default", directors=["daoyan_a"], players=["lengyue", "kiwi"],
    )
    game = load_game(path)
    t0 = datetime(2024, 5, 8, 9, 30, tzinfo=ZoneInfo("Asia/Shanghai"))
    posts = tuple(
        Post("tieba", "8800999", str(100 + i), i + 1, a, None, t0 + timedelta(minutes=i), text)
        for i, (a, text) in enumerate([
            ("daoyan_a", "投票截止：5月9日 21:30\n投票对象：\n投票理由："),
            ("lengyue", "投票对象：kiwi\n投票理由：一"),
        ])
    )  # fmt: skip
    thread = Thread("tieba", "8800999", url, "【塔达林】第二天警长竞选投票帖", 1, posts)
    history = lurkers.history(game, 2, lambda urls, day: [thread for _ in urls])
    assert history[0].vote is history[0].discussion
    with pytest.raises(InputError, match="is a sheriff election, and the election is day 1"):
        lurkers.check(game, history, 2)
