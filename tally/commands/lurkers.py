"""`tally lurkers`: posts per player per day, the cards they earn, and the ledger with them."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tally.commands.threads import day_threads
from tally.errors import InputError
from tally.forums.reader import Reader
from tally.i18n import tr
from tally.outputs.results import Lurked
from tally.outputs.written import cardfile
from tally.rules.cards.ledger import Card, LedgerView, sent_off_days
from tally.rules.cards.lurkers import DayCheck, check, history
from tally.rules.cards.writings import DayThreads
from tally.rules.game.game import Game
from tally.times import short


def lurkers(
    game: Game,
    *,
    day: int | None = None,
    write: bool = True,
    reader: Reader,
    late_ok: bool = False,
) -> Lurked:
    """`tally lurkers`: posts per player up to ``day`` (default: the last closed), the cards
    of that day, and the ledger with them (written unless ``write`` is False)."""
    if game.path is None:
        raise InputError(tr("the lurker check keeps its ledger beside the game file; load one."))
    number = day if day is not None else game.last_closed(reader.now()).day
    if game.day(number).discussion is None:
        raise InputError(
            tr("day {day} has no discussion thread in {where}; posts cannot be counted.",
               day=number, where=game.where())
        )
    read = day_threads(game, reader, decides=number)
    days = history(game, number, read)
    result = check(game, days, number, late_ok=late_ok)
    given = again(game, days, number, result, warn=reader.how.warn)
    view = record(game, game.path, result, write=write, given=given)
    off = sent_off_days(view.cards)
    if any(p not in game.sent_off for p in off):
        # A red this check made sends its player off at the close (K2): their posts after
        # it are 诈尸 (L5) in this run's flags, not only in the next run's.
        result = check(dataclasses.replace(game, sent_off=off), days, number, late_ok=late_ok)
    return Lurked(result, view)


def again(
    game: Game, days: Sequence[DayThreads], number: int, result: DayCheck, *,
    warn: Callable[[str], None] | None = None,
) -> dict[int, tuple[Card, ...]]:
    """The check run again on every closed day it read (the threads read once): the cards
    it gives each day now. A day before is checked with its late ballots let through: its
    cards were written by a check the director let through (--late-ok; a day that stopped on
    them has none), and a stop there hid cards in doubt (a red sent a player off, exit 0). A
    day it cannot check again for another stop is said, and left out: its cards stand."""
    checks = {number: result}
    for t in days:
        k = t.day.day
        if k >= number or t.discussion is None:
            continue
        try:
            checks[k] = check(game, [d for d in days if d.day.day <= k], k, late_ok=True)
        except InputError as exc:
            if warn is not None:
                warn(tr("day {day}'s cards were not checked again ({reason}); they stand as "
                        "written.", day=k, reason=exc))
            continue
    return {k: c.cards for k, c in checks.items() if not c.provisional}


_WAS = re.compile(r"发言(\d+)条")


def why(card: Card, result: DayCheck) -> str:
    """What the count says now, for a card of tally's it no longer gives."""
    counts = {pd.player: pd for pd in result.days.get(card.day, ())}
    pd = counts.get(card.player)
    if card.day not in result.days:
        return tr("day {day} was not checked again by this run", day=card.day)
    if pd is None:
        return tr("{player} is not among the living checked on day {day} now",
                  player=card.player, day=card.day)
    if card.rule == "L1":
        was = _WAS.search(card.reason)
        if was is not None and pd.posts > int(was.group(1)):
            return tr("{posts} posts on day {day} now ({more} more than when the card was "
                      "written: approved, restored or merged in since)", posts=pd.posts,
                      day=card.day, more=pd.posts - int(was.group(1)))  # fmt: skip
        return tr("{posts} posts on day {day} now", posts=pd.posts, day=card.day)
    if card.rule == "L3":
        if pd.voted:
            return tr("a counted ballot on day {day} now", day=card.day)
        return tr("no vote to miss on day {day} now", day=card.day)
    if card.rule == "L2":
        posts = [
            tr("day {day} {posts}", day=n,
               posts=next((p.posts for p in ps if p.player == card.player), 0))
            for n, ps in sorted(result.days.items())
            if n <= card.day
        ]
        return tr("posts now: {posts}", posts=tr(", ").join(posts))
    return tr("the check of day {day} no longer gives it", day=card.day)


def record(
    game: Game,
    game_path: Path,
    result: DayCheck,
    *,
    write: bool,
    given: Mapping[int, Sequence[Card]] | None = None,
) -> LedgerView:
    """Add the proposed cards to the ledger beside the game file (atomically, once); with
    ``given`` (the cards the check gives each day it ran on again, ``again``), tally's cards
    of those days it no longer gives go in doubt (``ledger.reviewed``), and those in doubt it
    gives again are tally's again.

    Cards rest on a whole day: for a day not yet closed nothing is written (InputError
    when ``write`` is asked for).
    """
    from tally.rules.cards import ledger

    if write and result.provisional:
        raise InputError(
            tr("day {day} closes at {close} and its threads "
               "were read before that: cards are written only for a closed day; pass --no-write "
               "to see the counts so far.", day=result.day.day, close=short(result.day.closes))
        )
    path = cardfile.ledger_path(game_path)
    with cardfile.editing(path):
        before = cardfile.load(path)
        cards, doubted, back = ledger.reviewed(before, given or {})
        cards, new = ledger.add(cards, result.cards)
        written = bool(write and cards != before)
        if written:
            cardfile.save(path, cards)
    # Without --write the view shows the ledger as it would be; nothing is saved.
    said = {c.same: why(c, result) for c in cards if c.in_doubt}
    return ledger.view(path, cards, game, new=new, written=written, why=said, found=doubted,
                       back=back)  # fmt: skip
