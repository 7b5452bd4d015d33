"""What each command does, as library functions: ``vote_day`` and ``votes``, ``lurker_day``,
``announcement``, ``archive``, ``report``, ``init``.

The CLI parses options, calls one of these and shows what it returns (``tally.outputs.
results``); the demo and any program that embeds tally call the same functions, with the
same checks. Every thread comes through one ``Reader`` per run (the HTTP client, the cache,
the clock; ``tally.forums.reader``).

    from tally.environment import Environment
    from tally.forums.reader import Reader, Reading
    from tally.rules.gamefile import load_game
    from tally.workflows import vote_day

    game = load_game("game.toml")
    with Reader(Environment(), Reading()) as reader:
        result = vote_day(game, [game.day(2).vote], reader=reader)
    print(result.outcome.player)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import datetime, time, tzinfo
from pathlib import Path
from typing import Protocol

from tally.errors import (
    FetchError,
    GameFileError,
    InputError,
    NotAThreadError,
    OutputError,
    ParseError,
    TallyError,
)
from tally.forums import resolve_url
from tally.forums.fetch import is_url
from tally.forums.posting import PostError
from tally.forums.reader import Reader
from tally.model import Thread, ThreadKey, origin_of
from tally.outputs import cardfile
from tally.outputs.results import (
    Announced,
    Archived,
    Counted,
    Diagnosed,
    Drafted,
    Lurked,
    Reported,
)
from tally.rules.ballots import Flag
from tally.rules.game import Day, Game
from tally.rules.guards import thread_fits_day, vote_day_of
from tally.rules.ledger import LedgerView
from tally.rules.lurkers import DayCheck, check, history
from tally.rules.standing import floor_time, thread_as_of
from tally.rules.state import resolve
from tally.rules.verdicts import ThreadRole
from tally.rules.votes import Chain, DayResult, in_order, tally_day
from tally.settings import DEFAULT_ZONE
from tally.times import short
from tally.vocabulary import Announcement, Markup


def vote_day(
    game: Game,
    sources: Sequence[str],
    *,
    day: int | None = None,
    reader: Reader,
    late_ok: bool = False,
    as_edited: bool = False,
    as_of: str | None = None,
) -> DayResult:
    """`tally votes`: read one day's vote thread (URL, saved pages or an archive) and count
    it, with the day's acceleration requests (S3) when its other threads can be had; with
    ``as_of`` (a time or a floor), as the thread stood then by tally's earlier reads."""
    chosen = _day_of_urls(game, sources, day)
    closes = chosen.closes if chosen is not None else None
    given = reader.read(sources, game.timezone, closes=closes)
    vote = _the_vote_thread(game, given, chosen)
    started = vote.posts[0].time if vote.posts else None
    the_day = vote_day_of(game, vote.key, day, started=started)
    if as_of is not None:
        vote = thread_as_of(vote, as_of_time(vote, as_of, game, the_day))
    requests, why_not = None, None
    if game.rules.acceleration:
        requests, why_not = _request_threads(game, the_day, sources, given, reader)
    carried = days_before(game, the_day.day, reader, given).carried
    result = tally_day(
        vote, game, the_day.day, requests=requests, carried=carried, late_ok=late_ok,
        as_edited=as_edited,
    )  # fmt: skip
    if why_not is not None and the_day.accelerated:  # the file says so, tally cannot check
        note = Flag("S3", f"加速: not counted: {why_not}")
        result = dataclasses.replace(result, flags=(*result.flags, note))
    return result


def votes(
    game: Game,
    sources: Sequence[str],
    *,
    day: int | None = None,
    reader: Reader,
    chart: Path | None = None,
    announce: bool = False,
    fmt: Markup | None = None,
    late_ok: bool = False,
    template_dir: Path | None = None,
    as_edited: bool = False,
    as_of: str | None = None,
) -> Counted:
    """The `tally votes` command: the count, and with ``announce`` the post (a day not
    closed gets the mid-day standing, headed as such), with ``chart`` the picture (PNG);
    ``template_dir`` holds the director's own templates (each missing one is the built-in)."""
    from tally.outputs.announce import check_templates, closing_post

    if announce:
        check_templates(Announcement.CLOSE, template_dir)  # before the pages are read
    if chart is not None:
        check_output(chart, "picture")
    result = vote_day(
        game, sources, day=day, reader=reader, late_ok=late_ok, as_edited=as_edited, as_of=as_of
    )
    warning = draw_chart(result, game, chart) if chart is not None else None
    fmt = fmt or reader.markup_for(result.day.vote_ref)
    text = (
        closing_post(result, game, fmt, provisional=True, template_dir=template_dir)
        if announce
        else None
    )
    return Counted(result, text, chart, warning)


