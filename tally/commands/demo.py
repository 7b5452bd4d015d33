"""`tally demo`: the sample game (``tally.demo``) read from its local forum, counted and
announced."""

from __future__ import annotations

from tally.demo import sample_game
from tally.environment import Environment
from tally.i18n import tr
from tally.outputs.shown.terminal import Terminal


def demo(env: Environment, show: Terminal) -> None:
    """`tally demo`: the sample game read from its local forum, counted and announced."""
    from tally.forums.reader import Reader, Reading
    from tally.outputs.shown.console import print_demo
    from tally.outputs.written.announce import closing_post
    from tally.rules.counting.votes import tally_day
    from tally.rules.verdicts import ThreadRole

    # A new local forum every time: nothing to cache.
    how = Reading(use_cache=False, warn=show.warn)
    with sample_game() as (game, forum), Reader(env, how) as reader:
        threads = reader.read(list(game.thread_urls()), game.timezone)
        [vote] = [t for t in threads if (game.locate(t.key) or (None, None))[1] is ThreadRole.VOTE]
        result = tally_day(vote, game)
        markup = reader.markup_for(result.day.vote_ref)
        print_demo(show.stdout(), game.name, forum.base, threads, result, markup)
        show.text(closing_post(result, game, markup))
        then = tr("Next: describe your own game with `tally init THREAD-URL… -o game.toml`, "
                  "then `tally votes VOTE-URL --game game.toml`.")
        show.text(f"\n{then}\n")
