"""Discuz! X (X3.4, X3.5) threads, default template.

Tolerant of everything optional (pager, title, edit marks, 点评, quotes), strict about
what a tally rests on: post id, floor, author, time. The selectors follow what a real
X3.5 renders (see fixtures/discuz/), with fallbacks for older templates.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, tzinfo
from urllib.parse import parse_qs, urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

from tally.errors import InputError, NotAThreadError, ParseError
from tally.forums.base import PageFrame, Pages, Platform
from tally.forums.htmltext import Node, font_flags, html_tree, node_text
from tally.forums.timeparse import parse_forum_time
from tally.model import Comment, Edit, Page, Post, Quote, ThreadRef
from tally.vocabulary import Markup

_REWRITE = re.compile(r"/thread-(\d+)-(\d+)-\d+\.html$")
_ARCHIVER = re.compile(r"/archiver/tid-(\d+)\.html$")
_POST_ID = re.compile(r"^post_(\d+)$")
_UID = re.compile(r"[?&]uid=(\d+)")
_PID = re.compile(r"[?&]pid=(\d+)")
_TID_IN_HREF = re.compile(r"(?:[?&]p?tid=|/thread-)(\d+)")
_PAGE_COUNT = re.compile(r"共\s*(\d+)\s*页")
_REPLIES = re.compile(r"回复:?\s*(\d+)")
_REPLIES_HTML = re.compile(r'回复:</span>\s*<span class="xi1">(\d+)</span>')
# What UCenter's check_username refuses in a user name (white space, the ideographic space).
_NOT_IN_NAMES = re.compile(r"[\s\u3000%,*\"<>&]")
_FULL_TIME = re.compile(r"\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2}")
_EDIT = re.compile(r"本帖最后由\s*(?P<by>.+?)\s*于\s*(?P<at>.+?)\s*编辑")
# The site setting "postno" names the first floors; these are the defaults.
_FLOOR_NAMES = {"楼主": 1, "沙发": 2, "板凳": 3, "地板": 4}
_HIDDEN = (
    ("作者被禁止或删除", "author_banned"),
    ("被管理员或版主屏蔽", "moderated"),
)
_LOG_IN = (
    "if your account may read it, pass --cookies FILE, exported from a browser that is "
    "logged in to the forum"
)
# Markers of pages that stand between a guest and the thread.
_CHALLENGES = (
    "Just a moment...",
    "cf-browser-verification",
    "challenge-platform",
    "acw_sc__v2",
    "安全验证",
    "滑动验证",
    "人机验证",
    "刷新不要快于",
    "请求过于频繁",
)


class DiscuzPages(Pages):
    """The thread pages a Discuz! X renders, live or saved."""

    platform = "discuz"
    title = "Discuz!"
    post_list = "#postlist"
    page_marker = "Discuz!"

    def error_page(self, text: str, source: str) -> NotAThreadError | None:
        return _forum_message(html_tree(text), text, source)

    def recognises(self, text: str) -> bool:
        head = text[:20000]
        return "Discuz!" in head or 'id="postmessage_' in text or "discuz_uid" in head

    def saved_refusal(self, body: bytes, source: str) -> InputError | None:
        head = body[:8000]
        if b"Discuz! Archiver" in head or (b"archiver/" in head and b'id="content"' in body):
            return InputError(
                f"{source} is the forum's archiver view of a thread (archiver/tid-N.html), "
                "without floor numbers or post ids; save the thread's own pages "
                "(forum.php?mod=viewthread&tid=N) instead."
            )
        if b"Discuz!" in body[-4000:] and (b"mobile=2" in body or b"static/image/mobile" in head):
            return InputError(
                f"{source} is the forum's mobile view of a thread (mobile=2); save the "
                "desktop pages (forum.php?mod=viewthread&tid=N, 电脑版) instead."
            )
        return None

    def parse_saved(self, text: str, tz: tzinfo, *, source: str) -> Page:
        if "显示全部楼层" in text and "authorid=" in text:
            raise InputError(
                f"{source} is the forum's 只看该作者 view (one author's posts, &authorid=); "
                "save the thread's own pages, with every author's posts, instead."
            )
        return self.parse_page(text, tz, source=source)

    def post_nodes(self, tree: LexborHTMLParser) -> list[Node]:
        return [n for n in tree.css("div[id^='post_']") if _POST_ID.match(n.id or "")]

    def frame(
        self, tree: LexborHTMLParser, text: str, nodes: Sequence[Node], source: str
    ) -> PageFrame:
        page, page_count = _pager(tree)
        title_node = tree.css_first("#thread_subject")
        return PageFrame(
            thread_id=_thread_id(tree),
            page=page,
            page_count=page_count,
            title=node_text(title_node) if title_node is not None else "",
            reply_count=_reply_count(tree, text),
        )

    def parse_post(self, node: Node, tz: tzinfo, source: str, thread_id: str, page: int) -> Post:
        return _parse_post(node, tz, thread_id, page, source)


class Discuz(Platform):
    name = "discuz"
    title = "Discuz!"
    markup = Markup.BBCODE
    pages = DiscuzPages()
    comment_word = "点评"
    mentions = True  # Discuz! X: "@name " notifies the user (its @ feature)
    example_urls = (
        "https://bbs.example.com/forum.php?mod=viewthread&tid=101",
        "https://bbs.example.com/forum.php?mod=viewthread&tid=101&extra=page%3D1&page=3",
        "http://www.example.com/bbs/forum.php?mod=viewthread&tid=101&authorid=7",
        "https://bbs.example.com/thread-101-2-1.html",
        "https://bbs.example.com/archiver/tid-101.html",
    )

    def match_url(self, url: str) -> ThreadRef | None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return None
        query = parse_qs(parts.query)
        if parts.path.endswith("forum.php") and query.get("mod") == ["viewthread"]:
            tid = query.get("tid", [""])[0]
            if not tid.isdigit():
                return None
            page = query.get("page", ["1"])[0]
            return ThreadRef(self.name, tid, _site_root(url), int(page) if page.isdigit() else 1)
        m = _REWRITE.search(parts.path)
        if m:
            return ThreadRef(self.name, m.group(1), _site_root(url), int(m.group(2)))
        m = _ARCHIVER.search(parts.path)
        if m:
            root = urljoin(url, "../")
            return ThreadRef(self.name, m.group(1), root, 1)
        return None

    def page_url(self, ref: ThreadRef, page: int) -> str:
        # Always the plain viewthread URL: it works with and without URL rewriting,
        # and drops filters a pasted URL may carry (authorid=, ordertype=).
        return f"{ref.base}forum.php?mod=viewthread&tid={ref.thread_id}&page={page}"

    def post_url(self, ref: ThreadRef, post_id: str) -> str:
        return f"{ref.base}forum.php?mod=redirect&goto=findpost&ptid={ref.thread_id}&pid={post_id}"

    def author_url(self, ref: ThreadRef, author: str, author_id: str | None) -> str | None:
        # The forum's own "只看该作者" view of the thread.
        if not author_id:
            return None
        return f"{ref.base}forum.php?mod=viewthread&tid={ref.thread_id}&authorid={author_id}"


def _site_root(url: str) -> str:
    parts = urlsplit(url)
    directory = parts.path.rsplit("/", 1)[0] + "/"
    return f"{parts.scheme}://{parts.netloc}{directory}"


def _forum_message(tree: LexborHTMLParser, text: str, source: str) -> NotAThreadError | None:
    """The forum's own explanation when it shows a message or a check instead of the thread."""
    message_node = tree.css_first("#messagetext p") or tree.css_first("#messagetext")
    if message_node is not None:
        message = node_text(message_node)
        if "权限" in message:
            why, hint = "the forum does not let a guest read this thread", _LOG_IN
        elif "登录" in message or tree.css_first("#messagelogin") is not None:
            why, hint = "the forum shows this thread only to a logged-in account", _LOG_IN
        elif "不存在" in message or "删除" in message:
            why = "the thread does not exist or was deleted, or it is hidden"
            hint = "check the tid in the URL"
        else:
            why, hint = "the forum shows a message instead of the thread", "read it in a browser"
        return NotAThreadError(f"{source}: {why} (the forum says “{message}”); {hint}.")
    for marker in _CHALLENGES:
        if marker in text:
            return NotAThreadError(
                f"{source}: the forum answered with an anti-scraping check instead of the thread; "
                "open the thread in a browser, save its pages and run tally on the saved files."
            )
    return None


