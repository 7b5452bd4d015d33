"""Rich tables for the terminal: what the commands print for the director to read."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

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
from tally.rules.ledger import Card, LedgerEdit, LedgerView
from tally.rules.state import FactKind, Source
from tally.rules.verdicts import DayKind, OutcomeResult, Status
from tally.rules.votes import DayResult
from tally.sanitise import one_line
from tally.settings import Settings
from tally.times import compared, duration, long, short

if TYPE_CHECKING:
    from tally.model import Post, Thread
    from tally.outputs.terminal import Terminal
    from tally.rules.lurkers import DayCheck


def cell(value: object, style: str = "") -> Text:
    """Anything that may hold what a forum user wrote, ready for a table cell or a line.

    Sanitised (no control characters, one line), and a ``Text``: rich never reads it as
    markup (``[red]``, ``[link=…]``, a stray ``[/b]``) or as emoji codes.
    """
    return Text(one_line(str(value)), style=style)


def say(console: Console, value: object, style: str = "") -> None:
    """Print one line that may hold what a forum user wrote.

    Leading line breaks and spaces are tally's own layout (a blank line before a heading,
    an indent) and are kept; the rest is one sanitised line.
    """
    text = str(value)
    body = text.lstrip("\n ")
    lead = text[: len(text) - len(body)]
    for _ in range(lead.count("\n")):
        console.print()
    # Soft wrap: the terminal wraps a long line, and copying it gives the line back whole.
    console.print(Text(" " * lead.count(" ") + one_line(body), style=style), soft_wrap=True)


def _first_line(text: str, width: int = 40) -> str:
    line = text.split("\n", 1)[0]
    return line if len(line) <= width else line[: width - 1] + "…"


def _marks(post: Post, floors: dict[str, int]) -> str:
    marks = []
    for q in post.quotes:
        target = floors.get(q.post_id or "")
        marks.append(f"quotes #{target}" if target else "quotes")
    if post.edited:
        marks.append(f"edited {short(post.edited.at)} by {post.edited.by}")
    if post.comments:
        marks.append(f"{len(post.comments)} 点评")
    if post.red_font:
        marks.append("red font")
    if post.large_font:
        marks.append("large font")
    if post.hidden:
        marks.append(f"hidden ({post.hidden})")
    return "; ".join(marks)


def print_threads(console: Console, threads: Iterable[Thread]) -> None:
    """Each thread as a table of floors, with its comments indented under them."""
    for thread in threads:
        comments = sum(len(p.comments) for p in thread.posts)
        say(
            console,
            f"\nThread {thread.thread_id} “{thread.title}”: {thread.page_count} page(s), "
            f"{len(thread.posts)} posts, {comments} comments",
        )
        floors = {p.post_id: p.floor for p in thread.posts}
        table = Table(show_lines=False)
        for column in ("floor", "author", "time", "text", "marks"):
            table.add_column(column)
        for post in thread.posts:
            table.add_row(
                str(post.floor),
                cell(post.author),
                f"{long(post.time)}",
                cell(_first_line(post.text)),
                cell(_marks(post, floors)),
            )
            for c in post.comments:
                table.add_row(
                    "",
                    Text("  └ ") + cell(c.author),
                    f"{long(c.time)}",
                    cell(_first_line(c.text)),
                    "点评",
                )
        console.print(table)


# From this many columns on, the ballots are a table; below, two lines each.
WIDE = 100
_STATUS_STYLE = {Status.COUNTED: "green", Status.SUPERSEDED: "yellow", Status.VOID: "red"}
_REMARK_STATUS = {
    Status.NOT_A_BALLOT: "not a ballot",
    Status.BANNED: "banned",
    Status.DELETED: "deleted",
}


def totals_table(result: DayResult) -> Table:
    """Each player's votes, the voters with their weights, and the bonuses with their rule."""
    from tally.rules.count import votes_text

    weights = result.count.weights
    totals = Table(title="Totals")
    for column in ("player", "votes", "voters (weight)", "bonus"):
        totals.add_column(column)
    for t in result.totals:
        voters = ", ".join(
            f"{v} ×{votes_text(weights[v][0])}" if v in weights and weights[v][0] != 1 else v
            for v in t.voters
        )
        bonus = "; ".join(f"+{votes_text(a)} {why} ({rule})" for a, why, rule in t.bonuses)
        totals.add_row(cell(t.player), votes_text(t.votes), cell(voters), cell(bonus))
    if result.count.abstained:
        totals.add_row("(弃权)", votes_text(result.count.abstained), "", "")
    return totals


