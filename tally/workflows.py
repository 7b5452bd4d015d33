"""What each command does, as library functions: ``vote_day``, ``lurker_day``,
``announcement``, ``default_day``, ``read``.

The CLI parses options, calls one of these and prints; the demo and any program that
embeds tally call the same functions, with the same checks. What the world gives a run
(the clock, HTTP settings, the cache folder) comes in an ``Environment``; how this run
reads the forum (``--fresh``, ``--cookies``, …, and what to tell the person waiting) in a
``Reading``.

    from tally.environment import Environment
    from tally.rules.game import load_game
    from tally.workflows import Reading, vote_day

    result = vote_day(load_game("game.toml"), ["https://bbs.example.com/thread-102-1-1.html"],
                      env=Environment(), how=Reading())
    print(result.outcome.player)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path

from tally.environment import Environment
from tally.errors import InputError
from tally.forums.fetch import FetchOptions, Progress, is_url, read_threads
from tally.model import Thread
from tally.outputs.database import Written
from tally.outputs.gamefile import Draft
from tally.rules import ledger
from tally.rules.ballots import Flag
from tally.rules.game import Day, Game
from tally.rules.guards import day_of_vote_thread
from tally.rules.ledger import LedgerView
from tally.rules.lurkers import DayCheck, check, history
from tally.rules.votes import DayResult, day_of_sources, tally_day
from tally.times import short


@dataclass(frozen=True)
class Reading:
    """How one run reads forums: the options every fetching command takes, and what to
    tell the person waiting."""

    fresh: bool = False  # ignore cached pages
    cookies: Path | None = None  # a Netscape cookie file
    cache_dir: Path | None = None  # None: the environment's
    use_cache: bool = True
    partial: bool = False  # saved pages: read what is there (archive --partial)
    progress: Progress | None = None
    warn: Callable[[str], None] | None = None
    thread_read: Callable[[Thread], None] | None = None  # each thread, once read
    # An archive (tally archive's CSV or SQLite file) to take the threads from, not the forum.
    archive: Path | None = None


def trusted_after(day: Day | None, now: datetime) -> datetime | None:
    """At or after a day's close, no page cached before the close may decide it."""
    if day is None:
        return None
    return day.closes if now >= day.closes else None


def read(
    sources: Sequence[str],
    tz: tzinfo,
    *,
    env: Environment,
    how: Reading,
    not_before: datetime | None = None,
) -> list[Thread]:
    """Every thread the sources name (URLs or saved files), read as ``how`` says; with
    ``how.archive`` a URL's thread comes from the archive."""
    if how.archive is not None:
        taken = from_archive(how.archive, [s for s in sources if is_url(s)], how.partial)
        files = [s for s in sources if not is_url(s)]
        rest = read(files, tz, env=env, how=dataclasses.replace(how, archive=None)) if files else []
        if how.thread_read is not None:
            for thread in taken:
                how.thread_read(thread)
        return taken + rest

    options = FetchOptions(
        http=dataclasses.replace(env.http, cookies=how.cookies),
        cache_dir=(how.cache_dir or env.cache_folder()) if how.use_cache else None,
        fresh=how.fresh,
        not_before=not_before,
        clock=env.clock,
        warn=how.warn,
    )
    threads = read_threads(
        list(sources), tz, options=options, progress=how.progress, partial=how.partial
    )
    if how.thread_read is not None:
        for thread in threads:
            how.thread_read(thread)
    return threads


def from_archive(path: Path, urls: Sequence[str], partial: bool = False) -> list[Thread]:
    """The threads ``urls`` name, as the archive at ``path`` holds them."""
    from tally.forums import resolve_url
    from tally.forums.archived import read_archive
    from tally.forums.fetch import whole

    if not path.is_file():
        raise InputError(f"no such archive: {path}.")
    held = {(t.platform, t.thread_id): t for t in read_archive(path)}
    out = []
    for url in urls:
        _, ref = resolve_url(url)
        thread = held.get((ref.platform, ref.thread_id))
        if thread is None:
            raise InputError(
                f"{path} holds no thread {ref.thread_id} ({url}); archive it with "
                "tally archive, or leave out --archive."
            )
        out.extend(whole([thread], str(path), partial))
    return out


def default_day(game: Game, now: datetime) -> int:
    """The last day of the game that has closed: what a check is about by default."""
    closed = [d.day for d in game.days if d.closes <= now]
    if not closed:
        raise InputError("no day of the game has closed yet; name one with --day N.")
    return max(closed)


