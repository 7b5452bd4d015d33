"""tally: vote counting and bookkeeping for forum werewolf games (版杀).

The library works without the CLI. ``tally.commands`` holds what each command does, a
module per command (``votes.vote_day``, ``lurkers.lurkers``, ``announce.announce``, …);
``tally.rules.game.gamefile.load_game`` reads a game file; ``tally.forums.reader.Reader``
reads threads into ``tally.model.Thread``.
"""

__version__ = "0.1.0"
