"""Pages that print their times to the minute (issue 50, item 5), on pages a real Discuz! X3.5
rendered with 人性化时间 off (fixtures/discuz-minutes), served over loopback HTTP.

The Why of issue 50: the day closes at 11:22:30; bob votes at 11:22:10 and dave at 11:22:50;
both floors read "2026-12-6 11:22". tally counted dave's ballot, 20 seconds late, with no word
and exit 0. A floor read from such a page is marked as a 点评 is (``to_the_minute``): a ballot
shown in the minute of the close, the open or the start of the final hour is void with a flag
unless a ruling accepts it, and one tally read before the close is on time. The same thread
with 人性化时间 on (every time to the second in a span's title) is counted as it always was.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tally.cli import app
from tally.forums.boards import load_boards
from tally.forums.charset import decode_page
from tally.forums.discuz import Discuz
from tally.forums.history import page_data, page_posts

from . import gamefiles
from .conftest import FIXTURES, FakeClock, Runner
from .discuzgen import P, Thread

MINUTES = FIXTURES / "discuz-minutes"
CHINA = ZoneInfo("Asia/Shanghai")
PLAYERS = {"alice": 2, "bob": 3, "carol": 4, "dave": 5, "eve": 6}
runner = Runner()


def at(clock: str) -> FakeClock:
    start = datetime.fromisoformat(f"2026-12-06 {clock}").replace(tzinfo=CHINA)
    return FakeClock(start.astimezone(UTC))


def game_file(tmp_path: Path, url: str, opens: str, closes: str,
              rulings: Sequence[Mapping] = (), rules: Mapping | None = None) -> str:  # fmt: skip
    """The thread's game (ruleset M126: the target alone, changes any way, without limit)."""
    path = gamefiles.write_game(
        tmp_path / "game.toml", gamefiles.day(1, url, f"2026-12-06T{opens}", f"2026-12-06T{closes}"),
        name="minutes", ruleset="M126", directors=[{"name": "admin", "id": 1}],
        players=[{"name": p, "id": uid} for p, uid in PLAYERS.items()], rulings=rulings,
        rules=rules,
    )  # fmt: skip
    return str(path)


def votes(forum, tmp_path: Path, page: str, clock: str, opens: str = "11:00:00",
          closes: str = "11:22:30", rulings: Sequence[Mapping] = (),
          rules: Mapping | None = None) -> dict:  # type: ignore[no-untyped-def,type-arg]
    """`tally votes --json` on the thread as ``page`` shows it, run at ``clock`` (China time),
    with the cache in ``tmp_path`` (a second run there knows the first's read)."""
    forum.add_discuz_page("2", 1, (MINUTES / f"{page}.html").read_bytes())
    url = forum.url("forum.php?mod=viewthread&tid=2")
    game = game_file(tmp_path, url, opens, closes, rulings, rules)
    args = ["votes", url, "--game", game, "--cache-dir", str(tmp_path / "cache"), "--json"]
    result = runner.invoke(app, args, obj=at(clock).env())
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def by_floor(data: dict) -> dict[int, tuple[str, str | None, str | None]]:  # type: ignore[type-arg]
    return {b["floor"]: (b["status"], b["reason"], b["target"]) for b in data["ballots"]}


def flagged(data: dict, rule: str) -> list[int]:  # type: ignore[type-arg]
    return [f["floor"] for f in data["flags"] if f["rule"] == rule]


def ruling(floor: int, day: int = 1) -> list[dict[str, object]]:
    return [{"day": day, "floor": floor, "action": "accept"}]


def ruled(floor: int, day: int = 1) -> str:
    """The ruling added to the end of a game file, as the director adds it."""
    return gamefiles.ruling_toml(ruling(floor, day)[0])


# -- which pages print seconds ------------------------------------------------------------------

