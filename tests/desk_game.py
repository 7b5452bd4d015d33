"""A small game for the desk's tests on the loopback Discuz! board that takes posts
(tests/discuzboard): day 1 closed, day 2 open at 20:00 on the test's clock, a discussion
thread where one player posts too little (an L1 yellow card) and a player whose name is
markup and script."""

from __future__ import annotations

import functools
import html
import os
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tally.desk.state import Desk, Options
from tally.environment import HttpOptions
from tally.forums.reader import Reader, Reading

from . import gamefiles
from .conftest import CHINA, FakeClock
from .discuzboard import Board
from .discuzgen import P, Thread

# Discuz! refuses <, >, & and quotes in a user name: markup in names is BBCode and Jinja's;
# HTML and script come in what players write (a ballot's target, its reason).
MARKUP = "[b]粗体[/b]"
JINJA = "甲{{7}}乙"
SCRIPT = "<script>alert(1)</script>"
HOSTILE = "<img src=x onerror=alert(2)>"
PLAYERS = ["冷月", "白桃", "长夜", "糖糖", MARKUP, JINJA]


# Servers asked to stop and still stopping, each with the test that served it. uvicorn looks
# for ``should_exit`` every 0.1 s, then waits 0.1 s more for the connections it closes (the
# tests' clients closed theirs before): 0.15 s of every desk test spent waiting, a second and
# a half of each worker's run. Nothing a test checks comes after it (its desk fixture closes
# the desk itself), so the next test goes on meanwhile. Each is checked stopped: the oldest
# when more than four are stopping, the rest as the session ends (``all_stopped``, from
# conftest.py); one that did not is named with the test that served it.
_STOPPING: list[tuple[threading.Thread, socket.socket, str]] = []
_STOPPING_AT_MOST = 4


def _stopped(thread: threading.Thread, sock: socket.socket, test: str) -> None:
    thread.join(timeout=10)
    sock.close()
    assert not thread.is_alive(), f"uvicorn, serving {test}, did not stop"


def all_stopped() -> None:
    """Every server the tests asked to stop, checked stopped."""
    while _STOPPING:
        _stopped(*_STOPPING.pop(0))


# httpx makes a TLS context for every client, loading the CA bundle (~20 ms of CPU); the
# desk is plain HTTP on loopback, so its browsers share one, made once a process.
_TLS = functools.cache(ssl.create_default_context)


def http_client(base: str, **kw: object) -> httpx.Client:
    """A browser of the desk served at ``base`` (``serving``'s address)."""
    return httpx.Client(base_url=base, verify=_TLS(), **kw)  # type: ignore[arg-type]


