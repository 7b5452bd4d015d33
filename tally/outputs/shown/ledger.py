"""The lurker check and the card ledger as tables, for the director to read."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from tally.i18n import N_, tr
from tally.outputs.shown.console import cell, say, word
from tally.rules.cards.ledger import Card, LedgerView
from tally.times import short

if TYPE_CHECKING:
    from tally.rules.cards.lurkers import DayCheck


def print_lurkers(console: Console, result: DayCheck, view: LedgerView) -> None:
    """Players × days, the cards proposed, the flags, and the ledger."""
    day = result.day
    if day.accelerated:
        say(console, "\n" + tr("Lurker check for day {day} (accelerated: no lurking cards, S3)",
                               day=day.day))  # fmt: skip
    else:
        say(console, "\n" + tr("Lurker check for day {day}", day=day.day))
    if result.provisional:
        said = tr("PROVISIONAL: day {day} closes {closes}; these are the counts so far, and the "
                  "cards below are what they would give. Nothing is written.", day=day.day,
                  closes=short(day.closes))  # fmt: skip
        say(console, said, style="bold yellow")
    console.print(_posts_table(result))
    _print_day_cards(console, result, view)
    for line in doubt_lines(view):
        say(console, line, style="bold yellow")
    for flag in result.flags:
        # A flag of the day as a whole (S3) has no floor: "floor None" said nothing.
        if flag.thread_id and flag.floor is not None:
            say(console, tr("flag {rule}: thread {thread}, floor {floor}: {note}", rule=flag.rule,
                            thread=flag.thread_id, floor=flag.floor, note=flag.note))  # fmt: skip
        elif flag.thread_id:
            say(console, tr("flag {rule}: thread {thread}, {note}", rule=flag.rule,
                            thread=flag.thread_id, note=flag.note))  # fmt: skip
        elif flag.floor is not None:
            say(console, tr("flag {rule}: floor {floor}: {note}", rule=flag.rule,
                            floor=flag.floor, note=flag.note))  # fmt: skip
        else:
            say(console, tr("flag {rule}: {note}", rule=flag.rule, note=flag.note))
    _print_ledger(console, view)


def _posts_table(result: DayCheck) -> Table:
    """Each player's posts on each day checked, and whether they voted (✓, ✗, ? unknown)."""
    table = Table(title=tr("Posts (voted) per day"))
    table.add_column(tr("player"))
    numbers = sorted(result.days)
    for n in numbers:
        table.add_column(tr("day {day}", day=n), justify="right")
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
        say(console, tr("Cards for this day:"))
        new = {c.key for c in view.new}
        for c in result.cards:
            state = (
                tr("new") if c.key in new
                else tr("taken back by the director: not added") if view.was_struck(c)
                else tr("already in the ledger")
            )  # fmt: skip
            say(console, "  " + tr("{player}: {colour} card ({rule}) — {reason} [{state}]",
                                   player=c.player, colour=word(c.colour), rule=c.rule,
                                   reason=c.reason, state=state))  # fmt: skip
    else:
        say(console, tr("No cards for this day."))
    for c in view.new:
        if c.rule == "K1":
            say(console, f"  {c.player}: {c.reason}")


def _print_ledger(console: Console, view: LedgerView) -> None:
    """The ledger after the run: its totals, who is sent off, the camps lost, and where it
    was written (or why not)."""
    if view.totals:
        say(console, tr("Ledger totals (blue / yellow / red):"))
        for player, t in sorted(view.totals.items()):
            say(console, f"  {player}: {t.blue} / {t.yellow} / {t.red}")
    if view.sent_off:
        say(console, tr("Sent off (red card, K2): {players}", players="、".join(view.sent_off)))
    if view.undecided:
        say(console, tr("Sent off only if the cards in doubt hold (K2, not applied): {players}",
                        players="、".join(view.undecided)), style="bold yellow")  # fmt: skip
    for camp, players in view.camps_lost.items():
        say(console, tr("Camp {camp} has {n} red cards ({players}): it loses (K2)", camp=camp,
                        n=len(players), players="、".join(players)))  # fmt: skip
    if view.written:
        say(console, tr("Ledger written to {path}", path=view.path))
    elif not view.new:
        say(console, tr("Ledger unchanged: {path}", path=view.path))
    else:
        say(console, tr("Ledger not written (--no-write): {path}", path=view.path))


def doubt_lines(view: LedgerView) -> list[str]:
    """One line per card in doubt: which, why (the count now), and the two ways out; one per
    card given again, one per escalation that waits on them (K1)."""
    from tally.rules.cards.ledger import commands, named

    game_path = game_path_of(view)
    lines = []
    for d in view.doubts:
        remove, keep = commands(d.card, game_path)
        fields = dict(card=named(d.card), reason=d.card.reason, why=d.why, remove=remove,
                      keep=keep)  # fmt: skip
        if d.found and d.why:
            said = tr("IN DOUBT: {card} ({reason}) no longer holds: {why}; not counted until you "
                      "decide: `{remove}` to take it back, or `{keep}` to keep it as yours",
                      **fields)  # fmt: skip
        elif d.found:
            said = tr("IN DOUBT: {card} ({reason}) no longer holds; not counted until you "
                      "decide: `{remove}` to take it back, or `{keep}` to keep it as yours",
                      **fields)  # fmt: skip
        elif d.why:
            said = tr("IN DOUBT: {card} ({reason}) is still in doubt: {why}; not counted until "
                      "you decide: `{remove}` to take it back, or `{keep}` to keep it as yours",
                      **fields)  # fmt: skip
        else:
            said = tr("IN DOUBT: {card} ({reason}) is still in doubt; not counted until you "
                      "decide: `{remove}` to take it back, or `{keep}` to keep it as yours",
                      **fields)  # fmt: skip
        lines.append("  " + said)
    for c in view.back:
        lines.append("  " + tr("{card} holds again (the check gives it): no longer in doubt",
                               card=named(c)))  # fmt: skip
    for c in view.waiting:
        lines.append("  " + tr("{player}: {reason} waits on the cards in doubt (K1, not applied)",
                               player=c.player, reason=c.reason))  # fmt: skip
    return lines


def game_path_of(view: LedgerView) -> Path:
    """The game file beside the ledger (GAME.cards.csv is beside GAME.toml)."""
    name = view.path.name.removesuffix(".cards.csv")
    return view.path.with_name(name + ".toml")


# Who gave a card, as the ledger's file writes it (a value of the file) and as a director reads it.
_BY = {"tally": N_("tally"), "director": N_("director"), "struck": N_("struck"),
       "doubt": N_("in doubt")}  # fmt: skip


def print_cards(console: Console, cards: Sequence[Card]) -> None:
    """The ledger as a table, with each player's totals and who is sent off (K2)."""
    from tally.rules.cards.ledger import sent_off, totals

    if not cards:
        say(console, tr("No card."))
        return
    table = Table(title=tr("Cards"))
    for column in (tr("day"), tr("player"), tr("card"), tr("rule"), tr("reason"), tr("by")):
        table.add_column(column)
    for c in cards:
        table.add_row(str(c.day), cell(c.player), c.colour.label, cell(c.rule), cell(c.reason),
                      tr(_BY.get(c.source, c.source)))  # fmt: skip
    console.print(table)
    for player, t in sorted(totals(cards).items()):
        say(console, tr("{player}: {blue} blue, {yellow} yellow, {red} red", player=player,
                        blue=t.blue, yellow=t.yellow, red=t.red))  # fmt: skip
    gone = sent_off(cards)
    if gone:
        say(console, tr("Sent off (red card, K2): {players}", players="、".join(gone)))
