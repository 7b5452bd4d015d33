"""The thread as tally's reads show it at a moment: ``--as-of`` (a floor or a time,
``as_of_time``) is the thread as the reads by then show it (``thread_as_of``), read from the
history by ``stood_at`` and ``seen_after``, which the close's reading of the thread
(``tally.rules.judging.standing``) takes too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, time

from tally.errors import InputError
from tally.i18n import tr
from tally.model import History, Lost, Post, Thread, Version
from tally.rules.game.game import Day, Game
from tally.rules.verdicts import ThreadRole
from tally.times import compared, short, wall_time


def thread_as_of(thread: Thread, when: datetime) -> Thread:
    """The thread as tally's reads show it stood at ``when`` (``--as-of``): each page as the
    last read by then found it; a post made by then and first read after it, as first read."""
    history = thread.history
    first = first_read(history)
    if history is None or first is None:
        raise InputError(
            tr(
                "thread {thread} has no history in the cache (saved pages and archives have "
                "none): --as-of counts from the pages tally read from the forum.",
                thread=thread.thread_id,
            )
        )
    stood = stood_at(history, when)
    for pid, seen in seen_after(history, when).items():
        if pid not in stood and seen.post.time <= when:
            stood[pid] = seen
    if not stood:
        raise InputError(
            tr(
                "tally first read thread {thread} {first}, after {when}: nothing of it is known "
                "then.",
                thread=thread.thread_id,
                first=short(first.astimezone(when.tzinfo)),
                when=short(when),
            )
        )
    by_floor: dict[int, Seen] = {}
    for seen in sorted(stood.values(), key=lambda s: s.read_at):
        by_floor[seen.post.floor] = seen  # a floor numbered again: the newer read
    posts = tuple(s.post for s in sorted(by_floor.values(), key=lambda s: s.post.floor))
    floors = {p.floor for p in posts}
    # Known up to ``when`` only if tally read the thread at or after it: a moment past the
    # last read is counted as of that read (provisional when it is before the close).
    last = max(v.read_at for v in history.versions)
    return replace(
        thread,
        posts=posts,
        read_at=min(when, last),
        gaps=tuple(f for f in range(1, max(floors) + 1) if f not in floors),
        history=read_by(history, when),
    )


def floor_time(thread: Thread, floor: int) -> datetime:
    """When floor ``floor`` was posted (``--as-of FLOOR``), as last read."""
    for p in thread.posts:
        if p.floor == floor:
            return p.time
    seen = [s for s in last_seen(thread.history or History()).values() if s.post.floor == floor]
    if seen:
        return seen[-1].post.time
    raise InputError(tr("thread {thread} has no floor {floor}.", thread=thread.thread_id,
                        floor=floor))  # fmt: skip


def as_of_time(thread: Thread, given: str, game: Game, day: Day) -> datetime:
    """``--as-of``: a floor number (the moment it was posted), a date and time in the game's
    clock ("2026-12-01 20:30"), or a time alone on the day of the close ("20:30")."""
    wanted = as_of_given(given, game, day)
    return floor_time(thread, wanted) if isinstance(wanted, int) else wanted


# The most digits of a floor number: no thread holds ten million floors (tally reads at most
# 2,000 pages), and int() refuses a string of more than 4,300 digits with a ValueError.
_FLOOR_DIGITS = 7


def as_of_given(given: str, game: Game, day: Day) -> int | datetime:
    """What ``--as-of`` names, before any thread is read: a floor number, in ASCII digits
    (``٣`` and ``２`` are refused, not read as floors 3 and 2), or a moment in the game's clock
    (a time with an offset is moved to it: a sentence about it names one clock)."""
    text = given.strip()
    shown = repr(text)
    if len(text) > 40:
        shown = repr(text[:20] + "…") + tr(" ({n} characters)", n=format(len(text), ","))
    odd = sorted({c for c in text if not c.isascii() and c.isnumeric()})
    if odd:
        raise InputError(
            tr(
                "--as-of {given} holds {odd}, not a digit 0-9: type the floor number or the "
                "time in ASCII digits (12, or 2026-12-01 20:30).",
                given=shown,
                odd="、".join(odd),
            )
        )
    if text.isdigit():
        if len(text) > _FLOOR_DIGITS:
            raise InputError(tr("--as-of {given} is no thread's floor: a floor number has at "
                                "most {n} digits.", given=shown, n=_FLOOR_DIGITS))  # fmt: skip
        return int(text)
    try:
        if len(text) <= 8 and ":" in text:
            moment = datetime.combine(day.closes.date(), time.fromisoformat(text))
        else:
            moment = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(
            tr(
                "--as-of {given} is neither a floor number nor a time (2026-12-01 20:30, or "
                "20:30 on the day of the close).",
                given=shown,
            )
        ) from None
    if not 1990 <= moment.year <= 2200:
        raise InputError(tr("--as-of {given} is not a date of a forum game.", given=shown))
    if moment.tzinfo is None:
        return wall_time(
            moment, game.timezone, lambda why: InputError(tr("--as-of {why}.", why=why))
        )
    return moment.astimezone(game.timezone)


@dataclass(frozen=True)
class Seen:
    """A post as a version showed it, and when that version was read."""

    post: Post
    read_at: datetime


def first_read(history: History | None) -> datetime | None:
    return history.versions[0].read_at if history is not None and history.versions else None


def read_by(history: History, when: datetime) -> History:
    """The history as it was at ``when``: the versions read by then (and those lost)."""
    return History(tuple(v for v in history.versions if v.read_at <= when), history.capped,
                   tuple(v for v in history.lost if v.read_at <= when))  # fmt: skip


def lost_at(history: History | None, when: datetime) -> list[tuple[Lost, Version | None]]:
    """The versions lost (``History.lost``: listed, their files missing or damaged) that the
    thread as it stood at ``when`` would take: the newest read of a page by then
    (``stood_at``), or the first after it (``seen_after``: what a post deleted or changed
    since said); each with the version taken in its place (None: none). A lost version with
    a later read of its page by ``when`` (or an earlier one after it) changes nothing."""
    if history is None:
        return []
    found: dict[tuple[str, int, bool], tuple[Lost, Version | None]] = {}
    for lost in history.lost:
        by = lost.read_at <= when
        key = (lost.way, lost.page, by)
        mine = [v for v in history.versions
                if (v.way, v.page) == key[:2] and (v.read_at <= when) == by]  # fmt: skip
        # By ``when`` the newest read of the page stands, lost or not; after it the first.
        near = max if by else min
        instead = near(mine, key=lambda v: v.read_at, default=None)
        if instead is not None and near(instead.read_at, lost.read_at) == instead.read_at:
            continue
        was = found.get(key)
        if was is None or near(was[0].read_at, lost.read_at) == lost.read_at:
            found[key] = (lost, instead)
    return sorted(found.values(), key=lambda f: (f[0].page, f[0].read_at))


def lost_notes(thread: Thread, when: datetime) -> list[str]:
    """A sentence for each version lost that the count of ``thread`` as it stood at ``when``
    would take (``lost_at``): it counts without it, and could differ for that page."""
    return [note for _, note in lost_said(thread, when)]


def lost_said(thread: Thread, when: datetime) -> list[tuple[Lost, str]]:
    """``lost_notes``, each with the version lost it is said of (a check of several days,
    whose closes may take one version, says it once)."""
    notes = []
    for lost, instead in lost_at(thread.history, when):
        shown = compared(*(t.astimezone(when.tzinfo) for t in (
            lost.read_at, when, *((instead.read_at,) if instead else ()))))  # fmt: skip
        said = {"thread": thread.thread_id, "page": lost.page, "read": shown[0],
                "when": shown[1], "instead": shown[-1]}  # fmt: skip
        if lost.read_at <= when and instead is not None:
            note = tr("thread {thread}, page {page}: tally's read of it {read} is missing or "
                      "damaged in the cache, so the count takes the page as it stood at {when} "
                      "from its read {instead}, and could differ for it.", **said)  # fmt: skip
        elif lost.read_at <= when:
            note = tr("thread {thread}, page {page}: tally's read of it {read} is missing or "
                      "damaged in the cache and no earlier read of it can be read back, so "
                      "the count has no read of the page by {when}, and could differ for it.",
                      **said)  # fmt: skip
        elif instead is not None:
            note = tr("thread {thread}, page {page}: tally's read of it {read}, after {when}, is "
                      "missing or damaged in the cache, so the count takes the page after "
                      "{when} from its read {instead}: a post deleted or changed between the two "
                      "reads is not counted as it stood, and the count could differ for it.",
                      **said)  # fmt: skip
        else:
            note = tr("thread {thread}, page {page}: tally's read of it {read}, after {when}, is "
                      "missing or damaged in the cache and no later read of it can be read "
                      "back, so a post deleted or changed since is not counted as it stood, and "
                      "the count could differ for it.", **said)  # fmt: skip
        notes.append((lost, note))
    return notes


@dataclass(frozen=True)
class LostRead:
    """A version lost that a count of one of day ``day``'s threads takes (``lost_said``):
    the thread (its role that day, its id), the version, and the sentence that says it."""

    day: int
    role: ThreadRole
    thread: str
    lost: Lost
    note: str


def stood_at(history: History, when: datetime) -> dict[str, Seen]:
    """Each post as the thread stood at ``when``: the newest version of each page read by
    then, a post on two pages (floors that moved) taken from the newer read."""
    newest: dict[tuple[str, int], Version] = {}
    for v in history.versions:
        if v.read_at <= when:
            newest[v.way, v.page] = v
    return _by_post(newest.values())


def last_seen(history: History) -> dict[str, Seen]:
    """Each post tally ever read, as the newest version that held it showed it."""
    return _by_post(history.versions)


def seen_after(history: History, when: datetime) -> dict[str, Seen]:
    """Each post as the first version read after ``when`` showed it."""
    found: dict[str, Seen] = {}
    for v in history.versions:
        if v.read_at > when:
            for p in v.posts:
                found.setdefault(p.post_id, Seen(p, v.read_at))
    return found


def _by_post(versions: Iterable[Version]) -> dict[str, Seen]:
    found: dict[str, Seen] = {}
    for v in sorted(versions, key=lambda v: v.read_at):
        for p in v.posts:
            found[p.post_id] = Seen(p, v.read_at)
    return found
