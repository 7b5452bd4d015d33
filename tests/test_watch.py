"""`tally watch` on a loopback forum whose vote thread grows between polls, on a fake clock.

The game is tests/test_counting_whole_day.py's (ruleset 000 with changes as 点评, replies or
quotes; sheriff 冷月 2.5, deputy kiwi 1.5, 长夜 slandered +2; closes 05-09 21:30).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from rich.console import Console

from tally.cli import app
from tally.commands.watch import Schedule, read_polls
from tally.demo.localforum import Reply
from tally.environment import Environment, HttpOptions
from tally.forums.politeness import Robots
from tally.forums.reader import Reader, Reading
from tally.outputs.shown.live import majority_text
from tally.rules.counting.polls import ChangeKind, Poll
from tally.rules.game.gamefile import load_game
from tally.rules.verdicts import Status, VoidReason

from .conftest import FakeClock, Runner, read_one
from .discuzgen import Comment, P
from .discuzgen import Thread as Pages
from .test_counting_whole_day import game_file

CHINA = ZoneInfo("Asia/Shanghai")
runner = Runner()


def Clock(start: str) -> FakeClock:
    return FakeClock(start, CHINA)


def env_at(clock: FakeClock, tmp_path: Path, **http: object) -> Environment:
    # The polls' times are asserted to the second: the politeness gap between requests,
    # which moves this clock like any wait, is left out here.
    return clock.env(http=HttpOptions(host_delay=0, **http))


def watching(game, url, clock, tmp_path, schedule, *, http=None, **how):
    """The polls of a watch as the command makes them: one Reader for the whole watch."""
    reader = Reader(env_at(clock, tmp_path, **(http or {})), Reading(cache_dir=tmp_path / "cache", **how))
    return read_polls(game, url, schedule=schedule, reader=reader)


def vote_thread() -> Pages:
    t = Pages("102", "[测试局] 第二天投票帖", {})
    t.add(P("导演A", "2024-05-08 09:30:00", "投票格式：\n投票对象：\n投票理由："))  # 1
    t.add(P("冷月", "2024-05-08 10:01:00", "投票对象：白桃\n投票理由：狼面大"))  # 2
    t.add(P("阿澈", "2024-05-08 10:20:00", "投票对象：小眯\n投票理由：先挂票"))  # 3
    return t


def setup(forum, tmp_path: Path) -> tuple[Pages, str, Path]:
    t = vote_thread()
    url = t.serve(forum)
    return t, url, Path(game_file(tmp_path, url))


def test_polls_of_a_growing_thread(forum, tmp_path):
    t, url, game_path = setup(forum, tmp_path)
    game = load_game(game_path)
    clock = Clock("2024-05-09 19:00:00")
    polls = watching(game, url, clock, tmp_path, Schedule(every=600, full_every=0), http={"attempts": 2})

    first = next(polls)
    assert first.number == 1 and first.ok and not first.final and first.changes == ()
    assert first.result is not None and first.result.provisional
    assert first.result.leaders == ("白桃",)  # 冷月 the sheriff: 2.5
    assert first.next_at == clock.now() + timedelta(seconds=600)

    # Between the polls: a new ballot, a change as a 点评 under one's own floor (V3), and
    # a ballot for a name nobody has.
    t.posts[2].comments.append(Comment("阿澈", "2024-05-09 19:05", "改票对象：长夜 改票理由：跟票"))
    t.add(P("kiwi", "2024-05-09 19:06:00", "投票对象：长夜\n投票理由：划水"))  # 4
    t.add(P("小眯", "2024-05-09 19:07:00", "投票对象：青宁\n投票理由：新来的"))  # 5
    t.serve(forum)
    second = next(polls)
    assert second.at == datetime(2024, 5, 9, 19, 10, tzinfo=CHINA)
    found = [(c.kind, c.floor, c.comment, c.voter, c.status, c.was) for c in second.changes]
    assert found == [
        (ChangeKind.STATUS, 3, False, "阿澈", Status.SUPERSEDED, Status.COUNTED),
        (ChangeKind.NEW, 3, True, "阿澈", Status.COUNTED, None),
        (ChangeKind.NEW, 4, False, "kiwi", Status.COUNTED, None),
        (ChangeKind.NEW, 5, False, "小眯", Status.VOID, None),
        (ChangeKind.LEADERS, None, False, None, None, None),
    ]
    void = second.changes[3]
    assert void.reason == VoidReason.UNKNOWN_TARGET
    assert void.text == (
        "floor 5: new 小眯 vote 青宁, void (unknown_target: '青宁' is not a player; "
        "closest: 青山 (V7))"
    )
    # 长夜: kiwi 1.5 + 阿澈 1 + slandered 2 = 4.5 against 白桃's 2.5.
    assert second.changes[4].text == "leading now: 长夜 on 4.5"

    # An unchanged thread: one request, for the last page.
    before = len(forum.requests)
    third = next(polls)
    assert third.requests == 1 and len(forum.requests) - before == 1
    assert third.changes == () and third.result is not None
    assert third.result.thread.sources == ("network",)

    # The forum fails for three polls: the last good count stays, with since when.
    answers = forum.hook
    forum.hook = lambda path: Reply(503, b"busy", {})
    failed = [next(polls) for _ in range(3)]
    assert [p.ok for p in failed] == [False, False, False]
    assert {p.failing_since for p in failed} == {datetime(2024, 5, 9, 19, 30, tzinfo=CHINA)}
    assert all(p.result is third.result for p in failed)
    assert "503" in (failed[0].error or "")
    forum.hook = answers
    back = next(polls)
    assert back.ok and back.failing_since is None and back.changes == ()
    # Read at the poll's time, 20:00, and the seconds the failing polls' retries waited.
    assert back.last_read == back.at
    assert timedelta(0) <= back.at - datetime(2024, 5, 9, 20, 0, tzinfo=CHINA) < timedelta(seconds=10)

    rest = list(polls)
    final = rest[-1]
    # Polls every 10 minutes up to 21:20; the next is the final read, a minute after the
    # close, which trusts no page read before the close.
    assert [p.at.strftime("%H:%M") for p in rest][-3:] == ["21:10", "21:20", "21:31"]
    assert final.final and final.full and final.next_at is None
    assert final.result is not None and not final.result.provisional
    assert final.result.outcome.player == "长夜"


def test_pages_are_kept_parsed_between_polls(forum, tmp_path):
    t = vote_thread()
    for i in range(25):  # three pages
        t.add(P("导演A", f"2024-05-08 11:{i:02d}:00", f"提醒{i}"))
    url = t.serve(forum)
    game = load_game(Path(game_file(tmp_path, url)))
    clock = Clock("2024-05-09 19:00:00")
    polls = watching(game, url, clock, tmp_path, Schedule(every=60, full_every=3, polls=4))
    seen = [(p.requests, p.full, p.result.thread.sources) for p in polls if p.result]
    assert seen == [
        # robots.txt, the board's mobile interface asked once (the loopback forum has none:
        # its pages are read) and three pages
        (5, False, ("network", "network", "network")),
        (1, False, ("memory", "memory", "network")),
        (1, False, ("memory", "memory", "network")),
        (3, True, ("network", "network", "network")),  # every third poll after the first
    ]


def test_the_poll_a_reminder_is_posted_at_reads_every_page(forum, tmp_path):
    """--remind-at 30: the first poll 30 minutes or less before the 21:30 close reads every
    page again (a 屏蔽 on a page before the last moves no floor; the 催票 names who has not
    voted, so it must rest on every page as the forum shows it now: found on the real X3.5,
    where a 屏蔽ed voter was not reminded)."""
    t = vote_thread()
    for i in range(25):  # three pages
        t.add(P("导演A", f"2024-05-08 11:{i:02d}:00", f"提醒{i}"))
    url = t.serve(forum)
    game = load_game(Path(game_file(tmp_path, url)))
    clock = Clock("2024-05-09 20:50:00")
    schedule = Schedule(every=300, full_every=0, polls=4, full_before=30)
    seen = [(p.at.strftime("%H:%M"), p.full) for p in watching(game, url, clock, tmp_path, schedule)]
    assert seen == [("20:50", False), ("20:55", False), ("21:00", True), ("21:05", False)]


def test_a_failed_reminder_poll_leaves_the_full_read_to_the_next(forum, tmp_path):
    """The poll --remind-at is due at fails: its count is the last good one, read from
    memory; the next poll reads every page, and the reminder waits for it (found in a cold
    read: no poll read every page before the close)."""
    from tally.demo.localforum import Reply

    t = vote_thread()
    for i in range(25):  # three pages
        t.add(P("导演A", f"2024-05-08 11:{i:02d}:00", f"提醒{i}"))
    url = t.serve(forum)
    game = load_game(Path(game_file(tmp_path, url)))
    schedule = Schedule(every=300, full_every=0, polls=4, full_before=10)
    polls = watching(game, url, Clock("2024-05-09 21:10:00"), tmp_path, schedule,
                     http={"attempts": 1})  # fmt: skip
    seen = [next(polls), next(polls)]
    answers = forum.hook
    forum.hook = lambda path: Reply(503, b"busy", {})
    seen.append(next(polls))
    forum.hook = answers
    seen.append(next(polls))
    assert [(p.at.strftime("%H:%M"), p.full, bool(p.error)) for p in seen] == [
        ("21:10", False, False), ("21:15", False, False), ("21:20", True, True),
        ("21:25", True, False),
    ]  # fmt: skip
    assert seen[3].result is not None
    assert seen[3].result.thread.sources == ("network",) * 3


def test_a_change_in_the_last_hour_turns_up_void(forum, tmp_path):
    t, url, game_path = setup(forum, tmp_path)
    clock = Clock("2024-05-09 20:40:00")
    polls = watching(load_game(game_path), url, clock, tmp_path, Schedule(every=300, full_every=0))
    next(polls)
    t.add(P("阿澈", "2024-05-09 20:42:00", "改票对象：长夜\n改票理由：晚了", reply=3))
    t.serve(forum)
    [change] = [c for c in next(polls).changes if c.kind != ChangeKind.LEADERS]
    assert change.status == Status.VOID and change.reason == VoidReason.CHANGE_IN_FINAL_HOUR


def test_watch_json_lines_and_the_announcement_at_the_close(forum, tmp_path):
    _, url, game_path = setup(forum, tmp_path)
    clock = Clock("2024-05-09 21:25:00")
    out = tmp_path / "day2.txt"
    result = runner.invoke(
        app,
        ["watch", url, "--game", str(game_path), "--every", "120", "--announce-to", str(out)],
        obj=env_at(clock, tmp_path),
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    # 21:25, 21:27, 21:29, then the final read at 21:31.
    assert [line["poll"]["at"][11:16] for line in lines] == ["21:25", "21:27", "21:29", "21:31"]
    assert [line["provisional"] for line in lines] == [True, True, True, False]
    assert lines[-1]["poll"]["final"] and lines[-1]["outcome"]["player"] == "白桃"
    assert all(line["changes"] == [] for line in lines)
    assert set(lines[0]) >= {"day", "ballots", "totals", "as_of", "changes", "poll"}
    text = out.read_text(encoding="utf-8")
    assert text.startswith("[b]测试局 第2天投票结果[/b]") and "白桃" in text
    assert f"wrote the announcement to {out}" in result.stderr


class Recording:
    """A watcher of the test's own, beside the terminal's: what a new live output would get."""

    ticks = True  # woken each second between polls, as the live screen is

    def __init__(self) -> None:
        self.polls: list[Poll] = []
        self.ticked = 0
        self.started = self.stopped = None

    def start(self, game) -> None:
        self.started = game

    def poll(self, poll: Poll) -> None:
        self.polls.append(poll)

    def tick(self) -> None:
        self.ticked += 1

    def stop(self, last: Poll | None, *, interrupted: bool = False) -> None:
        self.stopped = (last, interrupted)

    def posted(self, posted) -> None:  # pragma: no cover - no --post here
        raise AssertionError(posted)


def test_two_watchers_see_the_same_polls(forum, tmp_path):
    """watch takes any number of watchers: the terminal (a JSON line per poll) and one more
    see every poll alike, the close included; only the one that ticks is woken between polls,
    and the terminal's lines are those of `tally watch --json`."""
    import io

    from tally.commands.watch import watch
    from tally.outputs.shown.json_output import poll_json
    from tally.outputs.shown.terminal import Terminal

    t, url, game_path = setup(forum, tmp_path)
    game = load_game(game_path)
    clock = Clock("2024-05-09 21:25:00")

    class Growing(Recording):
        def poll(self, poll: Poll) -> None:
            super().poll(poll)
            if poll.number == 1:  # a ballot comes in before the second poll
                t.add(P("kiwi", "2024-05-09 21:26:00", "投票对象：小眯\n投票理由：跟票"))
                t.serve(forum)

    out, err = io.StringIO(), io.StringIO()
    env = clock.env(http=HttpOptions(host_delay=0), stdout=out, stderr=err)
    terminal, recording = Terminal(env, as_json=True), Growing()
    with Reader(env, Reading(cache_dir=tmp_path / "cache")) as reader:
        watch(game, url, every=120, reader=reader, show=terminal,
              watchers=[terminal.watcher(), recording])  # fmt: skip
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["poll"]["at"][11:16] for line in lines] == ["21:25", "21:27", "21:29", "21:31"]
    assert lines == [json.loads(json.dumps(poll_json(p), ensure_ascii=False)) for p in recording.polls]
    assert [len(line["changes"]) > 0 for line in lines] == [False, True, False, False]
    assert recording.started is game and recording.stopped == (recording.polls[-1], False)
    assert recording.polls[-1].final and recording.polls[-1].result.outcome.player == "白桃"
    # Six minutes from the first poll to the final read, waited a second at a time.
    assert recording.ticked >= 300 and clock.sleeps.count(1.0) >= 300