def days_before(
    game: Game, number: int, reader: Reader, given: Sequence[Thread] = ()
) -> Chain:
    """The days before day ``number``, counted in order from their vote threads (among
    ``given``, else read: a day read at or after its close trusts no page cached before
    it): what they made, and what day ``number`` inherits (its sheriff, who is out). A day
    whose thread cannot be read is said so, not guessed (``Carried.unchecked``)."""
    held = {t.key: t for t in given}
    threads: dict[int, Thread | str] = {}
    for day in game.days:
        if day.day >= number:
            break
        if day.vote_ref.key in held:
            threads[day.day] = held[day.vote_ref.key]
        elif reader.now() < day.closes:
            threads[day.day] = f"it closes {short(day.closes)}"
        else:
            try:
                [threads[day.day]] = reader.read([day.vote], game.timezone, closes=day.closes)
            except GameFileError:
                raise
            except TallyError as exc:
                threads[day.day] = f"its vote thread could not be read ({str(exc).rstrip('.')})"
    return in_order(game, threads, until=number - 1)


def _day_of_urls(game: Game, sources: Sequence[str], day: int | None) -> Day | None:
    """The day a count is about, known before anything is read when it can be: the day
    named, or the day whose vote thread a URL given is."""
    if day is not None:
        return game.day(day)
    for source in sources:
        if is_url(source):
            found = game.locate(resolve_url(source)[1].key)
            if found is not None and found[1] is ThreadRole.VOTE:
                return found[0]
    return None


def _the_vote_thread(game: Game, threads: list[Thread], chosen: Day | None) -> Thread:
    """The one vote thread among the threads read (an archive holds many)."""
    if len(threads) == 1:
        return threads[0]
    days = [chosen] if chosen is not None else list(game.days)
    votes = {d.vote_ref.key: d.day for d in days}
    boards = {d.vote_ref.key: origin_of(d.vote_ref.base) for d in days}
    # Thread 23 of another board is not the day's: an archive may hold both.
    found = [t for t in threads if t.key in votes and t.origin in ("", boards[t.key])]
    if len(found) > 1:
        numbers = ", ".join(str(votes[t.key]) for t in found)
        raise InputError(
            f"the sources hold the vote threads of days {numbers}; name one with --day N."
        )
    if not found and chosen is not None:
        raise InputError(
            f"the sources hold {len(threads)} threads and none is day {chosen.day}'s vote "
            f"thread ({chosen.vote})."
        )
    if len(found) != 1:
        raise InputError(f"give the pages of one vote thread, not of {len(threads)} threads.")
    return found[0]


def _request_threads(
    game: Game, day: Day, sources: Sequence[str], given: list[Thread], reader: Reader
) -> tuple[list[Thread] | None, str | None]:
    """The day's discussion and progress threads, where acceleration is asked for (S3):
    among the threads given, else read (from the forum or the archive) when the vote thread
    was; pages cached after the requests' deadline are good enough. (None, why) when they
    cannot be had."""
    from tally.rules.acceleration import deadline

    roles = (ThreadRole.PROGRESS, ThreadRole.DISCUSSION)
    keys = {ref.key for ref in map(day.ref, roles) if ref is not None}
    if not keys:
        return None, f"day {day.day} names no discussion or progress thread in {game.where()}"
    found = [t for t in given if t.key in keys]
    if found:
        return found, None
    if not any(is_url(s) for s in sources) and reader.how.archive is None:
        return None, "give the discussion thread's saved pages with the vote thread's"
    urls = [u for u in map(day.url, roles) if u]
    until = deadline(day, game.rules.acceleration_cutoff_hours)
    try:
        return reader.read(urls, game.timezone, closes=until), None
    except (FetchError, NotAThreadError, ParseError) as exc:
        return None, f"the discussion thread could not be read ({str(exc).rstrip('.')})"


def day_threads(game: Game, reader: Reader) -> _DayThreads:
    """A reader of a day's threads for the checks that go day by day (lurkers, report):
    each thread read once in the run, and at or after its day's close from no page cached
    before it."""
    return _DayThreads(game, reader)


class _DayThreads:
    def __init__(self, game: Game, reader: Reader):
        self.game, self.reader = game, reader
        self.held: dict[ThreadKey, Thread] = {}

    def __call__(self, urls: list[str], day: Day) -> list[Thread]:
        keys = [resolve_url(u)[1].key for u in urls]
        wanted = [(k, u) for k, u in zip(keys, urls, strict=True) if k not in self.held]
        got = self.reader.read([u for _, u in wanted], self.game.timezone, closes=day.closes)
        self.held.update(zip([k for k, _ in wanted], got, strict=True))
        return [self.held[k] for k in keys]


