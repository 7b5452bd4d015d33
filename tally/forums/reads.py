"""What the reads of a thread found besides its pages, in their stored form (the thread's
cache folder holds them: ``tally.forums.cache.ThreadCache``): what each read read the thread
as (``roles.json``: by the game's day, each role and the posts first read under it), and the
runs of reads that found it closed (``closed.json``). Pure: the cache reads and writes the
files, these read their JSON and decide what a new read adds.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

# The roles of a day's threads that the cache keeps apart (``ThreadCache.roles``): the game
# file's names for them (tally.rules.verdicts.ThreadRole), and the posts a read found first
# in a thread that had just become its day's vote thread (posted in either).
VOTE = "vote"
DISCUSSION = "discussion"
UNSURE = "unsure"

# By the game's day, each role and the post ids first read under it.
Roles = dict[int, dict[str, frozenset[str]]]

# A run of reads that found a thread closed: first and last closed read, first open read after.
ClosedRun = tuple[datetime, datetime, datetime | None]


def roles_from(loaded: Any) -> Roles | None:
    """The roles ``roles.json`` holds, what has the wrong shape left out; None when it holds
    none (no read that knew the game's days kept any)."""
    if not isinstance(loaded, dict):
        return None
    found: Roles = {}
    for day, by_role in loaded.items():
        if not (isinstance(day, str) and day.isdecimal() and isinstance(by_role, dict)):
            continue
        found[int(day)] = {
            role: frozenset(i for i in ids if isinstance(i, str))
            for role, ids in by_role.items()
            if isinstance(role, str) and isinstance(ids, list)
        }
    return found


def with_read(
    before: Roles,
    roles: tuple[tuple[int, str], ...],
    new: frozenset[str],
    merged: frozenset[int],
    older: frozenset[str],
    talk: frozenset[int],
    mended: frozenset[int],
) -> dict[int, dict[str, set[str]]]:
    """The roles ``before`` with a read's: as ``ThreadCache.note_roles`` says."""

    # Read as another of the day's threads before: the new posts are unsure only if
    # some came in with a time before that read (a merge brings old posts; a game
    # file mended since, naming the thread's role rightly now, brings none).
    def switching(d: int) -> bool:  # read as another of its threads before
        return bool(before.get(d)) and bool(older) and d not in mended

    became_vote = {d for d, r in roles if r == VOTE and VOTE not in before.get(d, {})
                   and (d in merged or switching(d))}  # fmt: skip
    data = {d: {r: set(ids) for r, ids in by.items()} for d, by in before.items()}
    # The first read to find that day's vote thread merged into this one: what it
    # shows new may have been posted in either, whatever the thread is read as now
    # (the discussion thread, by a command run before the game file was mended).
    merged_now = {d for d in merged | talk if UNSURE not in before.get(d, {})}
    for day, role in roles:
        mine = data.setdefault(day, {})
        mine.setdefault(role, set())
        if day in became_vote or day in merged_now:
            mine.setdefault(UNSURE, set()).update(new)
        elif role == VOTE and day in talk and UNSURE in before.get(day, {}):
            # The day's vote thread, another of its threads merged into it: a post
            # that came in unseen may be one of that thread's tally never read.
            mine.setdefault(UNSURE, set()).update(new & older)
            mine[role].update(new - older)
        else:
            mine[role].update(new)
    return data


def first_roles(kept: Roles | None, pid: str) -> tuple[tuple[int, str], ...]:
    """The (day, role) pairs ``pid`` was first read under, as ``ThreadCache.roles`` kept them
    (``UNSURE`` where its read could not tell); () when none was kept."""
    if not kept:
        return ()
    return tuple(sorted((d, r) for d, by in kept.items() for r, ids in by.items() if pid in ids))


def closed_runs_from(loaded: Any) -> list[ClosedRun]:
    """The runs ``closed.json`` holds; a bare time (an earlier form) is one run."""
    if isinstance(loaded, str):
        loaded = [[loaded, loaded, None]]
    runs: list[ClosedRun] = []
    for run in loaded if isinstance(loaded, list) else ():
        try:
            first, last = datetime.fromisoformat(run[0]), datetime.fromisoformat(run[1])
            again = datetime.fromisoformat(run[2]) if len(run) > 2 and run[2] else None
        except (TypeError, ValueError, IndexError):
            continue
        if first.tzinfo is not None and last.tzinfo is not None:
            runs.append((first, last, again))
    return runs


def with_closed(runs: list[ClosedRun], closed: bool, read_at: datetime) -> list[ClosedRun] | None:
    """The runs with a read at ``read_at`` that found the thread ``closed`` (or open); None
    when the read changes none (closed within the last run, open between runs)."""
    if closed:
        if runs and runs[-1][2] is None and read_at >= runs[-1][1]:
            return [*runs[:-1], (runs[-1][0], read_at, None)]
        if not runs or runs[-1][2] is not None:
            return [*runs, (read_at, read_at, None)]
        return None
    if runs and runs[-1][2] is None and read_at > runs[-1][1]:
        return [*runs[:-1], (runs[-1][0], runs[-1][1], read_at)]
    return None
