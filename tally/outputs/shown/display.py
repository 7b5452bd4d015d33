"""Each result a command returns as tables and sentences (``show``, result by result), on
the run's streams (``Streams``): what a run prints when JSON was not asked for."""

from __future__ import annotations

import functools

from rich.table import Table

from tally.forums import url_shapes
from tally.outputs.results import (
    Announced,
    Archived,
    Counted,
    DayAdded,
    Diagnosed,
    Drafted,
    Exported,
    Lurked,
    Posted,
    Reported,
)
from tally.outputs.shown.console import cell, print_day, say
from tally.outputs.shown.ledger import print_cards, print_lurkers
from tally.outputs.shown.streams import Streams
from tally.rules.cards.ledger import LedgerEdit, LedgerView
from tally.rules.counting.votes import DayResult
from tally.settings import Settings
from tally.times import short


@functools.singledispatch
def show(result: object, terminal: Streams) -> None:
    raise TypeError(f"tally has no way to show a {type(result).__name__}")  # pragma: no cover


@show.register(DayResult)
def _(result: DayResult, terminal: Streams) -> None:
    print_day(terminal.stdout(), result)


@show.register(Counted)
def _(done: Counted, terminal: Streams) -> None:
    if done.chart is not None:
        terminal.note(f"wrote the picture of day {done.result.day.day} to {done.chart}")
    print_day(terminal.stdout(), done.result)
    if done.announcement is not None:
        terminal.text("\n" + done.announcement)


@show.register(Lurked)
def _(done: Lurked, terminal: Streams) -> None:
    print_lurkers(terminal.stdout(), done.check, done.ledger)


@show.register(Announced)
def _(done: Announced, terminal: Streams) -> None:
    terminal.text(done.text)
    if done.posted is not None:
        tell_posted(done.posted, terminal)


def posted_line(posted: Posted) -> str:
    floor = f"floor {posted.floor}" if posted.floor is not None else f"post {posted.pid}"
    checked = "read back: the forum shows what was sent" if posted.read_back else "read back"
    return f"posted as {posted.member}, {floor}: {posted.url} ({checked})"


def tell_posted(posted: Posted, terminal: Streams, *, line: bool = True) -> None:
    """Where the post went (``line``), and a difference the read back found, never hidden."""
    if line:
        terminal.note(posted_line(posted))
    if posted.difference is not None:
        terminal.warn(f"post {posted.pid} as the forum shows it differs: {posted.difference}.")


@show.register(Archived)
def _(done: Archived, terminal: Streams) -> None:
    pages = sum(t.page_count for t in done.threads)
    read = f"{len(done.threads)} thread(s), {pages} page(s)"
    if done.rows is not None:
        terminal.note(f"wrote {done.rows} rows from {read} to {done.csv}")
    if done.database is not None:
        d = done.database
        days = f"; ballots of day(s) {', '.join(map(str, done.days))}" if done.days else ""
        terminal.note(
            f"database {done.db}: {sum(d.inserted.values())} rows added, "
            f"{sum(d.updated.values())} updated, {d.gone} posts gone from the forum, "
            f"{sum(d.deleted.values())} ballots or totals no longer counted, "
            f"{sum(d.unchanged.values())} unchanged ({read}{days})"
        )


@show.register(Reported)
def _(done: Reported, terminal: Streams) -> None:
    drawn = ", ".join(map(str, done.days)) or "none"
    waiting = f"; not closed yet: {', '.join(map(str, done.pending))}" if done.pending else ""
    terminal.note(f"wrote {done.path} ({done.size / 1024:.0f} KB): day(s) {drawn}{waiting}")


@show.register(Drafted)
def _(done: Drafted, terminal: Streams) -> None:
    made = done.draft
    todo = "; ".join(made.todo)
    terminal.note(
        f"wrote {done.path}: {len(made.directors)} director, {len(made.players)} players, "
        f"{made.days} day(s); still to do: {todo}; then run "
        f"`tally votes VOTE-URL --game {done.path}`, and `tally day add` each morning."
    )


@show.register(DayAdded)
def _(done: DayAdded, terminal: Streams) -> None:
    p = done.proposal
    closes = f", closes {short(p.closes)}" if p.closes is not None else ""
    terminal.note(f"added day {p.day} to {done.path}: opens {short(p.opens)}{closes}")
    for what in p.todo:  # even with --quiet: the file is not finished
        say(terminal.stderr(), f"still to do: {what}", "yellow")
    if not p.todo:
        terminal.note(f"then: `tally votes {p.vote} --game {done.path}` once it closes.")