@contextmanager
def serving(app: object, sock: socket.socket) -> Iterator[str]:
    """``app`` served by uvicorn on ``sock`` (127.0.0.1) in a thread, as `tally desk` serves
    it: the address to ask over real HTTP. Asked to stop at the end (``_STOPPING``)."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, log_level="warning",  # type: ignore[arg-type]
                                           timeout_graceful_shutdown=5))  # fmt: skip
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    # uvicorn is up ~2 ms after its thread starts: looked for each millisecond (each hundredth
    # of a second, every desk test waited ~8 ms more for nothing).
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.001)
    assert server.started, "uvicorn did not start"
    test = os.environ.get("PYTEST_CURRENT_TEST", "a test").rsplit(" ", 1)[0]
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        _STOPPING.append((thread, sock, test))
    # Not while the test's own exception goes by: it is the one to hear.
    while _STOPPING and (len(_STOPPING) > _STOPPING_AT_MOST or not _STOPPING[0][0].is_alive()):
        _stopped(*_STOPPING.pop(0))


def shown(name: str) -> str:
    """A user name as Discuz! writes it into its page (escaped; discuzgen pastes it as is)."""
    return html.escape(name, quote=False)


def uids() -> dict[str, int]:
    """One forum: an account has one uid in every thread (each thread numbering its own
    posters gave two players' accounts each other's names from day 1 to day 2)."""
    return {"导演A": 100, **{shown(p): 101 + i for i, p in enumerate(PLAYERS)}}


def threads() -> tuple[Thread, Thread, Thread]:
    talk = Thread("401", "[桌面局] 第2天讨论帖", uids(), first_pid=40000)
    talk.add(P("导演A", "2024-05-09 09:30:00", "讨论帖开门"))
    for i in range(6):  # 糖糖 posts once: fewer than five (L1)
        for player in PLAYERS:
            if player != "糖糖" or i == 0:
                talk.add(P(shown(player), f"2024-05-09 1{i}:{10 + PLAYERS.index(player):02d}:00",
                           f"第{i}条发言"))  # fmt: skip
    day1 = Thread("501", "[桌面局] 第1天投票帖", uids(), first_pid=50000)
    day1.add(P("导演A", "2024-05-08 09:30:00", "投票格式：\n投票对象：\n投票理由："))
    for player in PLAYERS:
        day1.add(P(shown(player), "2024-05-08 12:00:00", "投票对象：长夜\n投票理由：一"))
    vote = Thread("502", "[桌面局] 第2天投票帖", uids(), first_pid=60000)
    # The close in the first post, as a director writes it: `tally day add` reads it there.
    vote.add(P("导演A", "2024-05-09 09:30:00",
               "投票截止：5月9日 21:30\n投票格式：\n投票对象：\n投票理由："))
    vote.add(P("冷月", "2024-05-09 10:01:00", "投票对象：白桃\n投票理由：狼面大"))
    vote.add(P(shown(MARKUP), "2024-05-09 10:05:00", f"投票对象：{HOSTILE}\n投票理由：{SCRIPT}"))
    vote.add(P(shown(JINJA), "2024-05-09 10:06:00", f"投票对象：{MARKUP}\n投票理由：{SCRIPT}"))
    return talk, day1, vote


def game_text(talk: str, day1: str, vote: str, *, days: int = 2) -> str:
    """The game file; with ``days=1``, day 1 alone (day 2 for `tally day add` to append)."""
    blocks = [gamefiles.day(1, day1, "2024-05-08T09:30:00", "2024-05-08T21:30:00")]
    if days != 1:
        blocks.append(gamefiles.day(2, vote, "2024-05-09T09:30:00", "2024-05-09T21:30:00",
                                    discussion=talk))  # fmt: skip
    # 000 takes requests for 加速 by QQ; this game reads them in its discussion thread.
    return gamefiles.game_toml(*blocks, id="desk-test-game", name="桌面局", ruleset="000",
                               directors=["导演A"], players=PLAYERS,
                               rules={"acceleration_threads": ["discussion"]})  # fmt: skip


class Setup:
    """The board, the game file, the director's cookies and the clock (20:00, day 2)."""

    def __init__(self, forum, tmp_path: Path, *, days: int = 2):  # type: ignore[no-untyped-def]
        self.clock = FakeClock("2024-05-09 20:00:00", CHINA)
        self.board = Board(forum, clock=self.clock.now)
        self.talk, self.day1, self.vote = threads()
        self.urls = [self.board.thread(t) for t in (self.talk, self.day1, self.vote)]
        self.game_path = tmp_path / "game.toml"
        self.game_path.write_text(game_text(*self.urls, days=days), encoding="utf-8")
        self.cookies = self.board.cookies(self.board.member("导演A", 7), tmp_path / "cookies.txt")
        self.cache = tmp_path / "cache"

    def vote_url(self) -> str:
        return self.board.forum.url(f"forum.php?mod=viewthread&tid={self.vote.tid}")

    def env(self):  # type: ignore[no-untyped-def]
        return self.clock.env(http=HttpOptions(host_delay=0))

    def reader(self) -> Reader:
        return Reader(self.env(), Reading(cookies=self.cookies, cache_dir=self.cache))

    def desk(self, **options: object) -> Desk:
        from tally.rules.game.gamefile import load_game

        return Desk(load_game(self.game_path), self.reader(), Options(**options))  # type: ignore[arg-type]

    def ballot(self, author: str, target: str, time: str) -> None:
        self.vote.add(P(shown(author), time, f"投票对象：{target}\n投票理由：新票"))
        self.board.thread(self.vote)

    def close(self) -> None:
        """Past the close and its grace minute."""
        from datetime import datetime

        self.clock.t = datetime(2024, 5, 9, 21, 40, tzinfo=CHINA)

    def game(self):  # type: ignore[no-untyped-def]
        from tally.rules.game.gamefile import load_game

        return load_game(self.game_path)

    def add_day(self, talk: str, vote: str) -> None:
        """`tally day add TALK VOTE --game game.toml --yes`: the day's block appended to the
        game file, as the command writes it."""
        from tally.commands.day import add_day

        with self.reader() as reader:
            add_day(self.game(), talk, vote, yes=True, reader=reader)

    def rule(self, day: int, floor: int, note: str) -> None:
        """A ruling typed into the game file by hand, saved in place (an editor's save)."""
        with self.game_path.open("a", encoding="utf-8") as f:
            f.write(f'\n[[rulings]]\nday = {day}\nfloor = {floor}\naction = "void"\n'
                    f'note = "{note}"\n')