# Every real Discuz! thread page under fixtures/, by whether it prints its floors' times to the
# minute: X3.5 with 人性化时间 off (x35-*, and this folder's minutes-*), X3.2 and X3.4 as their
# boards showed them, Discuz! 6/7, three themes; to the second: X3.5 with 人性化时间 on (the
# exact time in a span's title), X2.
TO_THE_MINUTE = {
    "discuz-minutes/minutes-*.html", "discuz-wild/x35-*/*.html", "discuz-wild/x34-*/*.html",
    "discuz-wild/x32-gbk/*.html", "discuz-wild/d7-*/*.html", "discuz-wild/comiis/*.html",
    "discuz-wild/weimei/*.html", "discuz-wild/viewbox/*.html",
    "discuz-api/captured/minutes-guest.html",
}  # fmt: skip
TO_THE_SECOND = {
    "discuz-minutes/seconds-guest.html", "discuz-wild/x2/*.html", "discuz-x35-changes/*.html",
    "discuz-accounts/*.html", "discuz-touch/desktop.html", "discuz/*-p*.html",
    "discuz-api/captured/[!m]*.html",
}  # fmt: skip
# What is no thread page of tally's: a 404, a thread a guest may not read, the touch view.
NOT_THREADS = {"merge-into-gone-guest.html", "missing-p1.html", "readperm-p1.html", "touch.html"}


def _pages(patterns: set[str]) -> list[Path]:
    found = {p for pattern in patterns for p in FIXTURES.glob(pattern)}
    return sorted(p for p in found if p.name not in NOT_THREADS)


def test_every_real_thread_page_is_listed_once():
    """A page added to fixtures/ is said to print seconds or not, here."""
    pages = {p for p in FIXTURES.glob("discuz*/**/*.html") if p.name not in NOT_THREADS}
    pages -= set(FIXTURES.glob("discuz-other/*"))  # other views, refused (test_reading_post_fields)
    pages -= set(FIXTURES.glob("discuz-api/answers/*"))  # the interface's answers, web pages
    minute, second = _pages(TO_THE_MINUTE), _pages(TO_THE_SECOND)
    assert not set(minute) & set(second)
    assert pages == set(minute) | set(second)


@pytest.mark.rules("S2")
@pytest.mark.parametrize(
    ("path", "minutes"),
    [(p, True) for p in _pages(TO_THE_MINUTE)] + [(p, False) for p in _pages(TO_THE_SECOND)],
    ids=lambda v: str(v.relative_to(FIXTURES)) if isinstance(v, Path) else str(v),
)
def test_a_floor_is_to_the_minute_where_its_page_prints_no_seconds(path, minutes):
    profile = path.parent / "boards.toml"
    boards = load_boards(profile) if profile.exists() else None
    text = decode_page(path.read_bytes(), source=path.name)
    page = Discuz().pages.parse_page(text, CHINA, source=path.name, boards=boards)
    assert page.posts and {p.to_the_minute for p in page.posts} == {minutes}
    # Kept in the history as read, and read back so.
    assert [p.to_the_minute for p in page_posts(page_data(page.posts))] == [minutes] * len(
        page.posts
    )


# -- the close (S2) -------------------------------------------------------------------------------

# The thread's floors (real seconds, as the same thread shows them with 人性化时间 on): the
# director's header 11:18:02; eve for carol 11:18:10; carol for dave 11:18:45; alice for dave
# 11:19:10; alice's change to carol 11:20:15; carol's change to eve 11:20:45; bob for dave
# 11:22:10; dave for alice 11:22:50.
IN_TIME = {
    2: ("counted", None, "carol"),
    3: ("superseded", None, "dave"),
    4: ("superseded", None, "dave"),
    5: ("counted", None, "carol"),
    6: ("counted", None, "eve"),
}


@pytest.mark.rules("S2")
def test_dave_20_seconds_late_is_never_counted_silently(forum, tmp_path):
    """The Why: read after the close, both floors read 11:22 and the close is 11:22:30. Each
    is void with the closing-minute flag (nothing tells them apart), exit 0; no "is the close
    right?" stop, which two late ballots of seven would make."""
    data = votes(forum, tmp_path, "minutes-after-close-guest", "11:25:00")
    floors = by_floor(data)
    assert {f: floors[f] for f in IN_TIME} == IN_TIME
    assert floors[7] == ("void", "after_close", "dave")
    assert floors[8] == ("void", "after_close", "alice")
    assert flagged(data, "closing minute") == [7, 8]
    [dave] = [b for b in data["ballots"] if b["floor"] == 8]
    assert dave["note"] == (
        "posted in the closing minute (12-06 11:22; the forum shows this floor's time to the "
        "minute): after the close 12-06 11:22:30, unless a ruling accepts it"
    )
    assert "dave" not in [v for t in data["totals"] for v in t["voters"]]
    # The JSON says the times are minutes: "11:22:00" is the minute's start, not a second.
    assert dave["to_the_minute"] is True and dave["posted_at"].endswith("11:22:00+08:00")
    assert all(b["to_the_minute"] for b in data["ballots"])


