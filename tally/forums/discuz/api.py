"""Discuz!'s JSON for its mobile clients (``api/mobile/index.php``, version 4): the requests
tally makes of it, and its answers read into tally's model.

Discuz! X3 ships the interface its Android and iOS clients read, on by default in X3.5.
Whatever the theme, the language pack or the reader's own time zone, its ``viewthread``
gives each post's id, its real floor (``position``, kept across deletions), the author's
uid and the time as UNIX seconds in UTC (``dbdateline``): a board is read to the second
with no board profile. Its traps, measured on a real X3.5: ``number`` is not the floor and
``dateline`` is a display string; version 4 strips the edit mark and ``[size]``; a board
that turned it off answers ``{"error": …}`` or a web page; every answer echoes the
session's secrets (``scrub``).

Reading is pure, bytes in and frozen dataclasses out, strict about what a count rests on
(each post's id, floor, author and uid, time and message: a ``ParseError`` naming the post)
and tolerant of the rest. An answer that is not the interface's (a web page, an error key,
another version) is ``ApiUnavailable``: the reader reads the thread's HTML pages instead.
The posts themselves are read by ``tally.forums.discuz.api_posts``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, tzinfo
from typing import Any

from tally.errors import (
    ApiUnavailable,
    NotAThreadError,
    PageMismatchError,
    ParseError,
    ThreadGoneError,
    TruncatedPageError,
)
from tally.forums.base import missing_field
from tally.forums.charset import charset_of
from tally.forums.discuz.api_comments import comment_list, display_clock, number_comments
from tally.forums.discuz.api_posts import Reading, fragment, read_post, shown_value, text_of
from tally.i18n import N_, tr
from tally.model import Comment, Edit, Page, Post, ThreadRef, origin_of

API = "api/mobile/index.php"
VERSION = "4"
# A polite page size: a thread of N floors in ⌈N / 100⌉ requests, none of them heavy. The
# interface takes any (ppp=1000 gave a whole thread), so tally chooses.
PAGE_SIZE = 100
# viewcomment serves a floor's 点评 five a page, newest first.
COMMENTS_PER_PAGE = 5


def _base(ref_or_base: ThreadRef | str) -> str:
    base = ref_or_base.base if isinstance(ref_or_base, ThreadRef) else ref_or_base
    return base if base.endswith("/") else base + "/"




def thread_url(
    ref_or_base: ThreadRef | str, tid: str | None = None, page: int = 1, ppp: int = PAGE_SIZE
) -> str:
    """Page ``page`` of the thread, ``ppp`` posts a page (at most ``PAGE_SIZE``), oldest
    first: ``ordertype=2`` asks the floors in their order in a thread posted with 回帖倒序排列
    too, which the interface otherwise answers newest first."""
    if tid is None:
        if not isinstance(ref_or_base, ThreadRef):
            raise ValueError("thread_url needs the thread's id with a board's root URL")
        tid = ref_or_base.thread_id
    if not 1 <= ppp <= PAGE_SIZE or page < 1:
        raise ValueError(f"page {page} of {ppp} posts is no page tally asks for")
    return (
        f"{_base(ref_or_base)}{API}?version={VERSION}&module=viewthread&tid={tid}"
        f"&page={page}&ppp={ppp}&ordertype=2"
    )


def probe_url(ref: ThreadRef) -> str:
    """The probe: the thread's first floor through ``viewthread``, the module tally reads
    with (``probe``)."""
    return thread_url(ref, page=1, ppp=1)


def comment_url(base: str, tid: str, pid: str, page: int) -> str:
    """Page ``page`` of one floor's 点评 (five a page, newest first)."""
    module = f"module=viewcomment&tid={tid}&pid={pid}&page={page}"
    return f"{_base(base)}{API}?version={VERSION}&{module}"


# -- is it there? ------------------------------------------------------------------------

# The interface's own refusals ({"error": KEY}), as a director reads them.
_ERRORS = {
    "mobile_is_closed": N_("its mobile interface is switched off (开启手机版: mobile_is_closed)"),
    "to_login": N_("its mobile interface serves logged-in members only (to_login)"),
    "board_closed": N_("the board is closed (board_closed)"),
}


def _error_said(error: object) -> str:
    said = _ERRORS.get(error) if isinstance(error, str) else None
    if said is not None:
        return tr(said)
    return tr("its mobile interface answered the error {error}", error=shown_value(error))


