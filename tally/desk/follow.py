"""The game file as the desk follows it through an evening: read again when it changed on
disk, so that a desk left open from morning to close counts with the file as it is now (a
day `tally day add` appended, a ruling typed in, a card `tally cards` or the desk gave, a
post `tally announce --post` made), with the same key and no restart.

What changed is known by the files' stat (inode, size, times): `tally day add`, the card
ledger and the journal of posts are written by rename (tally.atomic), an editor saves with
a new time; a look is a few ``stat`` calls, so every page and every stream may look.

Not every change is counted again: the journal of posts says what tally posted (the Post
page reads it), which changes no count, and the card ledger changes a count only where it
changes who a red card sends off (K2), from the day after the card's: a yellow card, or a
red for day 2, leaves the threads of day 2 and before unread.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tally.errors import TallyError, clause
from tally.i18n import tr
from tally.rules.game.game import Game

# What a file was when last read: (inode, size, mtime, ctime) in ns, or None when absent.
Stamp = tuple[int, int, int, int] | None


# Who the card ledger sends off (K2), each with the day of the red card that does it; or the
# sentence why the ledger cannot be read now (a count stops on it: tally.commands.run).
SentOff = Mapping[str, int] | str


@dataclass(frozen=True)
class Seen:
    """The game as the desk counts it now. ``version`` grows each time the game file says
    something else (its journal of posts aside): a count taken with an older version is
    taken again. ``sent_off``: the card ledger's send-offs as they are now (``before``).
    ``problem``: the file as it is now cannot be read (a save half-typed), its sentence;
    ``game`` is then the file as last read."""

    game: Game
    version: int = 0
    problem: str | None = None
    sent_off: SentOff = field(default_factory=dict)

    def before(self, day: int) -> SentOff:
        """The send-offs a count of ``day`` rests on: a red card for an earlier day (a card
        for the day itself sends its player off from the next)."""
        if isinstance(self.sent_off, str):
            return self.sent_off
        return {p: carded for p, carded in self.sent_off.items() if carded < day}


class GameFile:
    """``now()``: the game file as it is now (read again only when it changed on disk)."""

    def __init__(self, game: Game) -> None:
        # The ledger is read where a count is taken (read_polls, Desk.call), so that a
        # ledger in doubt says so there; the file's game is kept without it.
        bare = dataclasses.replace(game, sent_off={})
        self._seen = Seen(bare, sent_off=_sent_off(bare))
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
            self._stamps = stamps
            seen = self._seen
            try:
                game = _load(seen.game)
            except TallyError as exc:
                self._seen = dataclasses.replace(seen, problem=str(exc))
                return self._seen
            changed = _file_says(game) != _file_says(seen.game)
            self._seen = Seen(game, seen.version + changed, None, _sent_off(game))
            return self._seen


def _file_says(game: Game) -> Game:
    """The game as its file says it, without what the journal of posts adds (what tally
    posted, and the ids of its posts: never ballots, with or without it, by tally's mark)."""
    return dataclasses.replace(game, announced={}, own_posts=frozenset())


def _sent_off(game: Game) -> SentOff:
    from tally.commands.run import with_ledger

    try:
        return with_ledger(game).sent_off
    except TallyError as exc:
        return str(exc)


def sent_off_news(before: SentOff, now: SentOff) -> str:
    """What a change of the card ledger changed for a day's count, in plain sentences: who
    a red card sends off now (K2), or no longer."""
    if isinstance(now, str):
        return tr("The card ledger changed and cannot be read as it is: {why}.",
                  why=clause(now))  # fmt: skip
    if isinstance(before, str):
        before = {}
    said = []
    for player in sorted(p for p in {*before, *now} if before.get(p) != now.get(p)):
        if player not in now:
            said.append(tr("{player} is no longer sent off (the red card was taken back)",
                           player=player))  # fmt: skip
        else:
            said.append(tr("{player} is sent off by a red card for day {day} (K2), out from "
                           "day {out}", player=player, day=now[player], out=now[player] + 1))
    # TRANSLATORS: between the sentences of what the card ledger changed.
    return tr("The card ledger changed: {changes}.", changes=tr("; ").join(said))


def _load(before: Game) -> Game:
    from tally.rules.game.gamefile import load_game

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
