"""The desk in the director's language (issue 52): every page of the desk's table fetched in
Chinese (the director's choice said, and a browser's Accept-Language) and in English; a
Chinese page holds none of the desk's English sentences, its JSON twin the same keys and
values; the language chosen as the middleware chooses it; the day's stream counts in the
language of the latest page asked for."""

from __future__ import annotations

import html
import json
import re
from functools import cache

import httpx
import pytest

from tally.desk.app import make_app
from tally.desk.guard import cookie_name
from tally.desk.pages import PAGES
from tally.desk.serve import bind
from tally.desk.speaking import Speaking, accepted
from tally.i18n import DEFAULT, Choice, Language, speaking, tr

from .desk_game import Setup, http_client, serving
from .test_desk import events_until, settled
from .test_i18n import extracted

TOKEN = "s3cret-desk-token"
# Every page of the table: a day's for day 2 (open) and day 1 (closed).
PATHS = tuple(dict.fromkeys(p.path.replace("{day:int}", str(n)) for n in (2, 1) for p in PAGES))
ZH = {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}
EN = {"Accept-Language": "en-GB,en;q=0.9"}
HAN = re.compile(r"[\u4e00-\u9fff]")


@cache
def desk_pieces() -> frozenset[str]:
    """The English of the desk's own sentences (tally/desk's code and pages): each sentence's
    words between its fields, where they are two words or more (a single word, "vote", may
    be a player's or a URL's)."""
    pieces = set()
    for message in extracted():
        if not message.id or not any("tally/desk/" in path for path, _ in message.locations):
            continue
        sentence = message.id if isinstance(message.id, str) else message.id[0]
        for piece in re.split(r"\{[^{}]*\}|%\(\w+\)s|<[^>]*>", sentence):
            piece = piece.strip(" .,:;()…\n")
            if len(re.findall(r"[A-Za-z]{2,}", piece)) >= 2:
                pieces.add(piece)
    return frozenset(pieces)


def said(piece: str, text: str) -> bool:
    """``piece`` stands in the page's ``text``: a piece of three words or more anywhere, one
    of two words as a whole line of the page (two words may stand inside a sentence the desk
    shows from elsewhere: a flag's note, which tally.rules words)."""
    if len(piece.split()) >= 3:
        return piece in text
    return any(line.strip() == piece for line in text.splitlines())


def words_of(page: str) -> str:
    """A page's text as a reader sees it (its markup and its scripts' addresses aside)."""
    text = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "\n", text))


@pytest.fixture
def setup(forum, tmp_path):
    return Setup(forum, tmp_path)


def served(setup, choice: Choice, stack) -> tuple[object, httpx.Client]:  # type: ignore[no-untyped-def]
    """The desk of the test game, choosing its language by ``choice``, served by uvicorn and
    asked by a logged-in browser."""
    from tally.desk.state import Desk, Options
    from tally.rules.game.gamefile import load_game

    desk = Desk(load_game(setup.game_path), setup.reader(), Options(every=5.0), choice)
    stack.callback(desk.close)
    sock = bind(None)
    base = stack.enter_context(serving(make_app(desk, TOKEN, sock.getsockname()[1]), sock))
    c = stack.enter_context(http_client(base, follow_redirects=True, timeout=30))
    c.cookies.set(cookie_name(c.base_url.port or 80), TOKEN)
    return desk, c


def pages(desk, c: httpx.Client, headers: dict[str, str]) -> dict[str, httpx.Response]:  # type: ignore[no-untyped-def]
    """Every page of the table, each once the day's count is taken."""
    got = {}
    for path in PATHS:
        if path.startswith("/day/") and not path.endswith("/post"):
            n = int(path.split("/")[2])
            c.get(f"/day/{n}", headers=headers)
            settled(desk, n)
        got[path] = c.get(path, headers=headers)
        assert got[path].status_code == 200, path
    return got


