"""The bundled sample game, served from 127.0.0.1 so that `tally demo` runs the real path.

Its pages (real Discuz! X3.5 pages, gzipped) and its game file live inside the package and
are read with importlib.resources, so a wheel or pipx install runs the demo as a clone does.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources

from tally.demo.localforum import LocalForum
from tally.rules.game.game import Game
from tally.rules.game.gamefile import parse_game

# Which saved pages play which thread of the sample game: thread id -> (file stem, pages).
SAMPLE_THREADS = {"23": ("vote", 2), "24": ("talk", 7)}
_SAMPLE = resources.files("tally.demo") / "sample"


def sample_game_text(forum: str) -> str:
    """The sample game file, its threads on the forum whose root URL is ``forum``."""
    return (_SAMPLE / "game.toml").read_text(encoding="utf-8").replace("${FORUM}", forum)


def sample_page(stem: str, page: int) -> bytes:
    """One page of the sample threads, as the forum rendered it."""
    return gzip.decompress((_SAMPLE / f"{stem}-p{page}.html.gz").read_bytes())


@contextmanager
def sample_game() -> Iterator[tuple[Game, LocalForum]]:
    """Start the local forum with the sample threads and yield the game pointing at it."""
    with LocalForum() as forum:
        for tid, (stem, pages) in SAMPLE_THREADS.items():
            for page in range(1, pages + 1):
                forum.add_discuz_page(tid, page, sample_page(stem, page))
        yield parse_game(sample_game_text(forum.base), source="the sample game"), forum
