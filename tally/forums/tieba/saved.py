"""Baidu Tieba threads as saved from the desktop site before 2026, with their 楼中楼.

The desktop page Baidu served until its 2026 JavaScript front end: each floor is a
``div.l_post`` (``j_l_post``) whose ``data-field`` JSON carries ``author`` (user_id,
user_name, user_nickname, portrait) and ``content`` (post_id, post_no, thread_id,
forum_id, comment_num); the body is ``div#post_content_<post_id>``; the floor and the time
are in ``span.tail-info`` ("2楼", "2024-08-05 17:07"). What real saved pages also hold:

- advertising floors: a ``div.l_post`` with ``data-field="{}"`` and an ``.ad_bottom_view``
  (or no body at all), skipped;
- the 楼中楼 a browser had already loaded, rendered inline under their floor as
  ``li.lzl_single_post`` with a ``data-field`` carrying ``spid``, read as comments.

The rest of a floor's 楼中楼 came from ``/p/totalComment`` (JSON, the first ones of every
floor of a page) and ``/p/comment`` (an HTML fragment per ten); a director may save those
beside the pages. A page saved from the 2026 front end holds no floors in its HTML and
is refused with a sentence saying to give tally the thread's URL.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from selectolax.lexbor import LexborHTMLParser

from tally.errors import InputError, NotAThreadError, ParseError
from tally.forums.base import CommentBatch, PageFrame, Pages, PageText, field_value
from tally.forums.boards import Boards
from tally.forums.htmltext import Node, font_flags, html_tree, node_text
from tally.forums.timeparse import read_forum_time
from tally.i18n import tr
from tally.model import Comment, Page, Post
from tally.times import from_unix, instant

# The clock Baidu prints Tieba's times in, whoever reads them: Beijing time (its client and
# its site alike; the Unix times of its JSON need no zone). A game in another zone gets the
# same moments, not the same wall-clock figures.
BAIDU_CLOCK = ZoneInfo("Asia/Shanghai")

_PAGER_JSON = re.compile(r"PageData\.pager\s*=\s*(\{[^;]*?\})\s*;", re.S)
_TOTAL_PAGE = re.compile(r"[\"']?total_page[\"']?\s*:\s*[\"']?(\d+)")
_CUR_PAGE = re.compile(r"[\"']?cur_page[\"']?\s*:\s*[\"']?(\d+)")
_FLOOR = re.compile(r"^(\d+)楼$")
_PN = re.compile(r"[?&]pn=(\d+)")
_FID = re.compile(r"[\"']?forum_id[\"']?\s*:\s*[\"']?(\d+)")
_THREAD_IN = re.compile(r"tieba\.baidu\.com/p/(\d+)")
_CHALLENGES = ("百度安全验证", "wappass.baidu.com", "安全验证")
# Markers of the desktop page before 2026 (any one is enough).
_OLD_MARKERS = ("j_l_post", "lzl_single_post", "PageData.thread", "j_p_postlist")


def new_front_end(text: str, source: str) -> InputError | None:
    """The sentence for a page saved from the 2026 front end (floors drawn by script)."""
    if any(marker in text for marker in _OLD_MARKERS) or text.lstrip().startswith("{"):
        return None
    m = _THREAD_IN.search(text)
    url = f"https://tieba.baidu.com/p/{m.group(1)}" if m else "https://tieba.baidu.com/p/N"
    return InputError(
        tr("{source} was saved from Tieba's 2026 web front end, whose HTML holds no floors; "
           "give tally the thread's URL ({url}) instead.", source=source, url=url)
    )


def _is_ad(node: Node) -> bool:
    """An advertising floor: no post data and no post body, or an ad's own markup."""
    if node.css_first(".ad_bottom_view") is not None:
        return True
    raw = (node.attributes.get("data-field") or "").strip()
    return raw in ("", "{}") and node.css_first("[id^='post_content_']") is None


def _with(post: Post, **changes: Any) -> Post:
    return Post(**{**post.__dict__, **changes})


def _field(node: Node, source: str) -> dict[str, Any]:
    raw = node.attributes.get("data-field") or ""
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        try:  # older pages write the JSON with single quotes
            value = json.loads(raw.replace("'", '"'))
        except json.JSONDecodeError:
            raise ParseError(
                tr("{source} has a floor whose data-field is not JSON.", source=source)
            ) from None
    return value if isinstance(value, dict) else {}


def _comment_counts(nodes: Sequence[Node]) -> list[int]:
    out = []
    for node in nodes:
        content = _field(node, "page").get("content") or {}
        count = content.get("comment_num")
        out.append(int(count) if isinstance(count, int | str) and str(count).isdecimal() else 0)
    return out


