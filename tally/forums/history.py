"""What a thread looked like when: every page tally read, kept as a version (the classes,
``Version`` and ``History``, are in tally.model beside the thread that holds them; this module
is their stored form).

A board changes a thread during the day (an edit, a delete, a 屏蔽), and keeps no history
of it. tally does: the pages each read takes from the forum are kept, as the posts it
parsed, in the thread's cache folder (``tally.forums.fetch.store_versions`` after the read,
through ``tally.forums.cache.ThreadCache.store_versions``), addressed by their content and
listed with the time and the id of the read. A read that finds a page as it was stores no
new file. ``ThreadCache.history`` reads them back, each listed version whose file is
missing or damaged as lost (``History.lost``). From the versions,
``tally.rules.judging.as_of.stood_at`` gives the thread as it stood at a moment (the close,
or ``--as-of``), ``seen_after`` each post as the first read after it showed it, and
``last_seen`` each post as tally last saw it (a post gone since is a deleted one).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from tally.model import Comment, Edit, Post, Quote

# -- the stored form -----------------------------------------------------------------------


def listing(page: int, digest: str, when: str, read: str) -> tuple[object, ...]:
    """A listing of ``history.json`` (the version of ``page`` stored as ``digest``, read
    ``when`` by the read ``read``): the read's id only where there is one (a listing without
    it is read as before ids were kept)."""
    return (page, digest, when, *((read,) if read else ()))


def listed_versions(loaded: Any) -> list[tuple[int, str, str, str]]:
    """The listings ``history.json`` holds, each as (page, digest, when, read id: "" where
    none was kept); one of the wrong shape is as if never kept."""
    if not isinstance(loaded, list):
        return []
    return [
        (e[0], e[1], e[2], e[3] if len(e) == 4 else "")
        for e in loaded
        if isinstance(e, list) and len(e) in (3, 4) and isinstance(e[0], int)
        and all(isinstance(x, str) for x in e[1:])
    ]  # fmt: skip


def page_data(posts: Iterable[Post]) -> bytes:
    """A page's posts as stored: canonical JSON, so that an unchanged page is the same bytes
    (and the same address) whenever it is read."""
    return json.dumps(
        [_post(p) for p in posts], ensure_ascii=False, sort_keys=True, separators=(",", ":")
    ).encode("utf-8")


@functools.lru_cache(maxsize=256)
def page_posts(data: bytes) -> tuple[Post, ...]:
    """The posts of a stored page; ValueError (or KeyError, TypeError) when it is damaged.

    Kept by the stored bytes themselves (a pure function of them; a failure is not kept):
    each run reads the whole history back, and the runs of one process (a script's
    commands, the tests) read the same versions again."""
    loaded = json.loads(data.decode("utf-8"))
    if not isinstance(loaded, list):
        raise ValueError("not a list of posts")
    return tuple(_unpost(d) for d in loaded)


def _post(p: Post) -> dict[str, Any]:
    # A time to the minute only where it is: a page kept before the mark keeps its bytes (and
    # its address), and reads back without it.
    minutes = {"to_the_minute": True} if p.to_the_minute else {}
    # What the read could not know (a post read through Discuz!'s mobile JSON), likewise.
    unknown = {"unknown": sorted(p.unknown)} if p.unknown else {}
    return minutes | unknown | {
        "platform": p.platform,
        "thread_id": p.thread_id,
        "post_id": p.post_id,
        "floor": p.floor,
        "author": p.author,
        "author_id": p.author_id,
        "time": p.time.isoformat(),
        "text": p.text,
        "quotes": [[q.text, q.post_id, q.author] for q in p.quotes],
        "reply_to": p.reply_to,
        "edited": [p.edited.by, p.edited.at.isoformat()] if p.edited else None,
        "comments": [
            [c.comment_id, c.author, c.author_id, c.time.isoformat(), c.text, c.author_display]
            # a 点评's time to the minute; then its red font (versions kept before: neither)
            + ([c.to_the_minute, True] if c.red_font else [True] if c.to_the_minute else [])
            for c in p.comments
        ],
        "red_font": p.red_font,
        "large_font": p.large_font,
        "hidden": p.hidden,
        "author_display": p.author_display,
        "page": p.page,
    }


def _uncomment(row: Sequence[Any]) -> Comment:
    i, a, uid, t, text, shown, *more = row  # versions kept before the minute flag: 6
    return Comment(str(i), str(a), _opt(uid), _time(t), str(text), _opt(shown),
                   to_the_minute=bool(more and more[0]),
                   red_font=bool(len(more) > 1 and more[1]))  # fmt: skip


def _unpost(d: Mapping[str, Any]) -> Post:
    edited = d["edited"]
    return Post(
        platform=str(d["platform"]),
        thread_id=str(d["thread_id"]),
        post_id=str(d["post_id"]),
        floor=int(d["floor"]),
        author=str(d["author"]),
        author_id=_opt(d["author_id"]),
        time=_time(d["time"]),
        text=str(d["text"]),
        quotes=tuple(Quote(str(t), _opt(pid), _opt(a)) for t, pid, a in d["quotes"]),
        reply_to=_opt(d["reply_to"]),
        edited=Edit(str(edited[0]), _time(edited[1])) if edited else None,
        comments=tuple(_uncomment(c) for c in d["comments"]),
        red_font=bool(d["red_font"]),
        large_font=bool(d["large_font"]),
        hidden=_opt(d["hidden"]),
        author_display=_opt(d["author_display"]),
        page=int(d["page"]),
        to_the_minute=bool(d.get("to_the_minute", False)),
        unknown=frozenset(str(u) for u in d.get("unknown", ())),
    )


def _opt(value: object) -> str | None:
    return None if value is None else str(value)


def _time(value: object) -> datetime:
    when = datetime.fromisoformat(str(value))
    if when.tzinfo is None:
        raise ValueError("a time without its zone")
    return when