def print_day(console: Console, result: DayResult) -> None:
    """The table a director checks against the thread, floor by floor."""

    thread = result.thread
    day = result.day
    say(
        console,
        f"\nDay {day.day} {'sheriff election' if result.kind == DayKind.SHERIFF else 'vote'} "
        f"(ruleset {result.ruleset}), thread {thread.thread_id} “{thread.title}”: "
        f"{thread.page_count} page(s), {len(thread.posts)} posts",
    )
    if result.provisional:
        closes, read = compared(day.closes, result.as_of)
        say(
            console,
            f"PROVISIONAL: the day closes {closes}, {duration(day.closes - result.as_of)} "
            f"after this count ({read}); ballots and changes may still come.",
            style="bold yellow",
        )
    derived = [f for f in result.facts if f.source is Source.DERIVED]
    if derived:
        said = "; ".join(
            f"sheriff {f.player} ({f.note})" if f.what is FactKind.SHERIFF else f"{f.player} out"
            f" ({f.note})"
            for f in derived
        )
        say(console, f"From the earlier days' counts (not in the game file): {said}")
    console.print(totals_table(result))

    # (order, floor, who, kind, target, time, status, style, why), in the thread's order:
    # the ballots, and the posts that hold none (listed, never counted).
    rows = []
    for b in result.ballots:
        counted = b.status == Status.COUNTED
        status = "in force now" if result.provisional and counted else str(b.status)
        why = "" if b.note == status else b.note
        if b.reason:
            why = f"{b.reason}: {why}"  # the code once, then what it means here
        if b.flags:
            why += " [flag: " + "; ".join(b.flags) + "]"
        floor = f"{b.floor}" + (" 点评" if b.comment else "")
        target, style = b.target or b.written or "", _STATUS_STYLE[b.status]
        rows.append(((b.floor, b.comment, b.posted_at), floor, b.voter or b.author, str(b.kind),
                     target, short(b.time), status, style, why.strip()))  # fmt: skip
    for r in result.remarks:
        floor = f"{r.floor}" + (" 点评" if r.comment else "")
        rows.append(((r.floor, r.comment, r.time), floor, r.player or r.author, "", "",
                     short(r.time), _REMARK_STATUS[r.status], "dim" if r.status ==
                     Status.NOT_A_BALLOT else "red", r.note or r.words))  # fmt: skip
    rows.sort(key=lambda row: row[0])
    if console.width >= WIDE:
        ballots = Table(title="Ballots, floor by floor")
        for column in ("floor", "voter", "kind", "target", "time", "status"):
            ballots.add_column(column, no_wrap=True)
        ballots.add_column("why", overflow="fold")  # wrapped at spaces, never cut short
        for _, floor, who, kind, target, when, status, style, why in rows:
            ballots.add_row(floor, cell(who), kind, cell(target), when, cell(status, style),
                            cell(why))  # fmt: skip
        console.print(ballots)
    else:  # a narrow terminal: each ballot on a line, why it stands so on the next
        say(console, "\nBallots, floor by floor")
        for _, floor, who, kind, target, when, status, style, why in rows:
            head = Text(f"{floor:>6}  ") + cell(who) + Text(f"  {kind} ")
            head += cell(target) + Text(f"  {when}  ") + cell(status, style)
            console.print(head, soft_wrap=True)
            if why:
                say(console, f"        {why}")
    for flag in result.flags:
        where = f"floor {flag.floor}: " if flag.floor else ""
        say(console, f"flag {flag.rule}: {where}{flag.note}")
    if result.not_voted:
        say(console, f"Not voted ({len(result.not_voted)}): {'、'.join(result.not_voted)}")
    say(console, outcome_line(result))


