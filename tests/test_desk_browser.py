"""`tally desk` in headless Chromium (the report's harness, tests/browser.py), served by
uvicorn on 127.0.0.1: every page loads without a console error on a desktop and a phone,
nothing past the edge of a phone's screen; a ballot posted to the loopback forum appears
without a reload; a card is confirmed and the closing post made once by clicks; what
players wrote shows as text."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tally.desk.app import make_app
from tally.desk.serve import bind

from .browser import Browser, Page, chromium
from .desk_game import MARKUP, Setup, serving, through_the_commands

TOKEN = "browser-token"
pytestmark = pytest.mark.slow


@pytest.fixture
def served(forum, tmp_path) -> Iterator[tuple[Setup, object, str]]:
    if chromium() is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium-headless-shell)")
    setup = Setup(forum, tmp_path)
    desk = setup.desk(every=3600.0)  # the test says when to read again
    sock = bind(None)
    try:
        with serving(make_app(desk, TOKEN, sock.getsockname()[1]), sock) as address:
            yield setup, desk, address
    finally:
        desk.close()


def go(browser: Browser, page: Page | None, url: str) -> Page:
    """Browser.open for an http address (it opens files)."""
    if page is None:
        page = browser.new_page(("Page", "Runtime", "Log"))
    loaded(browser, page, lambda: browser.call("Page.navigate", {"url": url},
                                               session=page.session))  # fmt: skip
    return page


def loaded(browser: Browser, page: Page, action) -> None:  # type: ignore[no-untyped-def]
    browser.events[:] = [e for e in browser.events if e.get("method") != "Page.loadEventFired"]
    action()
    browser.wait_for("Page.loadEventFired", page.session)


def click(browser: Browser, page: Page, selector: str) -> None:
    loaded(browser, page, lambda: page.evaluate(f"document.querySelector('{selector}').click()"))


def until(page: Page, expression: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"never true: {expression}")
        time.sleep(0.02)  # a look costs one DevTools call: a tenth of a second was mostly waiting


@pytest.mark.parametrize("width", [1280, 390])
def test_every_page_loads_without_a_console_error(served, width, browser):
    _setup, _desk, base = served
    with browser.fresh(width=width, height=900, mobile=width < 500) as browser:
        page = go(browser, None, f"{base}/?token={TOKEN}")
        assert page.evaluate("document.location.search") == ""  # the token left the address
        for path in ("/", "/day/2", "/day/2/cards", "/day/2/posts", "/day/2/pictures",
                     "/day/2/post", "/day/1"):  # fmt: skip
            go(browser, page, base + path)
            assert page.evaluate("document.querySelector('main') !== null"), path
            within(page, width, path)
        go(browser, page, base + "/day/2/posts")
        page.evaluate("document.querySelector('#kind-close button.copy').click()")
        until(page, "document.querySelector('#kind-close button.copy').textContent !== 'copy'")
        assert page.evaluate("document.getSelection().toString()").startswith("[b]桌面局")
        assert page.evaluate("document.querySelector('#kind-close .preview strong') !== null")
        assert page.errors == []
        # The cookie is HttpOnly: the page's script cannot read it.
        assert page.evaluate("document.cookie") == ""


# Every element whose right edge is past the viewport's, inside a scrolling box or not (a
# table scrolled in its own box hid its last columns past the edge of a phone).
PAST_THE_EDGE = """(() => {
  const w = document.documentElement.clientWidth;
  return Array.from(document.querySelectorAll('body *'))
    .filter(e => e.getBoundingClientRect().right > w + 1)
    .map(e => e.tagName.toLowerCase() + '.' + e.className + ': '
              + (e.textContent || '').trim().slice(0, 50));
})()"""


def within(page: Page, width: int, path: str) -> None:
    """Nothing on the page wider than the screen: no scrolling sideways, nothing cut off."""
    assert page.evaluate("document.documentElement.clientWidth") == width, path
    assert page.evaluate("document.documentElement.scrollWidth") <= width, path
    assert page.evaluate(PAST_THE_EDGE) == [], path


def test_a_phone_390_px_wide_shows_every_page_within_its_width(served, browser):
    """A director's phone: the count's tables reflow, a row a block, and a long word (a URL
    pasted as a target, a post's link) wraps; the pages of a posted day too."""
    setup, desk, base = served
    pasted = "https://bbs.example.com/forum.php?mod=viewthread&tid=123456789&page=2#pid9876543"
    setup.ballot("糖糖", pasted, "2024-05-09 20:05:00")
    with browser.fresh(width=390, height=900, mobile=True) as browser:
        page = go(browser, None, f"{base}/?token={TOKEN}")
        go(browser, page, f"{base}/day/2")
        until(page, "document.querySelectorAll('#live table.ballots tbody tr').length >= 4")
        assert pasted in page.evaluate("document.querySelector('#live table.ballots').textContent")
        within(page, 390, "/day/2 open")
        setup.close()
        desk.poller(2).read_now()
        until(page, "document.querySelector('#live').textContent.includes('FINAL COUNT')")
        within(page, 390, "/day/2 final")
        go(browser, page, f"{base}/day/2/post")
        click(browser, page, "#post-button")
        assert "Posted as 导演A" in page.evaluate("document.querySelector('.posted').textContent")
        within(page, 390, "/day/2/post, just posted")
        for path in ("/day/2/post", "/", "/day/1", "/day/2/cards", "/day/2/posts"):
            go(browser, page, base + path)
            within(page, 390, path)
        go(browser, page, f"{base}/day/2/post")
        assert page.evaluate("document.querySelector('#posted-before') !== null")
        assert page.evaluate("document.querySelector('#post-button') === null")
        assert page.errors == []


def test_a_day_from_open_to_posted_through_the_desk_alone(served, tmp_path, browser):
    """A ballot appears live, what players wrote is text, a card is confirmed, the result is
    posted once and a second click is refused."""
    setup, desk, base = served
    with browser.fresh(width=1280, height=1000) as browser:
        page = go(browser, None, f"{base}/?token={TOKEN}")
        go(browser, page, f"{base}/day/2")
        until(page, "document.querySelectorAll('#live table.ballots tbody tr').length >= 3")
        # Markup in names and ballots is text: no element made of it, no script ran.
        voters = page.evaluate("Array.from(document.querySelectorAll('#live td.voter'))"
                               ".map(td => td.textContent)")  # fmt: skip
        assert MARKUP in voters
        assert page.evaluate("document.querySelectorAll('main img, main script, main b').length") == 0
        tab = go(browser, None, f"{base}/day/2")  # a second tab: the same poller
        until(tab, "document.querySelectorAll('#live table.ballots tbody tr').length >= 3")
        sent = len(setup.board.forum.requests)
        setup.ballot("白桃", "长夜", "2024-05-09 20:10:00")
        desk.poller(2).read_now()
        until(page, "document.querySelectorAll('#live tr.changed').length === 1")
        until(tab, "document.querySelectorAll('#live tr.changed').length === 1")
        # One poll for both tabs: one request, for the thread's one page.
        assert len(setup.board.forum.requests) - sent == 1 and sorted(desk.pollers) == [1, 2]
        assert page.evaluate("document.querySelector('#live tr.changed td.voter').textContent") == "白桃"
        assert "floor" in page.evaluate("document.querySelector('#live .changes').textContent")
        if os.environ.get("TALLY_DESK_PNG"):  # docs/desk.md's picture: docs/desk.png
            Path(os.environ["TALLY_DESK_PNG"]).write_bytes(page.screenshot())
        setup.close()
        desk.poller(2).read_now()
        until(page, "document.querySelector('#live').textContent.includes('FINAL COUNT')")
        final = desk.pollers[2].poll.result  # the count posted (a recount shows the post)

        go(browser, page, f"{base}/day/2/cards")
        before = page.evaluate("document.querySelectorAll('button.confirm-card').length")
        assert before >= 2
        for left in range(before, 0, -1):  # each card confirmed by its own button
            click(browser, page, "button.confirm-card")
            assert "added to the ledger" in page.evaluate("document.querySelector('.said').textContent")
            assert page.evaluate("document.querySelectorAll('button.confirm-card').length") == left - 1
        ledger = setup.game_path.with_name("game.cards.csv").read_text(encoding="utf-8")

        go(browser, page, f"{base}/day/2/post")
        stale = go(browser, None, f"{base}/day/2/post")  # a second tab, its button shown
        text = page.evaluate("document.querySelector('#post-text').value")
        assert text.startswith("[b]桌面局 第2天投票结果[/b]")
        click(browser, page, "#post-button")
        said = page.evaluate("document.querySelector('.posted').textContent")
        assert "Posted as 导演A" in said and "floor" in said
        [(_, _, message)] = setup.board.replies
        assert message == text  # the text shown is the text posted
        go(browser, page, f"{base}/day/2/post")  # posted: said, and no button
        assert "Posted: floor" in page.evaluate("document.querySelector('#posted-before').textContent")
        assert page.evaluate("document.querySelector('#post-button') === null")
        click(browser, stale, "#post-button")
        assert "tally posts it once" in stale.evaluate("document.querySelector('.refusal').textContent")
        assert len(setup.board.replies) == 1
        assert page.errors == [] and stale.errors == []
    # The same day through the commands: the same count, cards and post.
    through_the_commands(tmp_path, final, ledger, message, setup.board.forum)


def test_another_page_cannot_drive_the_desk(served, tmp_path, browser):
    """A page from elsewhere (a file here) that posts a form to the desk changes nothing."""
    setup, _desk, base = served
    setup.close()
    attack = tmp_path / "attack.html"
    attack.write_text(
        f'<form id="f" method="post" action="{base}/day/2/post"><input name="token" value="x">'
        '<input name="digest" value="x"></form>', encoding="utf-8")  # fmt: skip
    with browser.fresh(width=1280, height=900) as browser:
        page = go(browser, None, f"{base}/?token={TOKEN}")  # the director is logged in
        go(browser, page, attack.as_uri())
        loaded(browser, page, lambda: page.evaluate("document.getElementById('f').submit()"))
        assert setup.board.replies == []
        assert "refused" in page.evaluate("document.body.textContent")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_desk_in_chinese_on_a_desktop_and_a_phone(forum, tmp_path, browser, width):
    """The desk a director who reads Chinese sees (the desk chosen in Chinese, as TALLY_LANG
    or the locale choose it): every page in Chinese within the screen's width, no console
    error, the copy button's answer in the page's words. TALLY_DESK_ZH_PNG=docs writes the
    day's page as docs/desk-zh-1280.png and docs/desk-zh-390.png (docs/desk.md shows them)."""
    if chromium() is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium-headless-shell)")
    from tally.desk.state import Desk, Options
    from tally.i18n import Choice, Language
    from tally.rules.game.gamefile import load_game

    setup = Setup(forum, tmp_path)
    desk = Desk(load_game(setup.game_path), setup.reader(), Options(every=3600.0),
                Choice(Language.ZH, "TALLY_LANG"))  # fmt: skip
    sock = bind(None)
    try:
        with serving(make_app(desk, TOKEN, sock.getsockname()[1]), sock) as base, \
                browser.fresh(width=width, height=900, mobile=width < 500) as browser:  # fmt: skip
            page = go(browser, None, f"{base}/?token={TOKEN}")
            for path in ("/", "/day/2/cards", "/day/2/posts", "/day/2/pictures", "/day/2/post",
                         "/day/1"):  # fmt: skip
                go(browser, page, base + path)
                assert page.evaluate("document.documentElement.lang") == "zh-CN", path
                within(page, width, path)
            go(browser, page, base + "/day/2/posts")
            page.evaluate("document.querySelector('#kind-close button.copy').click()")
            until(page, "document.querySelector('#kind-close button.copy').textContent !== '复制'")
            assert page.evaluate("document.querySelector('#kind-close button.copy').textContent") in (
                "已复制", "请选中后复制")
            go(browser, page, f"{base}/day/2")
            until(page, "document.querySelectorAll('#live table.ballots tbody tr').length >= 3")
            setup.ballot("白桃", "长夜", "2024-05-09 20:10:00")
            desk.poller(2).read_now()
            until(page, "document.querySelectorAll('#live tr.changed').length === 1")
            live = page.evaluate("document.querySelector('main').textContent")
            assert "立即读帖" in live and "暂计" in live and "逐楼票型" in live
            assert "read the thread now" not in live and "Ballots, floor by floor" not in live
            within(page, width, "/day/2")
            assert page.errors == []
            if os.environ.get("TALLY_DESK_ZH_PNG"):  # docs/desk.md's pictures, in Chinese
                folder = Path(os.environ["TALLY_DESK_ZH_PNG"])
                (folder / f"desk-zh-{width}.png").write_bytes(page.screenshot())
    finally:
        desk.close()
