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
from datetime import tzinfo
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
from tally.forums.discuz.frame import (
    board_host,
    check_zone,
    origin_of_page,
    page_numbers,
    reply_count_of,
    thread_id_of,
    title_of,
)
from tally.forums.discuz.post import Place, PostFields, read_fields, read_post
from tally.forums.fields import Diagnosis
from tally.forums.htmltext import Node, html_tree, id_of, node_text
from tally.forums.out_of_place import place_of
from tally.i18n import tr
from tally.model import Page, Post

REWRITE = re.compile(r"/thread-([0-9]{1,18})-([0-9]+)-[0-9]+\.html$")
ARCHIVER = re.compile(r"/archiver/tid-([0-9]{1,18})\.html$")
_POST_NODE = re.compile(r"^post_\d+$")
_PID_NODE = re.compile(r"^pid\d+$")
# X3.5's lock beside the title (its thread lists' own lock icons are fic6).
_LOCK_ICON = "i.fico-lock"
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
        tid, found["thread_id"] = thread_id_of(page)
        current, count, found["page"], found["page_count"] = page_numbers(page)
        title, found["title"] = title_of(page)
        _check_places(page, nodes, current, count)
        printed = check_zone(page)
        return PageFrame(
            clock=page.memo.get("clock"),
            thread_id=tid,
            page=current,
            page_count=count,
            title=title,
            reply_count=reply_count_of(page),
            origin=origin_of_page(page),
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
