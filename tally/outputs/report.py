"""What a lurker check means for the ledger, and its JSON (shared CONTRACT.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tally.errors import InputError
from tally.rules import ledger
from tally.rules.game import Game
from tally.rules.ledger import Card, Totals
from tally.rules.lurkers import DayCheck


@dataclass(frozen=True)
class LedgerView:
    path: Path
    cards: tuple[Card, ...]  # the whole ledger after this run
    new: tuple[Card, ...]  # what this run added (escalations included)
    written: bool
    totals: dict[str, Totals]
    sent_off: tuple[str, ...]  # K2
    camps_lost: dict[str, list[str]]  # K2, seed 001


def record(game: Game, game_path: Path, result: DayCheck, *, write: bool) -> LedgerView:
    """Add the proposed cards to the ledger beside the game file (atomically, once).

    Cards rest on a whole day: for a day not yet closed nothing is written (InputError
    when ``write`` is asked for).
    """
    if write and result.provisional:
        raise InputError(
            f"day {result.day.day} closes at {result.day.closes:%m-%d %H:%M} and its threads "
            "were read before that: cards are written only for a closed day; pass --no-write "
            "to see the counts so far."
        )
    path = ledger.ledger_path(game_path)
    existing = ledger.load(path)
    cards, new = ledger.add(existing, result.cards)
    written = bool(write and new)
    if written:
        ledger.save(path, cards)
    # Without --write the view shows the ledger as it would be; nothing is saved.
    return LedgerView(
        path=path,
        cards=tuple(cards),
        new=tuple(new),
        written=written,
        totals=ledger.totals(cards),
        sent_off=tuple(ledger.sent_off(cards)),
        camps_lost=ledger.camps_lost(cards, game.camps, game.rules.camp_loss_reds),
    )


def lurkers_json(result: DayCheck, view: LedgerView) -> dict[str, Any]:
    return {
        "day": result.day.day,
        "provisional": result.provisional,
        "accelerated": result.day.accelerated,
        "players": [
            {
                "player": p.player,
                "posts": p.posts,
                "voted": p.voted,
                "first": p.first.isoformat(timespec="seconds") if p.first else None,
                "last": p.last.isoformat(timespec="seconds") if p.last else None,
            }
            for p in result.players
        ],
        "days": {
            str(n): [{"player": p.player, "posts": p.posts, "voted": p.voted} for p in players]
            for n, players in sorted(result.days.items())
        },
        "cards": [
            {"player": c.player, "colour": c.colour, "rule": c.rule, "reason": c.reason}
            for c in result.cards
        ],
        "flags": [
            {
                "player": f.player,
                "rule": f.rule,
                "floor": f.floor,
                "post_id": f.post_id,
                "note": f.note,
            }
            for f in result.flags
        ],
        "ledger": {
            "path": str(view.path),
            "written": view.written,
            "new": [
                {
                    "day": c.day,
                    "player": c.player,
                    "colour": c.colour,
                    "rule": c.rule,
                    "reason": c.reason,
                }
                for c in view.new
            ],
            "totals": {
                p: {"blue": t.blue, "yellow": t.yellow, "red": t.red}
                for p, t in sorted(view.totals.items())
            },
            "sent_off": list(view.sent_off),
            "camps_lost": view.camps_lost,
        },
    }