@pytest.mark.rules("S2")
def test_a_read_before_the_close_shows_bob_on_time(forum, tmp_path):
    """tally read the thread at 11:22:20 (a provisional count, or a poll of tally watch): bob's
    floor was there, so it was posted by then. Read again after the close, bob's ballot counts,
    with a note saying why; dave's, first read after the close, is void with the flag."""
    before = votes(forum, tmp_path, "minutes-before-close-guest", "11:22:20")
    assert before["provisional"] is True and 8 not in by_floor(before)
    data = votes(forum, tmp_path, "minutes-after-close-guest", "11:25:00")
    floors = by_floor(data)
    assert {f: floors[f] for f in IN_TIME} == IN_TIME
    assert floors[7] == ("counted", None, "dave")
    assert floors[8] == ("void", "after_close", "alice")
    assert flagged(data, "closing minute") == [8]
    [bob] = [b for b in data["ballots"] if b["floor"] == 7]
    assert bob["note"] == (
        "shown in the closing minute (12-06 11:22; the forum shows this floor's time to the "
        "minute), and tally's read of 11:22:20 showed it: before the close"
    )


@pytest.mark.rules("S2")
def test_a_read_in_the_closing_seconds_proves_nothing(forum, tmp_path):
    """A read stamped 11:22:28 may be the forum's 11:22:31 (the doubt of its clock, a Date
    counting whole seconds): bob's floor in it is still in doubt."""
    votes(forum, tmp_path, "minutes-before-close-guest", "11:22:28")
    data = votes(forum, tmp_path, "minutes-after-close-guest", "11:25:00")
    assert flagged(data, "closing minute") == [7, 8]


@pytest.mark.rules("S2")
def test_a_ruling_accepts_a_ballot_of_the_closing_minute(forum, tmp_path):
    """The director asked the forum's admin (its database holds the second): dave posted at
    11:22:50, bob at 11:22:10. A ruling accepting bob's counts it; dave's stays void."""
    data = votes(forum, tmp_path, "minutes-after-close-guest", "11:25:00", rulings=ruling(7))
    floors = by_floor(data)
    assert floors[7] == ("counted", None, "dave")
    assert floors[8] == ("void", "after_close", "alice")
    # And a ruling is the director's word: accepting dave's counts it too.
    data = votes(forum, tmp_path, "minutes-after-close-guest", "11:25:00", rulings=ruling(8))
    assert by_floor(data)[8] == ("counted", None, "alice")


@pytest.mark.rules("S2")
def test_the_same_thread_to_the_second_is_counted_as_before(forum, tmp_path):
    """人性化时间 on: every floor's time to the second (the span's title). bob's ballot counts,
    dave's is void as posted after the close, and no minute is flagged."""
    data = votes(forum, tmp_path, "seconds-guest", "11:25:00")
    floors = by_floor(data)
    assert {f: floors[f] for f in IN_TIME} == IN_TIME
    assert floors[7] == ("counted", None, "dave")
    assert floors[8] == ("void", "after_close", "alice")
    [dave] = [b for b in data["ballots"] if b["floor"] == 8]
    assert dave["note"] == "posted 12-06 11:22:50, after the close 12-06 11:22:30"
    assert not [f for f in data["flags"] if "minute" in f["rule"]]
    assert not any(b["to_the_minute"] for b in data["ballots"])


# -- the open (S2) --------------------------------------------------------------------------------


