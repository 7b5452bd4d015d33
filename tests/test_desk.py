"""`tally desk` over real HTTP (uvicorn on 127.0.0.1, as the command serves it; httpx asks):
the token, the Host and Origin checks, 127.0.0.1 only, every page, one poller per day, a card
confirmed and the closing post made once through the same functions as `tally lurkers
--write` and `tally announce --post`."""

from __future__ import annotations

import html
import re
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import pytest

from tally.cli import app as cli
from tally.desk import app as desk_app
from tally.desk.app import make_app
from tally.desk.guard import cookie_name
from tally.desk.serve import HOST, bind
from tally.errors import InputError

from .conftest import Runner
from .desk_game import HOSTILE, MARKUP, SCRIPT, Setup, http_client, serving, through_the_commands

TOKEN = "s3cret-desk-token"
PAGES = ("/", "/day/2", "/day/2/live", "/day/2/cards", "/day/2/posts", "/day/2/pictures",
         "/day/2/post", "/day/1", "/static/desk.js", "/static/desk.css")  # fmt: skip
ACTIONS = ("/day/2/cards", "/day/2/post", "/day/2/read")
runner = Runner()


@pytest.fixture
def setup(forum, tmp_path):
    return Setup(forum, tmp_path)


@pytest.fixture
def desk(setup):
    d = setup.desk(every=5.0)
    yield d
    d.close()


# What the running test serves: each desk it asks is served once, on a port of its own;
# clients and servers are closed when it ends.
_SERVED: dict[int, str] = {}
_STACK: list[ExitStack] = []


@pytest.fixture(autouse=True)
def _served() -> Iterator[None]:
    with ExitStack() as stack:
        _STACK.append(stack)
        try:
            yield
        finally:
            _STACK.clear()
            _SERVED.clear()


def client(desk, *, logged_in: bool = True) -> httpx.Client:
    """A browser of the desk: the desk served by uvicorn (once a test), asked over HTTP."""
    stack = _STACK[0]
    if id(desk) not in _SERVED:
        sock = bind(None)
        app = make_app(desk, TOKEN, sock.getsockname()[1])
        _SERVED[id(desk)] = stack.enter_context(serving(app, sock))
    c = stack.enter_context(
        http_client(_SERVED[id(desk)], follow_redirects=True, timeout=30)
    )
    if logged_in:
        c.cookies.set(cookie_name(port(c)), TOKEN)
    return c


def port(c: httpx.Client) -> int:
    return c.base_url.port or 80


def origin(c: httpx.Client) -> str:
    return f"http://127.0.0.1:{port(c)}"


def settled(desk, day: int, version: int = 1) -> None:
    """Wait for the day's poller, counting with the game file as it is now, to have read
    the thread (a real thread, not the clock)."""
    deadline = time.monotonic() + 20
    while not ((poller := desk.poller(day)).counted and poller.version >= version):
        assert time.monotonic() < deadline, "the poller did not read the thread"
        time.sleep(0.02)


def post_form(c: httpx.Client, path: str, origin: str | None = None, **fields: str):
    return c.post(path, data={"token": TOKEN, **fields},
                  headers={"Origin": origin or globals()["origin"](c)})  # fmt: skip


def test_every_request_without_the_token_is_refused(desk):
    c = client(desk, logged_in=False)
    for path in PAGES:
        assert c.get(path).status_code == 403, path
    for path in ACTIONS:
        assert post_form(c, path).status_code == 403, path  # a form token alone is no cookie
    assert "refused: no desk key: open the address tally desk printed" in c.get("/day/2").text
    # A wrong key is said to be wrong, not missing: an address or a cookie of an earlier
    # run of the desk (each start makes a new key).
    wrong = c.get("/day/2?token=guessed")
    assert wrong.status_code == 403 and "refused: wrong desk key" in wrong.text
    c.cookies.set(cookie_name(port(c)), "guessed")
    assert c.get("/").status_code == 403
    assert "refused: wrong desk key" in c.get("/day/2").text
    assert "open the address tally desk printed last" in c.get("/day/2").text
    assert desk.pollers == {}  # nothing was read for a stranger


