"""Discuz! threads: X2 to X3.5 (forum.php?mod=viewthread) and 6/7 (viewthread.php), their
default templates, third-party themes and pages saved by browsers and site copiers.

Tolerant of everything optional (pager, title, edit marks, 点评, quotes), strict about
what a tally rests on: post id, floor, author, time (read in ``tally.forums.discuz.post``).
The selectors follow what a real X3.5 renders (see fixtures/discuz/); what other templates
move is found where Discuz!'s own scripts look for it, and a board whose theme hides it
even there is read with a board profile (``tally.forums.boards``).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any
from urllib.parse import urlsplit

from tally.errors import InputError, NotAThreadError, ParseError, TallyError, ThreadGoneError
from tally.forums.base import (
    PageFrame,
    Pages,
    PageText,
    ReadPosts,
    check_clock,
)
from tally.forums.boards import Boards, built_in
from tally.forums.discuz.fields import diagnosed
from tally.forums.discuz.pager import highest_page, stated_pages
from tally.forums.discuz.post import Place, PostFields, read_fields, read_post
from tally.forums.fields import Diagnosis
from tally.forums.htmltext import Node, find, html_tree, id_of, node_text
from tally.forums.out_of_place import place_of
from tally.forums.timeparse import Printed
from tally.i18n import N_, tr
from tally.model import Page, Post, origin_of

REWRITE = re.compile(r"/thread-([0-9]{1,18})-([0-9]+)-[0-9]+\.html$")
ARCHIVER = re.compile(r"/archiver/tid-([0-9]{1,18})\.html$")
_POST_NODE = re.compile(r"^post_\d+$")
_PID_NODE = re.compile(r"^pid\d+$")
# A thread id in a link or a form's action, as the forum writes it, as URL rewriting writes
# it (thread-N-P-1.html, also relative), and as wget -k writes it ("?" saved as "@" or %3F).
_TID_IN_HREF = re.compile(r"(?:[?&@]|%3F|%26)p?tid=(\d+)|(?:^|/)thread-(\d+)-\d+-\d+\.html", re.I)
_PAGE_IN_URL = re.compile(r"[?&]page=(\d+)|(?:^|/)thread-\d+-(\d+)-\d+\.html")
# Discuz!'s own scripts, every version: "var fid = parseInt('3'), tid = parseInt('23')".
# (A pattern that starts with its literal is searched for at C speed; "\b" first is not.)
_SCRIPT_TID = re.compile(r"tid\s*=\s*parseInt\(\s*'(\d+)'\s*\)")
_SCRIPT_MAXPAGE = re.compile(r"\bmaxpage\s*=\s*(\d+)\s*;")
_SITEURL = re.compile(r"SITEURL\s*=\s*'(https?://[^']+)'")
# What the savers write at the top of a page they keep: Internet Explorer and Chrome's
# "Save as, complete", HTTrack, SingleFile.
_SAVED = (
    (re.compile(r"<!--\s*saved from url=\(\d+\)(\S+?)\s*-->"), N_("a browser's saved-from mark")),
    (re.compile(r"<!--\s*Mirrored from (\S+) by HTTrack"), N_("HTTrack's mirrored-from mark")),
    (re.compile(r"Page saved with SingleFile\s*\n\s*url:\s*(\S+)"), N_("SingleFile's url mark")),
)
# The footer's clock: "GMT+8, 2026-12-1 17:03", "GMT, …" (offset 0), "GMT-3.5, …".
_FOOTER_ZONE = re.compile(
    r"GMT(?P<off>[+-]\d{1,2}(?:\.\d{1,2})?)?,\s*(?P<y>\d{4})-(?P<mo>\d{1,2})-(?P<d>\d{1,2})\s+"
    r"(?P<h>\d{1,2}):(?P<mi>\d{2})"
)
_REPLIES = re.compile(r"回复:?\s*(\d+)")
# X3.5's lock beside the title (its thread lists' own lock icons are fic6).
_LOCK_ICON = "i.fico-lock"
_REPLIES_HTML = re.compile(r'回复:</span>\s*<span class="xi1">(\d+)</span>')
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
# Links and forms that carry the thread's id, most stable first (every version writes them).
_TID_PLACES = (
    ("link[rel='canonical']", "href", N_("the canonical link")),
    ("a[id^='postnum']", "href", N_("a floor's own link (postnum)")),
    ("form#fastpostform", "action", N_("the fast-reply form")),
    ("form[action*='tid=']", "action", N_("a reply form")),
    ("a[href*='repquote=']", "href", N_("a quote link")),
    ("a[href*='rtype=post']", "href", N_("a report link")),
    ("a[href*='authorid=']", "href", N_("the 只看该作者 link")),
)


class DiscuzPages(Pages):
    """The thread pages a Discuz! renders, live or saved."""

    platform = "discuz"
    title = "Discuz!"
    # X2 and later wrap the posts in #postlist; Discuz! 6/7 in div.mainbox.viewthread.
    post_list = ("#postlist", "div.mainbox.viewthread")
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
                tr("{source} is the forum's archiver view of a thread (archiver/tid-N.html), "
                   "without floor numbers or post ids; save the thread's own pages "
                   "(forum.php?mod=viewthread&tid=N) instead.", source=source)
            )
        # The touch template loads its own style sheet (X3: static/image/mobile/); X3.5
        # names Discuz! only in its head.
        touch = b"static/image/mobile" in head
        if (b"Discuz!" in body[-4000:] or b"Discuz!" in head) and (b"mobile=2" in body or touch):
            return InputError(
                tr("{source} is the forum's mobile view of a thread (mobile=2); save the "
                   "desktop pages (forum.php?mod=viewthread&tid=N, 电脑版) instead.",
                   source=source)
            )
        return None

    def parse_saved(
        self, text: str, tz: tzinfo, *, source: str, boards: Boards | None = None
    ) -> Page:
        if "显示全部楼层" in text and "authorid=" in text:
            raise InputError(
                tr("{source} is the forum's 只看该作者 view (one author's posts, &authorid=); "
                   "save the thread's own pages, with every author's posts, instead.",
                   source=source)
            )
        page = self.parse_page(text, tz, source=source, boards=boards)
        cut = next((p for p in page.posts if p.comments_cut), None)
        if cut is not None:
            raise InputError(
                tr("{source}: floor {floor} shows only the newest of its 点评, and a saved "
                   "page holds no more (the forum serves the rest from its commentmore "
                   "script); count from the thread's URL, or by hand.", source=source,
                   floor=cut.floor)
            )
        return page

    def open(
        self, text: str, tz: tzinfo, source: str, boards: Boards | None, *, naming: bool = False
    ) -> PageText:
        tree = html_tree(text)
        chosen = boards or built_in_boards()
        # Only a profile that names hosts needs the page's host (for a saved page, a search).
        host = board_host(tree, text, source) if chosen.names_hosts else None
        # A theme's marks are looked for in the whole page (its head's IMGDIR and style
        # sheets, its posts, its footer): a substring search, at C speed.
        board = chosen.choose(host, text, naming=naming)
        return PageText(text, tree, source, tz, board)

    def post_nodes(self, page: PageText) -> list[Node]:
        nodes = _outermost(self._post_nodes(page))
        # X2 and later show the posts in #postlist itself: the post list is then known
        # without a search of the whole page for it (``has_post_list``).
        parent = nodes[0].parent if nodes else None
        page.memo["in_post_list"] = parent is not None and parent.id == "postlist"
        return nodes

    def has_post_list(self, page: PageText) -> bool:
        return page.memo.get("in_post_list") is True or super().has_post_list(page)

    def _post_nodes(self, page: PageText) -> list[Node]:
        tree = page.tree
        for selector in page.board.selectors_for("post"):
            nodes = tree.css(selector)
            if nodes:
                return list(nodes)
        # The walk over the whole page finds the title's lock icons too (``frame``): one
        # walk for both, told apart by their tags.
        icons: list[Node] = []
        nodes = []
        for n in tree.css(f"div[id^='post_'], {_LOCK_ICON}"):
            tag = n.tag
            if tag == "i":
                icons.append(n)
            elif tag == "div" and _POST_NODE.match(n.id or ""):
                nodes.append(n)
        page.memo["lock_icons"] = icons
        if nodes:
            return nodes
        # Discuz! 6/7, and themes that drop the wrapper: the post's own table.
        return [n for n in tree.css("table[id^='pid']") if _PID_NODE.match(n.id or "")]

    def frame(self, page: PageText, nodes: Sequence[Node]) -> PageFrame:
        found: dict[str, str] = {}
        locks = page.memo.get("lock_icons")
        if locks is None:  # post_nodes did not walk the whole page
            locks = page.tree.css(_LOCK_ICON)
        tid, found["thread_id"] = _thread_id(page)
        current, count, found["page"], found["page_count"] = _pager(page)
        title, found["title"] = _title(page)
        _check_places(page, nodes, current, count)
        printed = _check_zone(page)
        return PageFrame(
            clock=page.memo.get("clock"),
            thread_id=tid,
            page=current,
            page_count=count,
            title=title,
            reply_count=_reply_count(page),
            origin=_origin(page),
            found=found,
            closed=any("fic6" not in (i.attributes.get("class") or "") for i in locks),
            printed_at=printed,
        )  # fmt: skip

    def parse_post(
        self, page: PageText, node: Node, index: int, thread_id: str, number: int
    ) -> Post:
        return read_post(node, place(page, thread_id, number), index)

    def read_posts(
        self, page: PageText, nodes: Sequence[Node], thread_id: str, number: int
    ) -> ReadPosts:
        """The page's posts, a 置顶回复 on its own floor; one from a later page (shown
        without its number) is left to its own page, and a 热门回复 (推荐, no number) is
        placed once every page is read (``tally.forums.out_of_place.place_floating``).

        Each post's label is the one its floor is read from, so telling them costs no walk.
        A label is read so only on a page whose text holds its words: one whose words are
        character references only is read as any floor label (the text is searched once,
        and only for a page that shows such a label: the search costs more than a post)."""
        at = place(page, thread_id, number)
        posts: list[Post] = []
        stuck: set[str] = set()
        elsewhere: list[str] = []
        hot: list[Post] = []
        worded: bool | None = None
        for index, node in enumerate(nodes):
            fields = PostFields(node, at, index)
            is_hot, is_stuck, numbered = fields.labelled()
            if (is_hot or is_stuck) and worded is None:
                text = page.text
                worded = "来自" in text or "來自" in text or "推荐" in text or "推薦" in text
            if is_hot and worded:
                hot.append(read_fields(fields, floor=0))
                continue
            if is_stuck and worded:
                if not numbered:
                    elsewhere.append(fields.pid)
                    continue
                stuck.add(fields.pid)
            posts.append(read_fields(fields))
        top = tuple(p.post_id for p in posts if p.post_id in stuck) + tuple(elsewhere)
        return ReadPosts(
            _unstick(posts, stuck, page, skipped=len(hot)),
            tuple(elsewhere),
            floating=tuple(hot),
            top=top + tuple(p.post_id for p in hot),
        )

    def diagnose(
        self, text: str, tz: tzinfo, source: str, boards: Boards | None = None
    ) -> Diagnosis:
        """Each field of the page and of every post, with where it was found (the board
        profile named by its marks), as far as the page can be read."""
        page = self.open(text, tz, source, boards, naming=True)
        nodes = self.post_nodes(page)
        if not nodes:
            message = self.error_page(text, source)
            why = str(message) if message is not None else tr(
                "it holds no posts tally can find (div#post_N, table#pidN, or a board "
                "profile's post selectors)."
            )  # fmt: skip
            return Diagnosis(source, self.title, page.board, problem=why)
        try:
            frame = self.frame(page, nodes)
        except TallyError as exc:
            return Diagnosis(source, self.title, page.board, problem=str(exc), posts=len(nodes))
        return diagnosed(page, nodes, frame, place(page, frame.thread_id or "?", frame.page))


def _unstick(
    posts: list[Post], stuck: set[str], page: PageText, *, skipped: int = 0
) -> tuple[Post, ...]:
    """The floors of a page 1 that shows replies stuck to its top (置顶回复), as the
    forum numbers them where they stand.

    Numbered by position, each post's label is its floor, a stuck reply's too ("来自 7#"
    after floor 1, then 2, 3 …): the page's numbers do not run one by one. Numbered by
    their place on the page (X3.5 once a post of the thread is deleted), they run one by
    one in the order shown, the stuck replies first: the same numbers are then the floors
    of the posts in the forum's own order, which is by time (to the second: ORDER BY
    dateline) and, within a second, by position. A stuck reply goes back among the others
    by its time, and among those of its second by its post id, which Discuz! gives in the
    order written: only where those of its second stand in the order of their ids, else
    its floor cannot be told and tally stops.

    ``skipped`` 热门回复 shown on the page as well (left out of ``posts``): numbered by
    place, X3.5 skips one number for each that stands on page 1, right after the stuck
    replies' (the floors are put right once every page is read, ``place_floating``).
    """
    floors = [p.floor for p in posts]
    steps = [b - a for a, b in itertools.pairwise(floors)]
    after_stuck = sum(1 for p in posts if p.post_id in stuck)  # the step after them
    if not stuck or any(
        d != 1 and not (i == after_stuck and 1 < d <= 1 + skipped) for i, d in enumerate(steps)
    ):
        return tuple(posts)
    rest = [p for p in posts if p.post_id not in stuck]
    source = page.source
    first = min(stuck, key=int)
    if any(a.time > b.time for a, b in itertools.pairwise(rest)):
        # A 12-hour clock without its marker reads times out of order: say that, if so.
        check_clock(rest, page.board.zone or page.tz, source)
        raise _cannot_unstick(
            source, first, tr("the page's other posts do not stand in time order")
        )
    order = list(rest)
    for post in sorted((p for p in posts if p.post_id in stuck), key=lambda p: int(p.post_id)):
        at = place_of(order, post)
        if at is None:
            why = tr("the posts of its second do not stand in the order of their ids")
            raise _cannot_unstick(source, post.post_id, why)
        order.insert(at, post)
    return tuple(
        p if p.floor == f else replace(p, floor=f) for p, f in zip(order, floors, strict=True)
    )


def _cannot_unstick(source: str, pid: str, why: str) -> ParseError:
    return ParseError(
        tr("{source}: post {post} is stuck to the top of page 1 (置顶回复) and numbered by its "
           "place there, and {why}, so its own floor cannot be told; read the page once a "
           "moderator has unstuck it (解除置顶).", source=source, post=pid, why=why)
    )


def place(page: PageText, thread_id: str, number: int) -> Place:
    """The page's ``Place``, made once for all its posts."""
    made = page.memo.get("place")
    if made is None:
        # The offset the footer says, when it is the zone's now (``_check_zone``): Discuz!
        # prints every time of a page at that one offset, whenever it was posted.
        zone = page.memo.get("clock") or page.board.zone or page.tz
        made = Place(number, page.tree, page.board, zone, page.source, thread_id)
        page.memo["place"] = made
    return made


