"""The 点评 of a Discuz! floor past those its page shows, read from the forum's own script.

A floor with more 点评 than the board's commentnumber (5 by default) shows the newest of them
and a 下一页 link; the forum serves them all, newest first, commentnumber a page, from
``forum.php?mod=misc&action=commentmore&tid=T&pid=P&page=N&inajax=1``: an ajax answer (XML)
whose CDATA holds the list and its pager (``共 N 页``). Discuz!'s robots.txt closes that
script (``Disallow: /*?mod=misc*``), so tally reads it where robots.txt allows it, or where a
board profile says the board's admin does (``comment_pages``); elsewhere it stops with one
sentence, since a 改票 in a 点评 it cannot read may turn the count.

Every page is read, from the first (the thread page's five are the newest, which a 点评
added since pushes to the next page), and all of them again: the list is whole when each
page before the last holds as many as the first, and two reads in a row agree.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import tzinfo
from urllib.parse import urlsplit

from tally.errors import FetchError
from tally.forums.asking import Getter, Request
from tally.forums.boards import Boards
from tally.forums.discuz.comment_items import CommentItem, comment_items, numbered
from tally.forums.discuz.pager import highest_page, stated_pages
from tally.forums.htmltext import html_tree, node_text
from tally.i18n import tr
from tally.model import Post, ThreadRef

# More pages of 点评 than this under one floor is no game's thread.
MAX_COMMENT_PAGES = 200
_CDATA = re.compile(r"<root>\s*<!\[CDATA\[(.*)\]\]>\s*</root>", re.S)


_ANSWER_END = re.compile(rb"\]\]>\s*</root>\s*$")
_COMMENT_SCRIPT = "action=commentmore"


def answer_cut(request: Request, body: bytes) -> bool | None:
    """Whether a commentmore answer's bytes end before the forum finished them (its
    ``</root>``); None for any other request or answer (a web page in its place)."""
    if _COMMENT_SCRIPT not in request.url or not body.lstrip().startswith((b"<?xml", b"<root")):
        return None  # a web page in its place is read as one, and said so
    return _ANSWER_END.search(body[-200:]) is None


def comment_request(ref: ThreadRef, post: Post, number: int, *, past_robots: bool) -> Request:
    """Page ``number`` of one floor's 点评, as the page's 下一页 link asks for it."""
    url = (
        f"{ref.base}forum.php?mod=misc&{_COMMENT_SCRIPT}&tid={ref.thread_id}"
        f"&pid={post.post_id}&page={number}&inajax=1"
    )
    what = tr("page {page} of the 点评 of floor {floor} (post {post})", page=number,
              floor=post.floor, post=post.post_id)  # fmt: skip
    return Request(url, what=what, past_robots=past_robots)


def parse_comment_answer(text: str, tz: tzinfo, where: str) -> tuple[list[CommentItem], int]:
    """One commentmore answer: its 点评, newest first, and how many pages the pager says
    there are (1 when it shows none)."""
    m = _CDATA.search(text)
    if m is None:
        title = html_tree(text).css_first("title")
        shown = " ".join(node_text(title).split())[:80] if title is not None else ""
        if shown:
            raise FetchError(
                tr("{where}: the forum answered with a web page, not its list of 点评 (titled "
                   "{title}); open the floor's 点评 in a browser, or count the day by hand.",
                   where=where, title=repr(shown))
            )
        raise FetchError(
            tr("{where}: the forum answered with a web page, not its list of 点评; open the "
               "floor's 点评 in a browser, or count the day by hand.", where=where)
        )
    tree = html_tree(f"<html><body>{m.group(1)}</body></html>")
    items = tree.css("div.pstl")
    pager = tree.css_first("div.pg")
    if not items and pager is None:
        if tree.css_first("div.pgs") is not None:
            return [], 1  # the list, empty: every 点评 of the floor deleted since
        said = " ".join(node_text(tree.body).split()) if tree.body is not None else ""
        if "速度过快" in said or "刷新间隔" in said:
            raise FetchError(
                tr("{where}: the forum refused tally for asking too fast (its 频繁刷新限制 wants "
                   "two seconds between requests); set politeness = 2 in the config file "
                   "(docs/config.md) and run again.", where=where)
            )
        if said:
            raise FetchError(
                tr("{where}: the forum answered with no 点评 but its message {message}; count "
                   "the day by hand, or ask the board's admin why.", where=where,
                   message=repr(said[:160]))
            )
        raise FetchError(
            tr("{where}: the forum answered with no 点评; count the day by hand, or ask the "
               "board's admin why.", where=where)
        )
    count = 1
    if pager is not None:
        count = stated_pages(pager) or highest_page(pager) or 1
    return comment_items(items, tz, where), count


# Reads of a floor's 点评 before tally gives up on a list that keeps changing.
_PASSES = 4


def with_every_comment(
    post: Post, ref: ThreadRef, get: Getter, tz: tzinfo, boards: Boards | None
) -> Post:
    """``post`` with every 点评 it holds, read from the forum's commentmore script."""
    host = urlsplit(ref.base).hostname
    board = boards.for_host(host) if boards is not None else None
    allowed = board is not None and board.comment_pages
    first = comment_request(ref, post, 1, past_robots=allowed)
    if not allowed and not get.allows(first.url):
        raise FetchError(
            tr("floor {floor} (post {post}) has more 点评 than the page shows (Discuz! shows 5 a "
               "floor unless the board says otherwise), and the forum serves the rest only from "
               "its commentmore script, which its robots.txt closes to tally: if the board's "
               "admin lets tally read it, say so in a board profile for {host} (comment_pages = "
               "true; docs/boards.md); else ask the admin to show more 点评 a floor (点评条目数, "
               "commentnumber), or count the day by hand.", floor=post.floor,
               post=post.post_id, host=host)
        )
    # A 点评 added or deleted while the pages are read moves the others across pages (a
    # delete on page 2 after it was read takes page 3's first to page 2, and no page read
    # holds it): the list is the floor's when two reads of every page in a row agree.
    before: list[CommentItem] | None = None
    for _ in range(_PASSES):
        items = _read(first, ref, post, get, tz, allowed)
        if items is not None and items == before:
            return replace(post, comments=numbered(items, post.post_id), comments_cut=False)
        before = items
    raise FetchError(
        tr("the 点评 of floor {floor} (post {post}) changed each of the {n} times tally read "
           "them; run again in a minute.", floor=post.floor, post=post.post_id, n=_PASSES)
    )  # fmt: skip


def _read(
    first: Request, ref: ThreadRef, post: Post, get: Getter, tz: tzinfo, allowed: bool
) -> list[CommentItem] | None:
    """Every page's 点评, newest first; None when the pages do not fit together (a page
    before the last short of the first's count, or another page count than the first's)."""
    items, pages = parse_comment_answer(get(first).text(first.url), tz, first.name)
    if pages > MAX_COMMENT_PAGES:
        raise FetchError(
            tr("{where}: the forum says {pages} pages of 点评, more than tally reads ({most}); "
               "count the day by hand.", where=first.name, pages=pages,
               most=MAX_COMMENT_PAGES)
        )
    per_page = len(items)
    found = list(items)
    for number in range(2, pages + 1):
        request = comment_request(ref, post, number, past_robots=allowed)
        more, said = parse_comment_answer(get(request).text(request.url), tz, request.name)
        last = number == pages
        if said != pages or not more or len(more) > per_page or (len(more) < per_page and not last):
            return None
        found += more
    return found
