"""The 点评 of Discuz!'s mobile JSON (``tally.forums.discuz.api``), and the clock they are
shown at.

A 点评 carries no exact time, only ``dateline`` as the forum shows it to the reader:
minutes ("2026-12-6 08:16", at the reader's own offset), or, with 人性化时间 on, relative
to the answer ("6 秒前", "3 分钟前", "昨天 08:16"). Dates, and 昨天/前天 with their clock time,
are read to the minute (``Comment.to_the_minute``) on the clock the answer shows them at,
which the posts beside them tell (``display_clock``: a post's ``dateline`` against its exact
``dbdateline``). A time counted back from the answer ("刚刚", "N 秒前", "N 分钟前", "半小时前",
"N 小时前") is no minute: Discuz! counts whole minutes down from the instant it began the
answer, which the answer does not carry ("1 分钟前" at 08:33:10 is any instant of 08:31:10 to
08:32:10, in either minute; its Date header is another instant, taken when it was sent), so
two reads a few seconds apart would put one 点评 in two minutes, and one posted before a close
in the closing minute. Neither ``viewcomment`` nor any field of the answer says more (real
X3.5: its HTML page alone prints the minute, in the title of the relative time). Such a
thread is not served by the interface (``ThreadOffApi``): its HTML pages are read, the
board's other threads through the interface still. One whose dates are on a clock no post
tells is ``ApiUnavailable``: the board's clock is no thread's own. A form tally does not
know is a ``ParseError``, never a guess.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any

from tally.errors import ApiUnavailable, ParseError, ThreadOffApi
from tally.forums.base import missing_field
from tally.forums.discuz.api_posts import fragment, ident, shown_value
from tally.forums.htmltext import font_flags, node_text
from tally.forums.timeparse import Printed, parse_forum_time
from tally.i18n import tr
from tally.model import Comment


def comment_list(
    items: Sequence[Any],
    tid: str,
    pid: str,
    tz: tzinfo,
    clock: tzinfo | None,
    at: datetime,
    where: str,
) -> list[Comment]:
    """The 点评 of one floor as the answer lists them, each with the forum's own id."""
    found = []
    for item in items:
        if not isinstance(item, dict):
            raise ParseError(tr("{where}: a 点评 of the answer is {value}.", where=where,
                                value=shown_value(item)))  # fmt: skip
        cid = ident(item.get("id"), tr("{where}: a 点评", where=where), "id")
        said = tr("{where}, 点评 {comment}", where=where, comment=cid)
        if str(item.get("pid", pid)) != pid or str(item.get("tid", tid)) != tid:
            raise ParseError(tr("{where} is of another post ({post}).", where=said,
                                post=shown_value(item.get("pid"))))  # fmt: skip
        name, shown, words = item.get("author"), item.get("dateline"), item.get("comment")
        if not isinstance(name, str) or not name.strip():
            raise missing_field(said, tr("author"))
        if not isinstance(shown, str) or not isinstance(words, str):
            raise missing_field(said, tr("time") if not isinstance(shown, str) else tr("text"))
        uid = ident(item.get("authorid"), said, tr("author's uid (authorid)"), zero=True)
        body = fragment(words)
        found.append(
            Comment(
                comment_id=cid,
                author=html.unescape(name).strip(),
                author_id=uid if uid != "0" else None,
                time=comment_time(shown, tz, clock, at, said),
                text=node_text(body),
                to_the_minute=True,
                red_font=font_flags(body)[0],
            )
        )
    return found


def number_comments(pid: str, comments: Iterable[Comment]) -> tuple[Comment, ...]:
    """A floor's 点评 (each with the forum's id, which grows with time; every page read of
    them, in any order and overlapping) numbered oldest first as the HTML pages number them
    ("2.1", "2.2", …), so that a thread reads the same whichever way it was read."""
    by_id = {int(c.comment_id): c for c in comments}
    return tuple(
        Comment(**{**c.__dict__, "comment_id": f"{pid}.{i}"})
        for i, (_, c) in enumerate(sorted(by_id.items()), start=1)
    )


# "刚刚", "6 秒前", "3 分钟前": to the second or the minute, before the answer.
_AGO = re.compile(r"(?:(?P<n>\d{1,4})\s*(?P<unit>秒|分钟)前|刚刚)")
# Shown to the half hour, the hour or the day: no minute can be read from them.
_COARSE = re.compile(r"(?:半小时前|\d{1,4}\s*(?:小时|天)前)")
_DAYS_AGO = re.compile(r"(?P<day>昨天|前天)\s*(?P<rest>.+)")
_CLOCK = re.compile(r"(?P<h>\d{1,2}):(?P<m>\d{2})")
_MARKED = re.compile(r"[AaPp]\.?\s*[Mm]|[上下中]午|晚上|凌晨|早上")