@functools.cache
def built_in_boards() -> Boards:
    """The built-in profiles, for a page read without a run's own (a library call)."""
    return Boards(built_in())


def site_root(url: str) -> str:
    parts = urlsplit(url)
    directory = parts.path.rsplit("/", 1)[0] + "/"
    return f"{parts.scheme}://{parts.netloc}{directory}"


def saved_from(text: str) -> tuple[str, str] | None:
    """The URL a saved copy says it was saved from, and which saver's mark says so."""
    head = text[:4000]
    if "saved from" not in head and "Mirrored from" not in head and "SingleFile" not in head:
        return None
    for pattern, said in _SAVED:
        m = pattern.search(head)
        if m:
            url = m.group(1)
            return (url if "://" in url else f"http://{url}"), tr(said)
    return None


def board_host(tree: Any, text: str, source: str) -> str | None:
    """The host a page belongs to: its URL's, or for a saved file the one the saver wrote
    down, the canonical link's or the board's own script's (SITEURL)."""
    if "://" in source:
        return urlsplit(source).hostname
    saved = saved_from(text)
    if saved is not None:
        return urlsplit(saved[0]).hostname
    canonical = tree.css_first("link[rel='canonical']")
    href = canonical.attributes.get("href") or "" if canonical is not None else ""
    if "://" in href:
        return urlsplit(href).hostname
    m = _head_search(_SITEURL, "SITEURL", text, 20000)
    return urlsplit(m.group(1)).hostname if m else None


