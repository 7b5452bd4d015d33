"""The `tally` command. Each command parses options, calls the library, prints.

Errors from the library (``TallyError``) are caught here and only here: one sentence on
standard error and the error's exit code. Heavy modules are imported inside the commands
so that ``tally --help`` stays quick.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tally.environment import Environment
from tally.errors import InputError, TallyError

if TYPE_CHECKING:
    from rich.console import Console

    from tally.forums.fetch import Progress
    from tally.model import Thread
    from tally.rules.game import Day

app = typer.Typer(
    help="Count votes, check lurkers and write announcements for forum werewolf games (版杀).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no page summary.")]
Format = Annotated[
    str | None,
    typer.Option(
        "--format", help="bbcode (Discuz!) or text (Tieba) [default: by the game's forum]."
    ),
]
Fresh = Annotated[
    bool, typer.Option("--fresh", help="Ignore cached pages: fetch every page again.")
]
CacheDir = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir", help="Where pages are kept between runs [default: $XDG_CACHE_HOME/tally]."
    ),
]
Cookies = Annotated[
    Path | None,
    typer.Option(
        "--cookies", help="A Netscape cookie file (browser export) for boards closed to guests."
    ),
]


@dataclass(frozen=True)
class _Fetching:
    quiet: bool = False
    fresh: bool = False
    cache_dir: Path | None = None
    cookies: Path | None = None
    use_cache: bool = True
    partial: bool = False


def _stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def _stdout() -> Console:
    from rich.console import Console

    return Console(highlight=False)


@contextmanager
def _reported() -> Iterator[None]:
    """Turn tally's own errors into one sentence and an exit code."""
    try:
        yield
    except TallyError as exc:
        from tally.outputs.console import say

        # The sentence may quote what a forum user wrote (an author, a title): sanitised.
        say(_stderr(), f"tally: {exc}")
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt:
        _stderr().print("tally: interrupted; nothing was written.", markup=False)
        raise typer.Exit(130) from None


@contextmanager
def _progress(quiet: bool) -> Iterator[Progress | None]:
    """A progress bar on standard error while pages are fetched; none off a terminal."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(
        TextColumn("fetching pages"),
        BarColumn(),
        MofNCompleteColumn(),
        console=_stderr(),
        transient=True,
    ) as bar:
        task = bar.add_task("pages", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _env(ctx: typer.Context) -> Environment:
    """The environment a test handed in (``obj=``), or the real one."""
    return ctx.obj if isinstance(ctx.obj, Environment) else Environment()


def _warn(message: str) -> None:
    from tally.outputs.console import say

    say(_stderr(), f"tally: warning: {message}")


def _print_json(data: object) -> None:
    import json

    from tally.sanitise import json_text

    typer.echo(json_text(json.dumps(data, ensure_ascii=False, indent=2)))


def _trusted_after(day: Day | None, now: datetime) -> datetime | None:
    """At or after a day's close, no page cached before the close may decide it."""
    if day is None:
        return None
    return day.closes if now >= day.closes else None


def _read(
    sources: list[str],
    timezone: str,
    how: _Fetching,
    env: Environment,
    not_before: datetime | None = None,
) -> list[Thread]:
    import dataclasses
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from tally.forums.cache import default_cache_dir
    from tally.forums.fetch import FetchOptions, read_threads, summary
    from tally.forums.http import HttpOptions

    try:
        tz = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise InputError(f"{timezone!r} is not a time zone name like Asia/Shanghai.") from None
    options = FetchOptions(
        http=dataclasses.replace(env.http or HttpOptions(), cookies=how.cookies),
        cache_dir=(how.cache_dir or default_cache_dir()) if how.use_cache else None,
        fresh=how.fresh,
        not_before=not_before,
        clock=env.clock,
        warn=_warn,
    )
    with _progress(how.quiet) as progress:
        threads = read_threads(sources, tz, options=options, progress=progress, partial=how.partial)
    if not how.quiet:
        for thread in threads:
            _stderr().print(summary(thread), markup=False)
    return threads