def _said(shown: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", html.unescape(shown)).split())


def comment_time(
    shown: str, tz: tzinfo, clock: tzinfo | None, at: datetime, where: str
) -> datetime:
    """A 点评's time as the answer shows it, to the minute, in ``tz``: dates and 昨天/前天
    (the day before ``at``, the answer's time) on ``clock``, the zone the answer shows them
    in; ``ThreadOffApi`` for a time counted back from the answer, which tells no minute."""
    said = _said(shown)
    m = _AGO.fullmatch(said)
    if m is not None and int(m.group("n") or 0) > 60:
        raise ParseError(tr("{where}: its time {time} cannot be (Discuz! counts to 60).",
                            where=where, time=repr(said)))  # fmt: skip
    # Counted back from an instant the answer does not carry: no minute (module docstring).
    if m is not None or _COARSE.fullmatch(said):
        raise ThreadOffApi(
            tr("{where}: its mobile interface shows this 点评's time only as {time}, not to the "
               "minute", where=where, time=repr(said))
        )
    if clock is None:
        if _DAYS_AGO.fullmatch(said) or _CLOCK.search(said):
            raise ApiUnavailable(
                tr("{where}: its mobile interface shows this 点评's time as {time}, in a zone "
                   "its answer does not tell", where=where, time=repr(said))
            )
        raise ParseError(tr("{where}: its time {time} is not a time tally can read.",
                            where=where, time=repr(said)))  # fmt: skip
    days = _DAYS_AGO.fullmatch(said)
    if days is not None:
        back = 1 if days.group("day") == "昨天" else 2
        # The answer's own day on that clock (a Printed clock has one offset, no rules).
        date = at.astimezone(timezone(clock.utcoffset(at) or timedelta())).date()
        date -= timedelta(days=back)
        said = f"{date.year}-{date.month}-{date.day} {days.group('rest')}"
    when = _minute(parse_forum_time(said, clock, what=tr("{where}: time", where=where)))
    if when > at:
        raise ParseError(
            tr("{where}: its time {time} is after the forum's answer ({answered}).",
               where=where, time=repr(said), answered=at.strftime("%H:%M"))
        )
    return when


def _minute(when: datetime) -> datetime:
    return when.replace(second=0, microsecond=0)


def display_clock(posts: Sequence[Any], tz: tzinfo, at: datetime) -> tzinfo | None:
    """The clock the answer shows times at (the reader's own zone, which may be the
    board's or the member's), learnt from the posts whose ``dateline`` shows a clock
    time beside their exact ``dbdateline``; None when none does, or they disagree, or a
    12-hour clock without its marker could be read two ways."""
    offsets: set[timedelta] = set()
    hours: list[int] = []
    for post in posts:
        if not isinstance(post, dict) or not isinstance(post.get("dateline"), str):
            continue
        said = _said(post["dateline"])
        clock = _CLOCK.search(said)
        if clock is None or _AGO.fullmatch(said) or _COARSE.fullmatch(said):
            continue
        try:
            stamp = datetime.fromtimestamp(int(post.get("dbdateline") or ""), UTC)
        except (TypeError, ValueError, OverflowError, OSError):
            continue
        offset = _offset(said, stamp, at)
        if offset is None:
            return None
        offsets.add(offset)
        if not _MARKED.search(said):
            hours.append(int(clock.group("h")))
    if len(offsets) != 1:
        return None
    offset = offsets.pop()
    # Hours of 1 to 12 alone may be a 12-hour clock printed without its marker, twelve
    # hours off whichever way: taken only where the zone tally reads the board in agrees.
    if hours and all(1 <= h <= 12 for h in hours) and offset != at.astimezone(tz).utcoffset():
        return None
    return Printed(offset, tz)


def _offset(said: str, stamp: datetime, at: datetime) -> timedelta | None:
    """The offset at which ``stamp`` shows as ``said`` (to the minute), or None."""
    days = _DAYS_AGO.fullmatch(said)
    try:
        shown = parse_forum_time(f"2000-1-1 {days.group('rest')}" if days else said, UTC)
    except ParseError:
        return None
    if days is not None:
        # The offset modulo a day from the clock, then the day: 昨天 is the day before the
        # answer's own.
        wall = timedelta(hours=shown.hour, minutes=shown.minute)
        offset = (wall - timedelta(hours=stamp.hour, minutes=stamp.minute)) % timedelta(days=1)
        offset -= timedelta(days=1) if offset > timedelta(hours=14) else timedelta()
        back = timedelta(days=1 if days.group("day") == "昨天" else 2)
        if (stamp + offset).date() != (at + offset).date() - back:
            return None
    else:
        offset = shown - stamp.replace(second=0, microsecond=0)
    # Discuz!'s offsets are whole quarters of an hour, within a day either way.
    offset = timedelta(minutes=15 * round(offset / timedelta(minutes=15)))
    if abs(offset) > timedelta(hours=14):
        return None
    moved = stamp + offset
    return offset if (moved.hour, moved.minute) == (shown.hour, shown.minute) else None
