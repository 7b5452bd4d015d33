"""The 点评 a Discuz! page shows under a floor, from their markup: the thread page's and the
commentmore answer's are the same but for a class (``tally.forums.discuz.comments`` reads
those past the page's)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

from tally.forums.base import field_value, missing_field
from tally.forums.discuz.shown import exact_time, named_link
from tally.forums.htmltext import Node, font_flags, node_text
from tally.forums.timeparse import read_forum_time
from tally.i18n import tr
from tally.model import Comment

# The 下一页 link under a floor's 点评 when it holds more than the page shows.
MORE_COMMENTS = "a[onclick*='commentmore'], a[href*='commentmore']"


def page_comments(
    box: Node | None, pid: str, tz: tzinfo, where: str
) -> tuple[tuple[Comment, ...], bool]:
    """The 点评 the page shows under a post, and whether it shows only the newest of them:
    past the board's commentnumber (5 by default) the page links to the forum's commentmore
    script for the rest, and their ids are numbered again once all are read
    (``tally.forums.discuz.comments``)."""
    # Most posts have an empty 点评 box: no text in it means nothing to look for.
    if box is None or not box.text(deep=True).strip():
        return (), False
    cut = box.css_first(MORE_COMMENTS) is not None
    return numbered(comment_items(box.css("div.pstl"), tz, where), pid), cut


def comment_items(items: Sequence[Node], tz: tzinfo, where: str) -> list[CommentItem]:
    """Each 点评 of ``items`` (its ``div.pstl``), in the order shown (newest first): the
    thread page's and the commentmore answer's are the same markup but for a class."""
    found = []
    # What names a 点评 and its time, translated once for the list, filled for each.
    said, said_time = tr("{where}: a 点评", where=where), tr("{where}: 点评 time", where=where)
    text, time_field = tr("text"), tr("time")
    for item in items:
        if item.css_first("div.psta") is None and item.css_first("i.cmstarv") is not None:
            # The 点评观点 summary (each item's mean score as stars), which Discuz! writes as
            # the first div.pstl once anyone's 点评 carries scores: any member can send them,
            # whatever the board configured. No one wrote it.
            continue
        link = item.css_first("div.psta a.xi2") or item.css_first("div.psta a:last-child")
        if link is None or not link.text().strip():
            raise missing_field(said, tr("author"))
        name, uid = named_link(link)
        body = field_value(item.css_first("div.psti"), said, text)
        stamp = field_value(body.css_first("span.xg1"), said, time_field)
        raw = exact_time(stamp) or stamp.text()
        time, minutes = read_forum_time(raw, tz, what=said_time)
        stamp.decompose()
        red = font_flags(body)[0]
        found.append(CommentItem(name, uid, time, node_text(body), minutes, red))
    return found


@dataclass(frozen=True)
class CommentItem:
    author: str
    author_id: str | None
    time: datetime
    text: str
    to_the_minute: bool
    red_font: bool = False


def numbered(newest_first: Sequence[CommentItem], pid: str) -> tuple[Comment, ...]:
    """The forum lists 点评 newest first; they are numbered oldest first, so that ids stay
    put when more are added."""
    return tuple(
        Comment(
            comment_id=f"{pid}.{i}", author=c.author, author_id=c.author_id, time=c.time,
            text=c.text, to_the_minute=c.to_the_minute, red_font=c.red_font,
        )
        for i, c in enumerate(reversed(newest_first), start=1)
    )  # fmt: skip