@pytest.mark.slow
@pytest.mark.parametrize("how", ["said", "browser"])
def test_every_page_in_chinese_and_in_english(setup, how):
    from contextlib import ExitStack

    with ExitStack() as stack:
        choice = Choice(Language.ZH, "TALLY_LANG") if how == "said" else DEFAULT
        desk, c = served(setup, choice, stack)
        zh = pages(desk, c, ZH if how == "browser" else EN)  # the director's word wins
        for path, page in zh.items():
            text = words_of(page.text)
            left = sorted(p for p in desk_pieces() if said(p, text))
            assert left == [], (path, left)
            assert HAN.search(text), path
            assert path.endswith("/live") or '<html lang="zh-CN">' in page.text, path
        with speaking(Language.ZH):
            assert tr("read the thread now") in zh["/day/2"].text
            assert tr("lurkers & cards") in zh["/"].text or tr("lurkers & cards") in zh["/day/2"].text
            assert f"<td class=\"state\">{tr('open')}</td>" in zh["/"].text
        if how == "said":
            return
        en = pages(desk, c, EN)
        assert "read the thread now" in en["/day/2"].text and '<html lang="en">' in en["/"].text
        assert "lurkers &amp; cards" in en["/day/2"].text
        assert '<td class="state">open</td>' in en["/"].text
        assert "Ballots, floor by floor" in en["/day/2/live"].text
        # The JSON twins: the same keys and machine values in either language (the facts a
        # count rests on are sentences, said in the page's language).
        zh_game, en_game = (c.get("/.json", headers=h).json() for h in (ZH, EN))
        assert [d["state"] for d in zh_game["days"]] == [d["state"] for d in en_game["days"]]
        assert [d.keys() for d in zh_game["days"]] == [d.keys() for d in en_game["days"]]
        assert any("推出" in f for d in zh_game["days"] for f in d["facts"] or [])
        assert (c.get("/day/2/pictures.json", headers=ZH).json()
                == c.get("/day/2/pictures.json", headers=EN).json())  # fmt: skip
        zh_count, en_count = (c.get("/day/2.json", headers=h).json() for h in (ZH, EN))
        assert zh_count.keys() == en_count.keys()
        assert [b["status"] for b in zh_count["ballots"]] == [b["status"] for b in en_count["ballots"]]


def test_a_chinese_refusal_and_a_missing_page(setup):
    from contextlib import ExitStack

    with ExitStack() as stack:
        _desk, c = served(setup, DEFAULT, stack)
        c.cookies.clear()
        refused = c.get("/day/2", headers=ZH)
        assert refused.status_code == 403
        with speaking(Language.ZH):
            assert refused.text == tr("refused: {why}", why=tr(
                "no desk key: open the address tally desk printed (the key is in it).")) + "\n"
        assert "refused" not in refused.text and HAN.search(refused.text)
        c.cookies.set(cookie_name(c.base_url.port or 80), TOKEN)
        missing = c.get("/day/9.json", headers=ZH)
        assert missing.status_code == 404 and json.loads(missing.text) == {"error": "计票台没有这个页面"}
        assert c.get("/nowhere", headers=EN).text == "no such page of the desk\n"


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", Language.ZH),
        ("en-US,en;q=0.9,zh-CN;q=0.8", Language.EN),
        ("en;q=0.5, zh-TW;q=0.7", Language.ZH),  # the best q wins, not the first
        ("fr-FR, de;q=0.9, en;q=0.3, zh;q=0.2", Language.EN),  # the best of tally's
        ("zh-CN;q=0, en;q=0.1", Language.EN),  # q=0: not acceptable
        ("fr, de", None),
        ("*", None),
        ("", None),
    ],
)
def test_accept_language_picks_the_best_of_tallys(header, language):
    assert accepted(header) is language


def test_the_directors_choice_wins_and_none_is_the_default():
    def chosen(choice: Choice, header: str | None) -> Language:
        heard: list[Language] = []
        middleware = Speaking(lambda scope, receive, send: None, choice, heard.append)  # type: ignore[arg-type]
        headers = [(b"accept-language", header.encode())] if header is not None else []
        return middleware.language_of({"type": "http", "headers": headers})

    said_zh = Choice(Language.ZH, "TALLY_LANG")
    said_en = Choice(Language.EN, "LANG=en_US.UTF-8")
    assert chosen(said_zh, "en-US,en;q=0.9") is Language.ZH  # the director's word wins
    assert chosen(said_en, "zh-CN,zh;q=0.9") is Language.EN
    assert chosen(DEFAULT, "zh-CN,zh;q=0.9") is Language.ZH  # nothing said: the browser's
    assert chosen(DEFAULT, "fr-FR") is Language.EN  # none of tally's: the default
    assert chosen(DEFAULT, None) is Language.EN


