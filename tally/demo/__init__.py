"""The bundled sample game, served from 127.0.0.1 so that `tally demo` runs the real path."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tally.demo.localforum import LocalForum
from tally.errors import InputError
from tally.rules.game import Game, parse_game

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# Which saved pages play which thread of the sample game.
SAMPLE_THREADS = {"23": "vote", "24": "talk"}


@contextmanager
def sample_game() -> Iterator[tuple[Game, LocalForum]]:
    """Start the local forum with the sample threads and yield the game pointing at it."""
    game_file = FIXTURES / "demo" / "game.toml"
    if not game_file.is_file():
        raise InputError(
            f"the sample game is not at {game_file}; run tally demo from a checkout "
            "installed with pip install -e."
        )
    with LocalForum() as forum:
        for tid, stem in SAMPLE_THREADS.items():
            forum.add_discuz_thread(tid, FIXTURES / "discuz", stem)
        text = game_file.read_text(encoding="utf-8").replace("${FORUM}", forum.base)
        yield parse_game(text, source=str(game_file), path=game_file), forum
