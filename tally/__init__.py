"""tally: vote counting and bookkeeping for forum werewolf games (版杀).

The library works without the CLI. ``tally.workflows`` holds what each command does
(``vote_day``, ``lurker_day``, ``announcement``, ``archive``, ``read``);
``tally.rules.game.load_game`` reads a game file; ``tally.forums.fetch.read_threads``
reads threads into ``tally.model.Thread``.
"""

__version__ = "0.1.0"