def through_the_commands(tmp_path: Path, result, ledger: str, message: str, forum) -> None:  # type: ignore[no-untyped-def]
    """The same day on a board of its own through `tally votes`, `tally lurkers` and `tally
    announce --post`: the same count (its JSON whole), the same ledger, the same post."""
    import json

    from tally.cli import app
    from tally.outputs.shown.json_output import day_json

    from .conftest import Runner
    from .localforums import local_forum

    runner = Runner()
    with local_forum() as forum2:
        (tmp_path / "cli").mkdir()
        other = Setup(forum2, tmp_path / "cli")
        other.ballot("白桃", "长夜", "2024-05-09 20:10:00")
        other.close()
        env, game = other.env(), str(other.game_path)
        votes = runner.invoke(app, ["votes", other.vote_url(), "--game", game, "--json", "-q"],
                              obj=env)  # fmt: skip
        assert votes.exit_code == 0, votes.output
        theirs_count, mine = json.loads(votes.stdout), json.loads(json.dumps(day_json(result)))
        # All but the acceleration requests (S3): `tally votes` reads the discussion thread
        # for them, `tally watch`'s polls (the desk's) read the vote thread only.
        differ = {k: (theirs_count.get(k), mine.get(k)) for k in {*theirs_count, *mine}
                  if theirs_count.get(k) != mine.get(k) and k != "acceleration"}  # fmt: skip
        assert theirs_count["acceleration"]["accelerates"] is False
        assert not differ, differ
        lurk = runner.invoke(app, ["lurkers", "--game", game, "--day", "2", "-q"], obj=env)
        assert lurk.exit_code == 0, lurk.output
        assert other.game_path.with_name("game.cards.csv").read_text(encoding="utf-8") == ledger
        posted = runner.invoke(app, ["announce", "--game", game, "--day", "2", "--post", "--yes",
                                     "--cookies", str(other.cookies)], obj=env)  # fmt: skip
        assert posted.exit_code == 0, posted.output
        [(_, _, theirs)] = other.board.replies
        assert theirs.replace(forum2.url(""), "") == message.replace(forum.url(""), "")


def moderated(forum, tmp_path: Path) -> Desk:  # type: ignore[no-untyped-def]
    """A desk over day 2 of a game on pages a real Discuz! X3.5 rendered (issue 48): its vote
    thread after bob (uid 3, a player) was made a 版主 and carol's ballot 屏蔽ed, read by a
    guest (fixtures/discuz-x35-changes/moderator-player-guest.html), and a discussion thread
    where everyone posts five times and a look-alike, eve。, once (its floor 27). The clock
    is past the close: carol, dave and eve earn an L3 card, carol's resting on the 屏蔽."""
    from datetime import UTC, datetime

    from tally.rules.game.gamefile import load_game

    from .conftest import FIXTURES

    page = FIXTURES / "discuz-x35-changes" / "moderator-player-guest.html"
    forum.add_discuz_page("2", 1, page.read_bytes())
    uids = {"admin": 1, "alice": 2, "bob": 3, "carol": 4, "dave": 5, "eve": 6, "eve。": 7}
    talk = Thread("12", "第2天讨论帖", uids, first_pid=1200)
    talk.add(P("admin", "2026-12-06 09:00:00", "讨论帖开门"))
    for i in range(5):
        for n, who in enumerate(["alice", "bob", "carol", "dave", "eve"]):
            talk.add(P(who, f"2026-12-06 1{i}:{10 + n:02d}:00", f"发言{i}"))
    talk.add(P("eve。", "2026-12-06 16:00:00", "路过"))
    game = gamefiles.write_game(
        tmp_path / "game.toml",
        gamefiles.day(2, forum.url("forum.php?mod=viewthread&tid=2"), "2026-12-06T09:00:00",
                      "2026-12-06T21:00:00", discussion=talk.serve(forum)),
        name="版主局", ruleset="000", directors=["admin"],
        players=["alice", "bob", "carol", "dave", "eve"],
    )  # fmt: skip
    clock = FakeClock(datetime(2026, 12, 6, 21, 30, tzinfo=CHINA).astimezone(UTC))
    reader = Reader(clock.env(http=HttpOptions(host_delay=0)),
                    Reading(cache_dir=tmp_path / "cache"))  # fmt: skip
    return Desk(load_game(game), reader, Options(every=5.0))
