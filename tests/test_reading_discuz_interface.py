"""A Discuz! board read through its JSON for mobile clients (issue 50): the door
(tally.forums.api) and Discuz!'s interface behind it (tally/forums/discuz/interface.py), on the
loopback board whose interface answers as a real X3.5's does (tests/discuzjson.py): the same
count as from its pages, the pages the fallback said once, the probe asked once, the edit
marks version 4 hides learnt from version 1, and never an edited ballot counted silently."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from tally.cli import app
from tally.environment import HttpOptions
from tally.errors import ExitStatus
from tally.forums.fetch import fetch_thread
from tally.forums.getting import FetchOptions
from tally.forums.http import Http

from .conftest import CHINA, FOLDERS, FakeClock
from .discuzapi import CLOSED, ON, PLUGIN_OFF
from .discuzboard import Board
from .discuzgen import Comment, P, Thread
from .test_announcing_post import env, runner
from .test_counting_whole_day import game_file, vote_thread


@pytest.fixture
def board(forum) -> Board:
    return Board(forum)


def count(board: Board, url: str, game: str, *extra: str, at: str = "2024-05-09 22:00:00"):  # type: ignore[no-untyped-def]
    clock = FakeClock(at, CHINA)
    board.clock = clock.now
    return runner.invoke(app, ["votes", url, "--game", game, "--json", *extra], obj=env(clock))


# The probe: the thread's first floor through viewthread (module=check cannot tell).
PROBE = "module=viewthread&tid=102&page=1&ppp=1&"


def asked(board: Board, what: str) -> list[str]:
    return [r for r in board.forum.requests if what in r]


def same(data: dict) -> dict:  # type: ignore[type-arg]
    """What a count says, how the thread was read aside: the way, and its pages (100 floors
    a page through the interface, 10 on the board's pages)."""
    thread = {k: v for k, v in data["thread"].items() if k not in ("read_by", "pages")}
    return {**data, "thread": thread}


@pytest.mark.rules("V1", "V2", "V3", "C1")
def test_the_same_count_through_the_interface_and_through_the_pages(board, tmp_path):
    """The suite's game of test_counting_whole_day (quotes, 点评, an edit in the final hour, a proxy,
    the dead, a late ballot) counted from the interface and from the pages: one count."""
    url = board.thread(vote_thread())
    game = game_file(tmp_path, url)
    through = count(board, url, game)
    assert through.exit_code == 0, through.stderr
    data = json.loads(through.stdout)
    assert data["thread"]["read_by"] == "api"
    assert asked(board, "module=viewthread") and not asked(board, "forum.php?mod=viewthread")
    board.interface = CLOSED
    (tmp_path / "b").mkdir()
    pages = count(board, url, str(Path(game_file(tmp_path / "b", url))), "--fresh")
    assert pages.exit_code == 0, pages.stderr
    assert json.loads(pages.stdout)["thread"]["read_by"] == "pages"
    assert same(json.loads(pages.stdout)) == same(data)


@pytest.mark.parametrize("off", [CLOSED, PLUGIN_OFF])
def test_a_board_whose_interface_is_off_is_read_from_its_pages_said_once(board, tmp_path, off):
    board.interface = off
    url = board.thread(vote_thread())
    result = count(board, url, game_file(tmp_path, url))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["thread"]["read_by"] == "pages"
    assert result.stderr.count("tally reads its threads from their HTML pages") == 1


def test_the_probe_is_asked_once_and_kept_with_the_boards_facts(board, tmp_path):
    url = board.thread(vote_thread())
    game = game_file(tmp_path, url)
    for _ in range(2):
        assert count(board, url, game).exit_code == 0
    assert len(asked(board, PROBE)) == 1  # the second run: the cache's answer
    assert count(board, url, game, "--fresh").exit_code == 0
    assert len(asked(board, PROBE)) == 2
    assert not asked(board, "module=check")  # it says version 4 with 开启手机版 off


def test_a_board_profile_says_which_way_without_asking(board, tmp_path):
    url = board.thread(vote_thread())
    profile = tmp_path / "boards.toml"
    profile.write_text('[board.loop]\nhosts = ["127.0.0.1"]\napi = false\n', encoding="utf-8")
    result = count(board, url, game_file(tmp_path, url), "--boards", str(profile))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["thread"]["read_by"] == "pages"
    assert not asked(board, "/api/mobile/")


def test_an_interface_switched_off_mid_read_is_read_again_whole_from_the_pages(board, tmp_path):
    """The probe said yes; the thread's first page came back {"error":"mobile_is_closed"}
    (an admin turned 开启手机版 off since): no thread is read half one way, half the other."""
    url = board.thread(vote_thread())
    original = board.forum.hook

    def closed_after_the_probe(path: str):  # type: ignore[no-untyped-def]
        if PROBE in path:
            return original(path) if original else None
        board.interface = CLOSED
        return original(path) if original else None

    board.forum.hook = closed_after_the_probe
    result = count(board, url, game_file(tmp_path, url))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["thread"]["read_by"] == "pages"
    assert "mobile_is_closed" in result.stderr
    assert result.stderr.count("tally reads its threads from their HTML pages") == 1


# -- edits: version 4 strips the mark ---------------------------------------------------------


def edited_thread(at: str) -> object:
    t = vote_thread()
    t.posts[1].edited = ("冷月", at)  # floor 2, 冷月's ballot for 白桃
    return t


@pytest.mark.rules("V5", "S2")
def test_an_edit_after_the_close_hidden_by_the_json_is_learnt_and_stops_the_count(board, tmp_path):
    """A first read after the close (a fresh cache): version 4 shows no edit mark, version 1
    does; 冷月's ballot edited at 21:40 is as unknown at the close as on the pages, and stops
    the count the same way, never counted silently."""
    url = board.thread(edited_thread("2024-05-09 21:40"))
    result = count(board, url, game_file(tmp_path, url))
    assert result.exit_code == ExitStatus.BAD_INPUT
    assert "floor 2 (冷月) was edited 05-09 21:40, at or after the close" in result.stderr
    assert asked(board, "version=1&module=viewthread")


def test_an_edit_before_the_close_learnt_from_version_1_counts(board, tmp_path):
    url = board.thread(edited_thread("2024-05-09 12:00"))
    result = count(board, url, game_file(tmp_path, url))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["thread"]["read_by"] == "api"


def test_a_mark_the_board_will_not_say_stops_the_count(board, tmp_path):
    """Version 1 off too (an answer tally cannot read): whether 冷月's ballot was edited
    after the close is not known, and a count that rests on it stops, saying so."""
    url = board.thread(edited_thread("2024-05-09 12:00"))
    original = board.forum.hook

    def no_version_1(path: str):  # type: ignore[no-untyped-def]
        from tally.demo.localforum import Reply

        if "version=1" in path:
            return Reply(200, b'{"Version":"1","Variables":{"postlist":[]}}',
                         {"Content-Type": "application/json"})  # fmt: skip
        return original(path) if original else None

    board.forum.hook = no_version_1
    result = count(board, url, game_file(tmp_path, url))
    assert result.exit_code == ExitStatus.BAD_INPUT
    said = " ".join(result.stderr.split())
    assert "read through the board's mobile interface, which shows no edit mark" in said
    assert "--as-edited" in said


def test_marks_learnt_once_are_kept_and_not_asked_again(board, tmp_path):
    url = board.thread(edited_thread("2024-05-09 12:00"))
    game = game_file(tmp_path, url)
    assert count(board, url, game).exit_code == 0
    first = len(asked(board, "version=1&"))
    assert first >= 1
    assert count(board, url, game, at="2024-05-09 22:10:00").exit_code == 0
    assert len(asked(board, "version=1&")) == first  # the words unchanged: the marks kept


# -- one history, whichever way each read was made ---------------------------------------------


def read_before_and_after(board: Board, folder: Path, before: str, after: str) -> dict:  # type: ignore[type-arg]
    """The suite's day read at 21:00 (before the close at 21:30) with the board's interface
    ``before``; 冷月 then changes her ballot at 21:40 (白桃 to 长夜, the edit mark after the
    close); the count at 22:00 with the interface ``after``, asking the board again
    (--fresh). Its own cache and game file."""
    folder.mkdir()
    t = vote_thread()
    for post in t.posts:  # each member's uid as the board has it, whichever way renders first
        for name in (post.author, *(c.author for c in post.comments)):
            t.uid(name)
    board.interface = before
    url = board.thread(t)
    game = game_file(folder, url)
    cache = ["--cache-dir", str(folder / "cache")]
    early = count(board, url, game, *cache, at="2024-05-09 21:00:00")
    assert early.exit_code == 0, early.stderr
    assert json.loads(early.stdout)["thread"]["read_by"] == ("api" if before == ON else "pages")
    t.posts[1].text = "投票对象：长夜\n投票理由：改了"
    t.posts[1].edited = ("冷月", "2024-05-09 21:40")
    board.thread(t)
    board.interface = after
    late = count(board, url, game, *cache, "--fresh")  # the board asked again: it switched
    assert late.exit_code == 0, late.stderr
    data = json.loads(late.stdout)
    assert data["thread"]["read_by"] == ("api" if after == ON else "pages")
    return data


@pytest.mark.rules("V5", "S2")
@pytest.mark.parametrize(("before", "after"), [(ON, CLOSED), (CLOSED, ON)])
def test_an_edit_after_the_close_is_caught_across_a_switch_of_way(board, tmp_path, before, after):
    """Read through the interface before the close and through the pages after it (its admin
    switched 开启手机版 off after the day), or the other way round: the read before the close
    is the thread's, whichever way it was made, and 冷月's edit after the close is caught as
    when both reads are the pages': counted as tally read it at 21:00, flagged."""
    switched = read_before_and_after(board, tmp_path / "switched", before, after)
    one_way = read_before_and_after(board, tmp_path / "one", CLOSED, CLOSED)
    [flag] = [f for f in switched["flags"] if f["rule"] == "edited" and f["floor"] == 2]
    assert "counted as tally read it 05-09 21:00" in flag["note"]
    assert "投票对象：白桃" in flag["note"] and "never read" not in json.dumps(switched)
    assert same(switched) == same(one_way)


def test_the_two_ways_pages_never_stand_for_each_other_in_the_one_history():
    """Page 1 through the interface holds floors 1–25, page 1 of the HTML pages 1–10: the
    newest read of each is taken for each page of its own way, and each post as the newest
    read that showed it. A read of the pages' page 1 at 09:00 does not hide floors 11–25,
    which only the interface's page 1 (08:00) showed; floor 2 is as the 09:00 read showed it."""
    from tally.forums.api import API, PAGES
    from tally.forums.cache import one_history
    from tally.model import History, Post, Version
    from tally.rules.judging.as_of import stood_at

    def at(hour: int) -> datetime:
        return datetime(2024, 5, 9, hour, tzinfo=CHINA)

    def post(floor: int, text: str = "投票对象：长夜") -> Post:
        return Post("discuz", "102", str(2000 + floor), floor, "冷月", "101", at(7), text)

    api = History((Version(1, at(8), tuple(post(f) for f in range(1, 26)), "r1"),))
    pages = History((Version(1, at(9), (post(1), post(2, "投票对象：白桃"),
                                         *(post(f) for f in range(3, 11))), "r2"),))  # fmt: skip
    one = one_history({PAGES: pages, API: api})
    assert [(v.page, v.way, v.read) for v in one.versions] == [(1, API, "r1"), (1, PAGES, "r2")]
    stood = stood_at(one, at(10))
    assert sorted(int(pid) - 2000 for pid in stood) == list(range(1, 26))
    assert stood["2002"].post.text == "投票对象：白桃" and stood["2020"].read_at == at(8)
    assert stood_at(one, at(8).replace(minute=30))["2002"].post.text == "投票对象：长夜"


@pytest.mark.parametrize("interface", [ON, CLOSED])
def test_no_secret_of_the_interface_is_cached(board, tmp_path, interface):
    """Every answer of the interface echoes the session's auth, saltkey and formhash, and a
    page read with a member's cookies holds the form hash: scrubbed before the cache keeps
    either."""
    board.interface = interface
    url = board.thread(vote_thread())
    member = board.member("导演A", 7)
    cookies = board.cookies(member, tmp_path / "cookies.txt")
    clock = FakeClock("2024-05-09 22:00:00", CHINA)
    board.clock = clock.now
    game = game_file(tmp_path, url)
    result = runner.invoke(app, ["votes", url, "--game", game, "--cookies", str(cookies)],
                           obj=env(clock))  # fmt: skip
    assert result.exit_code == 0, result.stderr
    cached = [p.read_bytes() for p in FOLDERS.home.rglob("*") if p.is_file()]
    assert any(b'"Variables"' in c for c in cached) == (interface == ON)
    for secret in (member.auth, member.formhash):
        assert not [c for c in cached if secret.encode() in c]


def test_a_thread_the_interface_says_is_gone(board, tmp_path):
    url = board.thread(vote_thread()).replace("tid=102", "tid=4040")
    result = count(board, url, game_file(tmp_path, url))
    assert result.exit_code == ExitStatus.NOT_A_THREAD
    assert len(result.stderr.strip().splitlines()) == 1  # the one sentence, no note before it


def test_ballots_posted_as_p_in_the_interface_keep_their_seconds(board, tmp_path):
    """dbdateline is exact: a ballot 20 s after a close at :30 is late, one 20 s before it is
    on time, whatever the page would have printed (the Why of issue 50)."""
    t = vote_thread()
    t.add(P("小眯", "2024-05-09 21:29:40", "投票对象：长夜\n投票理由：踩点"))
    t.add(P("橘子", "2024-05-09 21:30:20", "投票对象：长夜\n投票理由：晚了"))
    url = board.thread(t)
    result = count(board, url, game_file(tmp_path, url))
    assert result.exit_code == 0, result.stderr
    by_time = {b["posted_at"][11:19]: (b["status"], b["reason"]) for b in json.loads(result.stdout)["ballots"]}
    assert by_time["21:29:40"] == ("counted", None)
    assert by_time["21:30:20"] == ("void", "after_close")
    assert ON  # the board's interface as X3.5 ships it


# -- a 点评 shown counted back from the answer (人性化时间 on) -----------------------------------


def late_change_thread() -> object:
    """冷月's change by 点评 under her own ballot at 21:29:50, ten seconds before the close at
    21:30: its page prints 21:29; the interface, read at 21:30:55 or at 21:31:20, "1 分钟前"."""
    t = vote_thread()
    t.posts[1].comments = [Comment("冷月", "2024-05-09 21:29:50", "改票对象：长夜 改票理由：踩点")]
    return t


@pytest.mark.rules("S2", "V5")
def test_a_点评_counted_back_sends_the_thread_to_its_pages_and_two_reads_agree(board, tmp_path):
    """Read at its Date less N, "1 分钟前" was 21:29 at 21:30:55 and 21:30 (the closing
    minute: void) at 21:31:20, 25 seconds later. Not read to the minute: each read is of the
    pages, said in one line, and counts as a read of the pages alone does."""
    board.dateconvert = True
    url = board.thread(late_change_thread())
    game = game_file(tmp_path, url)
    reads = []
    for at in ("2024-05-09 21:30:55", "2024-05-09 21:31:20"):
        result = count(board, url, game, at=at)
        assert result.exit_code == 0, result.stderr
        said = " ".join(result.stderr.split())
        assert said.count("shows this 点评's time only as '1 分钟前', not to the minute; tally "
                          "reads this thread from its HTML pages") == 1  # fmt: skip
        reads.append(json.loads(result.stdout))
    assert [r["thread"]["read_by"] for r in reads] == ["pages", "pages"]
    assert {**same(reads[0]), "as_of": ""} == {**same(reads[1]), "as_of": ""}
    change = [b for b in reads[1]["ballots"] if b["floor"] == 2 and b["posted_at"] > "2024-05-09"]
    assert [b["posted_at"][:16] for b in change] == ["2024-05-09T21:29"]
    board.interface = CLOSED
    (tmp_path / "b").mkdir()
    pages = count(board, url, game_file(tmp_path / "b", url), "--fresh", at="2024-05-09 21:31:20")
    assert pages.exit_code == 0, pages.stderr
    assert same(json.loads(pages.stdout)) == same(reads[1])


@pytest.mark.rules("S2")
def test_a_点评_counted_back_sends_that_thread_alone_to_its_pages(board, tmp_path):
    """The board serves the interface: the 点评 shown "1 分钟前" is one thread's, so the
    board's kept answer to the probe stands (the next run does not ask it again) and the
    run's other threads of the board are read through the interface."""
    board.dateconvert = True
    url = board.thread(late_change_thread())
    game = game_file(tmp_path, url)
    first = count(board, url, game, at="2024-05-09 21:30:55")
    assert first.exit_code == 0, first.stderr
    assert json.loads(first.stdout)["thread"]["read_by"] == "pages"
    assert "tally reads its threads from their HTML pages" not in " ".join(first.stderr.split())
    assert len(asked(board, PROBE)) == 1
    second = count(board, url, game, at="2024-05-09 21:31:20")
    assert second.exit_code == 0, second.stderr
    assert json.loads(second.stdout)["thread"]["read_by"] == "pages"
    assert len(asked(board, PROBE)) == 1  # the board's answer kept: not asked again
    # Another thread of the board, read after it in one run (tally lurkers reads the day's
    # vote and discussion threads): through the interface.
    other = Thread("103", "[测试局] 第二天讨论帖", {}, first_pid=3000)
    other.add(P("导演A", "2024-05-09 09:30:00", "第二天讨论"), P("冷月", "2024-05-09 10:01:00", "过"))
    other_url = board.thread(other)
    clock = FakeClock("2024-05-09 21:31:30", CHINA)
    board.clock = clock.now
    options = FetchOptions(clock=clock.now)
    with Http(HttpOptions(host_delay=0)) as http:
        assert fetch_thread(url, CHINA, http=http, options=options).read_by == "pages"
        assert fetch_thread(other_url, CHINA, http=http, options=options).read_by == "api"


def test_a_点评_shown_yesterday_is_read_through_the_interface(board, tmp_path):
    """The same board a day on: "昨天 21:29" is a minute on the clock its posts show."""
    board.dateconvert = True
    url = board.thread(late_change_thread())
    result = count(board, url, game_file(tmp_path, url), at="2024-05-10 09:00:00")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["thread"]["read_by"] == "api"
    assert "not to the minute" not in result.stderr


@pytest.mark.parametrize("interface,way", [(ON, "api"), (CLOSED, "pages"), (PLUGIN_OFF, "pages")])
def test_doctor_names_the_way_every_command_reads_the_board(board, tmp_path, interface, way):
    """Asked before any thread was read: the probe (the thread's first floor through the
    interface) says it; 开启手机版 off, the board answers module=check as when it is on."""
    board.interface = interface
    url = board.thread(vote_thread())
    result = runner.invoke(app, ["doctor", url, "--json"], obj=env(FakeClock("2024-05-09 22:00:00", CHINA)))
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["read_by"] == way and data["readable"]  # the page is diagnosed either way
    assert (data["read_by_why"] is None) == (way == "api")
    text = runner.invoke(app, ["doctor", url], obj=env(FakeClock("2024-05-09 22:00:00", CHINA)))
    said = "through the forum's interface for its clients" if way == "api" else "tally reads its threads from their HTML pages"
    assert said in " ".join(text.stdout.split())
    # The probe reads the first floor alone: a 点评 further on may still send a read to
    # the pages, and doctor says so rather than promise the interface.
    assert (way == "api") == ('unless a 点评 in it shows its time only counted back ("3 分钟前")'
                              in " ".join(text.stdout.split()))
    why = {ON: None, CLOSED: "mobile_is_closed", PLUGIN_OFF: "the touch theme's page"}[interface]
    assert why is None or why in data["read_by_why"]
    assert not asked(board, "module=check")


def test_doctor_asks_the_board_now_not_the_answer_a_read_kept(board, tmp_path):
    """A count kept the board's yes; its admin then switched 开启手机版 off. doctor asks again
    (pages, and why); the next count, reading the pages, keeps that answer, and a count that
    finds the interface off mid-read forgets the yes it was given."""
    url = board.thread(vote_thread())
    game = game_file(tmp_path, url)
    assert json.loads(count(board, url, game).stdout)["thread"]["read_by"] == "api"
    board.interface = CLOSED
    doctor = runner.invoke(app, ["doctor", url, "--json"],
                           obj=env(FakeClock("2024-05-09 22:00:00", CHINA)))  # fmt: skip
    assert doctor.exit_code == 0, doctor.stderr
    assert json.loads(doctor.stdout)["read_by"] == "pages"
    assert "mobile_is_closed" in json.loads(doctor.stdout)["read_by_why"]
    before = len(asked(board, PROBE))
    assert json.loads(count(board, url, game).stdout)["thread"]["read_by"] == "pages"
    assert len(asked(board, PROBE)) == before  # doctor's answer, kept


def test_a_read_the_interface_fails_forgets_the_kept_yes(board, tmp_path):
    url = board.thread(vote_thread())
    game = game_file(tmp_path, url)
    assert json.loads(count(board, url, game).stdout)["thread"]["read_by"] == "api"
    board.interface = CLOSED
    for _ in range(2):
        result = count(board, url, game)
        assert json.loads(result.stdout)["thread"]["read_by"] == "pages"
        assert "mobile_is_closed" in result.stderr
    # The first found it off reading page 1 (the yes kept from before); the second probed.
    assert len(asked(board, PROBE)) == 2


def test_a_read_before_the_close_asks_each_page_once(board, tmp_path):
    """A thread of N floors in ⌈N / 100⌉ requests: before the close no edit mark decides
    anything (a later read sees what changed), so version 1 is not asked."""
    url = board.thread(edited_thread("2024-05-08 12:00"))
    result = count(board, url, game_file(tmp_path, url), at="2024-05-09 20:00:00")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["provisional"]
    assert len(asked(board, "version=4&module=viewthread")) == 2  # the probe's floor, the page
    assert len(asked(board, PROBE)) == 1 and not asked(board, "version=1&")