def _thread_id(tree: LexborHTMLParser) -> str | None:
    for selector in ("link[rel='canonical']", "a[id^='postnum']", "a[href*='authorid=']"):
        for node in tree.css(selector):
            m = _TID_IN_HREF.search(node.attributes.get("href") or "")
            if m:
                return m.group(1)
    return None


def _pager(tree: LexborHTMLParser) -> tuple[int, int]:
    pager = tree.css_first("div.pg")
    if pager is None:
        return 1, 1
    current_node = pager.css_first("strong")
    current = int(current_node.text()) if current_node and current_node.text().isdigit() else 1
    count = current
    total = pager.css_first("span[title]")
    m = _PAGE_COUNT.search(total.attributes.get("title") or "") if total is not None else None
    if m:
        count = int(m.group(1))
    else:
        # Older templates print no total; the highest page linked is the last one
        # (Discuz! always links the last page, "... 12").
        for a in pager.css("a"):
            digits = a.text().strip(". ")
            if digits.isdigit():
                count = max(count, int(digits))
    return current, max(count, current)


def _reply_count(tree: LexborHTMLParser, text: str) -> int | None:
    # The default template's header, read straight from the text; the selectors are the
    # fallback for other templates.
    head = text[:40000]  # the header sits above the first post
    m = _REPLIES_HTML.search(head)
    if m:
        return int(m.group(1))
    if "回复" not in head:
        return None  # later pages carry no header
    header = tree.css_first("div.hm.ptn") or tree.css_first("td.pls.ptn")
    if header is None:
        return None
    m = _REPLIES.search(header.text())
    return int(m.group(1)) if m else None


