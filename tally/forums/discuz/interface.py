"""Discuz!'s JSON for its mobile clients behind tally's door (``tally.forums.api``): the
first way tally reads a live Discuz! board, whatever its theme, language pack or clock.

The requests and the reading of each answer are ``tally.forums.discuz.api``'s; here they are
put together as the door asks: the probe (the thread's first floor), a page of 100 floors, and the
点评 of a floor past the five its page shows (``module=viewcomment``, five a page). The
interface is an API the board serves its own clients, which robots.txt closes to crawlers
as it closes ``forum.php?mod=post`` to them; tally reads only the threads its director names,
at the politeness it always keeps (docs/boards.md, *How tally reads a board*).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import datetime, tzinfo

from tally.errors import ApiUnavailable
from tally.forums.api import Api
from tally.forums.asking import Answer, Getter, Request
from tally.forums.boards import Boards
from tally.forums.discuz.api import (
    COMMENTS_PER_PAGE,
    PAGE_SIZE,
    VERSION,
    comment_total,
    comment_url,
    edit_marks,
    number_comments,
    parse_comments,
    parse_thread,
    probe,
    probe_url,
    thread_url,
)
from tally.forums.discuz.api_secrets import scrub
from tally.forums.http import REDIRECTS
from tally.i18n import N_, tr
from tally.model import Comment, Edit, Page, Post, ThreadRef


class DiscuzApi(Api):
    title = N_("its JSON for mobile clients (api/mobile, version 4)")

    def probe_request(self, ref: ThreadRef) -> Request:
        return Request(probe_url(ref), what=tr("its mobile interface's check"),
                       past_robots=True, redirects=False)  # fmt: skip

    def probe(self, ref: ThreadRef, body: bytes, content_type: str | None) -> str | None:
        return probe(body, content_type)

    def wanted(self, ref: ThreadRef, boards: Boards | None) -> bool | None:
        from urllib.parse import urlsplit

        board = boards.for_host(urlsplit(ref.base).hostname) if boards is not None else None
        return board.api if board is not None else None

    def read_page(
        self, ref: ThreadRef, number: int, get: Getter, tz: tzinfo, boards: Boards | None = None
    ) -> Page:
        url = thread_url(ref, page=number)
        what = tr("page {page} of thread {thread} (its mobile JSON)", page=number,
                  thread=ref.thread_id)  # fmt: skip
        request = Request(url, what=what, page=number, past_robots=True, redirects=False)
        answer = _answered(get, request)
        page = parse_thread(
            answer.body, answer.content_type, source=url, ref=ref, tz=tz, asked_page=number,
            ppp=PAGE_SIZE, at=answer.at or _now(tz),
        )  # fmt: skip
        if not any(p.comments_cut for p in page.posts):
            return page
        clock = page.clock
        posts = tuple(_every_comment(p, ref, get, tz, clock) if p.comments_cut else p
                      for p in page.posts)  # fmt: skip
        return dataclasses.replace(page, posts=posts)

    def edits(
        self, ref: ThreadRef, pages: Sequence[Page], get: Getter, tz: tzinfo
    ) -> Mapping[str, Edit | None]:
        """The edit marks version 4 strips, from version 1 of the same pages, which keeps
        them in the PC renderer's HTML (本帖最后由 … 于 … 编辑, to the minute, in the board's
        display clock: the v4 pages' own)."""
        marks: dict[str, Edit | None] = {}
        for page in pages:
            url = thread_url(ref, page=page.page).replace(f"version={VERSION}", "version=1")
            what = tr("page {page} of thread {thread} (its mobile JSON, version 1: the edit "
                      "marks)", page=page.page, thread=ref.thread_id)  # fmt: skip
            request = Request(url, what=what, page=page.page, past_robots=True,
                              redirects=False)  # fmt: skip
            answer = _answered(get, request)
            marks.update(edit_marks(answer.body, answer.content_type, source=url,
                                    tz=page.clock or tz))  # fmt: skip
        return marks

    def truncated(self, request: Request, body: bytes) -> bool:
        # A JSON answer ends with its object's brace; anything else (a web page where JSON
        # was asked) is the reader's to say, not a cut to fetch again.
        head = body.lstrip()[:1]
        return not body or (head == b"{" and not body.rstrip().endswith(b"}"))

    def scrub(self, body: bytes) -> bytes:
        return scrub(body)


def _answered(get: Getter, request: Request) -> Answer:
    """The interface's answer to ``request``: asked again once after a redirect (the first
    request after a deletion or a held reply answers a 302 to a web page while the board
    numbers the thread again); a second redirect is no answer of the interface."""
    answer = get(request)
    if answer.status in REDIRECTS:
        answer = get(request)
    if answer.status in REDIRECTS:
        raise ApiUnavailable(tr("{url}: its mobile interface answered a redirect twice",
                                url=request.url))  # fmt: skip
    return answer


def _every_comment(
    post: Post, ref: ThreadRef, get: Getter, tz: tzinfo, clock: tzinfo | None
) -> Post:
    """``post`` with every 点评 its floor holds: the viewcomment pages past the first (the
    five its page shows are the newest, page 1's), read until the floor's count is met."""
    found: list[Comment] = list(post.comments)
    total = None
    number = 1
    while total is None or len(found) < total:
        url = comment_url(ref.base, ref.thread_id, post.post_id, number)
        what = tr("page {page} of the 点评 of floor {floor} of thread {thread}", page=number,
                  floor=post.floor, thread=ref.thread_id)  # fmt: skip
        request = Request(url, what=what, past_robots=True, redirects=False)
        answer = _answered(get, request)
        total = comment_total(answer.body, answer.content_type, source=url)
        more = parse_comments(
            answer.body, answer.content_type, source=url, tid=ref.thread_id, pid=post.post_id,
            tz=tz, clock=clock, at=answer.at or _now(tz),
        )  # fmt: skip
        found.extend(more)
        if not more or number * COMMENTS_PER_PAGE >= total:
            break
        number += 1
    comments = number_comments(post.post_id, found)
    if len(comments) < (total or 0):
        raise ApiUnavailable(
            tr("floor {floor} of thread {thread} has {total} 点评 and its mobile interface gave "
               "{n}", floor=post.floor, thread=ref.thread_id, total=total, n=len(comments))
        )  # fmt: skip
    return dataclasses.replace(post, comments=comments, comments_cut=False)


def _now(tz: tzinfo) -> datetime:
    # No answer comes without a time in a read (fetch stamps each): a library call's own.
    from datetime import UTC

    return datetime.now(UTC).astimezone(tz)