def outcome_line(result: DayResult) -> str:
    """The last line of a count: who is out (or sheriff) and by which rule; before the
    close, who leads and what would happen if the day closed now."""
    o = result.outcome
    if result.provisional:
        verdict = {
            OutcomeResult.ELIMINATED: f"{o.player} would be out",
            OutcomeResult.SHERIFF: f"{o.player} would be sheriff",
            OutcomeResult.NONE: "nobody would be "
            + ("sheriff" if result.kind == DayKind.SHERIFF else "out"),
        }[o.result]
        leaders = "、".join(result.leaders) or "nobody"
        return (
            f"Standing now (not final): {leaders} leading; if the day closed now, {verdict} — "
            f"{o.note} [rule {o.code}]"
        )
    verdict = {
        OutcomeResult.ELIMINATED: f"{o.player} is out",
        OutcomeResult.SHERIFF: f"{o.player} is sheriff",
        OutcomeResult.NONE: "nobody",
    }[o.result]
    return f"Outcome: {verdict} — {o.note} [rule {o.code}]"


def print_lurkers(console: Console, result: DayCheck, view: LedgerView) -> None:
    """Players × days, the cards proposed, the flags, and the ledger."""
    day = result.day
    note = " (accelerated: no lurking cards, S3)" if day.accelerated else ""
    say(console, f"\nLurker check for day {day.day}{note}")
    if result.provisional:
        say(
            console,
            f"PROVISIONAL: day {day.day} closes {short(day.closes)}; these are the counts "
            "so far, and the cards below are what they would give. Nothing is written.",
            style="bold yellow",
        )
    table = Table(title="Posts (voted) per day")
    table.add_column("player")
    numbers = sorted(result.days)
    for n in numbers:
        table.add_column(f"day {n}", justify="right")
    rows: dict[str, list[str]] = {}
    for n in numbers:
        for pd in result.days[n]:
            mark = {True: "✓", False: "✗", None: "?"}[pd.voted]
            rows.setdefault(pd.player, ["-"] * len(numbers))[numbers.index(n)] = (
                f"{pd.posts} {mark}"
            )
    for player, cells in rows.items():
        table.add_row(cell(player), *cells)
    console.print(table)
    if result.cards:
        say(console, "Cards for this day:")
        new = {c.key for c in view.new}
        for c in result.cards:
            state = "new" if c.key in new else "already in the ledger"
            say(console, f"  {c.player}: {c.colour} card ({c.rule}) — {c.reason} [{state}]")
    else:
        say(console, "No cards for this day.")
    for c in view.new:
        if c.rule == "K1":
            say(console, f"  {c.player}: {c.reason}")
    for flag in result.flags:
        # A flag of the day as a whole (S3) has no floor: "floor None" said nothing.
        where = f"thread {flag.thread_id}, " if flag.thread_id else ""
        where += f"floor {flag.floor}: " if flag.floor is not None else ""
        say(console, f"flag {flag.rule}: {where}{flag.note}")
    if view.totals:
        say(console, "Ledger totals (blue / yellow / red):")
        for player, t in sorted(view.totals.items()):
            say(console, f"  {player}: {t.blue} / {t.yellow} / {t.red}")
    if view.sent_off:
        say(console, f"Sent off (red card, K2): {'、'.join(view.sent_off)}")
    for camp, players in view.camps_lost.items():
        say(
            console,
            f"Camp {camp} has {len(players)} red cards ({'、'.join(players)}): it loses (K2)",
        )
    saved = (
        "written to"
        if view.written
        else "unchanged:"
        if not view.new
        else "not written (--no-write):"
    )
    say(console, f"Ledger {saved} {view.path}")