def test_the_token_in_the_address_becomes_an_httponly_strict_cookie(desk):
    c = client(desk, logged_in=False)
    first = c.get(f"/day/2?token={TOKEN}", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/day/2"
    cookie = first.headers["set-cookie"]
    assert cookie.startswith(f"{cookie_name(port(c))}={TOKEN};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert c.get("/").status_code == 200  # the cookie from now on
    assert c.get("/?token=wrong", follow_redirects=False).status_code == 200  # the cookie


def test_another_host_is_refused_even_with_the_token(desk):
    """DNS rebinding: a page of evil.example resolved to 127.0.0.1 names its own Host."""
    c = client(desk)
    assert c.get("/", headers={"Host": f"evil.example:{port(c)}"}).status_code == 403
    assert c.get("/", headers={"Host": f"127.0.0.1:{port(c) + 1}"}).status_code == 403
    assert c.get("/", headers={"Host": f"localhost:{port(c)}"}).status_code == 200


def test_a_change_without_the_token_or_from_another_origin_changes_nothing(setup, desk):
    setup.close()
    c = client(desk)
    card = {"player": "糖糖", "colour": "yellow", "rule": "L1", "reason": "x"}
    ledger = setup.game_path.with_name("game.cards.csv")
    refused = [
        post_form(c, "/day/2/cards", origin="http://evil.example", **card),
        post_form(c, "/day/2/cards", origin=f"http://127.0.0.1:{port(c) + 1}", **card),
        c.post("/day/2/cards", data=card, headers={"Origin": origin(c)}),  # the cookie, no token
        c.post("/day/2/cards", data={**card, "token": TOKEN}),  # no Origin, no Referer
        post_form(c, "/day/2/post", origin="http://evil.example", digest="x"),
        c.post("/day/2/post", data={"digest": "x"}, headers={"Origin": origin(c)}),
        c.put("/day/2/post", headers={"Origin": origin(c), "X-Tally-Token": TOKEN}),
    ]
    assert [r.status_code for r in refused] == [403, 403, 403, 403, 403, 403, 405]
    assert "carries no desk key" in refused[2].text
    wrong = c.post("/day/2/cards", data={**card, "token": "guessed"},
                   headers={"Origin": origin(c)})  # fmt: skip
    assert wrong.status_code == 403 and "carries a wrong desk key" in wrong.text
    assert not ledger.exists() and setup.board.replies == []
    # GET never changes anything: the confirmation page shows the text, posts nothing.
    assert "Post" in c.get("/day/2/post").text and setup.board.replies == []


def test_the_desk_listens_on_127_0_0_1_only():
    sock = bind(None)
    try:
        host, port = sock.getsockname()
        assert host == HOST == "127.0.0.1" and port > 0
        with pytest.raises(InputError, match=f"cannot listen on 127.0.0.1:{port}"):
            bind(port)
        outside = socket.socket()
        try:  # not on another address of this machine
            if socket.gethostbyname(socket.gethostname()) != "127.0.0.1":
                with pytest.raises(OSError, match="Connection refused"):
                    outside.connect((socket.gethostbyname(socket.gethostname()), port))
        finally:
            outside.close()
    finally:
        sock.close()


def test_the_desks_connections_send_at_once():
    """Nagle's algorithm off on every connection the desk accepts: asyncio (under uvicorn)
    turns it off only for a socket made as TCP, and with it on, a response's body, written
    after its head, waited for the browser's delayed ACK (40 ms a request on a kept-alive
    connection, measured; a page's stylesheet and script, each an SSE event, waited too)."""
    import asyncio

    async def accept_one() -> int:
        got: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Record(asyncio.Protocol):
            def connection_made(self, transport):  # type: ignore[no-untyped-def, override]
                sock = transport.get_extra_info("socket")
                got.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        listening = bind(None)
        server = await asyncio.get_running_loop().create_server(Record, sock=listening)
        try:
            _, writer = await asyncio.open_connection(*listening.getsockname())
            nodelay = await asyncio.wait_for(got, 10)
            writer.close()
            return nodelay
        finally:
            server.close()
            await server.wait_closed()

    assert asyncio.run(accept_one()) != 0


@pytest.mark.slow
def test_every_page_escapes_what_players_wrote_and_one_poller_per_day(setup, desk):
    c, other = client(desk), client(desk)
    for path in PAGES:
        got = (c if path.endswith("s") else other).get(path)
        assert got.status_code == 200, path
        if path.startswith("/day/2") and path != "/day/2/post":
            settled(desk, 2)
    assert sorted(desk.pollers) == [1, 2]  # however many pages and clients asked
    requests = len(setup.board.forum.requests)
    for page in ("/day/2", "/day/2/live"):
        html = c.get(page).text
        assert MARKUP in html and "<img src" not in html and SCRIPT not in html
        assert "[b]粗体[/b]" in html and "甲{{7}}乙" in html
    assert len(setup.board.forum.requests) == requests  # the pages show the poller's count
    posts = c.get("/day/2/posts").text
    assert "<script>alert" not in posts and HOSTILE not in posts
    assert '<textarea readonly rows="12" id="text-close">' in posts and "暂计" in posts
    assert "<strong>" in posts  # the preview: [b] made bold, the text escaped
    assert "a reminder" not in posts or "尚未投票" in posts
    assert c.get("/day/9").status_code == 404
    # The cookies file and the token's cookie never reach a page.
    auth = setup.cookies.read_text(encoding="utf-8").split("\t")[-2]
    assert all(auth not in c.get(p).text for p in PAGES)
    assert all(str(setup.cookies) not in c.get(p).text for p in PAGES)


def events_until(chunks: Iterator[str], wanted: str, seconds: float = 20.0) -> str:
    """The stream's text up to the end of the first count event holding ``wanted``."""
    text, deadline = "", time.monotonic() + seconds
    for chunk in chunks:
        text += chunk
        events = text.replace("\r\n", "\n").split("\n\n")[:-1]  # the complete ones
        if any("event: count" in e and wanted in e for e in events):
            return text
        assert time.monotonic() < deadline, f"no count with {wanted!r}: {text[-1500:]}"
    raise AssertionError(f"the stream ended before a count with {wanted!r}: {text[-1500:]}")


def test_a_closed_days_stream_sends_the_count_again_when_a_ruling_is_written(
    setup, desk, monkeypatch
):
    """A closed day's page stays live: a ruling written into the game file while the desk
    runs (a disputed floor, at the close) is counted, and the stream sends the new count,
    saying what changed, with no reload and no restart."""
    # The stream looks at the game file at each of its turns (a quarter of a second), not
    # once a second (``LOOK``): the test waited ~1 s for the look, idle.
    monkeypatch.setattr(desk_app, "LOOK", 0.0)
    c = client(desk)
    with c.stream("GET", "/day/1/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        chunks = stream.iter_text()
        text = events_until(chunks, "FINAL COUNT")
        assert "Outcome: " in text and "长夜" in text.split("Outcome: ")[1][:20]
        assert ">6</td>" in text.split('class="totals"')[1].split("</tr>")[1]
        setup.rule(1, 2, "the director voids it")
        text = events_until(chunks, "ruling: ")
    last = text.rsplit("event: count", 1)[1]
    assert "FINAL COUNT" in last and "Changed since the last read" in last
    assert "floor 2: 冷月 vote 长夜 was counted, now void" in last
    assert ">5</td>" in last.split('class="totals"')[1].split("</tr>")[1]


@pytest.mark.slow
def test_a_card_confirmed_and_the_result_posted_once(setup, desk, forum, tmp_path):
    """Done when: the day from open to posted through the desk, and the same day through
    the commands gives the same count, cards and post."""
    c = client(desk)
    c.get("/day/2")
    settled(desk, 2)
    early = post_form(c, "/day/2/cards", player="糖糖", colour="yellow", rule="L1",
                      reason="x")  # fmt: skip
    assert early.status_code == 200 and "not added" in early.text
    refused = post_form(c, "/day/2/post", digest="x")
    assert "has not closed" in refused.text or "provisional" in refused.text
    setup.ballot("白桃", "长夜", "2024-05-09 20:10:00")
    setup.close()
    desk.poller(2).read_now()
    settled(desk, 2, 2)
    deadline = time.monotonic() + 20
    while not desk.poller(2).done and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "FINAL COUNT" in c.get("/day/2/live").text

    cards = c.get("/day/2/cards").text
    assert "confirm: add to the ledger" in cards and "糖糖" in cards
    assert "加速 (S3): 0 of 6 living asked by 05-09 21:30 (needs 4): not accelerated" in cards
    proposed = re.findall(r'name="player" value="([^"]*)">\s*<input type="hidden" name="colour" '
                          r'value="([^"]*)">\s*<input type="hidden" name="rule" value="([^"]*)">'
                          r'\s*<input type="hidden" name="reason" value="([^"]*)">', cards)  # fmt: skip
    assert ("糖糖", "yellow", "L1", "第2天发言1条（少于5条）") in proposed
    for quad in proposed:  # each confirmed by the director
        fields = dict(zip(("player", "colour", "rule", "reason"), map(html.unescape, quad),
                          strict=True))  # fmt: skip
        added = post_form(c, "/day/2/cards", **fields)
        assert "added to the ledger game.cards.csv" in added.text, added.text.split("<main>")[1][:300]
    assert "confirm: add to the ledger" not in c.get("/day/2/cards").text
    ledger = setup.game_path.with_name("game.cards.csv").read_text(encoding="utf-8")

    count = desk.poller(2).poll  # the final count, before the post shows in the thread
    confirm = c.get("/day/2/post").text
    digest = confirm.split('name="digest" value="')[1].split('"')[0]
    # The text confirmed is held against the text about to be sent, inside the post's lock:
    # a count that changed after the director read it (here: another text) is not posted.
    from tally.vocabulary import Announcement

    stale = desk.announcement(2, Announcement.CLOSE, post=True, confirmed="0" * 16)
    assert stale.failure is not None and not setup.board.replies
    assert "the count changed since the text was shown: nothing was posted" in str(stale.failure)
    done = post_form(c, "/day/2/post", digest=digest)
    assert "Posted as 导演A" in done.text, done.text
    [(tid, member, message)] = setup.board.replies
    assert (tid, member) == ("502", "导演A") and message.startswith("[b]桌面局 第2天投票结果[/b]")
    again = post_form(c, "/day/2/post", digest=digest)
    assert "tally posts it once" in again.text and len(setup.board.replies) == 1
    # Started again, the desk knows it posted by the journal of posts, before any button.
    restarted = setup.desk()
    try:
        fresh = client(restarted)
        shown = fresh.get("/day/2/post").text
        assert "Posted: floor " in shown and 'id="post-button"' not in shown
        refused = post_form(fresh, "/day/2/post", digest=digest).text
        assert "posted already" in refused and "tally posts it once" in refused
        assert len(setup.board.replies) == 1
    finally:
        restarted.close()
    assert 'class="state-posted"' in c.get("/").text
    later = setup.desk()  # the desk started again: the post is found in the thread
    try:
        client(later).get("/")
        settled(later, 2)
        assert '<tr class="state-posted">\n  <td><a href="/day/2">' in client(later).get("/").text
    finally:
        later.close()

    through_the_commands(tmp_path, count.result, ledger, message, forum)
    # A card the director takes back (tally cards remove) is shown so, with no button to
    # give it again (K1: the ledger keeps it struck).
    from tally.commands.cards import remove_card
    from tally.rules.game.gamefile import load_game

    remove_card(load_game(setup.game_path), day=2, player="糖糖", colour="yellow", rule="L1")
    page = c.get("/day/2/cards").text
    assert "taken back by the director (tally cards remove): not added" in page
    assert 'name="player" value="糖糖"' not in page


def test_templates_of_the_desk_escape_by_default():
    from tally.desk.views import _jinja

    assert _jinja().from_string("{{ x }}").render(x=SCRIPT) == "&lt;script&gt;alert(1)&lt;/script&gt;"


def test_the_command_prints_the_address_and_opens_it(setup, monkeypatch):
    """`tally desk`: bound to 127.0.0.1 on a free port, the address with its token printed
    and handed to the browser (webbrowser); --no-browser prints it only; --port is kept."""
    import uvicorn

    served: list[tuple[socket.socket, object]] = []
    opened: list[str] = []

    def run(server, sockets):  # type: ignore[no-untyped-def]
        [sock] = sockets  # kept listening (the command closes its own) to be served below
        served.append((sock.dup(), server.config.app))

    monkeypatch.setattr(uvicorn.Server, "run", run)
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url))
    game = str(setup.game_path)
    done = runner.invoke(cli, ["desk", "--game", game], obj=setup.env())
    assert done.exit_code == 0, done.output
    [address] = re.findall(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+", done.stdout)
    assert opened == [address]
    sock, app = served.pop(0)
    host, bound = sock.getsockname()
    assert host == "127.0.0.1" and address.startswith(f"http://127.0.0.1:{bound}/?token=")
    token = address.split("token=")[1]
    assert len(token) >= 32 and token not in str(setup.game_path.read_text(encoding="utf-8"))

    free = bind(None)
    wanted = free.getsockname()[1]
    free.close()
    quiet = runner.invoke(cli, ["desk", "--game", game, "--no-browser", "--port", str(wanted)],
                          obj=setup.env())  # fmt: skip
    assert quiet.exit_code == 0, quiet.output
    assert f"http://127.0.0.1:{wanted}/?token=" in quiet.stdout and len(opened) == 1
    taken = bind(None)
    try:
        busy = runner.invoke(cli, ["desk", "--game", game, "--no-browser", "--port",
                                   str(taken.getsockname()[1])], obj=setup.env())  # fmt: skip
        assert busy.exit_code == 2 and "cannot listen on 127.0.0.1" in busy.stderr
    finally:
        taken.close()
        for other, _ in served:  # the --no-browser run's, never served
            other.close()
    monkeypatch.undo()  # uvicorn's own run again: the first command's app, served for real
    with serving(app, sock) as base, http_client(base, follow_redirects=True) as c:
        assert c.get("/").status_code == 403
        assert c.get(f"/static/desk.css?token={token}").status_code == 200  # no poller started


@pytest.mark.slow  # the day's pictures drawn
def test_the_day_shows_what_its_count_rests_on(setup, desk):
    c = client(desk)
    c.get("/")
    settled(desk, 1)
    settled(desk, 2)
    assert "sheriff 长夜 ×2.5 (derived: day 1&#39;s election)" in c.get("/day/2").text
    home = c.get("/").text
    assert "sheriff 长夜 ×2.5 (derived: day 1&#39;s election)" in home
    assert "closed" in home and "open" in home
    assert c.get("/day/2/pictures").text.count("<svg") == 3
    # Everybody voted on day 1: said so, not "Not voted (0):" and nothing after it.
    day1 = c.get("/day/1").text
    assert "Not voted: nobody; every living player has voted." in day1
    assert "Not voted (0)" not in day1
    assert "Not voted (5): 白桃、长夜、糖糖、" in c.get("/day/2").text


@pytest.mark.slow  # python in another process
def test_other_commands_do_not_import_the_desk():
    """Start-up stays quick: Starlette, uvicorn and the desk are imported by `tally desk` only."""
    import subprocess
    import sys

    code = ("import sys\nfrom tally.cli import app\ntry:\n    app(['desk', '--help'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('starlette', 'uvicorn', 'sse_starlette', 'anyio') or m.startswith('tally.desk')))")  # fmt: skip
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert got.stdout.strip().endswith("[]"), got.stdout[-500:]


@pytest.mark.parametrize(
    ("bbcode", "html_out"),
    [
        ("[b]结果[/b]\n下一行", "<strong>结果</strong><br>\n下一行"),
        ("[url=http://x.test/a?b=1&c=2]帖子[/url]",
         '<a href="http://x.test/a?b=1&amp;c=2" rel="noopener noreferrer">帖子</a>'),
        ("[url=javascript:alert(1)]x[/url]", "[url=javascript:alert(1)]x[/url]"),
        ('[color=red" onmouseover="alert(1)]x[/color]',
         "[color=red&quot; onmouseover=&quot;alert(1)]x[/color]"),
        ("[color=#f00]红[/color]", '<span style="color:#f00">红</span>'),
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("[b]未闭合", "<strong>未闭合</strong>"),
        ("[/b]多余", "[/b]多余"),
        ("[i][b]x[/i]", "<em><strong>x</strong></em>"),
    ],
)  # fmt: skip
def test_the_preview_makes_only_safe_tags_markup(bbcode, html_out):
    from tally.desk.bbcode import preview

    assert str(preview(bbcode)) == html_out
    assert str(preview("[b]<i>[/b]", bbcode=False)) == "[b]&lt;i&gt;[/b]"


def test_the_desk_follows_a_day_added_with_the_same_key(forum, tmp_path):
    """`tally day add` writes day 2 into the game file while the desk runs: the next page
    lists it and serves /day/2, counted, with the key of the address printed at the start."""
    setup = Setup(forum, tmp_path, days=1)
    desk = setup.desk(every=5.0)
    try:
        c = client(desk)
        assert "第1天" in c.get("/").text and "/day/2" not in c.get("/").text
        assert c.get("/day/2").status_code == 404
        setup.add_day(setup.urls[0], setup.urls[2])  # the discussion and vote threads
        assert "day = 2" in setup.game_path.read_text(encoding="utf-8")
        home = c.get("/")  # the same client: the same key, no restart
        assert home.status_code == 200 and '<a href="/day/2">第2天</a>' in home.text
        assert c.get("/day/2").status_code == 200
        settled(desk, 2)
        live = c.get("/day/2/live").text
        assert "冷月" in live and "白桃" in live and "PROVISIONAL" in live
        assert "sheriff 长夜 ×2.5 (derived: day 1&#39;s election)" in live
    finally:
        desk.close()


def day3(setup: Setup, *more: object) -> tuple[str, str]:
    """Day 3's two threads on the board, the clock at 20:00 on day 3: its discussion thread
    (开门) and its vote thread (the close in its first post, 冷月's ballot, and ``more``
    posts)."""
    from datetime import datetime

    from .conftest import CHINA
    from .discuzgen import P, Thread

    talk = Thread("403", "[桌面局] 第3天讨论帖", {}, first_pid=43000)
    talk.add(P("导演A", "2024-05-10 09:30:00", "讨论帖开门"))
    vote = Thread("503", "[桌面局] 第3天投票帖", {}, first_pid=63000)
    vote.add(P("导演A", "2024-05-10 09:30:00", "投票截止：5月10日 21:30\n投票格式：\n投票对象："))
    vote.add(P("冷月", "2024-05-10 10:01:00", "投票对象：长夜\n投票理由：再看看"))
    for post in more:
        vote.add(post)  # type: ignore[arg-type]
    setup.clock.t = datetime(2024, 5, 10, 20, 0, tzinfo=CHINA)
    return setup.board.thread(talk), setup.board.thread(vote)


@pytest.mark.slow  # three days counted
def test_what_a_count_rests_on_names_the_day_it_came_from(setup, desk):
    """白桃, voted out on day 2, is out on day 3: the desk says "voted out on day 2" (the day
    the fact came from), not "day 3" (the first day the player is out, the JSON's ``day``)."""
    c = client(desk)
    c.get("/")
    settled(desk, 2)
    setup.add_day(*day3(setup))  # the clock past day 2's close, into day 3
    c.get("/")
    settled(desk, 3)
    live = c.get("/day/3/live").text
    assert "白桃 out (derived: voted out on day 2)" in live, live.split("rests on")[1][:300]
    assert "day 3)" not in live
    home = c.get("/").text
    assert "白桃 out (derived: voted out on day 2)" in home and "day 3)" not in home


@pytest.mark.slow  # three days counted
@pytest.mark.rules("C1")
def test_the_count_rests_on_the_deputy_carried_and_the_totals_show_each_weight(setup, desk):
    """Issue 48: day 2's block names 冷月 deputy (执警); on day 3 tally derives the deputy as
    `tally votes` does, and the desk says so with the weight (×1.5, seed 000), and each
    total names its voters with their weights, as the closing post does: a total of 4 from
    two voters says why."""
    from .discuzgen import P

    text = setup.game_path.read_text(encoding="utf-8")
    setup.game_path.write_text(text.replace("day = 2\n", 'day = 2\ndeputy = "冷月"\n'), "utf-8")
    c = client(desk)
    c.get("/")
    settled(desk, 2)
    assert "deputy 冷月 ×1.5 (game file, day 2)" in c.get("/day/2/live").text
    setup.add_day(*day3(setup, P("长夜", "2024-05-10 10:02:00", "投票对象：糖糖\n投票理由：跟")))
    c.get("/")
    settled(desk, 3)
    live = c.get("/day/3/live").text
    said = live.split("The count rests on: ")[1].split("</p>")[0]
    assert said == ("sheriff 长夜 ×2.5 (derived: day 1&#39;s election); deputy 冷月 ×1.5 "
                    "(derived: day 2&#39;s game file); 白桃 out (derived: voted out on day 2).")
    totals = live.split('class="totals"')[1].split("</table>")[0]
    assert '<td class="name">糖糖</td><td>2.5</td><td>长夜 ×2.5</td>' in totals
    assert '<td class="name">长夜</td><td>1.5</td><td>冷月 ×1.5</td>' in totals
    home = c.get("/").text
    assert "deputy 冷月 ×1.5 (derived: day 2&#39;s game file)" in home


def test_a_ruling_written_while_the_desk_runs_changes_the_count(setup, desk):
    """A ruling typed into the game file (saved in place, as an editor saves) is counted at
    the next poll, and the count says what it changed."""
    c = client(desk)
    c.get("/day/2")
    settled(desk, 2)
    before = desk.poller(2)
    assert "ruling: " not in c.get("/day/2/live").text
    setup.rule(2, 2, "冷月 asked to withdraw it")
    c.get("/day/2")
    settled(desk, 2, before.version + 1)
    assert desk.poller(2) is not before and before.done  # the stale poller stopped
    live = c.get("/day/2/live").text
    row = live.split('data-floor="2">')[1].split("</tr>")[0]
    assert "void" in row and "ruling: " in row and "冷月 asked to withdraw it" in row
    assert "floor 2: 冷月 vote 白桃 was counted, now void" in live
    assert 'leading: <strong class="leaders">nobody</strong>' in live


def test_the_card_ledger_changed_is_seen(setup, desk):
    """A red card given by `tally cards add` while the desk runs sends its player off from
    the next day (K2): the open day's count sees it at once, saying so in a sentence of its
    own while it counts again; day 1's count does not change, and is not taken again. A
    yellow card changes no count: nothing is read again for it."""
    from tally.commands.cards import add_card

    c = client(desk)
    c.get("/")
    settled(desk, 1)
    settled(desk, 2)
    first, second = desk.poller(1), desk.poller(2)
    add_card(setup.game(), day=2, player="糖糖", colour="yellow", rule="L1", reason="发言少")
    assert desk.poller(1) is first and desk.poller(2) is second
    version = second.version
    with desk.lock:  # the reader held: the count cannot be taken again while the page is read
        add_card(setup.game(), day=1, player="冷月", colour="red", rule="L4", reason="夜间未行动")
        live = c.get("/day/2/live").text
        assert ('<p class="warn recounting">The card ledger changed: 冷月 is sent off by a red '
                "card for day 1 (K2), out from day 2. Counting again…</p>") in live
        assert "with the game file as it is now" not in live
        assert "recounting" not in c.get("/day/1/live").text and desk.poller(1) is first
    c.get("/day/2")
    settled(desk, 2, version + 1)
    live = c.get("/day/2/live").text
    assert "冷月 out (sent off by a red card for day 1 (K2, the card ledger))" in live
    assert "recounting" not in live
    row = live.split('data-floor="2">')[1].split("</tr>")[0]
    assert "void" in row
    assert "floor 2: 冷月 vote 白桃 was counted, now void" in live


def test_a_result_posted_counts_nothing_again(setup, desk):
    """Issue 48: the journal of posts changes when tally posts (the result, a reminder of
    tally watch): no count rests on it, so no day is counted again, no thread read again,
    and no page says "counting again"; the Post page and the game page say "posted"."""
    setup.close()
    c = client(desk)
    c.get("/")
    settled(desk, 1)
    settled(desk, 2)
    pollers = desk.poller(1), desk.poller(2)
    done = runner.invoke(cli, ["announce", "--game", str(setup.game_path), "--day", "2",
                               "--post", "--yes", "--cookies", str(setup.cookies),
                               "--cache-dir", str(setup.cache)], obj=setup.env())  # fmt: skip
    assert done.exit_code == 0, done.output
    assert setup.game_path.with_name("game.posts.jsonl").exists()
    requests = len(setup.board.forum.requests)
    pages = [c.get(p).text for p in ("/", "/day/1", "/day/2", "/day/1/live", "/day/2/live",
                                     "/day/2/post")]  # fmt: skip
    assert (desk.poller(1), desk.poller(2)) == pollers
    assert not [p for p in pages if "recounting" in p or "Counting again" in p]
    assert 'id="posted-before">Posted: floor 5' in pages[-1]
    assert 'class="state-posted"' in pages[0]
    time.sleep(0.3)  # a poller started by mistake would be reading by now
    assert len(setup.board.forum.requests) == requests


@pytest.mark.rules("L3", "V7")
def test_a_card_resting_on_a_ban_is_offered_with_the_moderator_flag(forum, tmp_path):
    """Issue 48: carol's ballot was 屏蔽ed where bob, a player, moderates the board; the
    cards page offered her L3 card (第2天未投票（投票帖4楼被屏蔽）) with no word of it, the
    moderator flag only on the count page. It stands beside her card now, and only hers; the
    other flags below name the thread their floor is in, with no gap where no player is."""
    from .desk_game import moderated

    desk = moderated(forum, tmp_path)
    try:
        page = client(desk).get("/day/2/cards").text
    finally:
        desk.close()
    cards = page.split('<ul class="cards">')[1].split("</ul>")[0].split("<li ")[1:]
    carol, dave, eve = (html.unescape(c) for c in cards)
    assert "carol</span> 黄牌 L3: 第2天未投票（投票帖4楼被屏蔽）" in carol
    assert ('<p class="flag card-flag">flag moderator: the vote thread\'s floor 4: 4楼 屏蔽ed by a '
            "moderator, and bob (uid 3), a player of this game, is one of the board's moderators "
            "(版主): the page does not say who 屏蔽ed it;") in carol
    assert "(carol's L3 card for not voting rests on it)</p>" in carol
    assert "card-flag" not in dave and "card-flag" not in eve
    below = html.unescape(page.split("</table>")[1])
    assert "flag moderator" not in below  # said beside the card, once
    assert ("<p class=\"flag\">flag roster: the discussion thread's floor 27: eve。 (uid 7) posted "
            "on floor 27 and is not a player of this game") in below
    assert "  " not in below.replace("\n", " ").split("flag roster")[1][:80]


def test_a_game_file_saved_half_typed_is_said_and_the_desk_goes_on(setup, desk):
    """A save with a mistake: every page says the sentence and the desk goes on with the
    file as last read; saved right, the sentence goes."""
    c = client(desk)
    good = setup.game_path.read_text(encoding="utf-8")
    setup.game_path.write_text(good + "\n[[rulings]]\nday = 2\nflor = 3\n", encoding="utf-8")
    home = c.get("/")
    assert home.status_code == 200 and 'class="error file-problem"' in home.text
    assert "flor" in home.text and "goes on with the game file as it last read it" in home.text
    assert c.get("/day/2").status_code == 200
    setup.game_path.write_text(good, encoding="utf-8")
    assert "file-problem" not in c.get("/").text


def test_the_post_page_of_a_posted_day_says_posted_before_any_button(setup, desk, tmp_path):
    """The result posted by `tally announce --post` (the journal of posts beside the game
    file) while the desk runs: the Post page says "posted", the floor and the time, and
    offers no Post button; a Post sent anyway is refused. Without the journal (a
    co-director's machine) the mark in the thread says it."""
    setup.close()
    c = client(desk)
    assert 'id="post-button"' in c.get("/day/2/post").text
    done = runner.invoke(cli, ["announce", "--game", str(setup.game_path), "--day", "2",
                               "--post", "--yes", "--cookies", str(setup.cookies),
                               "--cache-dir", str(setup.cache)], obj=setup.env())  # fmt: skip
    assert done.exit_code == 0, done.output
    [(_, _, message)] = setup.board.replies
    page = c.get("/day/2/post").text
    main = page.split("<main>")[1]
    said = re.search(r'<p class="posted" id="posted-before">Posted: floor (\d+), '
                     r"05-09 21:40 \(the journal of posts, game\.posts\.jsonl\)", main)  # fmt: skip
    assert said is not None, main[:600]
    assert 'id="post-button"' not in page and "<textarea" not in page
    # The vote thread's fifth floor (its first post and three ballots before it), linked.
    assert said.group(1) == "5" and "goto=findpost&amp;ptid=502&amp;pid=" in main
    refused = post_form(c, "/day/2/post", digest="0" * 16).text
    assert "posted already: floor " in refused and "tally posts it once" in refused
    assert len(setup.board.replies) == 1
    assert 'class="state-posted"' in c.get("/").text

    # Another machine's desk: no journal of posts beside its game file, the thread read
    # after the post (a journal gone changes no count: this desk reads nothing again).
    setup.game_path.with_name("game.posts.jsonl").unlink()
    other = setup.desk(every=5.0)
    try:
        theirs = client(other)
        theirs.get("/day/2")
        settled(other, 2)
        main = theirs.get("/day/2/post").text.split("<main>")[1]
        assert "Posted: floor 5, 05-09 21:40, by 导演A (tally&#39;s mark on it in the vote " in main
        assert 'id="post-button"' not in main and "/d2/close/" in message
    finally:
        other.close()


def test_a_closed_days_reminder_pane_points_at_the_close_above(setup, desk):
    """Issue 48: a closed day's reminder pane said the command's refusal, "the day's post now
    is tally announce --kind close", under the close announcement the desk shows; it says
    the desk's way now. An open day's pane holds the reminder."""
    c = client(desk)

    def section(page: str, kind: str) -> str:
        return page.split(f'id="kind-{kind}">')[1].split("</section>")[0]

    open_day = c.get("/day/2/posts").text
    assert "尚未投票" in html.unescape(section(open_day, "reminder"))
    setup.close()
    closed = c.get("/day/2/posts").text
    reminder = section(closed, "reminder")
    assert ('<p class="dim note">Day 2 closed at 05-09 21:30: a reminder (催票) is for before the '
            "close. The day&#39;s post now is the closing announcement above; post it from the "
            "post the result page.</p>") in reminder
    assert "tally announce" not in closed and "<textarea" not in reminder
    assert "白桃 以 1 票被投票出局" in html.unescape(section(closed, "close"))
    assert "a reminder (催票) is for before the close" in c.get("/day/1/posts").text


def test_desk_help_names_only_what_the_desk_takes():
    """--full-every's help in the desk names no --remind-at poll (tally watch's alone)."""
    done = runner.invoke(cli, ["desk", "--help"])
    assert done.exit_code == 0 and "--full-every" in done.stdout
    assert "remind" not in done.stdout
    assert "--remind-at" in runner.invoke(cli, ["watch", "--help"]).stdout


def test_post_counts_with_the_game_file_as_it_is_when_pressed(setup, desk):
    """A ruling written after the Post page was shown: the press counts with the file as it
    is then, finds another text, and posts nothing; shown again, the new count is posted."""
    setup.close()
    c = client(desk)
    shown = c.get("/day/2/post").text
    assert "白桃 以 1 票被投票出局" in html.unescape(shown)
    digest = shown.split('name="digest" value="')[1].split('"')[0]
    setup.rule(2, 2, "冷月 asked to withdraw it")
    refused = post_form(c, "/day/2/post", digest=digest).text
    assert "the count changed since the text was shown" in refused
    assert setup.board.replies == []
    again = c.get("/day/2/post").text
    assert "白桃 以 1 票被投票出局" not in html.unescape(again)
    fresh = again.split('name="digest" value="')[1].split('"')[0]
    assert fresh != digest
    assert "Posted as 导演A" in post_form(c, "/day/2/post", digest=fresh).text
    [(_, _, message)] = setup.board.replies
    assert "白桃 以 1 票被投票出局" not in message and html.unescape(again).count(message.rstrip()) == 1


def test_a_ruling_against_a_posted_result_is_said_over_the_count_before(setup, desk):
    """A closed day keeps its result: a ruling written after the post that would change it
    stops the recount, and the day's page says why above the count posted, until the file
    says why (result_changed) or the ruling goes."""
    setup.close()
    c = client(desk)
    shown = c.get("/day/2/post").text
    digest = shown.split('name="digest" value="')[1].split('"')[0]
    assert "Posted as 导演A" in post_form(c, "/day/2/post", digest=digest).text
    settled(desk, 2)
    setup.rule(2, 2, "冷月 asked to withdraw it")
    c.get("/day/2")
    deadline = time.monotonic() + 20
    while not desk.poller(2).failed:
        assert time.monotonic() < deadline, "the recount did not stop"
        time.sleep(0.02)
    live = c.get("/day/2/live").text
    assert "not counted again: day 2&#39;s result was announced as eliminated 白桃" in live
    assert "FINAL COUNT" in live and "白桃 is out" in live  # the count posted, still shown