def vote_day(
    game: Game,
    sources: Sequence[str],
    *,
    day: int | None = None,
    env: Environment,
    how: Reading,
) -> DayResult:
    """`tally votes`: read one day's vote thread (URL or saved pages) and count it."""
    chosen = day_of_sources(game, list(sources), day)
    read_all = read(
        sources, game.timezone, env=env, how=how, not_before=trusted_after(chosen, env.now())
    )
    threads = _vote_threads(game, read_all, chosen) if len(read_all) > 1 else read_all
    if len(threads) != 1:
        raise InputError(f"give the pages of one vote thread, not of {len(threads)} threads.")
    vote = threads[0]
    the_day = day_of_vote_thread(game, vote, day)
    requests, why_not = _request_threads(game, the_day, sources, read_all, env=env, how=how)
    result = tally_day(vote, game, the_day.day, requests=requests)
    if why_not is not None:
        note = Flag("S3", f"加速: not counted: {why_not}")
        result = dataclasses.replace(result, flags=(*result.flags, note))
    return result


def _request_threads(
    game: Game,
    day: Day,
    sources: Sequence[str],
    given: list[Thread],
    *,
    env: Environment,
    how: Reading,
) -> tuple[list[Thread] | None, str | None]:
    """The day's discussion and progress threads, where acceleration is asked for (S3):
    among the threads given, else read (from the forum or the archive) when the vote thread
    was; pages cached after the requests' deadline are good enough. (None, why) when they
    cannot be had."""
    from tally.errors import FetchError, NotAThreadError, ParseError
    from tally.rules.acceleration import deadline

    refs = [r for r in (day.progress_ref, day.discussion_ref) if r is not None]
    if not refs:
        return None, f"day {day.day} names no discussion or progress thread in {game.where()}"
    keys = {(r.platform, r.thread_id) for r in refs}
    found = [t for t in given if (t.platform, t.thread_id) in keys]
    if found:
        return found, None
    if not any(is_url(s) for s in sources) and how.archive is None:
        return None, "give the discussion thread's saved pages with the vote thread's"
    until = deadline(day, game.rules.acceleration_cutoff_hours)
    urls = [u for u in (day.progress, day.discussion) if u]
    try:
        got = read(urls, game.timezone, env=env, how=how,
                   not_before=until if env.now() >= until else None)  # fmt: skip
    except (FetchError, NotAThreadError, ParseError) as exc:
        return None, f"the discussion thread could not be read ({str(exc).rstrip('.')})"
    return got, None


def _vote_threads(game: Game, threads: list[Thread], chosen: Day | None) -> list[Thread]:
    """From the threads of an archive: the day's vote thread (or the one vote thread)."""
    from tally.rules.guards import vote_key

    days = [chosen] if chosen is not None else list(game.days)
    keys = {vote_key(d): d.day for d in days}
    found = [t for t in threads if (t.platform, t.thread_id) in keys]
    if len(found) > 1:
        numbers = ", ".join(str(keys[(t.platform, t.thread_id)]) for t in found)
        raise InputError(
            f"the sources hold the vote threads of days {numbers}; name one with --day N."
        )
    if not found and chosen is not None:
        raise InputError(
            f"the sources hold {len(threads)} threads and none is day {chosen.day}'s vote "
            f"thread ({chosen.vote})."
        )
    return found or threads


def record(game: Game, game_path: Path, result: DayCheck, *, write: bool) -> LedgerView:
    """Add the proposed cards to the ledger beside the game file (atomically, once).

    Cards rest on a whole day: for a day not yet closed nothing is written (InputError
    when ``write`` is asked for).
    """
    if write and result.provisional:
        raise InputError(
            f"day {result.day.day} closes at {short(result.day.closes)} and its threads "
            "were read before that: cards are written only for a closed day; pass --no-write "
            "to see the counts so far."
        )
    path = ledger.ledger_path(game_path)
    existing = ledger.load(path)
    cards, new = ledger.add(existing, result.cards)
    written = bool(write and new)
    if written:
        ledger.save(path, cards)
    # Without --write the view shows the ledger as it would be; nothing is saved.
    return LedgerView(
        path=path,
        cards=tuple(cards),
        new=tuple(new),
        written=written,
        totals=ledger.totals(cards),
        sent_off=tuple(ledger.sent_off(cards)),
        camps_lost=ledger.camps_lost(cards, game.camps, game.rules.camp_loss_reds),
    )


