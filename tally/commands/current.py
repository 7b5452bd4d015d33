"""The game file and its card ledger as they stand now, for a run that lasts (`tally watch`,
the desk): a ruling, a sheriff, a dead player or a red card written while it runs is in the
next count, and above all in the result it posts (issue 49: the result posted at the close
was counted with the file as it was at the start)."""

from __future__ import annotations

import hashlib

from tally.errors import GameFileError
from tally.files import SMALL, read_own
from tally.i18n import tr
from tally.rules.game.game import Game


class GameFileNow(GameFileError):
    """The game file or its ledger could not be read at a poll: no count is taken without
    them, and the director can mend them while the run goes on."""


class Current:
    """``Current(game).now()``: the game as its file and ledger are now, and a sentence when
    the file changed since the last look."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._seen = _digest(game)

    def now(self) -> tuple[Game, str | None]:
        from tally.commands.run import with_ledger
        from tally.rules.game.gamefile import load_game

        game, said = self.game, None
        seen = _digest(game)
        try:
            if seen != self._seen and game.path is not None:
                game = load_game(game.path, default_timezone=game.timezone.key)
                said = tr("the game file {path} changed since the last count: counted with it "
                          "as it is now", path=game.path)
            carded = with_ledger(game)
        except GameFileError as exc:
            raise GameFileNow(str(exc)) from None
        self._seen, self.game = seen, carded
        return carded, said


def _digest(game: Game) -> str | None:
    """The file's bytes, hashed (None for a game with no file, or one not there to read)."""
    if game.path is None:
        return None
    data = read_own(game.path, SMALL)
    return hashlib.sha256(data).hexdigest() if data is not None else None