def _key_nodes(node: Node, pid: str) -> dict[str, Node]:
    """The nodes a post is read from, found in one walk over it (the walk is the cost)."""
    found: dict[str, Node] = {}
    selector = (
        f"#postnum{pid}, #authorposton{pid}, #postmessage_{pid}, #comment_{pid}, a.xw1, "
        f"#userinfo{pid} strong a"
    )
    for hit in node.css(selector):
        # The first a.xw1 is the poster's; later ones are 点评 authors. The user card
        # (#userinfo…) names the poster a second time.
        key = hit.id or ("author" if "xw1" in (hit.attributes.get("class") or "") else "card")
        found.setdefault(key, hit)
    return found


def _parse_post(node: Node, tz: tzinfo, tid: str, page: int, source: str) -> Post:
    pid = _POST_ID.match(node.id).group(1)  # type: ignore[union-attr]
    where = f"{source}, post {pid}"
    keys = _key_nodes(node, pid)
    author, author_id = _author(node, keys.get("author"), pid, where)
    card = keys.get("card")
    if card is not None and card.text().strip() not in ("", author):
        raise ParseError(
            f"{where} names two authors ({author!r} and {card.text().strip()!r}); the page "
            "is damaged."
        )
    time = _post_time(node, keys.get(f"authorposton{pid}"), tz, where)
    floor = _floor(node, keys.get(f"postnum{pid}"), where)
    body = keys.get(f"postmessage_{pid}")
    hidden = None
    text, edited, red, large = "", None, False, False
    reply_to: str | None = None
    quotes: tuple[Quote, ...] = ()
    if body is None:
        locked = node.css_first("div.locked")
        if locked is None:
            raise ParseError(f"{where} has no body.")
        note = node_text(locked)
        hidden = next((code for marker, code in _HIDDEN if marker in note), "hidden")
    else:
        marks = {"i": [], "div": [], "strong": []}  # type: dict[str, list[Node]]
        for hit in body.css("i.pstatus, div.quote, strong"):
            marks[hit.tag].append(hit)
        edited = _edit_mark(marks["i"], tz, where)
        reply_to = _take_reply_header(marks["strong"])
        quotes = _take_quotes(marks["div"])
        red, large = font_flags(body)
        text = node_text(body)
    return Post(
        platform="discuz",
        thread_id=tid,
        post_id=pid,
        floor=floor,
        author=author,
        author_id=author_id,
        time=time,
        text=text,
        quotes=quotes,
        reply_to=reply_to,
        edited=edited,
        comments=_comments(keys.get(f"comment_{pid}"), pid, tz, where),
        red_font=red,
        large_font=large,
        hidden=hidden,
        page=page,
    )


def _author(node: Node, link: Node | None, pid: str, where: str) -> tuple[str, str | None]:
    name, uid = _author_name(node, link, pid, where)
    if uid is not None and _NOT_IN_NAMES.search(name):
        # UCenter refuses white space and these characters in user names: a name holding
        # them ("小鹿 当前离线") is text the damaged markup let into the author's place.
        raise ParseError(f"{where}: {name!r} is not a Discuz! user name; the page is damaged.")
    return name, uid


def _author_name(node: Node, link: Node | None, pid: str, where: str) -> tuple[str, str | None]:
    if link is None or "home.php" not in (link.attributes.get("href") or ""):
        # Older templates: the profile link in the sidebar without the xw1 class.
        link = node.css_first(f"#favatar{pid} .authi a") or node.css_first("td.pls .authi a")
    if link is not None and link.text().strip():
        m = _UID.search(link.attributes.get("href") or "")
        return link.text().strip(), m.group(1) if m else None
    # Anonymous posts and guests have a name but no profile link.
    plain = node.css_first("td.pls div.pi") or node.css_first("td.pls .authi")
    if plain is not None:
        name = node_text(plain).split("\n")[0].strip()
        if name:
            return name, None
    raise ParseError(f"{where} has no author.")