def record(game: Game, game_path: Path, result: DayCheck, *, write: bool) -> LedgerView:
    """Add the proposed cards to the ledger beside the game file (atomically, once).

    Cards rest on a whole day: for a day not yet closed nothing is written (InputError
    when ``write`` is asked for).
    """
    from tally.rules import ledger

    if write and result.provisional:
        raise InputError(
            f"day {result.day.day} closes at {short(result.day.closes)} and its threads "
            "were read before that: cards are written only for a closed day; pass --no-write "
            "to see the counts so far."
        )
    path = cardfile.ledger_path(game_path)
    with cardfile.editing(path):
        cards, new = ledger.add(cardfile.load(path), result.cards)
        written = bool(write and new)
        if written:
            cardfile.save(path, cards)
    # Without --write the view shows the ledger as it would be; nothing is saved.
    return ledger.view(path, cards, game, new=new, written=written)


def lurker_day(
    game: Game,
    *,
    day: int | None = None,
    write: bool = True,
    reader: Reader,
    late_ok: bool = False,
) -> Lurked:
    """`tally lurkers`: posts per player up to ``day`` (default: the last closed), the cards
    of that day, and the ledger with them (written unless ``write`` is False)."""
    if game.path is None:
        raise InputError("the lurker check keeps its ledger beside the game file; load one.")
    number = day if day is not None else game.last_closed(reader.now()).day
    if game.day(number).discussion is None:
        raise InputError(
            f"day {number} has no discussion thread in {game.where()}; posts cannot be counted."
        )
    result = check(game, history(game, number, day_threads(game, reader)), number, late_ok=late_ok)
    return Lurked(result, record(game, game.path, result, write=write))


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
    from tally.outputs.archive import write_csv
    from tally.rules.gamefile import load_game

    if output is None and db is None:
        output = Path("posts.csv")
    if output is not None:
        check_output(output, "CSV file")
    if db is not None:
        check_output(db, "database")
    wanted = list(sources or ())
    loaded = None
    if game is not None:
        loaded = game if isinstance(game, Game) else load_game(game, default_timezone=timezone)
        wanted.extend(loaded.thread_urls())
        tz: tzinfo = loaded.timezone
    else:
        tz = zone(timezone)
    if not wanted:
        raise InputError("give at least one thread URL or saved page, or --game GAME.toml.")
    threads = reader.read(wanted, tz)
    partial = tuple(
        f"thread {t.thread_id} is partial: {gap} missing" for t in threads for gap in t.missing
    )
    written = write_csv(threads, output) if output is not None else None
    database = None
    results: list[DayResult] = []
    if db is not None:
        from tally.outputs.database import write_db

        if loaded is not None:
            results = closed_days(loaded, threads)
        database = write_db(db, threads, game=loaded, results=results,
                            now=reader.now().astimezone(tz))  # fmt: skip
    days = tuple(r.day.day for r in results)
    return Archived(threads, output, written, db, database, days, partial)


def closed_days(
    game: Game, threads: Sequence[Thread], *, late_ok: bool = False
) -> list[DayResult]:
    """Every day whose vote thread is among ``threads`` and was read after its close,
    counted in order (each with what the days before it made); a day that cannot be
    counted stops with its sentence."""
    by_key = {t.key: t for t in threads if not t.missing}
    found: dict[int, Thread | str] = {}
    for day in game.days:
        thread = by_key.get(day.vote_ref.key)
        if thread is not None and thread.as_of is not None and thread.as_of >= day.closes:
            found[day.day] = thread
    return list(in_order(game, found, strict=True, late_ok=late_ok).results.values())


def init(
    sources: Sequence[str],
    output: Path,
    *,
    timezone: str = DEFAULT_ZONE,
    ruleset: str | None = None,
    name: str | None = None,
    reader: Reader,
) -> Drafted:
    """`tally init`: a first game file from the game's threads; never over an existing file.
    ``ruleset`` and ``name``, when given, are written instead of placeholders."""
    from tally.atomic import write_atomic
    from tally.outputs.draft import draft
    from tally.rules.gamefile import RULESETS

    if ruleset is not None and ruleset not in RULESETS:
        raise InputError(f"--ruleset {ruleset!r} is not one of {', '.join(RULESETS)}.")
    if name is not None and not name.strip():
        raise InputError("--name is empty; give the game's name as the announcements print it.")
    check_output(output, "game file", overwrite=False)
    threads = reader.read(sources, zone(timezone))
    urls = [t.url if is_url(t.url) else None for t in threads]
    written = draft(threads, urls, timezone, ruleset=ruleset,
                    name=name.strip() if name else None)  # fmt: skip
    write_atomic(output, written.text.encode("utf-8"))
    return Drafted(output, written)