def test_the_first_read_must_work(forum, tmp_path):
    _, url, game_path = setup(forum, tmp_path)
    wrong = url.replace("tid=102", "tid=999")
    result = runner.invoke(
        app,
        ["watch", wrong, "--game", str(game_path), "--day", "2", "--polls", "1"],
        obj=env_at(Clock("2024-05-09 19:00:00"), tmp_path),
    )
    assert result.exit_code == 4, result.output
    assert "check the tid" in result.stderr


def test_watch_refuses_saved_files_and_a_url_of_no_day(forum, tmp_path):
    _, url, game_path = setup(forum, tmp_path)
    env = env_at(Clock("2024-05-09 19:00:00"), tmp_path)
    saved = tmp_path / "p1.html"
    saved.write_bytes(b"<html></html>")
    result = runner.invoke(app, ["watch", str(saved), "--game", str(game_path)], obj=env)
    assert result.exit_code == 2 and "for saved pages use tally votes" in result.stderr
    # A thread the game file does not name, and another day's thread: the sentences of
    # tally votes (issue 22), not a bare "name the day".
    stray = Pages("777", "[测试局] 闲聊", {})
    stray.add(P("导演A", "2024-05-08 09:40:00", "随便聊聊"))
    other = stray.serve(forum)
    result = runner.invoke(app, ["watch", other, "--game", str(game_path)], obj=env)
    assert result.exit_code == 2, result.output
    assert "thread 777 is not the vote thread of any day in" in result.stderr
    assert f"day 2's vote thread is {url}" in result.stderr
    result = runner.invoke(app, ["watch", url, "--game", str(game_path), "--every", "0.5"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1


def test_the_forums_crawl_delay_slows_the_polls(forum, tmp_path):
    _, url, game_path = setup(forum, tmp_path)
    forum.add("/robots.txt", Reply(200, b"User-agent: *\nCrawl-delay: 300\n", {}))
    warnings: list[str] = []
    clock = Clock("2024-05-09 19:00:00")
    polls = list(
        watching(load_game(game_path), url, clock, tmp_path, Schedule(every=60, polls=2),
                 warn=warnings.append)
    )  # fmt: skip
    assert [p.every for p in polls] == [300, 300]
    assert polls[1].at - polls[0].at == timedelta(seconds=300)
    assert warnings == [
        "the forum's robots.txt asks for 300 s between requests; polling every 300 s "
        "instead of 60 s."
    ]


@pytest.mark.parametrize(
    "text,delay",
    [
        ("User-agent: *\nCrawl-delay: 10\n", 10.0),
        ("User-agent: tally\nCrawl-delay: 5\nUser-agent: *\nCrawl-delay: 50\n", 5.0),
        ("User-agent: *\nCrawl-delay: soon\n", None),
        ("User-agent: *\nCrawl-delay: nan\n", None),
        ("User-agent: *\nDisallow: /api/\n", None),
    ],
)
def test_crawl_delay(text, delay):
    assert Robots(text, "tally").crawl_delay == delay


def test_the_live_screen(forum, tmp_path):
    t, url, game_path = setup(forum, tmp_path)
    game = load_game(game_path)
    clock = Clock("2024-05-09 19:00:00")
    polls = watching(game, url, clock, tmp_path, Schedule(every=600, full_every=0))
    next(polls)
    t.add(P("kiwi", "2024-05-09 19:06:00", "投票对象：长夜\n投票理由：划水"))
    t.serve(forum)
    poll = next(polls)
    text = screen_text(poll, game, clock.now() + timedelta(seconds=5))
    assert "Poll 2: last read 19:10:00 (1 request); next poll 19:20:00" in text
    assert "Closes 05-09 21:30 (in 2 h 19 min 55 s)" in text
    assert (
        "No change in the last 60 min (V5): changes barred from 20:30 (in 1 h 19 min 55 s)" in text
    )
    assert "Changes since the last poll:" in text
    assert "  floor 4: new kiwi vote 长夜, counted" in text
    assert "Not voted (12): 小眯、风铃、老K、" in text  # 冷月, 阿澈 and kiwi have voted
    assert "Standing now (not final): 长夜 leading" in text
    late = screen_text(poll, game, datetime(2024, 5, 9, 20, 45, tzinfo=CHINA))
    assert "No change in the last 60 min (V5): changes are barred now" in late


def screen_text(poll: Poll, game, now: datetime) -> str:
    from tally.outputs.shown.live import live_view

    console = Console(width=120, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(live_view(poll, game, now))
    return console.export_text()


def test_the_live_screen_says_since_when_reads_fail(forum, tmp_path):
    _, url, game_path = setup(forum, tmp_path)
    game = load_game(game_path)
    clock = Clock("2024-05-09 19:00:00")
    polls = watching(game, url, clock, tmp_path, Schedule(every=60, full_every=0), http={"attempts": 1})
    next(polls)
    forum.hook = lambda path: Reply(503, b"busy", {})
    failed = next(polls)
    text = screen_text(failed, game, clock.now())
    assert "Reads fail since 19:01:00:" in text and "last read 19:00:00" in text
    assert "The count below is the last good one; tally keeps trying." in text


def test_the_screen_mode_prints_the_final_table(forum, tmp_path):
    _, url, game_path = setup(forum, tmp_path)
    clock = Clock("2024-05-09 21:29:00")
    env = env_at(clock, tmp_path)
    from dataclasses import replace

    result = runner.invoke(
        app, ["watch", url, "--game", str(game_path)], obj=replace(env, screen=True)
    )
    assert result.exit_code == 0, result.output
    assert "FINAL COUNT" in result.stdout
    assert "Outcome: 白桃 is out" in result.stdout  # the full table after the live screen
    # The clocks ticked once a second between the poll at 21:29 and the final read at 21:31.
    assert clock.sleeps.count(1.0) >= 100


def test_ctrl_c_prints_the_last_good_count(forum, tmp_path):
    _, url, game_path = setup(forum, tmp_path)
    clock = Clock("2024-05-09 19:00:00")

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    from dataclasses import replace

    env = replace(env_at(clock, tmp_path), sleep=interrupted, screen=True)
    result = runner.invoke(app, ["watch", url, "--game", str(game_path)], obj=env)
    assert result.exit_code == 130
    assert "Stopped. The last good count, read 19:00:00:" in result.stdout
    assert "Standing now (not final): 白桃 leading" in result.stdout
    assert result.stderr.splitlines()[-1] == "tally: interrupted; nothing was written."
    # Before it, once: how the board is read (the loopback forum has no mobile interface).
    assert result.stderr.count("tally reads its threads from their HTML pages") == 1


@pytest.mark.parametrize(
    "more,says",
    [
        # 白桃 2 (冷月, kiwi; M126 has no sheriff weight), 长夜 2 (slandered), 小眯 1: 5 cast.
        (
            [],
            "白桃、长夜 are tied: each needs more than 1 vote more for more than half of all "
            "votes cast (C6; 5 cast now)",
        ),
        (
            ["风铃"],
            "白桃 needs any vote more for more than half of all votes cast (C6; 6 cast now)",
        ),
        (["风铃", "老K"], "白桃 has more than half of the 7 votes cast (C6)"),
    ],
)
def test_how_far_the_leader_is_from_a_majority_under_M126(forum, tmp_path, more, says):
    from tally.rules.counting.votes import tally_day

    t = vote_thread()
    for i, voter in enumerate(["kiwi", *more]):
        t.add(P(voter, f"2024-05-08 10:3{i}:00", "投票对象：白桃\n投票理由：跟"))
    url = t.serve(forum)
    text = Path(game_file(tmp_path, url)).read_text(encoding="utf-8")
    path = tmp_path / "m126.toml"
    path.write_text(text.replace('ruleset = "000"', 'ruleset = "M126"'), encoding="utf-8")
    game = load_game(path)
    result = tally_day(read_one(url), game)
    assert majority_text(result, game.rules) == says
    assert majority_text(result, load_game(Path(game_file(tmp_path, url))).rules) is None


def test_reminder_before_the_close_and_refused_after(forum, tmp_path):
    _, _url, game_path = setup(forum, tmp_path)
    before = env_at(Clock("2024-05-09 20:00:00"), tmp_path)
    result = runner.invoke(
        app, ["announce", "--game", str(game_path), "--day", "2", "--kind", "reminder"], obj=before
    )
    assert result.exit_code == 0, result.output
    post = result.stdout
    assert post.startswith("[b]测试局 第2天投票 催票[/b]\n")
    assert "[b]关门时间：05-09 21:30[/b]（统计截至 05-09 20:00）" in post
    # Discuz! notifies an "@name ": everyone alive who has no ballot in force.
    assert "尚未投票（13人）：@小眯 @kiwi @风铃 @老K " in post and "@冷月" not in post
    assert "@阿澈" not in post and "@橘子" not in post  # voted; out
    assert post.rstrip().endswith(
        "改票请在自己的投票楼层下点评或回复自己的投票楼层或引用自己的投票楼层，"
        "限改票一次；关门前一小时内不得改票。\n"  # as the rule post and the void reason say it
        "法官代投时限：关门前30分钟（05-09 21:00）。"  # seed 000's proxy deadline (V8)
    )
    plain = runner.invoke(
        app,
        ["announce", "--game", str(game_path), "--day", "2", "--kind", "reminder",
         "--format", "text"],
        obj=before,
    )  # fmt: skip
    assert "尚未投票（13人）：小眯、kiwi、风铃、老K、" in plain.stdout and "@" not in plain.stdout
    after = env_at(Clock("2024-05-09 22:00:00"), tmp_path)
    refused = runner.invoke(
        app, ["announce", "--game", str(game_path), "--day", "2", "--kind", "reminder"], obj=after
    )
    assert refused.exit_code == 2
    assert "a reminder is for before the close" in refused.stderr


def test_times_are_shown_in_the_forums_clock_whatever_the_computers(forum, tmp_path):
    """The system clock is UTC; the director reads the forum's time (Asia/Shanghai here)."""
    from datetime import UTC

    _, url, game_path = setup(forum, tmp_path)
    clock = Clock("2024-05-09 20:00:00")
    clock.t = clock.t.astimezone(UTC)  # 12:00 UTC
    result = runner.invoke(
        app, ["watch", url, "--game", str(game_path), "--polls", "1"], obj=env_at(clock, tmp_path)
    )
    line = json.loads(result.stdout)
    assert line["as_of"] == "2024-05-09T20:00:00+08:00"
    assert line["poll"]["at"] == "2024-05-09T20:00:00+08:00"
    votes = runner.invoke(
        app, ["votes", url, "--game", str(game_path), "-q"], obj=env_at(clock, tmp_path)
    )
    assert "after this count (05-09 20:00)" in votes.stdout


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a folder that takes no file")
def test_an_announcement_folder_that_takes_no_file_stops_the_watch_at_once(forum, tmp_path):
    """Found out at the start, not after the last hour (it used to be, exit 6 at the close)."""
    _, url, game_path = setup(forum, tmp_path)
    out = Path("/proc/self/day2.txt")  # a folder even root cannot add a file to
    result = runner.invoke(
        app, ["watch", url, "--game", str(game_path), "--announce-to", str(out)],
        obj=env_at(Clock("2024-05-09 19:00:00"), tmp_path),
    )  # fmt: skip
    assert result.exit_code == 6, result.output
    assert "takes no new file" in result.stderr
    assert result.stdout == ""  # not one poll


def test_the_final_count_is_printed_when_the_announcement_cannot_be_written(forum, tmp_path):
    """The folder gone during the watch: the final count is on standard output (JSON), then
    one sentence and exit 6."""
    _, url, game_path = setup(forum, tmp_path)
    folder = tmp_path / "out"
    folder.mkdir()
    clock = Clock("2024-05-09 21:25:00")
    env = env_at(clock, tmp_path)
    sleep = env.sleep

    def sleep_and_lose_the_folder(seconds: float) -> None:
        if folder.exists():
            folder.rmdir()
        sleep(seconds)

    from dataclasses import replace

    result = runner.invoke(
        app, ["watch", url, "--game", str(game_path), "--every", "120", "--json",
              "--announce-to", str(folder / "day2.txt")],
        obj=replace(env, sleep=sleep_and_lose_the_folder),
    )  # fmt: skip
    assert result.exit_code == 6, result.output
    last = json.loads(result.stdout.splitlines()[-1])
    assert last["poll"]["final"] and last["outcome"]["player"] == "白桃"
    assert "day2.txt" in result.stderr
