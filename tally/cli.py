"""The `tally` command: each command parses its options, calls the library (``tally.workflows``)
and prints (``tally.outputs``). Errors are caught only in ``tally.cli_run.reported``: one
sentence on standard error, the error's exit code. Heavy modules are imported inside the
commands, so that ``tally --help`` stays quick."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from tally.cli_run import (
    ArchiveFile,
    AsJson,
    Format,
    GameFile,
    Kind,
    KindOption,
    OneSentence,
    Partial,
    Provisional,
    Run,
    ShowRules,
    VoteDay,
    environment,
    fetching,
    reported,
    root,
)
from tally.outputs.terminal import Terminal

app = typer.Typer(
    name="tally",
    cls=OneSentence,
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: no boxes, brackets kept, no "<bool>" after flags
)
app.callback(invoke_without_command=True)(root)


@app.command()
@fetching
def archive(
    sources: Annotated[
        list[str] | None,
        typer.Argument(
            help="Thread URLs, saved page files, or archives.",
            show_default=False,
            metavar="URL-OR-FILE",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="The CSV file to write [default: posts.csv, unless --db]."
        ),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db", help="Also write (or bring up to date) this SQLite database.", metavar="FILE"
        ),
    ] = None,
    game: Annotated[
        Path | None,
        typer.Option(
            "--game", help="Archive every thread of this game file (and its closed days' ballots)."
        ),
    ] = None,
    timezone: Annotated[
        str, typer.Option(help="The forum's clock, when no game file gives it.")
    ] = "Asia/Shanghai",
    partial: Partial = False,
    *,
    run: Run,
) -> None:
    """Write every post and comment of the threads to a CSV file that Excel opens, and/or a
    SQLite database.

    \b
    Example: tally archive --game game.toml -o game.csv --db games.sqlite
    """
    import dataclasses

    from tally.workflows import archive as archive_threads

    done = archive_threads(
        list(sources or []), output, db=db, game=game, timezone=timezone,
        env=run.env, how=dataclasses.replace(run.how, partial=partial),
    )  # fmt: skip
    pages = sum(t.page_count for t in done.threads)
    read = f"{len(done.threads)} thread(s), {pages} page(s)"
    if done.rows is not None:
        run.show.note(f"wrote {done.rows} rows from {read} to {output or 'posts.csv'}")
    if done.database is not None:
        d = done.database
        days = f"; ballots of day(s) {', '.join(map(str, done.days))}" if done.days else ""
        run.show.note(
            f"database {db}: {sum(d.inserted.values())} rows added, "
            f"{sum(d.updated.values())} updated, {d.gone} posts gone from the forum, "
            f"{sum(d.deleted.values())} ballots or totals no longer counted, "
            f"{sum(d.unchanged.values())} unchanged ({read}{days})"
        )


@app.command()
@fetching
def votes(
    sources: Annotated[
        list[str],
        typer.Argument(
            help="The vote thread's URL, its saved pages, or an archive.",
            show_default=False,
            metavar="URL-OR-FILE",
        ),
    ],
    game: GameFile,
    day: VoteDay = None,
    as_json: AsJson = False,
    announce: Annotated[
        bool, typer.Option("--announce", help="Print the announcement after the table.")
    ] = False,
    fmt: Format = None,
    archive: ArchiveFile = None,
    chart: Annotated[
        Path | None,
        typer.Option("--chart", help="Also draw the day's votes as a PNG picture, to post."),
    ] = None,
    *,
    run: Run,
) -> None:
    """Count a day's votes: every ballot judged, the totals and who is out (or sheriff).

    \b
    Example: tally votes https://bbs.example.com/thread-102-1-1.html --game game.toml
    """
    from tally.rules.game import load_game
    from tally.workflows import check_output, vote_day

    loaded = load_game(game)
    if chart is not None:
        check_output(chart, "picture")
    how = dataclasses.replace(run.how, archive=archive)
    result = vote_day(loaded, sources, day=day, env=run.env, how=how)
    if result.acceleration is not None and result.acceleration.warning:
        run.show.warn(result.acceleration.warning)
    if chart is not None:
        from tally.workflows import chart as draw

        warning = draw(result, loaded, chart)
        if warning is not None:
            run.show.warn(warning)
        run.show.note(f"wrote the picture of day {result.day.day} to {chart}")
    if as_json:
        from tally.outputs.json_output import day_json

        run.show.json(day_json(result))
        return
    from tally.outputs.announce import closing_post
    from tally.outputs.console import print_day

    print_day(run.show.stdout(), result)
    if announce:  # a day not closed gets the mid-day standing, headed as such (暂计)
        run.show.text("\n" + closing_post(result, loaded, fmt, provisional=True))


@app.command()
@fetching
def lurkers(
    game: GameFile,
    day: Annotated[
        int | None, typer.Option("--day", help="The day to check; by default the last closed day.")
    ] = None,
    as_json: AsJson = False,
    write: Annotated[
        bool, typer.Option("--write/--no-write", help="Add the proposed cards to the ledger.")
    ] = True,
    archive: ArchiveFile = None,
    *,
    run: Run,
) -> None:
    """Posts per player per day, the yellow cards they earn, and posts the director should see.

    The cards go into the ledger beside the game file (GAME.cards.csv), once.

    \b
    Example: tally lurkers --game game.toml --day 3
    """
    from tally.rules.game import load_game
    from tally.workflows import lurker_day

    how = dataclasses.replace(run.how, archive=archive)
    result, view = lurker_day(load_game(game), day=day, write=write, env=run.env, how=how)
    if result.acceleration is not None and result.acceleration.warning:
        run.show.warn(result.acceleration.warning)
    if as_json:
        from tally.outputs.json_output import lurkers_json

        run.show.json(lurkers_json(result, view))
        return
    from tally.outputs.console import print_lurkers

    print_lurkers(run.show.stdout(), result, view)


@app.command()
@fetching
def announce(
    game: GameFile,
    day: Annotated[int, typer.Option("--day", help="The day.")],
    kind: KindOption = Kind.CLOSE,
    fmt: Format = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Makes the elevator's random order repeatable.")
    ] = None,
    template_dir: Annotated[
        Path | None, typer.Option("--template-dir", help="Your own templates (run sandboxed).")
    ] = None,
    provisional: Provisional = False,
    show_rules: ShowRules = False,
    archive: ArchiveFile = None,
    *,
    run: Run,
) -> None:
    """The announcement to paste into the forum: BBCode for Discuz!, plain text for Tieba.

    \b
    Example: tally announce --game game.toml --day 2 > day2.txt
    """
    from tally.rules.game import load_game
    from tally.workflows import announcement

    text = announcement(
        load_game(game), day=day, kind=kind, fmt=fmt, seed=seed, template_dir=template_dir,
        provisional=provisional, show_rules=show_rules, env=run.env,
        how=dataclasses.replace(run.how, archive=archive),
    )  # fmt: skip
    run.show.text(text)


@app.command()
@fetching
def init(
    sources: Annotated[
        list[str],
        typer.Argument(
            help="The game's threads: discussion and vote threads, URLs or saved pages.",
            show_default=False,
            metavar="URL-OR-FILE",
        ),
    ],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="The game file to write (never over one).")
    ] = Path("game.toml"),
    timezone: Annotated[str, typer.Option(help="The forum's clock.")] = "Asia/Shanghai",
    *,
    run: Run,
) -> None:
    """Write a first game file from the game's threads: director, players, days.

    \b
    Example: tally init https://bbs.example.com/thread-101-1-1.html URL-OF-THE-VOTE -o game.toml
    """
    from tally.workflows import init as draft_game

    made = draft_game(sources, output, timezone=timezone, env=run.env, how=run.how)
    run.show.note(
        f"wrote {output}: {len(made.directors)} director, {len(made.players)} players, "
        f"{made.days} day(s); fill in each day's closes, check the roster, then run "
        f"`tally votes VOTE-URL --game {output}`."
    )


@app.command()
@fetching
def report(
    game: GameFile,
    output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write.")] = Path(
        "report.html"
    ),
    archive: ArchiveFile = None,
    *,
    run: Run,
) -> None:
    """The game so far as one HTML page: each closed day's votes as pictures, posts, cards.

    \b
    Example: tally report --game game.toml -o report.html
    """
    from tally.rules.game import load_game
    from tally.workflows import report as write_report

    how = dataclasses.replace(run.how, archive=archive)
    made = write_report(load_game(game), output, env=run.env, how=how)
    drawn = ", ".join(map(str, made.days)) or "none"
    waiting = f"; not closed yet: {', '.join(map(str, made.pending))}" if made.pending else ""
    run.show.note(f"wrote {output} ({made.size / 1024:.0f} KB): day(s) {drawn}{waiting}")


@app.command()
@fetching
def watch(
    url: Annotated[
        str,
        typer.Argument(help="The vote thread's URL.", show_default=False, metavar="URL"),
    ],
    game: GameFile,
    day: VoteDay = None,
    every: Annotated[
        float,
        typer.Option("--every", help="Seconds between polls (at least 1).", min=1.0),
    ] = 60.0,
    polls: Annotated[
        int | None,
        typer.Option("--polls", help="Stop after this many polls; by default at the close.", min=1),
    ] = None,
    full_every: Annotated[
        int,
        typer.Option(
            "--full-every",
            help="Read every page again every N polls (点评 and 楼中楼 under earlier "
            "floors); 0: only at the close.",
            min=0,
        ),
    ] = 10,
    announce_to: Annotated[
        Path | None,
        typer.Option("--announce-to", help="At the close, write the announcement to this file."),
    ] = None,
    fmt: Format = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="A JSON line per poll instead of the live screen.")
    ] = False,
    *,
    run: Run,
) -> None:
    """Watch a vote until its close: the count, what changed, who has not voted, live.

    At the close (and a grace minute) it reads every page once more, prints the final count
    and writes the announcement to --announce-to.

    \b
    Example: tally watch https://bbs.example.com/thread-102-1-1.html --game game.toml
    """
    from tally.rules.game import load_game
    from tally.watch import Schedule
    from tally.workflows import check_output

    loaded = load_game(game)
    if announce_to is not None:
        check_output(announce_to, "announcement")
    schedule = Schedule(every=every, polls=polls, full_every=full_every)
    screen = None
    env = run.env
    if not as_json and run.env.on_screen:
        from tally.outputs.live import LiveScreen

        screen = LiveScreen(run.show.stdout(), loaded, run.env)
        env = dataclasses.replace(run.env, sleep=screen.sleep)  # the clocks tick between polls
    from tally.outputs.json_output import poll_json
    from tally.watch import watch as polls_of
    from tally.watch import write_announcement

    last = None
    try:
        for poll in polls_of(loaded, url, day=day, schedule=schedule, env=env, how=run.how):
            last = poll
            if poll.final and announce_to is not None and poll.result is not None:
                write_announcement(announce_to, poll.result, loaded, fmt)
            if screen is None:
                run.show.json_line(poll_json(poll))
            else:
                screen.show(poll)
    except KeyboardInterrupt:
        if screen is not None:
            screen.close(last, interrupted=True)
        raise
    if screen is not None:
        screen.close(last)
    if last is not None and last.final and announce_to is not None:
        run.show.note(f"wrote the announcement to {announce_to}")


cards_app = typer.Typer(
    name="cards",
    help="The card ledger by hand: the cards that are the director's calls (L4, L8, …).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(cards_app)
Day = Annotated[int, typer.Option("--day", help="The day the card is for.")]
Player = Annotated[str, typer.Argument(help="The player.", show_default=False)]
Colour = Annotated[
    str, typer.Argument(help="blue, yellow or red (蓝, 黄, 红).", show_default=False)
]
Rule = Annotated[str, typer.Argument(help="The rule: L4, L8, …", show_default=False)]


@cards_app.command("add")
def cards_add(
    ctx: typer.Context,
    game: GameFile,
    day: Day,
    player: Player,
    colour: Colour,
    rule: Rule,
    reason: Annotated[str, typer.Argument(help="Why, as the morning post will say it.")],
) -> None:
    """Give a card; the escalations it makes (K1) come with it, and a card given twice is
    one card.

    \b
    Example: tally cards add --game game.toml --day 2 糖糖 yellow L4 "第2晚未按时行动"
    """
    show = Terminal(environment(ctx))
    with reported(show):
        from tally.cards import add_card
        from tally.outputs.console import say
        from tally.rules.game import load_game

        done = add_card(load_game(game), day=day, player=player, colour=colour, rule=rule,
                        reason=reason)  # fmt: skip
        out = show.stdout()
        if not done.added:
            say(out, "already in the ledger; nothing written.")
        for card in done.added:
            say(out, f"added: day {card.day} {card.player} {card.colour.label} {card.rule} "
                     f"{card.reason}")  # fmt: skip


@cards_app.command("remove")
def cards_remove(
    ctx: typer.Context,
    game: GameFile,
    day: Day,
    player: Player,
    colour: Colour,
    rule: Rule,
    reason: Annotated[
        str | None, typer.Argument(help="Which card, when several match.", show_default=False)
    ] = None,
) -> None:
    """Take a card back; the escalations that rested on it (K1) go with it.

    \b
    Example: tally cards remove --game game.toml --day 2 糖糖 yellow L4
    """
    show = Terminal(environment(ctx))
    with reported(show):
        from tally.cards import remove_card
        from tally.outputs.console import say
        from tally.rules.game import load_game

        done = remove_card(load_game(game), day=day, player=player, colour=colour, rule=rule,
                           reason=reason)  # fmt: skip
        for card in done.removed:
            say(show.stdout(), f"removed: day {card.day} {card.player} {card.colour.label} "
                               f"{card.rule} {card.reason}")  # fmt: skip


@cards_app.command("list")
def cards_list(
    ctx: typer.Context,
    game: GameFile,
    day: Annotated[int | None, typer.Option("--day", help="Only this day's cards.")] = None,
    player: Annotated[str | None, typer.Option("--player", help="Only this player's.")] = None,
) -> None:
    """The ledger's cards, and each player's totals and who is sent off (K2).

    \b
    Example: tally cards list --game game.toml --day 2
    """
    show = Terminal(environment(ctx))
    with reported(show):
        from tally.cards import list_cards
        from tally.outputs.console import print_cards
        from tally.rules.game import load_game

        print_cards(show.stdout(), list_cards(load_game(game), day=day, player=player))


@app.command()
def demo(
    ctx: typer.Context,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No page summary.")] = False,
) -> None:
    """Run tally on the bundled sample game, served from 127.0.0.1 (no network needed).

    \b
    Example: tally demo
    """
    env = environment(ctx)
    show = Terminal(env, quiet=quiet)
    with reported(show):
        from tally.demo import run_demo

        run_demo(env, show)


def main() -> None:
    from tally.heap import keep_freed_heap

    keep_freed_heap()  # see tally/heap.py: the parser runs ~1.6× as fast
    app()