def probe(body: bytes, content_type: str | None) -> str | None:
    """None when the board's answer to ``probe_url`` says it serves version 4 of the
    interface; else why not, as a clause to follow the board's name ("… : its mobile
    interface is switched off"), for the one line that says tally reads the HTML pages.

    The probe asks the module tally reads with, not ``module=check``: a real X3.5 whose
    admin switched 开启手机版 off answers the check as before (version 4) and every other
    module ``{"error":"mobile_is_closed"}``, and one whose 掌上论坛 plugin is off answers
    ``viewthread`` with its touch theme's page. The forum's message in place of the thread
    (gone, members only) is the interface's answer: the read says it."""
    try:
        data = _json(body, content_type, "the check")
    except TruncatedPageError:
        return tr("its mobile interface answered its check cut short")
    if isinstance(data, str):
        return data
    version = data.get("Version")
    if version is None:  # module=check's answer, or another module's
        return tr("its mobile interface answered JSON that names no version")
    return _version_said(version) if version != VERSION else None


# -- the answer as JSON --------------------------------------------------------------------

_JSON_TYPE = re.compile(r"\bjson\b", re.I)


def _answer(body: bytes, content_type: str | None, source: str) -> dict[str, Any]:
    """The answer's JSON object; ``ApiUnavailable`` for anything that is not the interface's
    (an empty body, a web page, an error key), ``TruncatedPageError`` for JSON cut short."""
    data = _json(body, content_type, source)
    if isinstance(data, str):
        raise ApiUnavailable(_unavailable(source, data))
    return data


def _unavailable(source: str, why: str) -> str:
    return tr("{source}: {why}", source=source, why=why)


def _json(body: bytes, content_type: str | None, source: str) -> dict[str, Any] | str:
    """The answer's JSON object, or why it is not the interface's, as a clause to follow the
    source; ``TruncatedPageError`` for JSON cut short."""
    stripped = body.strip()
    if not stripped:
        return tr("its mobile interface answered an empty body")
    try:
        # The body is ASCII whatever the board's charset (non-ASCII is \\uXXXX).
        data = json.loads(stripped)
    except (ValueError, RecursionError):
        if stripped.startswith(b"{") and _JSON_TYPE.search(content_type or "application/json"):
            raise TruncatedPageError(
                tr("{source}: the interface's answer is cut short or damaged (not whole JSON).",
                   source=source)
            ) from None
        return _not_json(stripped, content_type, source)
    if not isinstance(data, dict):
        return tr("its mobile interface answered JSON of another shape")
    if "error" in data:
        return _error_said(data["error"])
    return data


def _not_json(body: bytes, content_type: str | None, source: str) -> str:
    """What the answer is instead of JSON, as a clause."""
    from tally.forums.discuz.pages import _CHALLENGES, DiscuzPages

    # Read only to say what it is: bytes not in its charset are no reason to refuse it.
    charset = charset_of(body[:200_000], content_type)
    try:
        text = body[:200_000].decode(charset, "replace")
    except LookupError:
        text = body[:200_000].decode("utf-8", "replace")
    if "<" not in text[:2000]:
        return tr("its mobile interface answered text that is not JSON")
    # The forum's own message page, or a check that stands between a client and the board
    # (told by its markers, not by the words of the page reader's sentence).
    message = DiscuzPages().error_page(text, source)
    if message is not None and any(marker in text for marker in _CHALLENGES):
        return tr("its mobile interface answered an anti-bot check instead of JSON")
    if "static/image/mobile" in text[:20000]:
        return tr(
            "its mobile interface answered the touch theme's page (the 掌上论坛 plugin is off)"
        )
    return tr("its mobile interface answered a web page instead of JSON")