def doctor(source: str, *, timezone: str = DEFAULT_ZONE, reader: Reader) -> Diagnosed:
    """`tally doctor`: how tally reads one page of a board (a URL, or a saved file), field by
    field, where each was found, what is missing, and the board profile used."""
    from tally.forums.diagnosis import look

    return Diagnosed(look(source, reader, zone(timezone)))


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
    # The file is written as a new file beside it, then renamed (tally.atomic): the folder
    # must take a new file, found out now rather than after an hour of watching.
    import tempfile

    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".tally-", suffix=".probe"):
            pass
    except OSError as exc:
        raise OutputError(
            f"cannot write {path}: the folder {folder} takes no new file ({exc.strerror})."
        ) from None


def announcement(
    game: Game,
    *,
    day: int,
    kind: Announcement = Announcement.CLOSE,
    fmt: Markup | None = None,
    seed: int | None = None,
    template_dir: Path | None = None,
    provisional: bool = False,
    show_rules: bool = False,
    reader: Reader,
    late_ok: bool = False,
    post: bool = False,
    yes: bool = False,
    show: Asker | None = None,
    as_edited: bool = False,
) -> Announced:
    """`tally announce`: the post to paste, rendered from its template; rule ids (C5, L1) only
    with ``show_rules``, since the post is for the players. With ``post`` (Discuz!) it is
    also replied into the day's thread as the director (tally.publish: never provisional,
    never twice, asked first unless ``yes``, read back)."""
    from tally.outputs.announce import (
        check_templates,
        closing_post,
        elevator_context,
        format_for,
        morning_context,
        reminder_context,
        render,
    )

    kind, fmt = Announcement(kind), Markup(fmt) if fmt is not None else None
    if post:
        from tally.publish import live_only

        live_only(reader)  # before anything is read: the post needs the live thread
    check_templates(kind, template_dir)  # before the pages are read
    chosen = game.day(day)
    fmt = fmt or reader.markup_for(chosen.vote_ref)  # a board profile's markup
    context: dict[str, object]
    if kind in (Announcement.CLOSE, Announcement.REMINDER):
        [thread] = reader.read([chosen.vote], game.timezone, closes=chosen.closes)
        carried = days_before(game, day, reader, [thread]).carried
        result = tally_day(
            thread, game, day, carried=carried, late_ok=late_ok, as_edited=as_edited
        )
    if kind is Announcement.CLOSE:
        text = closing_post(
            result, game, fmt, provisional=provisional, show_rules=show_rules,
            template_dir=template_dir,
        )  # fmt: skip
        if post and as_edited:
            raise PostError(
                "a count taken --as-edited is never posted: rule on the edited floor in the "
                "game file ([[rulings]]) to post the result."
            )
        if post and result.provisional:
            raise PostError(
                f"day {day} has not closed (read {short(result.as_of)}): a provisional count "
                "(暂计) is never posted; post the result after the close."
            )
        from tally.rules.closed import record

        return _posted(game, chosen, kind, text, post, yes, show, reader, record(result),
                       result.unchecked)  # fmt: skip
    if kind is Announcement.REMINDER:
        context = reminder_context(result, game, show_rules=show_rules)
        if post and not result.not_voted:
            raise PostError(
                f"every living player has voted on day {day}: there is nobody to remind, so "
                "no reminder is posted."
            )
    elif kind is Announcement.MORNING:
        if game.path is None:
            raise InputError("the morning announcement reads the ledger beside the game file.")
        cards = cardfile.load(cardfile.ledger_path(game.path))
        chain = days_before(game, day, reader)
        today, _ = resolve(game, chosen, chain.carried)
        context = morning_context(game, today, chain.days, cards, show_rules=show_rules)
    else:
        # The players' own views of the discussion thread (the vote thread without one).
        url = chosen.discussion or chosen.vote
        [thread] = reader.read([url], game.timezone, closes=chosen.closes)
        role = ThreadRole.DISCUSSION if chosen.discussion else ThreadRole.VOTE
        thread_fits_day(game, thread, chosen, role)
        context = elevator_context(game, chosen, thread, seed)
    text = render(kind, fmt or format_for(game, chosen), context, template_dir)
    return _posted(game, chosen, kind, text, post, yes, show, reader)