def _head_search(
    pattern: re.Pattern[str], literal: str, text: str, end: int, start: int = 0
) -> re.Match[str] | None:
    """``pattern.search(text, start, end)``, for a pattern whose every match starts with
    ``literal``: ``find`` goes to the first place it can match many times as fast as re's
    own scan of a long page, and no part of the text is copied."""
    at = find(text, literal, start, end)
    return pattern.search(text, at, end) if at >= 0 else None


def _forum_message(tree: Any, text: str, source: str) -> NotAThreadError | None:
    """The forum's own explanation when it shows a message or a check instead of the thread."""
    message_node = tree.css_first("#messagetext p") or tree.css_first("#messagetext")
    if message_node is not None:
        message = node_text(message_node)
        return _message_said(tree, message, source)
    for marker in _CHALLENGES:
        if marker in text:
            return NotAThreadError(
                tr("{source}: the forum answered with an anti-scraping check instead of the "
                   "thread; open the thread in a browser, save its pages and run tally on the "
                   "saved files.", source=source)
            )
    return None


def _message_said(tree: Any, message: str, source: str) -> NotAThreadError:
    """The forum's message (quoted as it wrote it) in tally's sentence for what it means."""
    if "权限" in message:
        return NotAThreadError(tr(
            "{source}: the forum does not let a guest read this thread (the forum says "
            "“{message}”); if your account may read it, pass --cookies FILE, exported from a "
            "browser that is logged in to the forum.", source=source, message=message))
    if "登录" in message or tree.css_first("#messagelogin") is not None:
        return NotAThreadError(tr(
            "{source}: the forum shows this thread only to a logged-in account (the forum says "
            "“{message}”); if your account may read it, pass --cookies FILE, exported from a "
            "browser that is logged in to the forum.", source=source, message=message))
    if "不存在" in message or "删除" in message:
        return ThreadGoneError(tr(
            "{source}: the thread does not exist or was deleted, or it is hidden (the forum "
            "says “{message}”); check the tid in the URL.", source=source, message=message))
    return NotAThreadError(tr(
        "{source}: the forum shows a message instead of the thread (the forum says "
        "“{message}”); read it in a browser.", source=source, message=message))