def print_demo(
    console: Console,
    name: str,
    forum: str,
    threads: Iterable[Thread],
    result: DayResult,
    markup: str,
) -> None:
    """The demo in a dozen lines: what was read, how the day was counted, what it says."""
    from tally.rules.count import votes_text

    say(console, f"Sample game {name}, served at {forum} (pages a real Discuz! X3.5 rendered)")
    for t in threads:
        comments = sum(len(p.comments) for p in t.posts)
        say(
            console,
            f"  read thread {t.thread_id} “{t.title}”: {t.page_count} page(s), "
            f"{len(t.posts)} posts, {comments} 点评",
        )
    by_status = {s: [b for b in result.ballots if b.status == s] for s in Status}
    reasons = "、".join(dict.fromkeys(str(b.reason) for b in by_status[Status.VOID]))
    say(
        console,
        f"Day {result.day.day} (ruleset {result.ruleset}): {len(result.ballots)} ballots — "
        f"{len(by_status[Status.COUNTED])} in force, {len(by_status[Status.SUPERSEDED])} "
        f"changed, {len(by_status[Status.VOID])} void" + (f" ({reasons})" if reasons else ""),
    )
    totals = " · ".join(f"{t.player} {votes_text(t.votes)}" for t in result.totals)
    say(console, f"Totals: {totals or 'none'}; not voted: {'、'.join(result.not_voted) or 'none'}")
    o = result.outcome
    verdict = {
        OutcomeResult.ELIMINATED: f"{o.player} is out",
        OutcomeResult.SHERIFF: f"{o.player} is sheriff",
        OutcomeResult.NONE: "nobody",
    }[o.result]
    say(console, f"Outcome: {verdict} — {o.note} [rule {o.code}]")
    say(console, f"\nThe announcement to paste ({markup}), as `tally announce` prints it:")
    console.print()


def print_cards(console: Console, cards: Sequence[Card]) -> None:
    """The ledger as a table, with each player's totals and who is sent off (K2)."""
    from tally.rules.ledger import sent_off, totals

    if not cards:
        say(console, "No card.")
        return
    table = Table(title="Cards")
    for column in ("day", "player", "card", "rule", "reason", "by"):
        table.add_column(column)
    for c in cards:
        table.add_row(str(c.day), cell(c.player), c.colour.label, cell(c.rule), cell(c.reason),
                      c.source)  # fmt: skip
    console.print(table)
    for player, t in sorted(totals(cards).items()):
        say(console, f"{player}: {t.blue} blue, {t.yellow} yellow, {t.red} red")
    gone = sent_off(cards)
    if gone:
        say(console, f"Sent off (red card, K2): {'、'.join(gone)}")


# -- each result as the terminal shows it (``Terminal.show``) ---------------------------------


@functools.singledispatch
def show(result: object, terminal: Terminal) -> None:
    raise TypeError(f"tally has no way to show a {type(result).__name__}")  # pragma: no cover


@show.register(DayResult)
def _(result: DayResult, terminal: Terminal) -> None:
    print_day(terminal.stdout(), result)


@show.register(Counted)
def _(done: Counted, terminal: Terminal) -> None:
    if done.chart is not None:
        terminal.note(f"wrote the picture of day {done.result.day.day} to {done.chart}")
    print_day(terminal.stdout(), done.result)
    if done.announcement is not None:
        terminal.text("\n" + done.announcement)


@show.register(Lurked)
def _(done: Lurked, terminal: Terminal) -> None:
    print_lurkers(terminal.stdout(), done.check, done.ledger)


@show.register(Announced)
def _(done: Announced, terminal: Terminal) -> None:
    terminal.text(done.text)
    if done.posted is not None:
        tell_posted(done.posted, terminal)


def posted_line(posted: Posted) -> str:
    floor = f"floor {posted.floor}" if posted.floor is not None else f"post {posted.pid}"
    checked = "read back: the forum shows what was sent" if posted.read_back else "read back"
    return f"posted as {posted.member}, {floor}: {posted.url} ({checked})"


