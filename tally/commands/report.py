"""`tally report`: the game so far as one self-contained HTML page."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from tally.commands.checks import check_output
from tally.commands.threads import closed_days, day_threads
from tally.errors import InputError
from tally.forums.reader import Reader
from tally.i18n import N_, tr
from tally.model import Thread, ThreadKey
from tally.outputs.results import Reported
from tally.outputs.written import cardfile
from tally.rules.cards.lurkers import acceleration_of, check, history
from tally.rules.cards.writings import DayThreads
from tally.rules.counting.acceleration import Acceleration
from tally.rules.counting.votes import DayResult
from tally.rules.game.game import Game
from tally.rules.judging.as_of import LostRead, as_of_time, lost_said, thread_as_of
from tally.rules.verdicts import ThreadRole


def report(
    game: Game,
    output: Path,
    *,
    reader: Reader,
    late_ok: bool = False,
    template_dir: Path | None = None,
    as_of: str | None = None,
) -> Reported:
    """`tally report`: the game so far as one self-contained HTML page (written atomically).

    Each thread is read once; a day's threads read at or after its close trust no page
    cached before it, as `tally votes` does. With ``as_of`` (a date and time), the days
    closed by then, each vote thread as tally's reads show it stood then.
    """
    from tally.atomic import write_atomic
    from tally.outputs.written.report import check_template, render_report

    check_output(output, N_("report"))
    check_template(template_dir)  # before the pages are read
    now = reader.now()
    threads = day_threads(game, reader)
    moment = _moment(game, as_of)
    closed = game.closed(moment or now)
    votes_read = [t for d in closed for t in threads([d.vote], d)]
    if moment is not None:
        votes_read = [thread_as_of(t, moment) for t in votes_read]
    results = closed_days(game, votes_read, late_ok=late_ok)
    talked = [d.day for d in closed if d.discussion is not None]
    posts = {}
    read: list[DayThreads] = []
    if talked:
        read = history(game, max(talked), threads)
        # --late-ok as the day results take it: a last day with late ballots stopped here.
        checked = check(game, read, max(talked), late_ok=late_ok)
        posts = {n: counts for n, counts in checked.days.items() if n in talked}
    lost = lost_reads(results, votes_read, [t for t in read if t.day.day in posts])
    # The ledger's cards that count, and those in doubt (shown so: the director decides).
    kept = cardfile.load(cardfile.ledger_path(game.path)) if game.path is not None else []
    cards = [c for c in kept if not c.struck]
    drawn = {r.day.day for r in results}
    pending = tuple(d.day for d in game.days if d.day not in drawn)
    disagree = requests_said(game, results, read)
    page = render_report(game, results, posts, cards, pending=pending,
                         generated=now.astimezone(game.timezone), lost=lost, requests=disagree,
                         template_dir=template_dir)  # fmt: skip
    data = page.encode("utf-8")
    write_atomic(output, data)
    # What `tally votes` says of each day besides its count (its notices: replies hidden from
    # the players, lost reads of the vote thread; its requests against the game file), then
    # the lost reads of the posts' threads.
    said = tuple(dict.fromkeys([*(w for r in results for w in r.warnings),
                                *(w for a in disagree.values() if (w := a.warning)),
                                *(r.note for r in lost)]))  # fmt: skip
    return Reported(output, tuple(sorted(drawn)), pending, len(data), warnings=said)


def _moment(game: Game, as_of: str | None) -> datetime | None:
    """The moment ``--as-of`` names, in the game's zone; None without it. A report counts
    every day at one moment: a date and time, never a floor or a day's word."""
    if as_of is None:
        return None
    if ":" not in as_of or "-" not in as_of:
        raise InputError(tr("--as-of {as_of!r}: the report takes a date and time "
                            "(2026-12-01 20:30), the moment every day is counted at.",
                            as_of=as_of))  # fmt: skip
    return as_of_time(Thread("", "", "", "", 0, ()), as_of, game, game.days[0])


def requests_said(
    game: Game, results: Sequence[DayResult], read: Sequence[DayThreads]
) -> dict[int, Acceleration]:
    """S3: each day's acceleration requests that disagree with the game file (what `tally
    votes` says of them: ``Acceleration.warning``), for each day drawn whose threads the
    report read (every day up to the last whose posts it counts), each day as its count
    stands (who is out by then): the report's counts take no requests, and would say none."""
    by_day = {t.day.day: t for t in read}
    said = {}
    for r in results:
        t = by_day.get(r.day.day)
        asked = acceleration_of(game, dataclasses.replace(t, day=r.day)) if t else None
        if asked is not None and asked.warning:
            said[r.day.day] = asked
    return said


def lost_reads(
    results: Sequence[DayResult], votes: Sequence[Thread], talked: Sequence[DayThreads]
) -> list[LostRead]:
    """The versions of the history lost that the page's counts take (``lost_said``): each
    day's vote thread as it stood at the close, and the threads of each day whose posts it
    counts (``count_day``: the discussion and the sheriff's thread; the progress thread's
    posts are no count of the page); a version two of them take (one thread for two days)
    once, in the words of the first. Said as the run's warnings, and on the page by the
    count they touch."""
    by_key = {t.key: t for t in votes}
    taken = [(r.day, ThreadRole.VOTE, by_key.get(r.day.vote_ref.key)) for r in results]
    taken += [(t.day, role, thread) for t in talked for role, thread in (
        (ThreadRole.DISCUSSION, t.discussion), (ThreadRole.SHERIFF, t.sheriff))]  # fmt: skip
    found: dict[tuple[ThreadKey, str, int, datetime], LostRead] = {}
    for day, role, thread in taken:
        if thread is None:
            continue
        for version, note in lost_said(thread, day.closes):
            found.setdefault((thread.key, version.way, version.page, version.read_at),
                             LostRead(day.day, role, thread.thread_id, version, note))  # fmt: skip
    return list(found.values())