def _origin(page: PageText) -> str:
    """The board the page says it is of: its URL's, else the board's own script's
    (SITEURL), the saver's mark, an absolute canonical link."""
    if "://" in page.source:
        return origin_of(page.source)
    m = _head_search(_SITEURL, "SITEURL", page.text, 20000)
    if m:
        return origin_of(m.group(1))
    saved = saved_from(page.text)
    if saved is not None:
        return origin_of(saved[0])
    canonical = page.tree.css_first("link[rel='canonical']")
    href = (canonical.attributes.get("href") or "") if canonical is not None else ""
    return origin_of(href) if "://" in href else ""


def _tid_in(value: str) -> str | None:
    m = _TID_IN_HREF.search(value)
    return next((g for g in m.groups() if g), None) if m else None


def _thread_id(page: PageText) -> tuple[str | None, str]:
    """Which thread the page is of, and where it says so."""
    for m in _SCRIPT_TID.finditer(page.text):
        if not page.text[m.start() - 1 : m.start()].isalnum():  # not "ptid = …"
            return m.group(1), tr("the page's script (tid = parseInt(…))")
    for selector, attribute, said in _TID_PLACES:
        for node in page.tree.css(selector):
            tid = _tid_in(node.attributes.get(attribute) or "")
            if tid:
                return tid, tr(said)
    saved = saved_from(page.text)
    if saved is not None:
        tid = _tid_in(saved[0])
        if tid:
            return tid, saved[1]
    return None, tr("not on the page: no script, link, form or saved-from mark names the thread")