def tell_posted(posted: Posted, terminal: Terminal, *, line: bool = True) -> None:
    """Where the post went (``line``), and a difference the read back found, never hidden."""
    if line:
        terminal.note(posted_line(posted))
    if posted.difference is not None:
        terminal.warn(f"post {posted.pid} as the forum shows it differs: {posted.difference}.")


@show.register(Archived)
def _(done: Archived, terminal: Terminal) -> None:
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
def _(done: Reported, terminal: Terminal) -> None:
    drawn = ", ".join(map(str, done.days)) or "none"
    waiting = f"; not closed yet: {', '.join(map(str, done.pending))}" if done.pending else ""
    terminal.note(f"wrote {done.path} ({done.size / 1024:.0f} KB): day(s) {drawn}{waiting}")


@show.register(Drafted)
def _(done: Drafted, terminal: Terminal) -> None:
    made = done.draft
    todo = "; ".join(made.todo)
    terminal.note(
        f"wrote {done.path}: {len(made.directors)} director, {len(made.players)} players, "
        f"{made.days} day(s); still to do: {todo}; then run "
        f"`tally votes VOTE-URL --game {done.path}`, and `tally day add` each morning."
    )


@show.register(DayAdded)
def _(done: DayAdded, terminal: Terminal) -> None:
    p = done.proposal
    closes = f", closes {short(p.closes)}" if p.closes is not None else ""
    terminal.note(f"added day {p.day} to {done.path}: opens {short(p.opens)}{closes}")
    for what in p.todo:  # even with --quiet: the file is not finished
        say(terminal.stderr(), f"still to do: {what}", "yellow")
    if not p.todo:
        terminal.note(f"then: `tally votes {p.vote} --game {done.path}` once it closes.")


def proposed_block(text: str, terminal: Terminal) -> None:
    """The block `tally day add` proposes, before it asks: on standard output, or on standard
    error when standard output is JSON."""
    from tally.sanitise import text_block

    out = terminal.stderr() if terminal.as_json else terminal.stdout()
    # The file's own layout (two spaces before a comment) kept; controls made visible.
    out.print(Text(text_block(text).rstrip("\n")), soft_wrap=True)


_PROFILE_KEYS = ("floor_names", "posts_per_page")


@show.register(Diagnosed)
def _(done: Diagnosed, terminal: Terminal) -> None:
    d = done.diagnosis
    out = terminal.stdout()
    status = f" (HTTP {d.status})" if d.status is not None else ""
    say(out, f"{d.source}{status}")
    if d.url_known is False:
        say(out, "  not a thread URL tally knows: paste forum.php?mod=viewthread&tid=N, "
                 "thread-N-1-1.html or viewthread.php?tid=N", "yellow")  # fmt: skip
    if d.read_instead:
        say(out, f"  {d.read_instead}", "yellow")
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
def _(done: LedgerEdit, terminal: Terminal) -> None:
    out = terminal.stdout()
    if not done.added and not done.removed:
        say(out, "already in the ledger; nothing written.")
    for card in done.added:
        say(out, f"added: day {card.day} {card.player} {card.colour.label} {card.rule} "
                 f"{card.reason}")  # fmt: skip
    for card in done.removed:
        say(out, f"removed: day {card.day} {card.player} {card.colour.label} {card.rule} "
                 f"{card.reason}")  # fmt: skip


@show.register(LedgerView)
def _(ledger: LedgerView, terminal: Terminal) -> None:
    print_cards(terminal.stdout(), ledger.cards)


@show.register(Exported)
def _(done: Exported, terminal: Terminal) -> None:
    names = ", ".join(p.name for p in done.files)
    terminal.note(
        f"wrote {len(done.files)} files to {done.folder}: {names}. Edit the ones you want "
        f"(README.md there lists the values each gets), delete the others, and pass "
        f"--template-dir {done.folder} (or set template_dir in the config file)."
    )


@show.register(Settings)
def _(settings: Settings, terminal: Terminal) -> None:
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
    out.print(table)
