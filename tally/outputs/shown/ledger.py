"""The lurker check and the card ledger as tables, for the director to read."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from tally.outputs.shown.console import cell, say
from tally.rules.cards.ledger import Card, LedgerView
from tally.times import short

if TYPE_CHECKING:
    from tally.rules.cards.lurkers import DayCheck


def print_lurkers(console: Console, result: DayCheck, view: LedgerView) -> None:
    """Players × days, the cards proposed, the flags, and the ledger."""
    day = result.day
    note = " (accelerated: no lurking cards, S3)" if day.accelerated else ""
    say(console, f"\nLurker check for day {day.day}{note}")
    if result.provisional:
        say(
            console,
            f"PROVISIONAL: day {day.day} closes {short(day.closes)}; these are the counts "
            "so far, and the cards below are what they would give. Nothing is written.",
            style="bold yellow",
        )
    console.print(_posts_table(result))
    _print_day_cards(console, result, view)
    for line in doubt_lines(view):
        say(console, line, style="bold yellow")
    for flag in result.flags:
        # A flag of the day as a whole (S3) has no floor: "floor None" said nothing.
        where = f"thread {flag.thread_id}, " if flag.thread_id else ""
        where += f"floor {flag.floor}: " if flag.floor is not None else ""
        say(console, f"flag {flag.rule}: {where}{flag.note}")
    _print_ledger(console, view)


def _posts_table(result: DayCheck) -> Table:
    """Each player's posts on each day checked, and whether they voted (✓, ✗, ? unknown)."""
    table = Table(title="Posts (voted) per day")
    table.add_column("player")
    numbers = sorted(result.days)
    for n in numbers:
        table.add_column(f"day {n}", justify="right")
    rows: dict[str, list[str]] = {}
    for n in numbers:
        for pd in result.days[n]:
            mark = {True: "✓", False: "✗", None: "?"}[pd.voted]
            rows.setdefault(pd.player, ["-"] * len(numbers))[numbers.index(n)] = (
                f"{pd.posts} {mark}"
            )
    for player, cells in rows.items():
        table.add_row(cell(player), *cells)
    return table


def _print_day_cards(console: Console, result: DayCheck, view: LedgerView) -> None:
    """The day's cards, each with where it stands in the ledger, and the K1 escalations."""
    if result.cards:
        say(console, "Cards for this day:")
        new = {c.key for c in view.new}
        for c in result.cards:
            state = (
                "new" if c.key in new
                else "taken back by the director: not added" if view.was_struck(c)
                else "already in the ledger"
            )  # fmt: skip
            say(console, f"  {c.player}: {c.colour} card ({c.rule}) — {c.reason} [{state}]")
    else:
        say(console, "No cards for this day.")
    for c in view.new:
        if c.rule == "K1":
            say(console, f"  {c.player}: {c.reason}")


def _print_ledger(console: Console, view: LedgerView) -> None:
    """The ledger after the run: its totals, who is sent off, the camps lost, and where it
    was written (or why not)."""
    if view.totals:
        say(console, "Ledger totals (blue / yellow / red):")
        for player, t in sorted(view.totals.items()):
            say(console, f"  {player}: {t.blue} / {t.yellow} / {t.red}")
    if view.sent_off:
        say(console, f"Sent off (red card, K2): {'、'.join(view.sent_off)}")
    if view.undecided:
        say(console, f"Sent off only if the cards in doubt hold (K2, not applied): "
                     f"{'、'.join(view.undecided)}", style="bold yellow")  # fmt: skip
    for camp, players in view.camps_lost.items():
        say(
            console,
            f"Camp {camp} has {len(players)} red cards ({'、'.join(players)}): it loses (K2)",
        )
    saved = (
        "written to"
        if view.written
        else "unchanged:"
        if not view.new
        else "not written (--no-write):"
    )
    say(console, f"Ledger {saved} {view.path}")


def doubt_lines(view: LedgerView) -> list[str]:
    """One line per card in doubt: which, why (the count now), and the two ways out; one per
    card given again, one per escalation that waits on them (K1)."""
    from tally.rules.cards.ledger import commands, named

    game_path = game_path_of(view)
    lines = []
    for d in view.doubts:
        remove, keep = commands(d.card, game_path)
        since = "no longer holds" if d.found else "is still in doubt"
        why = f": {d.why}" if d.why else ""
        lines.append(
            f"  IN DOUBT: {named(d.card)} ({d.card.reason}) {since}{why}; not counted until "
            f"you decide: `{remove}` to take it back, or `{keep}` to keep it as yours"
        )
    for c in view.back:
        lines.append(f"  {named(c)} holds again (the check gives it): no longer in doubt")
    for c in view.waiting:
        lines.append(f"  {c.player}: {c.reason} waits on the cards in doubt (K1, not applied)")
    return lines


def game_path_of(view: LedgerView) -> Path:
    """The game file beside the ledger (GAME.cards.csv is beside GAME.toml)."""
    name = view.path.name.removesuffix(".cards.csv")
    return view.path.with_name(name + ".toml")


def print_cards(console: Console, cards: Sequence[Card]) -> None:
    """The ledger as a table, with each player's totals and who is sent off (K2)."""
    from tally.rules.cards.ledger import sent_off, totals

    if not cards:
        say(console, "No card.")
        return
    table = Table(title="Cards")
    for column in ("day", "player", "card", "rule", "reason", "by"):
        table.add_column(column)
    for c in cards:
        table.add_row(str(c.day), cell(c.player), c.colour.label, cell(c.rule), cell(c.reason),
                      c.source)  # fmt: skip
    console.print(table)
    for player, t in sorted(totals(cards).items()):
        say(console, f"{player}: {t.blue} blue, {t.yellow} yellow, {t.red} red")
    gone = sent_off(cards)
    if gone:
        say(console, f"Sent off (red card, K2): {'、'.join(gone)}")
