"""Each result a command returns as tables and sentences (``show``, result by result), on
the run's streams (``Streams``): what a run prints when JSON was not asked for."""

from __future__ import annotations

import functools

from rich.table import Table

from tally.forums import url_shapes
from tally.i18n import ntr, tr
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
from tally.settings import Settings, said_source
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
        terminal.note(tr("wrote the picture of day {day} to {path}", day=done.result.day.day,
                         path=done.chart))  # fmt: skip
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
    fields = dict(member=posted.member, floor=posted.floor, pid=posted.pid, url=posted.url)
    if posted.floor is not None and posted.read_back:
        return tr("posted as {member}, floor {floor}: {url} (read back: the forum shows what "
                  "was sent)", **fields)  # fmt: skip
    if posted.floor is not None:
        return tr("posted as {member}, floor {floor}: {url} (read back)", **fields)
    if posted.read_back:
        return tr("posted as {member}, post {pid}: {url} (read back: the forum shows what was "
                  "sent)", **fields)  # fmt: skip
    return tr("posted as {member}, post {pid}: {url} (read back)", **fields)


def tell_posted(posted: Posted, terminal: Streams, *, line: bool = True) -> None:
    """Where the post went (``line``), and a difference the read back found, never hidden."""
    if line:
        terminal.note(posted_line(posted))
    if posted.difference is not None:
        terminal.warn(tr("post {pid} as the forum shows it differs: {difference}.",
                         pid=posted.pid, difference=posted.difference))  # fmt: skip


@show.register(Archived)
def _(done: Archived, terminal: Streams) -> None:
    pages = sum(t.page_count for t in done.threads)
    read = tr("{threads} thread(s), {pages} page(s)", threads=len(done.threads), pages=pages)
    if done.rows is not None:
        terminal.note(tr("wrote {rows} rows from {read} to {path}", rows=done.rows, read=read,
                         path=done.csv))  # fmt: skip
    if done.database is not None:
        d = done.database
        if done.days:
            read += tr("; ballots of day(s) {days}", days=", ".join(map(str, done.days)))
        terminal.note(tr(
            "database {path}: {added} rows added, {updated} updated, {gone} posts gone from "
            "the forum, {deleted} ballots or totals no longer counted, {unchanged} unchanged "
            "({read})", path=done.db, added=sum(d.inserted.values()),
            updated=sum(d.updated.values()), gone=d.gone, deleted=sum(d.deleted.values()),
            unchanged=sum(d.unchanged.values()), read=read))  # fmt: skip


@show.register(Reported)
def _(done: Reported, terminal: Streams) -> None:
    fields = dict(path=done.path, kb=f"{done.size / 1024:.0f}",
                  days=", ".join(map(str, done.days)) or tr("none"),
                  pending=", ".join(map(str, done.pending)))  # fmt: skip
    if done.pending:
        terminal.note(tr("wrote {path} ({kb} KB): day(s) {days}; not closed yet: {pending}",
                         **fields))  # fmt: skip
    else:
        terminal.note(tr("wrote {path} ({kb} KB): day(s) {days}", **fields))


@show.register(Drafted)
def _(done: Drafted, terminal: Streams) -> None:
    made = done.draft
    terminal.note(tr(
        "wrote {path}: {directors} director, {players} players, {days} day(s); still to do: "
        "{todo}; then run `tally votes VOTE-URL --game {path}`, and `tally day add` each "
        "morning.", path=done.path, directors=len(made.directors), players=len(made.players),
        days=made.days, todo=tr("; ").join(made.todo)))  # fmt: skip


@show.register(DayAdded)
def _(done: DayAdded, terminal: Streams) -> None:
    p = done.proposal
    if p.closes is not None:
        terminal.note(tr("added day {day} to {path}: opens {opens}, closes {closes}", day=p.day,
                         path=done.path, opens=short(p.opens), closes=short(p.closes)))  # fmt: skip
    else:
        terminal.note(tr("added day {day} to {path}: opens {opens}", day=p.day, path=done.path,
                         opens=short(p.opens)))  # fmt: skip
    for what in p.todo:  # even with --quiet: the file is not finished
        say(terminal.stderr(), tr("still to do: {what}", what=what), "yellow")
    if not p.todo:
        terminal.note(tr("then: `tally votes {vote} --game {path}` once it closes.", vote=p.vote,
                         path=done.path))  # fmt: skip


_PROFILE_KEYS = ("floor_names", "posts_per_page")