@app.command()
def archive(
    ctx: typer.Context,
    sources: Annotated[
        list[str] | None,
        typer.Argument(help="Thread URLs or saved page files.", show_default=False),
    ] = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="The CSV file to write.")] = Path(
        "posts.csv"
    ),
    game: Annotated[
        Path | None, typer.Option("--game", help="Archive every thread of this game file.")
    ] = None,
    timezone: Annotated[
        str, typer.Option(help="The forum's clock, when no game file gives it.")
    ] = "Asia/Shanghai",
    partial: Annotated[
        bool,
        typer.Option(
            "--partial",
            help="Saved pages: write what they hold when pages or 楼中楼 are missing, "
            "and list what is missing.",
        ),
    ] = False,
    quiet: Quiet = False,
    fresh: Fresh = False,
    cache_dir: CacheDir = None,
    cookies: Cookies = None,
) -> None:
    """Write every post and comment of the threads to a CSV file that Excel opens.

    Example: tally archive https://bbs.example.com/thread-101-1-1.html -o day2.csv
    """
    with _reported():
        from tally.outputs.archive import write_csv
        from tally.rules.game import load_game

        wanted = list(sources or [])
        if game is not None:
            loaded = load_game(game)
            wanted.extend(loaded.thread_urls())
            timezone = loaded.timezone.key
        if not wanted:
            raise InputError("give at least one thread URL or saved page, or --game GAME.toml.")
        how = _Fetching(quiet, fresh, cache_dir, cookies, partial=partial)
        threads = _read(wanted, timezone, how, _env(ctx))
        for thread in threads:
            for gap in thread.missing:
                _warn(f"thread {thread.thread_id} is partial: {gap} missing")
        count = write_csv(threads, output)
        pages = sum(t.page_count for t in threads)
        _stderr().print(
            f"wrote {count} rows from {len(threads)} thread(s), {pages} page(s), to {output}",
            markup=False,
        )


@app.command()
def votes(
    ctx: typer.Context,
    sources: Annotated[
        list[str],
        typer.Argument(help="The vote thread's URL, or its saved pages.", show_default=False),
    ],
    game: Annotated[Path, typer.Option("--game", help="The game file.")],
    day: Annotated[
        int | None,
        typer.Option("--day", help="The day; by default the day whose vote thread it is."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="The JSON of shared CONTRACT.md.")
    ] = False,
    announce: Annotated[
        bool, typer.Option("--announce", help="Print the announcement after the table.")
    ] = False,
    fmt: Format = None,
    quiet: Quiet = False,
    fresh: Fresh = False,
    cache_dir: CacheDir = None,
    cookies: Cookies = None,
) -> None:
    """Count a day's votes: every ballot judged, the totals and who is out (or sheriff).

    Example: tally votes https://bbs.example.com/thread-102-1-1.html --game game.toml
    """
    with _reported():
        from tally.rules.game import load_game
        from tally.rules.votes import day_of_sources, tally_day, to_json

        env = _env(ctx)
        loaded = load_game(game)
        chosen = day_of_sources(loaded, sources, day)
        how = _Fetching(quiet, fresh, cache_dir, cookies)
        threads = _read(sources, loaded.timezone.key, how, env, _trusted_after(chosen, env.now()))
        if len(threads) != 1:
            raise InputError(f"give the pages of one vote thread, not of {len(threads)} threads.")
        result = tally_day(threads[0], loaded, day)
        if as_json:
            _print_json(to_json(result))
            return
        from tally.outputs.console import print_day

        print_day(_stdout(), result)
        if announce:
            from tally.outputs.announce import close_context, format_for, render

            # A day not closed gets the mid-day standing, headed as such (暂计).
            context = close_context(result, loaded, provisional=True)
            text = render("close", fmt or format_for(loaded, result.day), context)
            typer.echo("\n" + text, nl=False)