def _exact_time(node: Node) -> str | None:
    """Recent times read "3 小时前" and carry the exact time in a span's title."""
    span = node.css_first("span[title]")
    title = span.attributes.get("title") if span is not None else None
    return title if title and re.search(r"\d{4}-\d", title) else None


def _post_time(node: Node, em: Node | None, tz: tzinfo, where: str) -> datetime:
    em = em or node.css_first("div.authi em")
    if em is None:
        raise ParseError(f"{where} has no post time.")
    shown = em.text()
    # Most posts show the full time; only recent ones ("3 小时前") need the span's title.
    raw = shown if _FULL_TIME.search(shown) else (_exact_time(em) or shown)
    return parse_forum_time(raw, tz, what=f"{where}: post time")


def _floor(node: Node, anchor: Node | None, where: str) -> int:
    anchor = anchor or node.css_first("div.pi strong a")
    if anchor is None:
        raise ParseError(f"{where} has no floor number.")
    label = anchor.text().strip().rstrip("#").strip()
    if label.isdigit():
        return int(label)
    if label in _FLOOR_NAMES:
        return _FLOOR_NAMES[label]
    raise ParseError(f"{where} has a floor label tally cannot number ({label!r}).")


def _edit_mark(found: list[Node], tz: tzinfo, where: str) -> Edit | None:
    if not found:
        return None
    mark = found[0]
    m = _EDIT.search(node_text(mark))
    if m is None:
        return None
    raw = _exact_time(mark) or m.group("at")
    at = parse_forum_time(raw, tz, what=f"{where}: edit time")
    mark.decompose()
    return Edit(by=m.group("by"), at=at)


def _inside_quote(node: Node) -> bool:
    parent = node.parent
    while parent is not None and parent.tag != "td":
        if parent.tag == "div" and "quote" in (parent.attributes.get("class") or "").split():
            return True
        parent = parent.parent
    return False


def _take_reply_header(found: list[Node]) -> str | None:
    """The "回复 2# 月影" header the forum's reply button writes: a link, not the poster's words."""
    for strong in found:
        if _inside_quote(strong):
            continue  # a header inside a quote belongs to the quoted post
        link = strong.css_first("a[href*='findpost']")
        if link is not None and strong.text().strip().startswith("回复"):
            m = _PID.search(link.attributes.get("href") or "")
            strong.decompose()
            return m.group(1) if m else None
    return None


def _take_quotes(found: list[Node]) -> tuple[Quote, ...]:
    """Remove quoted blocks from the body and return them: they are not the poster's words."""
    quotes = []
    for block in found:
        post_id = author = None
        link = block.css_first("a[href*='findpost']")
        if link is not None:
            m = _PID.search(link.attributes.get("href") or "")
            post_id = m.group(1) if m else None
            header = node_text(link)
            author = header.split(" 发表于", 1)[0].strip() or None
            link_parent = link.parent
            # The header line ("青山 发表于 …") sits in a <font size=2> wrapper.
            (
                link_parent if link_parent is not None and link_parent.tag == "font" else link
            ).decompose()
        quotes.append(Quote(text=node_text(block), post_id=post_id, author=author))
        block.decompose()
    return tuple(quotes)


def _comments(box: Node | None, pid: str, tz: tzinfo, where: str) -> tuple[Comment, ...]:
    # Most posts have an empty 点评 box: no text in it means nothing to look for.
    if box is None or not box.text(deep=True).strip():
        return ()
    if box.css_first("a[onclick*='commentmore'], a[href*='commentmore']") is not None:
        raise ParseError(
            f"{where} has more 点评 than the page shows, and the forum serves the rest only "
            "to its own script; read them in a browser."
        )
    found = []
    for item in box.css("div.pstl"):
        link = item.css_first("div.psta a.xi2") or item.css_first("div.psta a:last-child")
        if link is None or not link.text().strip():
            raise ParseError(f"{where} has a 点评 without an author.")
        m = _UID.search(link.attributes.get("href") or "")
        body = item.css_first("div.psti")
        if body is None:
            raise ParseError(f"{where} has a 点评 without text.")
        stamp = body.css_first("span.xg1")
        if stamp is None:
            raise ParseError(f"{where} has a 点评 without a time.")
        raw = _exact_time(stamp) or stamp.text()
        time = parse_forum_time(raw, tz, what=f"{where}: 点评 time")
        stamp.decompose()
        found.append((link.text().strip(), m.group(1) if m else None, time, node_text(body)))
    # The forum lists 点评 newest first; number them oldest first so that ids stay put
    # when more are added.
    found.reverse()
    return tuple(
        Comment(comment_id=f"{pid}.{i}", author=a, author_id=uid, time=t, text=txt)
        for i, (a, uid, t, txt) in enumerate(found, start=1)
    )