def _pager(tree: LexborHTMLParser, text: str) -> tuple[int, int]:
    m = _PAGER_JSON.search(text)
    if m:
        total, cur = _TOTAL_PAGE.search(m.group(1)), _CUR_PAGE.search(m.group(1))
        if total:
            current = int(cur.group(1)) if cur else 1
            return current, max(int(total.group(1)), current)
    # The pager: the current page is a span, the others links with pn=.
    current = 1
    for span in tree.css("li.l_pager span.tP"):
        if span.text().strip().isdecimal():
            current = int(span.text().strip())
    count = current
    for a in tree.css("li.l_pager a"):
        m2 = _PN.search(a.attributes.get("href") or "")
        if m2:
            count = max(count, int(m2.group(1)))
    reply = tree.css("li.l_reply_num span.red")
    if len(reply) >= 2 and reply[1].text().strip().isdecimal():
        count = max(count, int(reply[1].text().strip()))
    return current, count


def _reply_count(tree: LexborHTMLParser, text: str) -> int | None:
    m = re.search(r"PageData\.thread\s*=\s*\{[^;]*?[\"']?reply_num[\"']?\s*:\s*[\"']?(\d+)", text)
    if m:
        return int(m.group(1))
    reply = tree.css("li.l_reply_num span.red")
    if reply and reply[0].text().strip().isdecimal():
        return int(reply[0].text().strip())
    return None


def _merge(a: list[Comment], b: list[Comment]) -> list[Comment]:
    seen = {c.comment_id for c in a}
    return a + [c for c in b if c.comment_id not in seen]


def _attach(
    page: Page,
    comments: Mapping[str, list[Comment]],
    *,
    source: str,
    missing: list[str] | None = None,
) -> Page:
    posts = []
    for post in page.posts:
        expected = page.comment_counts.get(post.post_id, 0)
        found = sorted(comments.get(post.post_id, []), key=lambda c: (c.time, c.comment_id))
        if len(found) < expected:
            if missing is None:
                raise InputError(
                    tr("{source}: floor {floor} has {total} 楼中楼 but {n} were read (save its "
                       "/p/totalComment JSON and, past the first 10, its /p/comment pages).",
                       source=source, floor=post.floor, total=expected, n=len(found))
                )
            missing.append(tr("floor {floor}: {n} of its {total} 楼中楼", floor=post.floor,
                              n=len(found), total=expected))
        posts.append(_with(post, comments=tuple(found)) if found else post)
    return Page(**{**page.__dict__, "posts": tuple(posts)})


def parse_total_comment(text: str, tz: tzinfo, *, source: str) -> CommentBatch:
    """The JSON of /p/totalComment: the first 楼中楼 of every floor of one page."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise ParseError(
            tr("{source} is not the JSON of Tieba's comment list.", source=source)
        ) from None
    if not isinstance(data, dict) or data.get("errno", 0) not in (0, "0"):
        message = data.get("errmsg") if isinstance(data, dict) else None
        raise ParseError(tr("{source}: Tieba answered the comment list with an error "
                            "({message}).", source=source, message=message))

    def bad(what: str) -> ParseError:
        return ParseError(tr("{source}: the comment list's {what} is not what Tieba sends.",
                             source=source, what=what))

    body = data.get("data") or {}
    if not isinstance(body, dict):
        raise bad("data")
    listing = body.get("comment_list") or {}
    if listing == []:  # Tieba sends [] when no floor has comments
        listing = {}
    if not isinstance(listing, dict):
        raise bad("comment_list")
    comments: dict[str, tuple[Comment, ...]] = {}
    totals: dict[str, int] = {}
    tids = set()
    for pid, entry in listing.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("comment_info") or [], list):
            raise bad(tr("entry for post {post}", post=pid))
        items = []
        for item in entry.get("comment_info") or []:
            if not isinstance(item, dict):
                raise bad(tr("comment of post {post}", post=pid))
            where = tr("{where}, 楼中楼 {comment}", where=source, comment=item.get("comment_id"))
            name = str(item.get("username") or item.get("show_nickname") or "").strip()
            field_value(item.get("comment_id") or None, where, tr("id"))
            field_value(name, where, tr("author"))
            shown = str(item.get("show_nickname") or "").strip()
            tids.add(str(item.get("thread_id") or ""))
            items.append(
                Comment(
                    comment_id=str(item["comment_id"]),
                    author=name,
                    author_id=str(item["user_id"]) if item.get("user_id") else None,
                    time=from_unix(item.get("now_time"), tz, where),
                    text=node_text(
                        html_tree(f"<div>{item.get('content') or ''}</div>").css_first("div")
                    ),
                    author_display=shown if shown and shown != name else None,
                )
            )
        comments[str(pid)] = tuple(items)
        count = entry.get("comment_num") or len(items)
        if isinstance(count, bool) or not str(count).isdecimal():
            raise bad(tr("comment_num of post {post}", post=pid))
        totals[str(pid)] = int(count)
    tids.discard("")
    return CommentBatch(tids.pop() if len(tids) == 1 else None, comments, totals)


def _comment_items(items: Sequence[Node], tz: tzinfo, source: str) -> list[Comment]:
    """楼中楼 rendered as ``li.lzl_single_post``, inline in a page or in a fragment."""
    found = []
    for li in items:
        data = _field(li, source)
        spid = str(data.get("spid") or "")
        where = tr("{where}, 楼中楼 {comment}", where=source, comment=spid or "?")
        name = str(data.get("user_name") or data.get("showname") or "").strip()
        field_value(spid if spid.isdigit() else None, where, tr("id"))
        field_value(name, where, tr("author"))
        body = field_value(li.css_first("span.lzl_content_main"), where, tr("text"))
        stamp = field_value(li.css_first("span.lzl_time"), where, tr("time"))
        shown = str(data.get("showname") or "").strip()
        # A 楼中楼 rendered in the page shows its minute ("2024-5-10 11:11"), as a floor does.
        what = tr("{where}: time", where=where)
        time, minutes = read_forum_time(node_text(stamp), BAIDU_CLOCK, what=what)
        found.append(
            Comment(
                comment_id=spid,
                author=name,
                author_id=None,
                time=instant(time.astimezone(tz)),
                text=node_text(body),
                author_display=shown if shown and shown != name else None,
                to_the_minute=minutes,
            )
        )
    return found


def parse_comment_fragment(text: str, tz: tzinfo, *, source: str) -> tuple[list[Comment], int]:
    """One page of /p/comment: its 楼中楼, and how many pages the floor's comments fill."""
    tree = html_tree(text)
    found = _comment_items(tree.css("li.lzl_single_post"), tz, source)
    pages = 1
    for pager in tree.css("li.lzl_li_pager"):
        total = _field(pager, source).get("total_page")
        if isinstance(total, int | str) and str(total).isdecimal():
            pages = max(pages, int(total))
    if not found and "lzl_li_pager" not in text:
        raise ParseError(tr("{source} is not a page of Tieba 楼中楼.", source=source))
    return found, pages