@pytest.mark.rules("S2")
def test_a_ballot_in_the_opening_minute_is_void_unless_ruled(forum, tmp_path):
    """The day opens at 11:18:30: eve's floor (11:18:10) and carol's (11:18:45) both read
    11:18. Both are void before_open with the opening-minute flag; a ruling accepting carol's
    counts it. To the second, eve's is plainly early and carol's counts."""
    late_close = {"opens": "11:18:30", "closes": "11:30:00"}
    data = votes(forum, tmp_path, "minutes-after-close-guest", "11:35:00", **late_close)
    floors = by_floor(data)
    assert floors[2] == ("void", "before_open", "carol")
    assert floors[3] == ("void", "before_open", "dave")
    assert flagged(data, "opening minute") == [2, 3]
    data = votes(forum, tmp_path, "minutes-after-close-guest", "11:35:00", **late_close,
                 rulings=ruling(3))  # fmt: skip
    assert by_floor(data)[3] == ("superseded", None, "dave")  # by carol's change on floor 6
    seconds = votes(forum, tmp_path, "seconds-guest", "11:35:00", **late_close)
    assert by_floor(seconds)[2] == ("void", "before_open", "carol")
    assert by_floor(seconds)[3] == ("superseded", None, "dave")
    assert not [f for f in seconds["flags"] if "minute" in f["rule"]]


# -- the final hour (V5) ---------------------------------------------------------------------------


@pytest.mark.rules("V5")
def test_a_change_in_the_minute_the_final_window_begins_is_void_unless_ruled(forum, tmp_path):
    """No change in the last 5 minutes before an 11:25:30 close: from 11:20:30. alice's change
    (11:20:15) and carol's (11:20:45) both read 11:20: both void change_in_final_hour with a
    flag; a ruling accepting alice's counts it. To the second, alice's counts, carol's not."""
    window: dict = {"closes": "11:25:30", "rules": {"change_window_minutes": 5}}
    data = votes(forum, tmp_path, "minutes-after-close-guest", "11:30:00", **window)
    floors = by_floor(data)
    assert floors[5] == ("void", "change_in_final_hour", "carol")
    assert floors[6] == ("void", "change_in_final_hour", "eve")
    assert floors[4] == ("counted", None, "dave") and floors[3] == ("counted", None, "dave")
    assert flagged(data, "deadline minute") == [5, 6]
    [alice] = [b for b in data["ballots"] if b["floor"] == 5]
    assert alice["note"].startswith("posted in the minute of the deadline (12-06 11:20; the forum")
    window["rulings"] = ruling(5)
    data = votes(forum, tmp_path, "minutes-after-close-guest", "11:30:00", **window)
    assert by_floor(data)[5] == ("counted", None, "carol")
    window["rulings"] = ()
    seconds = by_floor(votes(forum, tmp_path, "seconds-guest", "11:30:00", **window))
    assert seconds[5] == ("counted", None, "carol")
    assert seconds[6] == ("void", "change_in_final_hour", "eve")


# -- the other boundaries, on real-shaped pages of a board with 人性化时间 off ----------------------
# (tests/discuzgen.py: a real X3.5's post block, each time printed as given: to the minute.)

SIX = ["甲", "乙", "丙", "丁", "戊", "己"]
UIDS = {"导演A": 1, **{p: 100 + i for i, p in enumerate(SIX)}}
OPENS, CLOSES = "2024-05-08 09:30", "2024-05-09 21:30"


