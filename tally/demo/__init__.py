"""The bundled sample game, served from 127.0.0.1 so that `tally demo` runs the real path."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tally.demo.localforum import LocalForum
from tally.environment import Environment
from tally.errors import InputError
from tally.outputs.terminal import Terminal
from tally.rules.game import Game, parse_game

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# Which saved pages play which thread of the sample game.
SAMPLE_THREADS = {"23": "vote", "24": "talk"}


GAME_FILE = FIXTURES / "demo" / "game.toml"


def sample_game_text(forum: str) -> str:
    """The sample game file, its threads on the forum whose root URL is ``forum``."""
    if not GAME_FILE.is_file():
        raise InputError(
            f"the sample game is not at {GAME_FILE}; run tally demo from a checkout "
            "installed with pip install -e."
        )
    return GAME_FILE.read_text(encoding="utf-8").replace("${FORUM}", forum)


@contextmanager
def sample_game() -> Iterator[tuple[Game, LocalForum]]:
    """Start the local forum with the sample threads and yield the game pointing at it."""
    with LocalForum() as forum:
        for tid, stem in SAMPLE_THREADS.items():
            forum.add_discuz_thread(tid, FIXTURES / "discuz", stem)
        text = sample_game_text(forum.base)
        yield parse_game(text, source=str(GAME_FILE), path=GAME_FILE), forum


def run_demo(env: Environment, show: Terminal) -> None:
    """`tally demo`: the sample game read from its local forum, counted and announced."""
    from tally.outputs.announce import closing_post, format_for
    from tally.outputs.console import print_day, print_threads
    from tally.rules.votes import tally_day
    from tally.workflows import Reading, read

    with sample_game() as (game, forum):
        console = show.stdout()
        console.print(f"Sample game {game.name}, forum at {forum.base}", markup=False)
        # A new local forum every time: nothing to cache.
        how = Reading(use_cache=False, warn=show.warn, thread_read=show.thread_read)
        threads = read(list(game.thread_urls()), game.timezone, env=env, how=how)
        print_threads(console, threads)
        for thread in threads:
            if any(thread.url == d.vote for d in game.days):
                result = tally_day(thread, game)
                print_day(console, result)
                fmt = format_for(game, result.day)
                console.print(f"\nThe announcement to paste ({fmt}):\n", markup=False)
                show.text(closing_post(result, game, fmt))