def _pager(page: PageText) -> tuple[int, int, str, str]:
    """The page's number and the thread's page count, and where each was read."""
    tree = page.tree
    pager = tree.css_first("div.pg, div.pages")
    current: int | None = None
    where_current = tr("no pager: a thread of one page")
    if pager is not None:
        strong = pager.css_first("strong")
        if strong is not None and strong.text().strip().isdecimal():
            current, where_current = int(strong.text().strip()), tr("the pager")
    saved = saved_from(page.text) if current is None else None
    if saved is not None:
        m = _PAGE_IN_URL.search(saved[0])
        if m:
            current, where_current = int(next(g for g in m.groups() if g)), saved[1]
    current = current or 1
    count, where_count = current, tr("the page's own number (no page count shown)")
    stated = stated_pages(pager) if pager is not None else None
    if stated is not None:
        return current, max(stated, current), where_current, tr("the pager's 共 N 页")
    highest = highest_page(pager) if pager is not None else None
    if highest is not None and highest > count:
        count, where_count = highest, tr("the highest page the pager links")
    # Discuz! 6/7's script knows the page count ("var maxpage = 3;"), when its pager
    # (div.pages) does not show the last page.
    legacy = pager is not None and "pages" in (pager.attributes.get("class") or "")
    maxpage = _SCRIPT_MAXPAGE.search(page.text) if legacy and "maxpage" in page.text else None
    if maxpage and int(maxpage.group(1)) > count:
        count, where_count = int(maxpage.group(1)), tr("the page's script (maxpage)")
    return current, max(count, current), where_current, where_count