_PROFILE_KEYS = ("floor_names", "posts_per_page")


@show.register(Diagnosed)
def _(done: Diagnosed, terminal: Streams) -> None:
    d = done.diagnosis
    out = terminal.stdout()
    status = f" (HTTP {d.status})" if d.status is not None else ""
    say(out, f"{d.source}{status}")
    if d.url_known is False:
        say(out, f"  not a thread URL tally knows; its shapes are {url_shapes()}", "yellow")
    if d.read_instead:
        say(out, f"  {d.read_instead}", "yellow")
    if d.read_by == "api":
        say(out, "  every command reads this thread through the forum's interface for its "
                 "clients (its JSON, to the second); the page below is the fallback")  # fmt: skip
    elif d.read_by_why:
        say(out, f"  {d.read_by_why}", "yellow")
    if d.software:
        board = d.board
        about = f": {board.about}" if board.about else ""
        say(out, f"  {d.software}, board profile {board.name} ({board.origin}){about}")
    if d.problem is not None:
        say(out, f"  not a thread page tally can read: {d.problem}", "red")
        return
    say(out, f"  {d.posts} posts on the page")
    table = Table()
    for column in ("field", "found", "where", "example"):
        table.add_column(column)
    for f in d.fields:
        found = ("yes" if f.complete else "no") if f.of == 1 else f"{f.found}/{f.of}"
        style = "" if f.complete else ("red" if f.essential else "yellow")
        where = "; ".join(w if n == f.of or f.of == 1 else f"{w} ×{n}" for w, n in f.where)
        table.add_row(cell(f.name), cell(found, style), cell(where or "-"), cell(f.example))
    out.print(table)
    for f in d.fields:
        for said in f.missing:
            say(out, f"  {f.name}: {said}", "red" if f.essential else "yellow")
    if d.readable:
        say(out, "tally can read this page.", "green")
    else:
        names = ", ".join(f.name for f in d.missing)
        # The key the sentences above name, when they name one (floor_names, posts_per_page).
        keys = sorted({k for f in d.missing for said in f.missing for k in _PROFILE_KEYS
                       if k in said})  # fmt: skip
        hint = (f"A board profile's {' or '.join(keys)} can say it" if keys
                else "A board profile can say where")  # fmt: skip
        say(out, f"tally cannot read this page: {names} not found on every post. {hint} "
                 "(docs/boards.md).", "red")  # fmt: skip


@show.register(LedgerEdit)
def _(done: LedgerEdit, terminal: Streams) -> None:
    out = terminal.stdout()
    if done.how:
        terminal.note(f"{done.how}: the ledger names the player as the game file does.")
    if not done.added and not done.removed:
        say(out, "already in the ledger; nothing written.")
    for card in done.added:
        say(out, f"added: day {card.day} {card.player} {card.colour.label} {card.rule} "
                 f"{card.reason}")  # fmt: skip
    for card in done.removed:
        say(out, f"removed: day {card.day} {card.player} {card.colour.label} {card.rule} "
                 f"{card.reason}")  # fmt: skip


@show.register(LedgerView)
def _(ledger: LedgerView, terminal: Streams) -> None:
    print_cards(terminal.stdout(), ledger.cards)


@show.register(Exported)
def _(done: Exported, terminal: Streams) -> None:
    names = ", ".join(p.name for p in done.files)
    terminal.note(
        f"wrote {len(done.files)} files to {done.folder}: {names}. Edit the ones you want "
        f"(README.md there lists the values each gets), delete the others, and pass "
        f"--template-dir {done.folder} (or set template_dir in the config file)."
    )


@show.register(Settings)
def _(settings: Settings, terminal: Streams) -> None:
    out = terminal.stdout()
    found = "" if settings.config_found else " (not there: nothing set in it)"
    say(out, f"config file: {settings.config}{found}")
    table = Table()
    for column in ("setting", "value", "from"):
        table.add_column(column)
    for s in settings.values.values():
        value = s.key.unset if s.value is None else str(s.value)
        if isinstance(s.value, bool):
            value = value.lower()  # as TOML writes it
        table.add_row(cell(s.key.name), cell(value), cell(s.source))
    chosen = settings.language
    table.add_row(cell("language"), cell(f"{chosen.language.value} ({chosen.language.said})"),
                  cell(chosen.source))  # fmt: skip
    out.print(table)