def minute_game(forum, tmp_path: Path, ruleset: str, ballots: list[tuple[str, str, str]], *,
                day: Mapping[str, object] | None = None, chat: dict[str, int] | None = None,
                talk: tuple[tuple[str, str, str], ...] = (),
                rules: Mapping[str, object] | None = None) -> tuple[str, str]:  # type: ignore[no-untyped-def]  # fmt: skip
    """Day 2 (09:30 to the next day's 21:30): its vote thread's ``ballots`` and its discussion
    thread's ``talk`` are (author, time to the minute, text); before them each player's
    ``chat`` posts (6 each unless said) on the first day. The game file and the vote URL."""
    votes = Thread("302", "第2天投票帖", UIDS, first_pid=302_000)
    votes.add(P("导演A", OPENS, "投票格式：\n投票对象：\n投票理由："))
    votes.add(*(P(author, when, text) for author, when, text in ballots))
    discussion = Thread("202", "第2天讨论帖", UIDS, first_pid=202_000)
    discussion.add(P("导演A", OPENS, "开门"))
    for n, (player, count) in enumerate({**dict.fromkeys(SIX, 6), **(chat or {})}.items()):
        discussion.add(*(P(player, f"2024-05-08 1{i}:0{n}", f"{player}说{i}") for i in range(count)))
    discussion.add(*(P(author, when, text) for author, when, text in talk))
    path = gamefiles.write_game(
        tmp_path / "game.toml",
        gamefiles.day(2, votes.serve(forum), f"{OPENS}:00", f"{CLOSES}:00",
                      discussion=discussion.serve(forum), sheriff="none", **(day or {})),
        ruleset=ruleset, directors=[{"name": "导演A", "id": 1}],
        players=[{"name": p, "id": UIDS[p]} for p in SIX], rules=rules,
    )  # fmt: skip
    return str(path), forum.url("forum.php?mod=viewthread&tid=302")


def run(*args: str) -> dict:  # type: ignore[type-arg]
    result = runner.invoke(app, [*args, "--json", "-q"], obj=at("23:59:00").env())
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@pytest.mark.rules("V8")
def test_a_proxy_ballot_in_the_minute_of_its_deadline_is_late_unless_ruled(forum, tmp_path):
    """Proxy ballots are due 30 minutes before the 21:30 close (ruleset 000), by 21:00: one
    shown 21:00 was posted after 21:00:00 in 59 of its 60 seconds; one shown 20:59 is in time."""
    ballots = [("甲", "2024-05-08 10:01", "投票对象：乙\n投票理由：一"),
               ("导演A", "2024-05-09 20:59", "代投：乙\n投票对象：甲\n投票理由：代"),
               ("导演A", "2024-05-09 21:00", "代投：丙\n投票对象：甲\n投票理由：代")]  # fmt: skip
    game, url = minute_game(forum, tmp_path, "000", ballots)
    data = run("votes", url, "--game", game)
    assert by_floor(data)[3] == ("counted", None, "甲")
    assert by_floor(data)[4] == ("void", "proxy_late", "甲")
    assert flagged(data, "deadline minute") == [4]
    Path(game).write_text(Path(game).read_text(encoding="utf-8") + "\n" + ruled(4, 2), encoding="utf-8")
    assert by_floor(run("votes", url, "--game", game))[4] == ("counted", None, "甲")


@pytest.mark.rules("V11")
def test_the_bar_owners_vote_in_the_minute_its_hours_end_is_no_vote_in_time(forum, tmp_path):
    """The 主管 votes within 12 hours of the 09:30 open (ruleset 023), by 21:30:00: 丁's ballot
    shown 21:30 was cast after it in 59 of its 60 seconds. The V11 card is proposed, and the
    minute flagged; a ruling accepting the ballot takes it as in time."""
    ballots = [("丁", "2024-05-08 21:30", "投票对象：甲\n投票理由：主管票")]
    game, url = minute_game(forum, tmp_path, "023", ballots, day={"bar_owner": "丁"})
    data = run("votes", url, "--game", game)
    assert by_floor(data)[2] == ("counted", None, "甲")
    assert flagged(data, "deadline minute") == [2]
    assert [f["player"] for f in data["flags"] if f["rule"] == "V11"] == ["丁"]
    check = run("lurkers", "--game", game, "--day", "2")
    assert [c["rule"] for c in check["cards"] if c["player"] == "丁"] == ["V11"]
    Path(game).write_text(Path(game).read_text(encoding="utf-8") + "\n" + ruled(2, 2), encoding="utf-8")
    data = run("votes", url, "--game", game)
    assert not [f for f in data["flags"] if f["rule"] in ("V11", "deadline minute")]


