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
from tally.desk.app import make_app
from tally.desk.guard import cookie_name
from tally.desk.serve import HOST, bind
from tally.errors import InputError

from .conftest import Runner
from .desk_game import HOSTILE, MARKUP, SCRIPT, Setup, serving, through_the_commands

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
        httpx.Client(base_url=_SERVED[id(desk)], follow_redirects=True, timeout=30)
    )
    if logged_in:
        c.cookies.set(cookie_name(port(c)), TOKEN)
    return c


def port(c: httpx.Client) -> int:
    return c.base_url.port or 80


def origin(c: httpx.Client) -> str:
    return f"http://127.0.0.1:{port(c)}"


def settled(desk, day: int, version: int = 1) -> None:
    """Wait for the day's poller to have read the thread (a real thread, not the clock)."""
    poller = desk.poller(day)
    deadline = time.monotonic() + 20
    while poller.version < version and time.monotonic() < deadline:
        time.sleep(0.02)
    assert poller.version >= version, "the poller did not read the thread"


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
                with pytest.raises(OSError):
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


def test_a_closed_days_stream_sends_the_final_count_and_ends(setup, desk):
    c = client(desk)
    with c.stream("GET", "/day/1/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        text = ""
        for chunk in stream.iter_text():
            text += chunk
            if "event: done" in text:
                break
    assert "event: count" in text and "FINAL COUNT" in text, text[-2000:]
    assert "Outcome: " in text and "长夜" in text.split("Outcome: ")[1][:20], text.split("outcome")[1][:300]


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
    # Started again, the desk does not know it posted: the thread says so (publish).
    restarted = setup.desk()
    try:
        fresh = client(restarted)
        shown = fresh.get("/day/2/post").text
        digest = shown.split('name="digest" value="')[1].split('"')[0]
        refused = post_form(fresh, "/day/2/post", digest=digest).text
        assert "already holds this post" in refused and "tally posts it once" in refused
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
    count = desk.poller(2).poll

    through_the_commands(tmp_path, count.result, ledger, message, forum)
    # A card the director takes back (tally cards remove) is shown so, with no button to
    # give it again (K1: the ledger keeps it struck).
    from tally.commands.cards import remove_card
    from tally.rules.gamefile import load_game

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
    with serving(app, sock) as base, httpx.Client(base_url=base, follow_redirects=True) as c:
        assert c.get("/").status_code == 403
        assert c.get(f"/static/desk.css?token={token}").status_code == 200  # no poller started


@pytest.mark.slow  # the day's pictures drawn
def test_the_day_shows_what_its_count_rests_on(setup, desk):
    c = client(desk)
    c.get("/")
    settled(desk, 1)
    settled(desk, 2)
    assert "sheriff 长夜 (derived: day 1&#39;s election)" in c.get("/day/2").text
    home = c.get("/").text
    assert "sheriff 长夜 (derived: day 1&#39;s election)" in home
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


def test_desk_help_names_only_what_the_desk_takes():
    """--full-every's help in the desk names no --remind-at poll (tally watch's alone)."""
    done = runner.invoke(cli, ["desk", "--help"])
    assert done.exit_code == 0 and "--full-every" in done.stdout
    assert "remind" not in done.stdout
    assert "--remind-at" in runner.invoke(cli, ["watch", "--help"]).stdout