@show.register(Diagnosed)
def _(done: Diagnosed, terminal: Streams) -> None:
    d = done.diagnosis
    out = terminal.stdout()
    status = f" (HTTP {d.status})" if d.status is not None else ""
    say(out, f"{d.source}{status}")
    if d.url_known is False:
        say(out, "  " + tr("not a thread URL tally knows; its shapes are {shapes}",
                           shapes=url_shapes()), "yellow")  # fmt: skip
    if d.read_instead:
        say(out, f"  {d.read_instead}", "yellow")
    if d.read_by == "api":
        # The probe reads the first floor alone: a 点评 further on that the interface shows
        # counted back from its answer ("3 分钟前") still sends the read to the pages.
        say(out, "  " + tr("every command reads this thread through the forum's interface for "
                           "its clients (its JSON, to the second), unless a 点评 in it shows "
                           "its time only counted back (\"3 分钟前\"): then from its pages; the "
                           "page below is the fallback"))  # fmt: skip
    elif d.read_by_why:
        say(out, f"  {d.read_by_why}", "yellow")
    if d.software:
        board = d.board
        profile = tr("{software}, board profile {name} ({origin})", software=d.software,
                     name=board.name, origin=tr(board.origin))  # fmt: skip
        say(out, f"  {profile}" + (f": {board.about}" if board.about else ""))
    if d.problem is not None:
        say(out, "  " + tr("not a thread page tally can read: {problem}", problem=d.problem),
            "red")  # fmt: skip
        return
    say(out, "  " + ntr("{n} posts on the page", "{n} posts on the page", d.posts))
    table = Table()
    for column in (tr("field"), tr("found"), tr("where"), tr("example")):
        table.add_column(column)
    for f in d.fields:
        found = (tr("yes") if f.complete else tr("no")) if f.of == 1 else f"{f.found}/{f.of}"
        style = "" if f.complete else ("red" if f.essential else "yellow")
        where = "; ".join(w if n == f.of or f.of == 1 else f"{w} ×{n}" for w, n in f.where)
        table.add_row(cell(tr(f.name)), cell(found, style), cell(where or "-"), cell(f.example))
    out.print(table)
    for f in d.fields:
        for said in f.missing:
            say(out, "  " + tr(f.name) + ": " + said, "red" if f.essential else "yellow")
    if d.readable:
        say(out, tr("tally can read this page."), "green")
    else:
        names = tr(", ").join(tr(f.name) for f in d.missing)
        # The key the sentences above name, when they name one (floor_names, posts_per_page).
        keys = sorted({k for f in d.missing for said in f.missing for k in _PROFILE_KEYS
                       if k in said})  # fmt: skip
        if keys:
            said = tr("tally cannot read this page: {names} not found on every post. A board "
                      "profile's {keys} can say it (docs/boards.md).", names=names,
                      keys=tr(" or ").join(keys))  # fmt: skip
        else:
            said = tr("tally cannot read this page: {names} not found on every post. A board "
                      "profile can say where (docs/boards.md).", names=names)  # fmt: skip
        say(out, said, "red")


@show.register(LedgerEdit)
def _(done: LedgerEdit, terminal: Streams) -> None:
    out = terminal.stdout()
    if done.how:
        terminal.note(tr("{how}: the ledger names the player as the game file does.",
                         how=done.how))  # fmt: skip
    if not done.added and not done.removed:
        say(out, tr("already in the ledger; nothing written."))
    for card in done.added:
        say(out, tr("added: day {day} {player} {card} {rule} {reason}", day=card.day,
                    player=card.player, card=card.colour.label, rule=card.rule,
                    reason=card.reason))  # fmt: skip
    for card in done.removed:
        say(out, tr("removed: day {day} {player} {card} {rule} {reason}", day=card.day,
                    player=card.player, card=card.colour.label, rule=card.rule,
                    reason=card.reason))  # fmt: skip


@show.register(LedgerView)
def _(ledger: LedgerView, terminal: Streams) -> None:
    print_cards(terminal.stdout(), ledger.cards)


@show.register(Exported)
def _(done: Exported, terminal: Streams) -> None:
    names = tr(", ").join(p.name for p in done.files)
    terminal.note(tr(
        "wrote {n} files to {folder}: {names}. Edit the ones you want (README.md there lists "
        "the values each gets), delete the others, and pass --template-dir {folder} (or set "
        "template_dir in the config file).", n=len(done.files), folder=done.folder,
        names=names))  # fmt: skip


@show.register(Settings)
def _(settings: Settings, terminal: Streams) -> None:
    out = terminal.stdout()
    if settings.config_found:
        say(out, tr("config file: {path}", path=settings.config))
    else:
        say(out, tr("config file: {path} (not there: nothing set in it)", path=settings.config))
    table = Table()
    for column in (tr("setting"), tr("value"), tr("from")):
        table.add_column(column)
    for s in settings.values.values():
        value = s.key.unset if s.value is None else str(s.value)
        if isinstance(s.value, bool):
            value = value.lower()  # as TOML writes it
        table.add_row(cell(s.key.name), cell(value), cell(said_source(s.source)))
    chosen = settings.language
    table.add_row(cell("language"), cell(f"{chosen.language.value} ({chosen.language.said})"),
                  cell(said_source(chosen.source)))  # fmt: skip
    out.print(table)