@pytest.mark.rules("S3")
def test_a_request_in_the_minute_of_the_deadline_is_said_not_counted(forum, tmp_path):
    """Requests for 加速 count until the accelerated close, 21:30:00 on the open's day
    (ruleset 000, read in the discussion thread); more than half of six is four. Three ask
    earlier, 丁 at a time shown 21:30: not counted, named, and the game file's "not
    accelerated" said to rest on that minute."""
    asked = tuple((p, f"2024-05-08 {when}", "申请加速") for p, when in
                  (("甲", "10:31"), ("乙", "11:31"), ("丙", "12:31"), ("丁", "21:30")))  # fmt: skip
    ballots = [("甲", "2024-05-08 10:01", "投票对象：乙\n投票理由：一")]
    game, url = minute_game(forum, tmp_path, "000", ballots, talk=asked,
                            rules={"acceleration_threads": ["discussion"]})  # fmt: skip
    result = runner.invoke(app, ["votes", url, "--game", game, "--json"], obj=at("23:59:00").env())
    assert result.exit_code == 0, result.output
    acc = json.loads(result.stdout)["acceleration"]
    assert [a["player"] for a in acc["asked"]] == ["甲", "乙", "丙"]
    assert [a["player"] for a in acc["doubtful"]] == ["丁"]
    assert (acc["needed"], acc["accelerates"]) == (4, False)
    assert acc["warning"] == (
        "day 2: 3 of 6 living players asked for 加速 by 05-08 21:30 (needs 4); 1 more shown in "
        "the minute of the open or of 05-08 21:30, to the minute, perhaps outside it, not "
        "counted: 丁 (floor 41, 05-08 21:30): they decide the day; check the game file's "
        "accelerated (S3)."
    )
    assert acc["warning"] in result.stderr


@pytest.mark.rules("L1")
def test_a_post_in_the_closing_minute_that_decides_an_l1_card_is_said(forum, tmp_path):
    """戊 posted four times in the day, and once more at a time shown 21:30, the close's own
    minute (ruleset 000: fewer than 5 posts is a yellow card): that post is not counted, the
    L1 card is proposed, and a flag names the post it rests on. 己's post in the same minute
    is not counted either, but 己 has six: nothing to say."""
    talk = (("戊", "2024-05-09 21:30", "最后一句"), ("己", "2024-05-09 21:30", "我也说一句"))
    ballots = [(p, f"2024-05-08 20:0{n}", "投票对象：甲\n投票理由：x") for n, p in enumerate(SIX)]
    game, _ = minute_game(forum, tmp_path, "000", ballots, chat={"戊": 4}, talk=talk,
                          rules={"sheriff_election_day": "none"})  # fmt: skip
    check = run("lurkers", "--game", game, "--day", "2")
    posts = {p["player"]: p["posts"] for p in check["players"]}
    assert (posts["戊"], posts["己"]) == (4, 6)
    assert [(c["player"], c["rule"]) for c in check["cards"]] == [("戊", "L1")]
    [flag] = [f for f in check["flags"] if f["rule"] == "L1"]
    assert (flag["player"], flag["floor"], flag["thread_id"]) == ("戊", 36, "202")
    assert flag["note"] == (
        "戊's posts shown in the minute of day 2's open or close (floor 36 of thread 202 (05-09 "
        "21:30); the forum shows a minute only) are not counted, perhaps outside the day: with "
        "them the L1 card (第2天发言4条（少于5条）) would not be; judge it, and take it back (tally "
        "cards remove) if they were in time"
    )


# -- archives ----------------------------------------------------------------------------------


@pytest.mark.rules("S2")
def test_an_archive_counts_as_the_pages_did(forum, tmp_path):
    """`tally archive` keeps whether each time was shown to the minute (to_the_minute): the
    archive counted again flags bob's and dave's ballots as the live read did. An archive
    written before that column, every floor on the minute, is read as minutes only too."""
    live = votes(forum, tmp_path, "minutes-after-close-guest", "11:25:00")
    url = forum.url("forum.php?mod=viewthread&tid=2")
    out = tmp_path / "posts.csv"
    result = runner.invoke(app, ["archive", url, "-o", str(out)], obj=at("11:26:00").env())
    assert result.exit_code == 0, result.output
    game = game_file(tmp_path, url, "11:00:00", "11:22:30")
    for archive in (out, _without_column(out, tmp_path / "older.csv")):
        again = runner.invoke(app, ["votes", str(archive), "--game", game, "--json"],
                              obj=at("11:30:00").env())  # fmt: skip
        assert again.exit_code == 0, again.output
        data = json.loads(again.stdout)
        assert by_floor(data) == by_floor(live)
        assert flagged(data, "closing minute") == [7, 8]


