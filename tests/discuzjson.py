"""A generated test thread (tests/discuzgen.py) as Discuz! X3.5's mobile interface answers
it: ``viewthread``'s post list and ``viewcomment``'s pages, in the shapes of the real answers
(fixtures/discuz-api: a real X3.5's, read beside its HTML pages). What the interface does to
a post is done here too: its floor is its ``position`` (kept across a delete), its time the
exact ``dbdateline``, a quote a ``div.reply_wrap`` whose link is escaped twice, the edit mark
and ``[size]`` stripped (version 4 shows neither), a floor's five newest 点评 in ``comments``
and the rest through ``viewcomment``, five a page, each shown to the minute.

The 回复 N# header of Discuz! X3.4 and before (``P.reply``) is what X3.5's 回复 button makes of
it: a quote of the floor, which is how the interface shows a reply on an X3.5 board.
"""

from __future__ import annotations

import html
from datetime import datetime, timedelta, timezone
from typing import Any

from .discuzgen import Comment, P, Thread

CHINA = timezone(timedelta(hours=8))
SHOWN_COMMENTS = 5  # a floor shows its newest five; viewcomment serves five a page


def _when(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp).replace(tzinfo=CHINA)


def _shown(when: datetime, now: datetime | None = None) -> str:
    """A time as the interface's display strings show it: to the minute with 人性化时间 off
    (``now`` None); on, as a real X3.5 shows it to a reader at ``now`` (fixtures/discuz-api):
    counted back within the day ("刚刚", "6&nbsp;秒前", "1&nbsp;分钟前" for 60 to 119 seconds,
    "半小时前", "2&nbsp;小时前"), then "昨天&nbsp;08:16", "前天&nbsp;08:16", "3&nbsp;天前"."""
    if now is not None:
        now, when = now.astimezone(CHINA), when.astimezone(CHINA)
        ago = int((now - when).total_seconds())
        today = now.replace(hour=0, minute=0, second=0, microsecond=0)
        days = (today - when.replace(hour=0, minute=0, second=0, microsecond=0)).days
        if when >= today and ago >= 0:
            return ("刚刚" if ago == 0 else f"{ago}&nbsp;秒前" if ago <= 60
                    else f"{ago // 60}&nbsp;分钟前" if ago <= 1800 else "半小时前" if ago <= 3600
                    else f"{ago // 3600}&nbsp;小时前")  # fmt: skip
        if 1 <= days <= 2:
            return f"{'昨天' if days == 1 else '前天'}&nbsp;{when:%H:%M}"
        if 2 < days < 8:
            return f"{days}&nbsp;天前"
    return f"{when.year}-{when.month}-{when.day} {when:%H:%M}"


def positions(thread: Thread) -> list[int]:
    """Each floor's place in the database, which a delete leaves as it was: its post id's
    place where the id is the thread's own (a floor deleted before it leaves a hole), else
    the next after the floor before it (a post merged in from another thread). Once a page
    (the floors before each counted once, not again for every floor)."""
    at, placed = 0, []
    for n in range(1, len(thread.posts) + 1):
        own = thread.pid(n) - thread.first_pid
        at = own if 0 < own < 1000 and own > at else at + 1
        placed.append(at)
    return placed


def _lines(text: str) -> str:
    """The text as the thread's page shows it (& < > " escaped, lines broken)."""
    return "<br />\n".join(html.escape(line, quote=False).replace('"', "&quot;")
                            for line in text.split("\n"))  # fmt: skip


def _twice(shown: str) -> str:
    """The page's HTML as a real X3.5's interface answers it: every & escaped once more
    (A&B, A&amp;B on the page, is A&amp;amp;B; a link's href too)."""
    return shown.replace("&", "&amp;")


def message(thread: Thread, post: P, host: str, version: str = "4") -> str:
    """What the interface's ``message`` holds for ``post``: its HTML, quotes as reply_wrap;
    version 1 keeps the edit mark version 4 strips."""
    parts = []
    if post.edited and version == "1":
        by, at = post.edited
        parts.append(f'<i class="pstatus"> 本帖最后由 {by} 于 {_shown(_when(at))} 编辑 </i><br />\n'
                     "<br />\n")  # fmt: skip
    quoted = post.quote or post.reply
    if quoted:
        q = thread.posts[quoted - 1]
        link = (f"{host}forum.php?mod=redirect&amp;amp;goto=findpost&amp;amp;pid="
                f"{thread.pid(quoted)}&amp;amp;ptid={thread.tid}")  # fmt: skip
        parts.append(
            f'<div class="reply_wrap"><a href="{link}"><font color="#999999">{q.author} 发表于 '
            f"{_shown(_when(q.time))}</font></a><br />\n{_twice(_lines(q.text))}</div><br />\n"
        )
    body = _twice(post.html if post.html is not None else _lines(post.text))
    parts.append(f'<font color="Red">{body}</font>' if post.red else body)
    return "".join(parts)