def lurker_day(
    game: Game,
    *,
    day: int | None = None,
    write: bool = True,
    env: Environment,
    how: Reading,
) -> tuple[DayCheck, LedgerView]:
    """`tally lurkers`: posts per player up to ``day`` (default: the last closed), the cards
    of that day, and the ledger with them (written unless ``write`` is False)."""
    if game.path is None:
        raise InputError("the lurker check keeps its ledger beside the game file; load one.")
    now = env.now()
    number = day if day is not None else default_day(game, now)
    target = game.day(number)
    if target.discussion is None:
        raise InputError(
            f"day {number} has no discussion thread in {game.where()}; posts cannot be counted."
        )

    def reader(urls: list[str], of_day: Day) -> list[Thread]:
        return read(urls, game.timezone, env=env, how=how, not_before=trusted_after(of_day, now))

    result = check(game, history(game, number, reader), number)
    return result, record(game, game.path, result, write=write)


@dataclass(frozen=True)
class Archived:
    """What `tally archive` did: the threads read, the CSV rows written, the database."""

    threads: list[Thread]
    rows: int | None  # None: no CSV asked for
    database: Written | None  # None: no database asked for
    days: tuple[int, ...]  # the closed days whose ballots went into the database


def archive(
    sources: Sequence[str],
    output: Path | None,
    *,
    db: Path | None = None,
    game: Path | None = None,
    timezone: str = "Asia/Shanghai",
    env: Environment,
    how: Reading,
) -> Archived:
    """`tally archive`: every post of the threads (and of the game's) to one CSV, and/or a
    SQLite database (with a game file: every closed day's ballots too)."""
    from tally.outputs.archive import write_csv
    from tally.rules.game import load_game

    if output is None and db is None:
        output = Path("posts.csv")
    if output is not None:
        check_output(output, "CSV file")
    if db is not None:
        check_output(db, "database")
    wanted = list(sources)
    loaded = None
    if game is not None:
        loaded = load_game(game)
        wanted.extend(loaded.thread_urls())
        tz: tzinfo = loaded.timezone
    else:
        tz = zone(timezone)
    if not wanted:
        raise InputError("give at least one thread URL or saved page, or --game GAME.toml.")
    threads = read(wanted, tz, env=env, how=how)
    for thread in threads:
        for gap in thread.missing:
            if how.warn is not None:
                how.warn(f"thread {thread.thread_id} is partial: {gap} missing")
    written = write_csv(threads, output) if output is not None else None
    database = None
    results: list[DayResult] = []
    if db is not None:
        from tally.outputs.database import write_db

        if loaded is not None:
            results = closed_days(loaded, threads)
        database = write_db(db, threads, game=loaded, results=results, now=env.now())
    return Archived(threads, written, database, tuple(r.day.day for r in results))


def closed_days(game: Game, threads: Sequence[Thread]) -> list[DayResult]:
    """Every day whose vote thread is among ``threads`` and was read after its close,
    counted."""
    from tally.rules.guards import vote_key

    by_key = {(t.platform, t.thread_id): t for t in threads if not t.missing}
    out = []
    for day in game.days:
        thread = by_key.get(vote_key(day))
        if thread is None or thread.as_of is None or thread.as_of < day.closes:
            continue
        out.append(tally_day(thread, game, day.day))
    return out


def init(
    sources: Sequence[str],
    output: Path,
    *,
    timezone: str = "Asia/Shanghai",
    env: Environment,
    how: Reading,
) -> Draft:
    """`tally init`: a first game file from the game's threads; never over an existing file."""
    from tally.atomic import write_atomic
    from tally.outputs.gamefile import draft

    check_output(output, "game file", overwrite=False)
    tz = zone(timezone)
    threads = read(sources, tz, env=env, how=how)
    written = draft(threads, [t.url if "://" in t.url else None for t in threads], timezone)
    write_atomic(output, written.text.encode("utf-8"))
    return written


def zone(name: str) -> tzinfo:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise InputError(f"{name!r} is not a time zone name like Asia/Shanghai.") from None


def check_output(path: Path, what: str, *, overwrite: bool = True) -> None:
    """Before anything is downloaded: can ``path`` be written?"""
    if not overwrite and path.exists():
        raise InputError(
            f"{path} exists; tally never writes over a {what}: give another name with -o."
        )
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"cannot write {path}: the folder {folder} does not exist.")
    if path.is_dir():
        raise InputError(f"cannot write {path}: it is a folder.")