def _without_column(path: Path, to: Path) -> Path:
    """The archive as a tally before the to_the_minute column wrote it."""
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    assert {r["to_the_minute"] for r in rows if r["kind"] == "post"} == {"1"}
    fields = [f for f in rows[0] if f != "to_the_minute"]
    with to.open("w", encoding="utf-8-sig", newline="") as f:
        writer = csv.DictWriter(f, fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return to


@pytest.mark.rules("V5")
def test_an_edit_mark_in_the_minute_the_final_hour_begins_is_flagged():
    """An edit mark says minutes only: "20:30" with the final hour from 20:30:30 (a close at
    21:30:30) may be inside it, and is flagged as one; "20:29" is not."""
    from tally.model import Edit
    from tally.rules.counting.votes import tally_day
    from tally.rules.game.gamefile import parse_game

    from .votekit import T, vote

    for minute, flags in ((30, ("edited in the last 60 minutes before the close, 05-09 20:30",)),
                          (29, ())):  # fmt: skip
        t = T().post("乙", "08 10:00", vote("甲"))
        posted = t.posts[1]
        edit = Edit("乙", posted.time.replace(day=9, hour=20, minute=minute))
        t.posts[1] = posted.__class__(**{**posted.__dict__, "edited": edit})
        text = gamefiles.game_toml(gamefiles.day(2, closes="2024-05-09T21:30:30"),
                                   directors=["导演"], players=["甲", "乙", "丙"])  # fmt: skip
        g = parse_game(text, source="test.toml")
        [ballot] = tally_day(t.thread(), g, 2).ballots
        assert (ballot.status, ballot.flags) == ("counted", flags)


# -- Tieba's saved pages -------------------------------------------------------------------------

TIEBA_SAVED = FIXTURES / "tieba-saved"


@pytest.mark.rules("V3", "S2")
def test_a_saved_tieba_page_is_minutes_only_too(tmp_path):
    """Tieba's desktop page printed a floor's time and a 楼中楼's to the minute ("2024-05-10
    15:40"); its /p/totalComment JSON gives Unix seconds. 冷月's 楼中楼 change (ruleset 000)
    shown 15:40 in a day closing at 15:40:00 was counted; it is void with the flag."""
    from tally.forums.tieba.saved import parse_total_comment

    from .conftest import read

    whole = [TIEBA_SAVED / "p1.html", TIEBA_SAVED / "p2.html",
             TIEBA_SAVED / "comment-pid=150999004-pn2.html"]  # fmt: skip
    [thread] = read([str(p) for p in whole])
    assert {p.to_the_minute for p in thread.posts} == {True}
    assert {c.to_the_minute for p in thread.posts for c in p.comments} == {True}
    batch = parse_total_comment(
        (FIXTURES / "tieba" / "totalComment-p1.json").read_text(encoding="utf-8"), CHINA,
        source="totalComment-p1.json",
    )  # fmt: skip
    assert {c.to_the_minute for found in batch.comments.values() for c in found} == {False}
    game = tmp_path / "g.toml"
    game.write_text(
        (FIXTURES / "tieba" / "game.toml").read_text(encoding="utf-8")
        .replace("8800123456", "8800999001").replace("day = 2\n", "day = 3\n")
        .replace("2024-05-08T09:30:00", "2024-05-10T09:30:00")
        .replace("2024-05-09T21:30:00", "2024-05-10T15:40:00"),
        encoding="utf-8",
    )  # fmt: skip
    result = runner.invoke(app, ["votes", *map(str, whole), "--game", str(game), "--json"],
                           obj=at("23:00:00").env())  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    [change] = [b for b in data["ballots"] if b["floor"] == 2 and b["kind"] == "change"]
    assert (change["status"], change["reason"]) == ("void", "after_close")
    assert "closing minute" in [f["rule"] for f in data["flags"] if f["floor"] == 2]
