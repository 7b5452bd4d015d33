"""The card ledger's file: ``GAME.cards.csv`` beside the game file, read and written.

UTF-8 with a byte-order mark and CRLF (Excel opens it as it is), columns ``day, player,
colour, rule, reason, source``; written atomically. The director may edit it by hand, so
it is read strictly: a line that is not a card is one sentence naming the line.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

from tally.csvfile import restore, write_excel_csv
from tally.errors import GameFileError
from tally.rules.ledger import Card
from tally.rules.verdicts import Colour

COLUMNS = ("day", "player", "colour", "rule", "reason", "source")


def ledger_path(game_path: Path) -> Path:
    return game_path.with_name(game_path.stem + ".cards.csv")


def load(path: Path) -> list[Card]:
    """The ledger's cards; a missing ledger is an empty one."""
    if not path.exists():
        return []
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise GameFileError(f"{path}: the card ledger cannot be read ({exc}).") from None
    cards = []
    for n, raw in enumerate(csv.DictReader(io.StringIO(text)), start=2):
        # tally's own cells come back as written (a "-" name was written as "'-").
        row = {k: restore(v) if isinstance(v, str) else v for k, v in raw.items()}
        where = f"{path}, line {n}"
        try:
            day = int((row.get("day") or "").strip())
        except ValueError:
            raise GameFileError(f"{where}: day {row.get('day')!r} is not a number.") from None
        colour = (row.get("colour") or "").strip().lower()
        if colour not in tuple(Colour):
            raise GameFileError(f"{where}: colour {colour!r} is not blue, yellow or red.")
        player = (row.get("player") or "").strip()
        if not player:
            raise GameFileError(f"{where}: the card names no player.")
        cards.append(
            Card(
                day,
                player,
                Colour(colour),
                (row.get("rule") or "").strip(),
                (row.get("reason") or "").strip(),
                (row.get("source") or "director").strip() or "director",
            )
        )
    return cards


def save(path: Path, cards: Iterable[Card]) -> None:
    write_excel_csv(
        path,
        (
            {
                "day": c.day,
                "player": c.player,
                "colour": c.colour,
                "rule": c.rule,
                "reason": c.reason,
                "source": c.source,
            }
            for c in cards
        ),
        COLUMNS,
    )