def announcement(
    game: Game,
    *,
    day: int,
    kind: str = "close",
    fmt: str | None = None,
    seed: int | None = None,
    template_dir: Path | None = None,
    provisional: bool = False,
    show_rules: bool = False,
    env: Environment,
    how: Reading,
) -> str:
    """`tally announce`: the post to paste, rendered from its template; rule ids (C5, L1) only
    with ``show_rules``, since the post is for the players."""
    from tally.outputs.announce import (
        FORMATS,
        KINDS,
        closing_post,
        elevator_context,
        format_for,
        morning_context,
        reminder_context,
        render,
    )

    if kind not in KINDS:
        raise InputError(f"--kind must be one of {', '.join(KINDS)}, not {kind!r}.")
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}.")
    chosen = game.day(day)
    not_before = trusted_after(chosen, env.now())
    context: dict[str, object]
    if kind == "close":
        [thread] = read([chosen.vote], game.timezone, env=env, how=how, not_before=not_before)
        result = tally_day(thread, game, day)
        return closing_post(
            result,
            game,
            fmt,
            provisional=provisional,
            show_rules=show_rules,
            template_dir=template_dir,
        )
    elif kind == "reminder":
        [thread] = read([chosen.vote], game.timezone, env=env, how=how, not_before=not_before)
        context = reminder_context(tally_day(thread, game, day), game, show_rules=show_rules)
    elif kind == "morning":
        if game.path is None:
            raise InputError("the morning announcement reads the ledger beside the game file.")
        cards = ledger.load(ledger.ledger_path(game.path))
        context = morning_context(game, day, cards, show_rules=show_rules)
    else:
        # The players' own views of the discussion thread (the vote thread without one).
        url = chosen.discussion or chosen.vote
        [thread] = read([url], game.timezone, env=env, how=how, not_before=not_before)
        context = elevator_context(game, chosen, thread, seed)
    return render(kind, fmt or format_for(game, chosen), context, template_dir)


@dataclass(frozen=True)
class Report:
    """What `tally report` wrote: the closed days drawn, the days still open, the bytes."""

    days: tuple[int, ...]
    pending: tuple[int, ...]
    size: int


def report(game: Game, output: Path, *, env: Environment, how: Reading) -> Report:
    """`tally report`: the game so far as one self-contained HTML page (written atomically).

    Each thread is read once; a day's threads read at or after its close trust no page
    cached before it, as `tally votes` does.
    """
    from tally.atomic import write_atomic
    from tally.forums import resolve_url
    from tally.outputs.report import render_report

    check_output(output, "report")
    now = env.now()
    held: dict[tuple[str, str], Thread] = {}

    def reader(urls: list[str], of_day: Day) -> list[Thread]:
        out = []
        for url in urls:
            _, ref = resolve_url(url)
            key = (ref.platform, ref.thread_id)
            if key not in held:
                [held[key]] = read(
                    [url], game.timezone, env=env, how=how, not_before=trusted_after(of_day, now)
                )
            out.append(held[key])
        return out

    closed = [d for d in game.days if d.closes <= now]
    results = closed_days(game, [t for d in closed for t in reader([d.vote], d)])
    talked = [d.day for d in closed if d.discussion is not None]
    posts = {}
    if talked:
        posts = dict(check(game, history(game, max(talked), reader), max(talked)).days)
        posts = {n: counts for n, counts in posts.items() if n in talked}
    cards = ledger.load(ledger.ledger_path(game.path)) if game.path is not None else []
    drawn = {r.day.day for r in results}
    pending = tuple(d.day for d in game.days if d.day not in drawn)
    page = render_report(game, results, posts, cards, generated=now, pending=pending)
    data = page.encode("utf-8")
    write_atomic(output, data)
    return Report(tuple(sorted(drawn)), pending, len(data))


def chart(result: DayResult, game: Game, output: Path) -> str | None:
    """`tally votes --chart`: the day's picture as PNG (written atomically); the sentence to
    show when no font can draw the names."""
    from tally.atomic import write_atomic
    from tally.outputs import charts
    from tally.outputs.announce import outcome_sentence

    picture = charts.png(charts.day_figure, result, outcome_sentence(result, game))
    write_atomic(output, picture.data)
    return picture.warning
