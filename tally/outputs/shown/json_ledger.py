"""The card ledger in the JSON of `tally lurkers --json` (its ``ledger``): the cards this run
wrote, each player's totals, and the cards struck, in doubt, given again or waiting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tally.outputs.shown.ledger import game_path_of
from tally.rules.cards.ledger import Card, Doubt, LedgerView, commands


def card_json(c: Card) -> dict[str, Any]:
    """A card of the ledger: its day, player, colour, rule and reason."""
    return {
        "day": c.day,
        "player": c.player,
        "colour": c.colour,
        "rule": c.rule,
        "reason": c.reason,
    }


def ledger_json(view: LedgerView, cards: Sequence[Card]) -> dict[str, Any]:
    """The ledger as this run left it; ``cards``: the ones the check gives, of which those
    the director took back are listed as struck."""
    return {
        "path": str(view.path),
        "written": view.written,
        "new": [card_json(c) for c in view.new],
        "totals": {
            p: {"blue": t.blue, "yellow": t.yellow, "red": t.red}
            for p, t in sorted(view.totals.items())
        },
        "sent_off": list(view.sent_off),
        "camps_lost": view.camps_lost,
        "struck": [card_json(c) for c in cards if view.was_struck(c)],
        # tally's cards the check no longer gives (RULES K1, K2 rest on none of them
        # until the director removes or keeps each): the run exits 2.
        "doubt": [_doubt_json(d, view) for d in view.doubts],
        "holds_again": [
            {"day": c.day, "player": c.player, "colour": c.colour, "rule": c.rule}
            for c in view.back
        ],
        "waiting": [
            {"day": c.day, "player": c.player, "colour": c.colour, "reason": c.reason}
            for c in view.waiting
        ],
        "undecided": list(view.undecided),
    }


def _doubt_json(d: Doubt, view: LedgerView) -> dict[str, Any]:
    """A card in doubt, with why, what the check found now, and the two commands that
    settle it."""
    remove, keep = commands(d.card, game_path_of(view))
    return {**card_json(d.card), "why": d.why, "found_now": d.found, "remove": remove, "keep": keep}
