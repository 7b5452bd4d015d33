"""`tally archive`: the threads' posts to a CSV file and/or a SQLite database."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo
from pathlib import Path

from tally.commands.checks import check_output, zone
from tally.commands.threads import closed_days
from tally.errors import InputError
from tally.forums.reader import Reader
from tally.i18n import N_, tr
from tally.outputs.results import Archived
from tally.rules.counting.votes import DayResult
from tally.rules.game.game import Game
from tally.settings import DEFAULT_ZONE


def archive(
    sources: Sequence[str] | None,
    output: Path | None,
    *,
    db: Path | None = None,
    game: Game | Path | None = None,
    timezone: str = DEFAULT_ZONE,
    reader: Reader,
) -> Archived:
    """`tally archive`: every post of the threads (and of the game's) to one CSV, and/or a
    SQLite database (with a game file: every closed day's ballots too)."""
    from tally.outputs.written.archive import write_csv
    from tally.rules.game.gamefile import load_game

    if output is None and db is None:
        output = Path("posts.csv")
    if output is not None:
        check_output(output, N_("CSV file"))
    if db is not None:
        check_output(db, N_("database"))
    wanted = list(sources or ())
    loaded = None
    if game is not None:
        if isinstance(game, Game):
            loaded = game
        else:  # as the CLI loads it: with who its card ledger sends off (K2)
            from tally.commands.run import with_ledger

            loaded = with_ledger(load_game(game, default_timezone=timezone))
        wanted.extend(loaded.thread_urls())
        tz: tzinfo = loaded.timezone
    else:
        tz = zone(timezone)
    if not wanted:
        raise InputError(tr("give at least one thread URL or saved page, or --game GAME.toml."))
    threads = reader.read(wanted, tz)
    partial = tuple(
        tr("thread {thread} is partial: {gap} missing", thread=t.thread_id, gap=gap)
        for t in threads
        for gap in t.missing
    )
    written = write_csv(threads, output) if output is not None else None
    database = None
    results: list[DayResult] = []
    if db is not None:
        from tally.outputs.written.database import write_db

        if loaded is not None:
            results = closed_days(loaded, threads)
        database = write_db(db, threads, game=loaded, results=results,
                            now=reader.now().astimezone(tz))  # fmt: skip
    days = tuple(r.day.day for r in results)
    return Archived(threads, output, written, db, database, days, partial)