def _comment(
    thread: Thread, floor: int, number: int, c: Comment, now: datetime | None
) -> dict[str, str]:
    return {
        "id": str(thread.pid(floor) * 100 + number), "tid": thread.tid,
        "pid": str(thread.pid(floor)), "author": c.author, "authorid": str(thread.uid(c.author)),
        "dateline": _shown(_when(c.time), now), "comment": html.escape(c.text, quote=False),
    }  # fmt: skip


def comments_of(thread: Thread, floor: int, now: datetime | None = None) -> list[dict[str, str]]:
    """A floor's 点评, newest first, as the interface lists them (to a reader at ``now`` on
    a board with 人性化时间 on)."""
    post = thread.posts[floor - 1]
    made = [_comment(thread, floor, n, c, now) for n, c in enumerate(post.comments, start=1)]
    return list(reversed(made))


def postlist(
    thread: Thread, page: int, ppp: int, host: str, version: str = "4",
    now: datetime | None = None,
) -> list[dict[str, str]]:  # fmt: skip
    """Page ``page`` of ``ppp`` posts, oldest first; past the end, the last page again."""
    floors = list(range(1, len(thread.posts) + 1))
    last = max(1, -(-len(floors) // ppp))
    page = min(page, last)
    out, placed = [], positions(thread)
    for floor in floors[(page - 1) * ppp : page * ppp]:
        post = thread.posts[floor - 1]
        when = _when(post.time)
        out.append({
            "pid": str(thread.pid(floor)), "tid": thread.tid, "first": "1" if floor == 1 else "0",
            "author": post.author, "authorid": str(thread.uid(post.author)),
            "dateline": _shown(when, now), "message": message(thread, post, host, version),
            "anonymous": "0", "attachment": "0", "status": "0", "replycredit": "0",
            "position": str(placed[floor - 1]), "username": post.author, "adminid": "0",
            "groupid": "10", "memberstatus": "0", "number": str(floor),
            "dbdateline": str(int(when.timestamp())),
        })  # fmt: skip
    return out


def variables(
    thread: Thread, page: int, ppp: int, host: str, version: str = "4",
    now: datetime | None = None,
) -> dict[str, Any]:  # fmt: skip
    """What a viewthread answer's ``Variables`` say of the thread and its page (the session's
    part aside), its times shown to a reader at ``now`` where 人性化时间 is on."""
    listed = postlist(thread, page, ppp, host, version, now)
    shown = {p["pid"]: p for p in listed}
    comments: dict[str, list[dict[str, str]]] = {}
    counts: dict[str, str] = {}
    for floor in range(1, len(thread.posts) + 1):
        pid = str(thread.pid(floor))
        every = comments_of(thread, floor, now)
        if pid in shown and every:
            comments[pid] = every[:SHOWN_COMMENTS]
            if len(every) > SHOWN_COMMENTS:
                counts[pid] = str(len(every))
    first = thread.posts[0] if thread.posts else None
    replies = max(0, len(thread.posts) - 1)
    notes = sum(len(p.comments) for p in thread.posts)
    return {
        "thread": {
            "tid": thread.tid, "subject": thread.title, "author": first.author if first else "",
            "authorid": str(thread.uid(first.author)) if first else "0",
            "replies": str(replies), "allreplies": str(replies + notes),
            "maxposition": str(positions(thread)[-1] if thread.posts else 0),
            "closed": "0", "status": "32",
        },
        "fid": "3",
        "postlist": listed,
        "comments": comments,
        "commentcount": counts,
        "ppp": str(ppp),
    }


def comment_page(
    thread: Thread, pid: str, page: int, now: datetime | None = None
) -> dict[str, Any]:
    """What a viewcomment answer's ``Variables`` say: five 点评 of floor ``pid``, newest
    first, and how many it has."""
    floor = next(f for f in range(1, len(thread.posts) + 1) if str(thread.pid(f)) == pid)
    every = comments_of(thread, floor, now)
    start = (page - 1) * SHOWN_COMMENTS
    return {"tid": thread.tid, "pid": pid, "count": str(len(every)),
            "comments": {pid: every[start : start + SHOWN_COMMENTS]}}  # fmt: skip