def _check_places(page: PageText, nodes: Sequence[Node], current: int, count: int) -> None:
    """A theme that prints no floor numbers is numbered by place (a board profile's
    posts_per_page): only a page that holds exactly that many posts, or fewer on the last
    page, can be numbered so."""
    per_page = page.board.posts_per_page
    if not per_page or page.tree.css_first("[id^='postnum']") is not None:
        return
    shown = len(nodes)
    if shown > per_page:
        raise ParseError(
            tr("{source} shows {n} posts, more than the {most} a page that board profile "
               "{board} gives; correct its posts_per_page (docs/boards.md).",
               source=page.source, n=shown, most=per_page, board=page.board.name)
        )
    if current < count and shown < per_page:
        raise ParseError(
            tr("{source} is page {page} of {pages} and shows {n} posts where the board shows "
               "{most}: a post was deleted or is hidden, and the theme prints no floor numbers, "
               "so the floors after it cannot be numbered; read them in a browser.",
               source=page.source, page=current, pages=count, n=shown, most=per_page)
        )


def _check_zone(page: PageText) -> datetime | None:
    """The zone the times are read in against the one the page prints them in: every
    Discuz! footer says "GMT+8, 2026-12-1 17:03" (the board's, or the member's own, offset).

    Discuz! knows no summer time: it adds one offset, the one its footer says, to every time
    it prints on a page, whenever the post was made. So where the footer's offset is the
    zone's now, the page's times are read at that offset (``memo["clock"]``), not at the
    zone's offset of each one: on a board whose admin moved the offset when summer time
    began, Saturday's posts, made in winter, are printed in summer time too, an hour on.
    The time it says, when it says one: when the forum made the page (``Page.printed_at``)."""
    text = page.text
    m = _head_search(_FOOTER_ZONE, "GMT", text, len(text), max(0, len(text) - 20000))
    if m is None:
        return None
    zone = page.board.zone or page.tz
    try:
        shown = datetime(int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]))
        # Discuz! prints the setting (+5.5) but shifts the times by its whole hours
        # (dgmdate's intval): the times are at +5.
        said = timedelta(hours=int(float(m["off"] or 0)))
        printed = shown.replace(tzinfo=timezone(said))
    except (ValueError, OverflowError):
        return None
    read = zone.utcoffset(shown) or timedelta()
    if read == said:
        page.memo["clock"] = Printed(said, zone)
        return printed
    footer = f"GMT{m['off'] or ''}"
    if said != timedelta(hours=float(m["off"] or 0)):
        footer = tr("{footer}, shifted by whole hours: UTC{offset}", footer=footer,
                    offset=_offset(said))  # fmt: skip
    raise InputError(
        tr("{source} prints its times in {footer} (its footer), but tally would read them in "
           "{zone} (UTC{offset}), {off} h off: a member's own 时区 (个人资料 → 设置) shifts every "
           "time the forum shows them; set the account whose cookies tally reads with back to "
           "使用默认 (the board's), or if the board itself is in that zone, say so with timezone "
           "in the game file (all its days' times are then in it too), a board profile or the "
           "config.", source=page.source, footer=footer, zone=zone, offset=_offset(read),
           off=_offset(said - read))
    )