class Asker(Protocol):
    """Who is asked before a post (the terminal); None from ``confirm``: nobody to ask."""

    def confirm(self, question: str) -> bool | None: ...


def _posted(game: Game, day: Day, kind: Announcement, text: str, post: bool, yes: bool,
            show: Asker | None, reader: Reader,
            outcome: Mapping[str, object] | None = None,
            unchecked: Sequence[str] = ()) -> Announced:  # fmt: skip
    """The announcement, posted when asked: the text is kept (shown) whatever happens, as it
    is posted (tally's mark on its last line); on a terminal it is shown in full before the
    question."""
    from tally.publish import final_text, post_text

    if not post:
        return Announced(text, as_posted=final_text(game, day.day, kind, text, outcome))

    text = final_text(game, day.day, kind, text, outcome)

    def confirm(question: str) -> bool | None:
        return show.confirm(f"{text.rstrip()}\n\n{question}") if show is not None else None

    try:
        posted = post_text(game, day, kind, text, reader=reader, yes=yes, confirm=confirm,
                           outcome=outcome, unchecked=unchecked)  # fmt: skip
    except (PostError, FetchError) as exc:  # the forum gone mid-way: still the text to paste
        return Announced(text, failure=exc)
    return Announced(text, posted=posted)


def report(
    game: Game,
    output: Path,
    *,
    reader: Reader,
    late_ok: bool = False,
    template_dir: Path | None = None,
    as_of: str | None = None,
) -> Reported:
    """`tally report`: the game so far as one self-contained HTML page (written atomically).

    Each thread is read once; a day's threads read at or after its close trust no page
    cached before it, as `tally votes` does. With ``as_of`` (a date and time), the days
    closed by then, each vote thread as tally's reads show it stood then.
    """
    from tally.atomic import write_atomic
    from tally.outputs.announce import check_templates
    from tally.outputs.report import render_report

    check_output(output, "report")
    check_templates("report", template_dir, html=True)  # before the pages are read
    now = reader.now()
    threads = day_threads(game, reader)
    moment = None
    if as_of is not None:
        if ":" not in as_of or "-" not in as_of:
            raise InputError(f"--as-of {as_of!r}: the report takes a date and time "
                             "(2026-12-01 20:30), the moment every day is counted at.")  # fmt: skip
        moment = as_of_time(Thread("", "", "", "", 0, ()), as_of, game, game.days[0])
    closed = game.closed(moment or now)
    votes_read = [t for d in closed for t in threads([d.vote], d)]
    if moment is not None:
        votes_read = [thread_as_of(t, moment) for t in votes_read]
    results = closed_days(game, votes_read, late_ok=late_ok)
    talked = [d.day for d in closed if d.discussion is not None]
    posts = {}
    if talked:
        posts = dict(check(game, history(game, max(talked), threads), max(talked)).days)
        posts = {n: counts for n, counts in posts.items() if n in talked}
    cards = cardfile.load(cardfile.ledger_path(game.path)) if game.path is not None else []
    drawn = {r.day.day for r in results}
    pending = tuple(d.day for d in game.days if d.day not in drawn)
    page = render_report(game, results, posts, cards, pending=pending,
                         generated=now.astimezone(game.timezone),
                         template_dir=template_dir)  # fmt: skip
    data = page.encode("utf-8")
    write_atomic(output, data)
    return Reported(output, tuple(sorted(drawn)), pending, len(data))


def draw_chart(result: DayResult, game: Game, output: Path) -> str | None:
    """`tally votes --chart`: the day's picture as PNG (written atomically); the sentence to
    show when no font can draw the names."""
    from tally.atomic import write_atomic
    from tally.outputs import charts
    from tally.outputs.announce import outcome_sentence

    picture = charts.png(charts.day_figure, result, outcome_sentence(result, game))
    write_atomic(output, picture.data)
    return picture.warning


def as_of_time(thread: Thread, given: str, game: Game, day: Day) -> datetime:
    """``--as-of``: a floor number (the moment it was posted), a date and time in the game's
    clock ("2026-12-01 20:30"), or a time alone on the day of the close ("20:30")."""
    text = given.strip()
    if text.isdigit():
        return floor_time(thread, int(text))
    try:
        if len(text) <= 8 and ":" in text:
            moment = datetime.combine(day.closes.date(), time.fromisoformat(text))
        else:
            moment = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(
            f"--as-of {given!r} is neither a floor number nor a time (2026-12-01 20:30, or "
            "20:30 on the day of the close)."
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=game.timezone)
    return moment
