"""A run's setup, the same for every command: the settings merged (the command line, the game
file, the config file, tally's default; ``tally.settings``), the game loaded in the zone
they name with who its card ledger sends off (K2), and the politeness they set put into the
environment."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tally import settings as config
from tally.environment import Environment

if TYPE_CHECKING:
    from tally.rules.game.game import Game


@dataclass(frozen=True)
class Run:
    """What a command runs with: its game (None for a command about no game file), the
    settings as merged, the environment with their politeness."""

    game: Game | None
    settings: config.Settings
    env: Environment


def setup(
    given: Mapping[str, Any], game_path: Path | None, env: Environment, *, doubt_ok: bool = False
) -> Run:
    """The run of a command line: ``given`` its options (those that are settings are merged
    with the game file's and the config file's), ``game_path`` the game file, if any;
    ``doubt_ok`` for the commands that say or settle a card in doubt (``with_ledger``)."""
    typed = {k: v for k, v in given.items() if k in config.NAMES and v is not None}
    found = env.config_file()
    own = found, config.load_config(found)
    game = None
    if game_path is not None:
        from tally.rules.game.gamefile import load_game

        zone = config.merge(typed, config=own)["timezone"]  # for a file that names none
        game = with_ledger(load_game(game_path, default_timezone=zone), doubt_ok=doubt_ok)
    chosen = config.merge(typed, game.settings if game else None, f"game file {game_path}",
                          config=own, environ=env.environ)  # fmt: skip
    if chosen.given("politeness"):
        env = dataclasses.replace(env, http=dataclasses.replace(
            env.http, host_delay=chosen["politeness"]))  # fmt: skip
    return Run(game, chosen, env)


def with_ledger(game: Game, *, doubt_ok: bool = False) -> Game:
    """The game with who its card ledger sends off (K2: a red card), each by the day from
    whose end they are out (``tally.rules.cards.ledger.sent_off_days``;
    ``tally.rules.counting.state``).

    A send-off that rests on a card in doubt (tally's, the check no longer gives it) stops
    (GameFileError, one sentence naming it and the two commands) unless ``doubt_ok`` (`tally
    lurkers`, which says it, and `tally cards`, which settles it): counting the player in
    or out would be tally's call, not the director's."""
    if game.path is None:
        return game
    from tally.errors import GameFileError
    from tally.outputs.written import cardfile
    from tally.rules.cards.ledger import sent_off_days, undecided_sentence

    path = cardfile.ledger_path(game.path)
    cards = cardfile.load(path)
    stop = None if doubt_ok else undecided_sentence(cards, path, game.path)
    if stop is not None:
        raise GameFileError(stop)
    off = sent_off_days(cards)
    return dataclasses.replace(game, sent_off=off)
