"""A moderator's delete numbers the floors after it again and moves each of them up a page
(Discuz! X3.5 renders a floor's number from its place). A re-run that took the pages
before the last from the cache then joined two numberings: a ballot that moved up a page
was on no page read, shown as "deleted", and its voter was listed as not voting (found on
the real X3.5: 2 of 5 ballots lost, a posted closing announcement wrong, an L3 card)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from tally.cli import app
from tally.demo.localforum import Reply, route_key
from tally.environment import HttpOptions

from .conftest import CHINA, FakeClock, Runner
from .discuzgen import P, Thread
from .gamefiles import day, write_game

runner = Runner()
PLAYERS = ["alice", "bob", "carol", "dave", "eve"]


def _thread() -> Thread:
    """24 floors on 3 pages: ballots on floors 2 and 21-24, chat between."""
    t = Thread("7", "[局] 第二天投票帖", {})
    t.add(P("admin", "2026-12-01 09:00:00", "投票格式：\n投票对象：\n投票理由："))
    t.add(P("alice", "2026-12-01 09:01:00", "投票对象：bob\n投票理由：一"))
    for n in range(3, 21):
        t.add(P(PLAYERS[n % 5], f"2026-12-01 09:{n:02d}:00", f"闲聊{n}"))
    for who, target, minute in (("bob", "carol", 21), ("carol", "bob", 22),
                                ("dave", "bob", 23), ("eve", "carol", 24)):  # fmt: skip
        t.add(P(who, f"2026-12-01 09:{minute}:00", f"投票对象：{target}\n投票理由：票"))
    return t


def _game(tmp_path, url: str) -> str:
    path = write_game(tmp_path / "game.toml",
                      day(2, url, "2026-12-01T09:00:00", "2026-12-01T21:00:00"),
                      ruleset="000", directors=["admin"], players=PLAYERS)  # fmt: skip
    return str(path)


def _votes(url: str, game: str, tmp_path, clock: str) -> dict:
    start = datetime.fromisoformat(f"2026-12-01 {clock}").replace(tzinfo=CHINA)
    env = FakeClock(start.astimezone(UTC)).env(http=HttpOptions(host_delay=0))
    result = runner.invoke(
        app,
        ["votes", url, "--game", game, "--cache-dir", str(tmp_path / "cache"), "--json"],
        obj=env,
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) | {"stderr": result.stderr}


def _counted(data: dict) -> dict[str, str]:
    return {b["voter"]: b["target"] for b in data["ballots"] if b["status"] == "counted"}


def test_V6_a_floor_deleted_before_the_cached_pages_is_seen_and_no_ballot_lost(forum, tmp_path):
    t = _thread()
    url = t.serve(forum)
    game = _game(tmp_path, url)
    first = _votes(url, game, tmp_path, "12:00:00")
    every = {"alice": "bob", "bob": "carol", "carol": "bob", "dave": "bob", "eve": "carol"}
    assert _counted(first) == every
    # A chat floor on page 1 is deleted and one more reply comes: the reply count is as it
    # was, and bob's ballot (floor 21) is now floor 20, on page 2.
    t.delete(5).add(P("alice", "2026-12-01 12:30:00", "还有谁没投"))
    t.serve(forum)
    second = _votes(url, game, tmp_path, "13:00:00")
    assert _counted(second) == every
    assert second["not_voted"] == []
    # The deleted floor was chat: flagged for the director, no row among the ballots.
    assert [b for b in second["ballots"] if b["status"] == "deleted"] == []
    assert any(f["rule"] == "deleted" and f["note"].startswith(f"floor 5 ({PLAYERS[0]}) was "
               "deleted") for f in second["flags"])  # fmt: skip
    assert "3 from the network" in second["stderr"]  # every page read again


def test_V6_a_last_page_still_numbered_by_position_is_read_again_with_the_rest(forum, tmp_path):
    """Issue 49 (m). X3.5 keeps each post's floor (its position) after a delete until a page
    with the hole in it is shown: that view answers with a redirect, and from then on every
    page is numbered by its place. A count that read the last page first (the cache knew it)
    got it by position, then page 1 by place: bob's ballot stood on floor 21 and eve's on 24,
    floor 20's post twice, and the summary said floor 20 was gone (found on the real X3.5,
    tid 4: floors 12 and 13 on page 2 and floor 11 "gone"). The final count was right."""
    t = _thread()
    url = t.serve(forum)
    game = _game(tmp_path, url)
    every = {"alice": "bob", "bob": "carol", "carol": "bob", "dave": "bob", "eve": "carol"}
    assert _counted(_votes(url, game, tmp_path, "12:00:00")) == every
    t.delete(5)  # chat on page 1; pages 2 and 3 still show the floors by position
    renumbered = []

    def numbered_by_place_once_page_1_is_shown(path, headers, body):  # type: ignore[no-untyped-def]
        if not renumbered and route_key(path) == f"discuz:{t.tid}:1":
            renumbered.append(path)
            t.serve(forum)
            return Reply(302, b"", {"Location": url})
        return None

    forum.request_hook = numbered_by_place_once_page_1_is_shown
    second = _votes(url, game, tmp_path, "13:00:00")
    assert renumbered
    assert _counted(second) == every
    floors = {b["voter"]: b["floor"] for b in second["ballots"] if b["status"] == "counted"}
    assert floors == {"alice": 2, "bob": 20, "carol": 21, "dave": 22, "eve": 23}
    assert [f["floor"] for f in second["flags"] if f["rule"] == "deleted"] == [5]
    assert "gone" not in second["stderr"] and "3 from the network" in second["stderr"]


def test_pages_that_disagree_when_read_again_are_one_sentence(forum, tmp_path):
    """The pages still disagree when read again (a forum whose last page keeps the floors
    from before a delete, or one more delete between the pages): one sentence, nothing
    counted from them."""
    from tally.errors import ParseError

    from .conftest import reader

    t = _thread()
    url = t.serve(forum)
    before = t.pages()
    t.delete(5).serve(forum)

    def last_page_as_before(path, headers, body):  # type: ignore[no-untyped-def]
        return Reply(200, before[2]) if route_key(path) == f"discuz:{t.tid}:3" else None

    forum.request_hook = last_page_as_before
    with reader(cache_dir=tmp_path / "cache") as r:
        try:
            r.thread(url, CHINA, live=True)
        except ParseError as exc:
            said = str(exc)
        else:
            raise AssertionError("the read was taken")
    assert "the forum numbered its floors again while tally read its pages, twice" in said
    bob = t.posts[19].post_id  # floor 21 before the delete
    assert f"post {bob} (bob) is floor 20 on page 2 and floor 21 on page 3" in said


def _archive(url: str, tmp_path, clock: str) -> str:
    start = datetime.fromisoformat(f"2026-12-01 {clock}").replace(tzinfo=CHINA)
    env = FakeClock(start.astimezone(UTC)).env(http=HttpOptions(host_delay=0))
    out = tmp_path / f"a-{clock.replace(':', '')}.csv"
    result = runner.invoke(
        app, ["archive", url, "-o", str(out), "--cache-dir", str(tmp_path / "cache")], obj=env
    )
    assert result.exit_code == 0, result.output
    return result.stderr


def test_a_read_that_decides_nothing_reuses_the_pages_that_still_fit(forum, tmp_path):
    """An unchanged thread costs its last page only (politeness); after a delete before
    the cached pages and one more reply, the pages no longer fit the last one (its posts
    stand a floor lower), and every page is read again: no post is lost."""
    t = _thread()
    url = t.serve(forum)
    _archive(url, tmp_path, "12:00:00")
    assert "3 page(s), 1 from the network, 2 from the cache" in _archive(url, tmp_path, "12:10:00")
    t.delete(5).add(P("alice", "2026-12-01 12:30:00", "还有谁没投"))
    t.serve(forum)
    assert "3 page(s), 3 from the network" in _archive(url, tmp_path, "13:00:00")
    rows = (tmp_path / "a-130000.csv").read_text(encoding="utf-8")
    assert rows.count("投票对象") == 6  # the format in the opening post, and every ballot
    assert f",{t.pid(20)},,20,bob," in rows  # bob's, moved up a page, as floor 20


def test_V6_a_count_before_the_close_reads_every_page_from_the_forum(forum, tmp_path):
    """A count decides what the director does (a reminder, a provisional post): a 屏蔽 on a
    page before the last moves no floor, so only reading the page shows it."""
    url = _thread().serve(forum)
    game = _game(tmp_path, url)
    _votes(url, game, tmp_path, "12:00:00")
    assert "3 page(s), 3 from the network" in _votes(url, game, tmp_path, "13:00:00")["stderr"]


def test_V6_after_the_close_every_page_of_the_day_counted_is_read_from_the_forum(
    forum, tmp_path
):
    """A count that decides the day reads the thread as the forum shows it now: a floor
    deleted after the first count after the close is a deleted row, every ballot kept."""
    t = _thread()
    url = t.serve(forum)
    game = _game(tmp_path, url)
    assert len(_counted(_votes(url, game, tmp_path, "21:10:00"))) == 5
    t.delete(3)
    t.serve(forum)
    again = _votes(url, game, tmp_path, "21:20:00")
    assert len(_counted(again)) == 5
    assert [f["floor"] for f in again["flags"] if f["rule"] == "deleted"] == [3]
    assert "3 page(s), 3 from the network" in again["stderr"]


def _ruled(tmp_path, url: str, ruling: str) -> str:
    game = _game(tmp_path, url)
    with open(game, "a", encoding="utf-8") as f:
        f.write(f'\n[[rulings]]\nday = 2\nfloor = 6\naction = "void"\n{ruling}\n')
    return game


def test_V7_a_ruling_by_floor_stops_when_the_floor_now_holds_another_post(forum, tmp_path):
    """eve's vote on floor 6 is voided by a ruling; a moderator then deletes floor 3, and
    floor 6 is bob's vote: the ruling must not void bob's instead (found on the real X3.5,
    where it did, and --as-of applied it to eve)."""
    t = Thread("8", "[局] 第二天投票帖", {})
    t.add(P("admin", "2026-12-01 09:00:00", "投票格式：\n投票对象：\n投票理由："))
    t.add(P("alice", "2026-12-01 09:01:00", "投票对象：bob\n投票理由：票"))
    t.add(P("carol", "2026-12-01 09:02:00", "闲聊"))
    for who, target, minute in (("carol", "bob", 3), ("dave", "carol", 4), ("eve", "bob", 5),
                                ("bob", "carol", 6)):  # fmt: skip
        t.add(P(who, f"2026-12-01 09:0{minute}:00", f"投票对象：{target}\n投票理由：票"))
    url = t.serve(forum)
    eve = str(t.pid(6))
    game = _ruled(tmp_path, url, "")
    first = _votes(url, game, tmp_path, "12:00:00")
    assert _counted(first) == {"alice": "bob", "bob": "carol", "carol": "bob", "dave": "carol"}
    t.delete(3)  # carol's chat: eve's vote is floor 5 now, bob's floor 6
    t.serve(forum)
    start = datetime.fromisoformat("2026-12-01 13:00:00").replace(tzinfo=CHINA)
    args = ["votes", url, "--game", game, "--cache-dir", str(tmp_path / "cache")]
    stopped = runner.invoke(app, args, obj=FakeClock(start.astimezone(UTC)).env(
        http=HttpOptions(host_delay=0)))  # fmt: skip
    assert stopped.exit_code != 0
    assert f"names floor 6, which held eve's post (id {eve})" in " ".join(stopped.stderr.split())
    # Pinned to eve's post, the ruling follows it to floor 5.
    pinned = _ruled(tmp_path, url, f'post = "{eve}"')
    again = _votes(url, pinned, tmp_path, "13:30:00")
    assert _counted(again) == {"alice": "bob", "bob": "carol", "carol": "bob", "dave": "carol"}
    eves = [b for b in again["ballots"] if b["voter"] == "eve"]
    assert [(b["floor"], b["status"], b["reason"]) for b in eves] == [(5, "void", "ruling")]
    # Pinned to the post deleted (carol's chat, once floor 3), or to no post at all.
    for pid, why in ((t.first_pid + 3, "deleted since tally read it"), (99999, "its post id?")):
        start = datetime.fromisoformat("2026-12-01 14:00:00").replace(tzinfo=CHINA)
        stopped = runner.invoke(app, [*args[:3], _ruled(tmp_path, url, f'post = "{pid}"'),
                                      *args[4:]],
                                obj=FakeClock(start.astimezone(UTC)).env(
                                    http=HttpOptions(host_delay=0)))  # fmt: skip
        assert stopped.exit_code != 0 and why in " ".join(stopped.stderr.split())


def test_V7_a_ruling_whose_post_was_never_on_its_floor_stops(forum, tmp_path):
    """A ruling that gives both a floor and a post names two ballots when the post was never
    on that floor (one of the two mistyped): tally stops and asks which, rather than voiding
    the post and leaving the floor's ballot counted. A post moved up by a delete is not this
    (the test above): its floor before the delete is in the history."""
    t = _thread()
    url = t.serve(forum)
    bob = str(t.pid(21))  # bob's vote, floor 21; the ruling says floor 6
    game = _ruled(tmp_path, url, f'post = "{bob}"')
    start = datetime.fromisoformat("2026-12-01 13:00:00").replace(tzinfo=CHINA)
    args = ["votes", url, "--game", game, "--cache-dir", str(tmp_path / "cache"), "--json"]
    stopped = runner.invoke(app, args, obj=FakeClock(start.astimezone(UTC)).env(
        http=HttpOptions(host_delay=0)))  # fmt: skip
    assert stopped.exit_code != 0 and not stopped.stdout
    said = " ".join(stopped.stderr.split())
    assert f"names floor 6 and post {bob}, but post {bob} is floor 21 and tally never read it on floor 6" in said
    # Given its own floor, the same ruling voids bob's vote alone.
    with open(game, encoding="utf-8") as f:
        text = f.read()
    with open(game, "w", encoding="utf-8") as f:
        f.write(text.replace("floor = 6", "floor = 21"))
    done = _votes(url, game, tmp_path, "13:10:00")
    bobs = [b for b in done["ballots"] if b["voter"] == "bob" and b["kind"]]
    assert [(b["floor"], b["reason"]) for b in bobs] == [(21, "ruling")]
    assert len(_counted(done)) == 4


def test_the_day_lurkers_decides_reads_again_a_thread_an_earlier_day_shares(forum, tmp_path):
    """One discussion thread for days 1 and 2: read for day 1 (a day before), it may come
    from the cache; for day 2, the day whose cards are checked, every page is read again
    (found in a cold read: the day-1 read was reused)."""
    from tally.commands.threads import day_threads
    from tally.forums.reader import Reader, Reading
    from tally.rules.game.gamefile import load_game

    talk = _thread()
    talk.tid = "9"
    talk_url = talk.serve(forum)
    votes = [Thread(tid, "[局] 投票帖", {}).add(P("admin", f"2026-12-0{n} 09:00:00", "投票格式"))
             for n, tid in ((1, "11"), (2, "12"))]  # fmt: skip
    v1, v2 = (v.serve(forum) for v in votes)
    path = write_game(
        tmp_path / "game.toml",
        day(1, v1, "2026-11-30T09:00:00", "2026-12-01T08:00:00", discussion=talk_url),
        day(2, v2, "2026-12-01T09:00:00", "2026-12-02T21:00:00", discussion=talk_url),
        ruleset="000", directors=["admin"], players=PLAYERS,
    )  # fmt: skip
    game = load_game(path)
    start = datetime.fromisoformat("2026-12-01 12:00:00").replace(tzinfo=CHINA)
    env = FakeClock(start.astimezone(UTC)).env(http=HttpOptions(host_delay=0))
    with Reader(env, Reading(cache_dir=tmp_path / "cache")) as reader:
        reader.read([talk_url], game.timezone)  # cached before: the day-1 read may reuse it
        read = day_threads(game, reader, decides=2)
        [first] = read([talk_url], game.day(1))
        [again] = read([talk_url], game.day(2))
    assert first.sources.count("cache") == 2
    assert again.sources == ("network",) * 3