def _object(value: object, source: str, name: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise missing_field(tr("{source}: the interface's answer", source=source), name)
    return value


def _count(value: object, source: str, name: str) -> int:
    """A count the answer gives as a string of ASCII digits (or a JSON number)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise missing_field(tr("{source}: the interface's answer", source=source),
                            f"{name} ({shown_value(value)})")  # fmt: skip
    text = str(value)
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise ParseError(tr("{source}: the thread's {name} {value} is no count.", source=source,
                            name=name, value=shown_value(value)))  # fmt: skip
    return int(text)


# -- a thread page ---------------------------------------------------------------------------

# Message.messageval keys (before "//") that mean the thread is not there.
_GONE = ("thread_nonexistence", "thread_not_exist", "thread_invisible")


def _refusal(data: Mapping[str, Any], source: str) -> None:
    """The forum's message instead of the thread (``Message.messageval``)."""
    message = data.get("Message")
    said = message.get("messageval") if isinstance(message, dict) else None
    if not isinstance(said, str) or not said.strip():
        return
    key = said.split("//", 1)[0].strip()
    if key in _GONE:
        raise ThreadGoneError(
            tr("{source}: the thread does not exist or was deleted, or it is hidden (the forum "
               "says {key}); check the tid in the URL.", source=source, key=key)
        )
    if "nopermission" in key or "login" in key:
        raise NotAThreadError(
            tr("{source}: the forum does not let these cookies read this thread (it says "
               "{key}); if your account may read it, pass --cookies FILE, exported from a "
               "browser that is logged in to the forum.", source=source, key=key)
        )
    raise NotAThreadError(
        tr("{source}: the forum answered {key} instead of the thread.", source=source,
           key=repr(key))
    )


@dataclass(frozen=True)
class _Frame:
    """What the answer says of the thread, read before its posts."""

    tid: str
    maxposition: int
    replies: int
    ppp: int
    status: int
    # Replies and 点评 together, which the HTML page's header shows as its reply count.
    shown_replies: int


def _frame(variables: Mapping[str, Any], source: str, ref: ThreadRef, ppp: int) -> _Frame:
    thread = _object(variables.get("thread"), source, "thread")
    tid = str(thread.get("tid") or "")
    if tid != ref.thread_id:
        raise ParseError(
            tr("{source}: the answer is of thread {other}, not of thread {thread}.",
               source=source, other=shown_value(thread.get("tid")), thread=ref.thread_id)
        )  # fmt: skip
    answered = _count(variables.get("ppp"), source, tr("page size (ppp)"))
    if answered != ppp:
        # Pages of another size than asked would be read as the wrong floors.
        raise ApiUnavailable(_unavailable(source, tr(
            "its mobile interface answered pages of {n} posts, not the {asked} asked",
            n=answered, asked=ppp)))  # fmt: skip
    status = thread.get("status") or "0"
    replies = _count(thread.get("replies"), source, tr("reply count (replies)"))
    every = thread.get("allreplies")
    return _Frame(
        tid=tid,
        maxposition=_count(thread.get("maxposition"), source, tr("last floor (maxposition)")),
        replies=replies,
        ppp=answered,
        status=_count(status, source, tr("status")),
        shown_replies=(_count(every, source, tr("reply count (allreplies)")) if every
                       else replies),
    )


def parse_thread(
    body: bytes,
    content_type: str | None,
    *,
    source: str,
    ref: ThreadRef,
    tz: tzinfo,
    asked_page: int,
    ppp: int,
    at: datetime,
) -> Page:
    """One ``viewthread`` answer (``thread_url``) as a Page: its posts on their floors at
    their exact times in ``tz``, the newest five 点评 of each (``comment_counts`` says how
    many each has), the thread's title, reply count and lock. ``at`` is when the forum
    answered (its Date header): the 点评 it dates as "3 分钟前" are read against it.

    A page past the end (the interface answers the last page again) is a
    ``PageMismatchError``, as it is of the HTML pages."""
    data = _answer(body, content_type, source)
    version = data.get("Version")
    if version != VERSION:
        raise ApiUnavailable(_unavailable(source, _version_said(version)))
    _refusal(data, source)
    variables = _object(data.get("Variables"), source, "Variables")
    frame = _frame(variables, source, ref, ppp)
    raw = _postlist(variables, frame, source)
    page_count = _page_count(frame, asked_page, source)
    reading = _reading(variables, frame, ref, tz, asked_page, source)
    posts = tuple(read_post(p, reading) for p in raw)
    _check_floors(posts, frame, asked_page, source)
    clock = display_clock(raw, tz, at)
    posts, counts = _with_comments(posts, variables, tz, clock, at, source)
    title = variables["thread"].get("subject")
    return Page(
        platform="discuz",
        thread_id=frame.tid,
        page=asked_page,
        page_count=page_count,
        posts=posts,
        title=text_of(title) if isinstance(title, str) else "",
        reply_count=frame.shown_replies,
        comment_counts=counts,
        forum_id=str(variables.get("fid") or "") or None,
        origin=origin_of(ref.base),
        closed=str(variables["thread"].get("closed") or "0") not in ("0", ""),
        clock=clock,
    )


def _version_said(version: object) -> str:
    return tr("its mobile interface answered version {version}, not {wanted}",
              version=shown_value(version), wanted=VERSION)  # fmt: skip


def _postlist(variables: Mapping[str, Any], frame: _Frame, source: str) -> list[Any]:
    """The answer's posts as the interface gave them: some, and no more than a page holds."""
    raw = variables.get("postlist")
    if not isinstance(raw, list) or not raw:
        raise ParseError(_no_posts(source))
    if len(raw) > frame.ppp:
        raise ParseError(
            tr("{source}: the answer holds {n} posts on a page of {ppp}; it cannot be right.",
               source=source, n=len(raw), ppp=frame.ppp)
        )
    return raw


def _no_posts(source: str) -> str:
    return tr("{source}: the interface's answer holds no posts.", source=source)


def _page_count(frame: _Frame, asked_page: int, source: str) -> int:
    """The thread's pages, as its replies fill them; a page asked past the last (the
    interface answers the last again) is a ``PageMismatchError``."""
    if asked_page > 1 and (asked_page - 1) * frame.ppp >= frame.maxposition:
        raise PageMismatchError(
            tr("{source}: page {page} of {ppp} posts is past the thread's last floor ({last}): "
               "the interface answered another page.", source=source, page=asked_page,
               ppp=frame.ppp, last=frame.maxposition)
        )
    page_count = max(1, -(-(frame.replies + 1) // frame.ppp))
    if asked_page > page_count:
        raise PageMismatchError(
            tr("{source}: page {page} is past the thread's last page ({pages}, {replies} "
               "replies): the interface answered another page.", source=source,
               page=asked_page, pages=page_count, replies=frame.replies)
        )
    return page_count


def _reading(
    variables: Mapping[str, Any], frame: _Frame, ref: ThreadRef, tz: tzinfo, page: int, source: str
) -> Reading:
    """What every post of the page is read with: who reads it, and whether the thread
    hides its replies (回帖仅作者可见, the thread's status bit 2) from all but their authors,
    the thread's author and moderators."""
    reader = str(variables.get("member_uid") or "0")
    author = str(variables["thread"].get("authorid") or "")
    moderator = str(variables.get("ismoderator") or "0") == "1"
    return Reading(
        source=source,
        thread_id=ref.thread_id,
        page=page,
        tz=tz,
        hidden_replies=bool(frame.status & 2),
        reader=reader,
        sees_all=moderator or (reader != "0" and reader == author),
    )


def _with_comments(
    posts: tuple[Post, ...],
    variables: Mapping[str, Any],
    tz: tzinfo,
    clock: tzinfo | None,
    at: datetime,
    source: str,
) -> tuple[tuple[Post, ...], dict[str, int]]:
    """Each post with the newest 点评 the answer shows of it (``comments`` {pid: […]}),
    numbered as the HTML page numbers them, and how many each has (``commentcount``; a
    floor shows five, and the rest come from ``viewcomment``)."""
    shown = _shown_comments(variables.get("comments"), source)
    totals = _comment_counts(variables.get("commentcount"), source)
    out: list[Post] = []
    counts: dict[str, int] = {}
    for post in posts:
        items = shown.get(post.post_id, [])
        where = tr("{source}, post {post}", source=source, post=post.post_id)
        if not isinstance(items, list):
            raise ParseError(tr("{where}: its 点评 are {value}.", where=where,
                                value=shown_value(items)))  # fmt: skip
        if not items and post.post_id not in totals:
            out.append(post)
            continue
        found = comment_list(items, post.thread_id, post.post_id, tz, clock, at, where)
        counts[post.post_id] = total = max(totals.get(post.post_id, 0), len(found))
        numbered = number_comments(post.post_id, found)
        out.append(replace(post, comments=numbered, comments_cut=total > len(found)))
    return tuple(out), counts


def _shown_comments(value: object, source: str) -> Mapping[str, Any]:
    """``comments`` {pid: the newest 点评}; PHP writes an empty one as [] (or null)."""
    if value in (None, [], ""):
        return {}
    if not isinstance(value, dict):
        raise ParseError(_comments_are(source, value))
    return value


def _comments_are(source: str, value: object) -> str:
    return tr("{source}: the answer's 点评 are {value}.", source=source, value=shown_value(value))


def _comment_counts(value: object, source: str) -> dict[str, int]:
    """``commentcount`` {pid: total}; PHP writes an empty one as [] (or null)."""
    if value in (None, [], ""):
        return {}
    if not isinstance(value, dict):
        raise ParseError(tr("{source}: the answer's 点评 counts are {value}.", source=source,
                            value=shown_value(value)))  # fmt: skip
    return {str(pid): _count(n, source, tr("点评 count of post {post}", post=pid))
            for pid, n in value.items()}  # fmt: skip


def _check_floors(posts: tuple[Post, ...], frame: _Frame, page: int, source: str) -> None:
    """Floors in order, each once, none past the last handed out, none of an earlier page
    (the interface answers the last page again for a page past the end)."""
    before = (page - 1) * frame.ppp
    last = 0
    seen: set[str] = set()
    for post in posts:
        where = tr("{source}, post {post}", source=source, post=post.post_id)
        if post.floor > frame.maxposition:
            raise ParseError(
                tr("{where}: floor {floor} is past the last floor the thread handed out "
                   "({last}); run again.", where=where, floor=post.floor,
                   last=frame.maxposition)
            )
        if post.floor <= before:
            raise PageMismatchError(
                tr("{source}: post {post} is on floor {floor}, a floor of an earlier page: the "
                   "interface answered another page than page {page}.", source=source,
                   post=post.post_id, floor=post.floor, page=page)
            )
        if post.floor <= last or post.post_id in seen:
            raise ParseError(
                tr("{where}: floor {floor} after floor {last}; the answer's floors are out of "
                   "order or repeated.", where=where, floor=post.floor, last=last)
            )
        last = post.floor
        seen.add(post.post_id)
    if page == 1 and posts[0].floor != 1:
        raise ParseError(
            tr("{source}: page 1 begins with floor {floor}, not the thread's opening post.",
               source=source, floor=posts[0].floor)
        )


# -- 点评 past the five a floor shows --------------------------------------------------------


def parse_comments(
    body: bytes,
    content_type: str | None,
    *,
    source: str,
    tid: str,
    pid: str,
    tz: tzinfo,
    clock: tzinfo | None,
    at: datetime,
) -> list[Comment]:
    """One ``viewcomment`` answer (``comment_url``): up to five 点评 of floor ``pid``,
    newest first, each with the forum's own id (``number_comments`` numbers a floor's
    whole list as its HTML page does). ``clock`` is the one its thread's page showed 点评
    at (``Page.clock``), ``at`` when the forum answered."""
    data = _answer(body, content_type, source)
    if data.get("Version") != VERSION:
        raise ApiUnavailable(_unavailable(source, _version_said(data.get("Version"))))
    _refusal(data, source)
    variables = _object(data.get("Variables"), source, "Variables")
    if str(variables.get("tid") or "") != tid or str(variables.get("pid") or "") != pid:
        raise ParseError(tr("{source}: the answer is not of post {post} of thread {thread}.",
                            source=source, post=pid, thread=tid))  # fmt: skip
    shown = variables.get("comments")
    items = shown.get(pid, []) if isinstance(shown, dict) else []
    if shown not in (None, [], "") and not isinstance(shown, dict):
        raise ParseError(_comments_are(source, shown))
    if not isinstance(items, list) or len(items) > COMMENTS_PER_PAGE:
        raise ParseError(
            tr("{source}: the answer holds {value} as the 点评 of a page of {n}; it cannot be "
               "right.", source=source, value=shown_value(items), n=COMMENTS_PER_PAGE)
        )  # fmt: skip
    return comment_list(items, tid, pid, tz, clock, at, source)


def comment_total(body: bytes, content_type: str | None, *, source: str) -> int:
    """How many 点评 a ``viewcomment`` answer says its floor has (its ``count``)."""
    variables = _object(_answer(body, content_type, source).get("Variables"), source, "Variables")
    return _count(variables.get("count"), source, tr("点评 count"))


# -- version 1: the edit marks version 4 strips ------------------------------------------------


def edit_marks(
    body: bytes, content_type: str | None, *, source: str, tz: tzinfo
) -> dict[str, Edit | None]:
    """Each post of a version 1 ``viewthread`` answer (``thread_url`` with version=1) by id,
    with its edit mark (本帖最后由 … 于 … 编辑, read at ``tz``) or None: version 1 keeps the PC
    renderer's HTML, which version 4 strips the mark from. Its posters' IP and e-mail are
    never kept (``scrub``: they pass through the door first)."""
    from tally.forums.discuz.body import edit_mark

    data = _answer(body, content_type, source)
    _refusal(data, source)
    variables = _object(data.get("Variables"), source, "Variables")
    raw = variables.get("postlist")
    if not isinstance(raw, list):
        raise ParseError(_no_posts(source))
    marks: dict[str, Edit | None] = {}
    for item in raw:
        if not isinstance(item, dict) or not str(item.get("pid") or "").isdigit():
            raise ParseError(tr("{source}: a post without its id.", source=source))
        message = item.get("message")
        body_node = fragment(message if isinstance(message, str) else "")
        where = tr("{source}, post {post}", source=source, post=item["pid"])
        mark, _ = edit_mark(list(body_node.css("i")), tz, where)
        marks[str(item["pid"])] = mark
    return marks


__all__ = [
    "API",
    "COMMENTS_PER_PAGE",
    "PAGE_SIZE",
    "comment_total",
    "comment_url",
    "edit_marks",
    "number_comments",
    "parse_comments",
    "parse_thread",
    "probe",
    "probe_url",
    "thread_url",
]