def _offset(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:+g}"


def _title(page: PageText) -> tuple[str, str]:
    for selector in (
        *page.board.selectors_for("title"),
        "#thread_subject",
        "div.mainbox.viewthread h1",
    ):
        node = page.tree.css_first(selector)
        title = node_text(node).strip() if node is not None else ""
        if title:
            return title, selector
    return "", tr("not on the page (the title is optional)")


def _reply_count(page: PageText) -> int | None:
    # The default template's header, read straight from the text; then its elements,
    # whatever the language pack's words (views, then replies, each in a span.xi1); then
    # the Chinese words of other templates.
    m = _head_search(_REPLIES_HTML, "回复:</span>", page.text, 40000)  # above the first post
    if m:
        return int(m.group(1))
    if 'ptn"' not in page.text:
        return None  # later pages carry no header (a saved page's head may be long)
    header = page.tree.css_first("div.hm.ptn") or page.tree.css_first("td.pls.ptn")
    if header is None:
        return None
    counts = [n.text().strip() for n in header.css("span.xi1")]
    if len(counts) == 2 and all(c.isdecimal() for c in counts):
        return int(counts[1])
    m = _REPLIES.search(header.text())
    return int(m.group(1)) if m else None


def _outermost(nodes: list[Node]) -> list[Node]:
    """The post nodes no other post node holds. A forum that allows HTML in posts (允许使用
    HTML 代码) shows a member's markup as written: a ``div#post_N`` inside a post's body is
    what its author wrote, and read as a post it would be a floor forged in another
    member's name (their link, their uid, a ballot they never cast)."""
    parents = {id_of(n.parent) for n in nodes if n.parent is not None}
    if len(parents) <= 1:  # siblings (a page's posts, in #postlist): none holds another
        return nodes
    ids = {id_of(n) for n in nodes}
    kept = []
    for node in nodes:
        parent = node.parent
        while parent is not None and id_of(parent) not in ids:
            parent = parent.parent
        if parent is None:
            kept.append(node)
    return kept
