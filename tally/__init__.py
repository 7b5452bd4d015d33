"""tally: vote counting and bookkeeping for forum werewolf games (版杀).

The library works without the CLI: ``tally.game.load_game`` reads a game file,
``tally.fetch.read_thread`` fetches and parses a thread into ``tally.model.Thread``,
``tally.archive.write_csv`` writes posts to a CSV file.
"""

__version__ = "0.1.0"