@app.command()
def lurkers(
    ctx: typer.Context,
    game: Annotated[Path, typer.Option("--game", help="The game file.")],
    day: Annotated[
        int | None, typer.Option("--day", help="The day to check; by default the last closed day.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="The JSON of shared CONTRACT.md.")
    ] = False,
    write: Annotated[
        bool, typer.Option("--write/--no-write", help="Add the proposed cards to the ledger.")
    ] = True,
    quiet: Quiet = False,
    fresh: Fresh = False,
    cache_dir: CacheDir = None,
    cookies: Cookies = None,
) -> None:
    """Posts per player per day, the yellow cards they earn, and posts the director should see.

    The cards go into the ledger beside the game file (GAME.cards.csv), once.

    Example: tally lurkers --game game.toml --day 3
    """
    with _reported():
        from tally.outputs.report import lurkers_json, record
        from tally.rules.game import load_game
        from tally.rules.lurkers import check, history

        env = _env(ctx)
        loaded = load_game(game)
        now = env.now()
        if day is None:
            closed = [d.day for d in loaded.days if d.closes <= now]
            if not closed:
                raise InputError("no day of the game has closed yet; name one with --day N.")
            day = max(closed)
        target = loaded.day(day)
        if target.discussion is None:
            raise InputError(
                f"day {day} has no discussion thread in {game}; posts cannot be counted."
            )
        how = _Fetching(quiet, fresh, cache_dir, cookies)

        def read(urls: list[str], of_day: Day) -> list[Thread]:
            return _read(urls, loaded.timezone.key, how, env, _trusted_after(of_day, now))

        result = check(loaded, history(loaded, day, read), day)
        ledger = record(loaded, game, result, write=write)
        if as_json:
            _print_json(lurkers_json(result, ledger))
            return
        from tally.outputs.console import print_lurkers

        print_lurkers(_stdout(), result, ledger)


@app.command()
def announce(
    ctx: typer.Context,
    game: Annotated[Path, typer.Option("--game", help="The game file.")],
    day: Annotated[int, typer.Option("--day", help="The day.")],
    kind: Annotated[
        str,
        typer.Option("--kind", help="close (the day's result), morning (A1) or elevator (A2)."),
    ] = "close",
    fmt: Format = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Makes the elevator's random order repeatable.")
    ] = None,
    template_dir: Annotated[
        Path | None, typer.Option("--template-dir", help="Your own templates (run sandboxed).")
    ] = None,
    provisional: Annotated[
        bool,
        typer.Option(
            "--provisional",
            help="Before the close: a mid-day standing (暂计) instead of a refusal.",
        ),
    ] = False,
    quiet: Quiet = False,
    fresh: Fresh = False,
    cache_dir: CacheDir = None,
    cookies: Cookies = None,
) -> None:
    """The announcement to paste into the forum: BBCode for Discuz!, plain text for Tieba.

    Example: tally announce --game game.toml --day 2 > day2.txt
    """
    with _reported():
        from tally.outputs.announce import (
            KINDS,
            close_context,
            elevator_context,
            format_for,
            morning_context,
            render,
        )
        from tally.rules import ledger
        from tally.rules.game import load_game
        from tally.rules.votes import tally_day

        if kind not in KINDS:
            raise InputError(f"--kind must be one of {', '.join(KINDS)}, not {kind!r}.")
        env = _env(ctx)
        loaded = load_game(game)
        chosen = loaded.day(day)
        how = _Fetching(quiet, fresh, cache_dir, cookies)
        not_before = _trusted_after(chosen, env.now())
        context: dict[str, object]
        if kind == "close":
            [thread] = _read([chosen.vote], loaded.timezone.key, how, env, not_before)
            result = tally_day(thread, loaded, day)
            context = close_context(result, loaded, provisional=provisional)
        elif kind == "morning":
            context = morning_context(loaded, day, ledger.load(ledger.ledger_path(game)))
        else:
            # The players' own views of the discussion thread (the vote thread without one).
            url = chosen.discussion or chosen.vote
            [thread] = _read([url], loaded.timezone.key, how, env, not_before)
            context = elevator_context(loaded, chosen, thread, seed)
        typer.echo(render(kind, fmt or format_for(loaded, chosen), context, template_dir), nl=False)


@app.command()
def demo(ctx: typer.Context, quiet: Quiet = False) -> None:
    """Run tally on the bundled sample game, served from 127.0.0.1 (no network needed).

    Example: tally demo
    """
    with _reported():
        from tally.demo import sample_game
        from tally.outputs.console import print_threads

        with sample_game() as (game, forum):
            console = _stdout()
            console.print(f"Sample game {game.name}, forum at {forum.base}", markup=False)
            how = _Fetching(quiet=quiet, use_cache=False)  # a new local forum every time
            threads = _read(list(game.thread_urls()), game.timezone.key, how, _env(ctx))
            print_threads(console, threads)
            from tally.outputs.announce import close_context, format_for, render
            from tally.outputs.console import print_day
            from tally.rules.votes import tally_day

            for thread in threads:
                if any(thread.url == d.vote for d in game.days):
                    result = tally_day(thread, game)
                    print_day(console, result)
                    fmt = format_for(game, result.day)
                    console.print(f"\nThe announcement to paste ({fmt}):\n", markup=False)
                    typer.echo(render("close", fmt, close_context(result, game)), nl=False)


def main() -> None:
    from tally.heap import keep_freed_heap

    keep_freed_heap()  # see tally/heap.py: the parser runs ~1.6× as fast
    app()


if __name__ == "__main__":
    main()