def _fragment_post_id(text: str, source: str) -> str:
    tree = html_tree(text)
    for node in tree.css("li.lzl_single_post, li.lzl_li_pager"):
        pid = _field(node, source).get("pid")
        if pid:
            return str(pid)
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    m = re.search(r"pid[=_-]?(\d+)", name) or re.search(r"comment[-_](\d{5,})", name)
    if m:
        return m.group(1)
    raise InputError(
        tr("{source}: a saved 楼中楼 page must say its floor (pid=… in the file name).",
           source=source)
    )


class SavedPages(Pages):
    """The desktop thread pages Tieba served before 2026, as a browser saved them, with the
    楼中楼 files saved beside them."""

    platform = "tieba"
    title = "Tieba"
    post_list = ("#j_p_postlist",)
    page_marker = "PageData"

    def recognises(self, text: str) -> bool:
        """Whether a saved file came from Tieba: a page of either front end, or 楼中楼 JSON."""
        head = text[:4000].lstrip()
        if head.startswith("{") and '"comment_list"' in text:
            return True
        if any(marker in text for marker in _OLD_MARKERS):
            return True
        return "百度贴吧" in text[:20000] or "tieba.baidu.com" in text[:20000]

    def error_page(self, text: str, source: str) -> NotAThreadError | None:
        if any(marker in text for marker in _CHALLENGES):
            return NotAThreadError(
                tr("{source}: Baidu answered with a security check instead of the thread; open "
                   "it in a browser, save its pages and comment files, and run tally on them.",
                   source=source)
            )
        if "该贴已被删除" in text or "贴吧404" in text or "page404" in text:
            return NotAThreadError(
                tr("{source}: the thread does not exist or was deleted.", source=source)
            )
        if "passport.baidu.com" in text and "登录" in text and "j_l_post" not in text:
            return NotAThreadError(
                tr("{source}: Baidu shows this thread only to a logged-in account; pass "
                   "--cookies FILE exported from a browser logged in to Baidu.", source=source)
            )
        return None

    def post_nodes(self, page: PageText) -> list[Node]:
        """The floors of a saved page; advertising floors are none."""
        tree = page.tree
        return [n for n in tree.css("div.l_post") or tree.css("div.j_l_post") if not _is_ad(n)]

    def frame(self, page: PageText, nodes: Sequence[Node]) -> PageFrame:
        tree, text, source = page.tree, page.text, page.source
        tids = {str((_field(n, source).get("content") or {}).get("thread_id") or "") for n in nodes}
        tids.discard("")
        if len(tids) > 1:
            raise ParseError(tr("{source} holds floors of more than one thread.", source=source))
        number, count = _pager(tree, text)
        title = tree.css_first(".core_title_txt")
        forum = _FID.search(text)
        return PageFrame(
            thread_id=tids.pop() if tids else None,
            page=number,
            page_count=count,
            title=(title.attributes.get("title") or node_text(title)) if title is not None else "",
            reply_count=_reply_count(tree, text),
            forum_id=forum.group(1) if forum else None,
            origin="tieba.baidu.com",
        )

    def parse_post(
        self, page: PageText, node: Node, index: int, thread_id: str, number: int
    ) -> Post:
        """One floor of a saved page, with the 楼中楼 rendered inline under it."""
        tz, source = page.tz, page.source
        data = _field(node, source)
        author = data.get("author") or {}
        content = data.get("content") or {}
        pid = str(content.get("post_id") or node.attributes.get("data-pid") or "")
        field_value(pid if pid.isdigit() else None, tr("{where}: a floor", where=source),
                    tr("post id"))
        where = tr("{source}, post {post}", source=source, post=pid)
        tails = [node_text(t) for t in node.css("span.tail-info")]
        floor = content.get("post_no")
        if not isinstance(floor, int):
            floor = next((int(m.group(1)) for t in tails if (m := _FLOOR.match(t))), None)
        floor = field_value(floor, where, tr("floor number"))
        # The time is the last tail item that is neither the floor nor "来自…客户端".
        stamps = [t for t in tails if not _FLOOR.match(t) and not t.startswith("来自")]
        found = stamps[-1] if stamps else content.get("date") or None
        stamp = field_value(found, where, tr("post time"))
        # The desktop site prints a floor's time to the minute ("2024-05-10 09:30").
        what = tr("{where}: post time", where=where)
        time, minutes = read_forum_time(str(stamp), BAIDU_CLOCK, what=what)
        time = instant(time.astimezone(tz))  # at its offset on the game's clock
        user_name = str(author.get("user_name") or "").strip()
        nickname = str(author.get("user_nickname") or author.get("name_show") or "").strip()
        shown = node.css_first(".p_author_name") or node.css_first(".d_name a")
        shown_name = node_text(shown) if shown is not None else ""
        name = field_value(user_name or nickname or shown_name, where, tr("author"))
        display = nickname or shown_name
        body = node.css_first(f"#post_content_{pid}") or node.css_first(".d_post_content")
        body = field_value(body, where, tr("body"))
        red, large = font_flags(body)
        user_id = author.get("user_id")
        inline = _comment_items(node.css("li.lzl_single_post"), tz, where)
        return Post(
            platform="tieba",
            thread_id=thread_id,
            page=number,
            post_id=pid,
            floor=floor,
            author=name,
            author_id=str(user_id) if user_id else None,
            time=time,
            text=node_text(body),
            red_font=red,
            large_font=large,
            author_display=display if display and display != name else None,
            comments=tuple(inline),
            to_the_minute=minutes,
        )

    def comment_counts(self, nodes: Sequence[Node], posts: Sequence[Post]) -> dict[str, int]:
        return {p.post_id: n for p, n in zip(posts, _comment_counts(nodes), strict=True)}

    def parse_saved(
        self, text: str, tz: tzinfo, *, source: str, boards: Boards | None = None
    ) -> Page | CommentBatch:
        """A saved file: a thread page, the 楼中楼 JSON, or a 楼中楼 fragment page."""
        if text.lstrip().startswith("{"):
            return parse_total_comment(text, tz, source=source)
        if "lzl_single_post" in text and "j_l_post" not in text:
            found, _pages = parse_comment_fragment(text, tz, source=source)
            pid = _fragment_post_id(text, source)
            return CommentBatch(None, {pid: tuple(found)})
        refused = new_front_end(text, source)
        if refused is not None:
            raise refused
        return self.parse_page(text, tz, source=source)

    def attach_saved(
        self,
        pages: Sequence[Page],
        batches: Sequence[CommentBatch],
        *,
        source: str,
        missing: list[str] | None = None,
    ) -> list[Page]:
        """Every floor's 楼中楼: inline ones, and those of the saved JSON and fragment files.

        A floor with fewer than it says is an error naming it, unless ``missing`` collects
        what is missing (``tally archive --partial``).
        """
        merged: dict[str, list[Comment]] = {}
        for batch in batches:
            for pid, found in batch.comments.items():
                merged[pid] = _merge(merged.get(pid, []), list(found))
        out = []
        for page in pages:
            mine = {
                p.post_id: _merge(list(p.comments), merged.get(p.post_id, []))
                for p in page.posts
                if page.comment_counts.get(p.post_id, 0) > 0 or p.comments
            }
            out.append(_attach(page, mine, source=source, missing=missing))
        return out