@pytest.mark.slow
def test_the_pollers_count_in_the_latest_pages_language(setup):
    """The day's stream and its poller speak the language of the page asked last: a
    Chinese page, then the count streamed is Chinese; an English page after, English."""
    from contextlib import ExitStack

    with ExitStack() as stack:
        desk, c = served(setup, DEFAULT, stack)
        c.get("/day/2", headers=ZH)
        settled(desk, 2)
        assert desk.language is Language.ZH
        with speaking(lambda: desk.language):  # as the poller's thread speaks
            assert tr("reading the vote thread…") == "正在读投票帖……"
        with c.stream("GET", "/day/2/events", headers=ZH) as stream:
            text = events_until(stream.iter_text(), "逐楼票型")
        assert "<strong>暂计</strong>：关门前还会有票和改票" in text
        assert "Ballots, floor by floor" not in text
        # A change of the game file: the poller's reason to count again is said in the
        # language of the page that shows it.
        setup.rule(2, 2, "导演裁定")
        poller = desk.poller(2)
        with speaking(Language.ZH):
            assert poller.why in ("", "游戏文件改了，正在按现在的游戏文件重新计票……")
        with speaking(Language.EN):
            assert poller.why in ("", "Counting again with the game file as it is now…")
        c.get("/day/2", headers=EN)
        assert desk.language is Language.EN
        with c.stream("GET", "/day/2/events", headers=EN) as stream:
            text = events_until(stream.iter_text(), "Ballots, floor by floor")
        assert "逐楼票型" not in text


@pytest.mark.slow
def test_a_card_confirmed_and_the_result_posted_in_chinese(setup):
    """The director's actions answered in Chinese: a card added to the ledger, the post made
    and read back, a second post refused, the posted day's state."""
    from contextlib import ExitStack

    with ExitStack() as stack:
        desk, c = served(setup, Choice(Language.ZH, "TALLY_LANG"), stack)
        own = {"Origin": str(c.base_url).rstrip("/")}
        setup.close()
        c.get("/day/2")
        settled(desk, 2)
        card = {"player": "糖糖", "colour": "yellow", "rule": "L1",
                "reason": "第2天发言1条（少于5条）"}  # fmt: skip
        added = c.post("/day/2/cards", data={"token": TOKEN, **card}, headers=own)
        assert "已记入判牌记录 game.cards.csv：黄牌 糖糖 L1" in added.text
        assert "已在判牌记录里" in added.text
        again = c.post("/day/2/cards", data={"token": TOKEN, **card}, headers=own)
        assert "判牌记录里已经有了：什么都没写" in again.text
        confirm = c.get("/day/2/post").text
        assert "下面是将以 Cookie 登录的导演身份回复到投票帖的全文" in confirm
        digest = confirm.split('name="digest" value="')[1].split('"')[0]
        stale = c.post("/day/2/post", data={"token": TOKEN, "digest": "x"}, headers=own)
        assert "显示正文之后票型变了：请重新看一遍再发布。" in stale.text
        done = c.post("/day/2/post", data={"token": TOKEN, "digest": digest}, headers=own)
        assert "已以“导演A”的身份发布在" in done.text, done.text
        assert "读回核对：" in done.text and "Posted" not in done.text
        twice = c.post("/day/2/post", data={"token": TOKEN, "digest": digest}, headers=own)
        assert "第2天的结果已经发布过了：" in twice.text and "tally 只发一次。" in twice.text
        assert "楼，" in twice.text and "发帖记录 game.posts.jsonl" in twice.text
        assert '<td class="state">已发布</td>' in c.get("/").text
