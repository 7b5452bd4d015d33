"""The game file as the desk follows it through an evening: read again when it changed on
disk, so that a desk left open from morning to close counts with the file as it is now (a
day `tally day add` appended, a ruling typed in, a card `tally cards` or the desk gave, a
post `tally announce --post` made), with the same key and no restart.

What changed is known by the files' stat (inode, size, times): `tally day add`, the card
ledger and the journal of posts are written by rename (tally.atomic), an editor saves with
a new time; a look is a few ``stat`` calls, so every page and every stream may look.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from tally.errors import TallyError
from tally.rules.game import Game

# What a file was when last read: (inode, size, mtime, ctime) in ns, or None when absent.
Stamp = tuple[int, int, int, int] | None


@dataclass(frozen=True)
class Seen:
    """The game as the desk counts it now. ``version`` grows each time the file (or its
    ledger) says something else: a count taken with an older version is taken again.
    ``problem``: the file as it is now cannot be read (a save half-typed), its sentence;
    ``game`` is then the file as last read."""

    game: Game
    version: int = 0
    problem: str | None = None


class GameFile:
    """``now()``: the game file as it is now (read again only when it changed on disk)."""

    def __init__(self, game: Game) -> None:
        # The ledger is read where a count is taken (read_polls, Desk.call), so that a
        # ledger in doubt says so there; the file's game is kept without it.
        self._seen = Seen(dataclasses.replace(game, sent_off={}))
        self._lock = threading.Lock()
        self._paths = _beside(game.path) if game.path is not None else ()
        self._stamps = _stamps(self._paths)

    def now(self) -> Seen:
        if not self._paths:
            return self._seen
        with self._lock:
            stamps = _stamps(self._paths)
            if stamps == self._stamps:
                return self._seen
            ledger_changed = stamps[-1] != self._stamps[-1]
            self._stamps = stamps
            seen = self._seen
            try:
                game = _load(seen.game)
            except TallyError as exc:
                self._seen = dataclasses.replace(seen, problem=str(exc))
                return self._seen
            changed = game != seen.game or ledger_changed
            self._seen = Seen(game, seen.version + (1 if changed else 0), None)
            return self._seen


def _load(before: Game) -> Game:
    from tally.rules.gamefile import load_game

    assert before.path is not None
    # The zone the file was first read in, for a file that names none (the config's).
    return load_game(before.path, default_timezone=str(before.timezone))


def _beside(path: Path) -> tuple[Path, ...]:
    """The game file, its journal of posts (``Game.announced``) and its card ledger (last)."""
    from tally.journal import journal_path
    from tally.outputs.written.cardfile import ledger_path

    return (path, journal_path(path), ledger_path(path))


def _stamps(paths: tuple[Path, ...]) -> tuple[Stamp, ...]:
    return tuple(_stamp(p) for p in paths)


def _stamp(path: Path) -> Stamp:
    try:
        s = os.stat(path)
    except OSError:
        return None  # absent (no ledger yet), or unreadable: the read says which
    return (s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns)
