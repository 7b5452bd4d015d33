"""Rich tables and sentences of threads and counts, for the director to read: a line that
may hold what a forum user wrote (``say``, ``cell``), a thread's floors, a day's count, its
outcome, the demo. Each takes a rich ``Console`` and knows nothing of the terminal around it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tally.i18n import N_, Language, current, tr
from tally.rules.counting.state import Fact, FactKind, Source
from tally.rules.counting.votes import DayResult
from tally.rules.verdicts import BallotKind, Colour, DayKind, OutcomeResult, Status
from tally.sanitise import one_line
from tally.times import compared, duration, short

if TYPE_CHECKING:
    from tally.model import Thread
    from tally.rules.counting.count import Outcome


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
        line(console, Text())
    line(console, Text(" " * lead.count(" ") + one_line(body), style=style))


def line(console: Console, text: Text) -> None:
    """Print ``text`` as one line, soft-wrapped: the terminal wraps a long line, and copying
    it gives the line back whole (rich's ``print(text, soft_wrap=True)``).

    Where the console writes no colour (a file, a pipe, a test's buffer) and nothing stands
    between its lines and the file (no live display, no recording, no ``with console``),
    rich's rendering of such a line is its characters and a line break: they are written as
    that, without asking the terminal's size three times and reading the environment at each
    line (~45 µs a line; a day's count on a narrow terminal prints ~50)."""
    plain = text.plain
    if not _writes_plain(console) or "\t" in plain:  # rich expands a tab: rich's
        console.print(text, soft_wrap=True)
        return
    if console.quiet:
        return
    try:
        console.file.write(plain + "\n")
        console.file.flush()
    except BrokenPipeError:  # as rich's own write says it
        console.on_broken_pipe()
    except UnicodeEncodeError as error:
        error.reason = (f"{error.reason}\n*** You may need to add PYTHONIOENCODING=utf-8 to "
                        "your environment ***")  # fmt: skip
        raise


def _writes_plain(console: Console) -> bool:
    """Whether rich would write a line of text to this console's file as it is: no colour
    system (its styles render as nothing), and its lines written at once, each as printed
    (rich's own state: no render hook of a live display, no buffering ``with`` it)."""
    return (
        console.color_system is None
        and not console.record
        and not console.is_jupyter
        and not console._render_hooks
        and console._buffer_index == 0
    )


# From this many columns on, the ballots are a table; below, two lines each.
WIDE = 100
_STATUS_STYLE = {Status.COUNTED: "green", Status.SUPERSEDED: "yellow", Status.VOID: "red"}
_REMARK_STATUS = {
    Status.NOT_A_BALLOT: N_("not a ballot"),
    Status.BANNED: N_("banned"),
    Status.DELETED: N_("deleted"),
    Status.MOVED_IN: N_("moved in"),
    Status.DISCUSSION: N_("discussion post"),
}


def word(value: Status | BallotKind | Colour) -> str:
    """A status, a ballot's kind, a card's colour: its code in English (as the JSON and the
    docs name it), in Chinese the word the announcements use for it (its label)."""
    return value.label if current() is Language.ZH and value.label else str(value)


def weighed(voter: str, result: DayResult) -> str:
    """A voter as the totals name them: with their weight where it is not 1 ("bob ×1.5")."""
    from tally.rules.counting.count import votes_text

    weight = result.count.weights.get(voter)
    return f"{voter} ×{votes_text(weight[0])}" if weight is not None and weight[0] != 1 else voter


def totals_table(result: DayResult) -> Table:
    """Each player's votes, the voters with their weights, and the bonuses with their rule."""
    from tally.rules.counting.count import votes_text

    totals = Table(title=tr("Totals"))
    for column in (tr("player"), tr("votes"), tr("voters (weight)"), tr("bonus")):
        totals.add_column(column)
    for t in result.totals:
        voters = tr(", ").join(weighed(v, result) for v in t.voters)
        bonus = "; ".join(f"+{votes_text(a)} {why} ({rule})" for a, why, rule in t.bonuses)
        totals.add_row(cell(t.player), votes_text(t.votes), cell(voters), cell(bonus))
    if result.count.abstained:
        totals.add_row("(弃权)", votes_text(result.count.abstained), "", "")
    return totals


def print_day(console: Console, result: DayResult) -> None:
    """The table a director checks against the thread, floor by floor."""

    thread = result.thread
    day = result.day
    fields = dict(day=day.day, ruleset=result.ruleset, thread=thread.thread_id,
                  title=thread.title, pages=thread.page_count, posts=len(thread.posts))  # fmt: skip
    if result.kind == DayKind.SHERIFF:
        head = tr("Day {day} sheriff election (ruleset {ruleset}), thread {thread} “{title}”: "
                  "{pages} page(s), {posts} posts", **fields)  # fmt: skip
    else:
        head = tr("Day {day} vote (ruleset {ruleset}), thread {thread} “{title}”: "
                  "{pages} page(s), {posts} posts", **fields)  # fmt: skip
    say(console, "\n" + head)
    if result.provisional:
        closes, read = compared(day.closes, result.as_of)
        left = duration(day.closes - result.as_of)
        said = tr("PROVISIONAL: the day closes {closes}, {left} after this count ({read}); "
                  "ballots and changes may still come.",
                  closes=closes, left=left, read=read)  # fmt: skip
        say(console, said, style="bold yellow")
    derived = [f for f in result.facts if f.source is Source.DERIVED]
    if derived:
        said = tr("; ").join(_derived(f) for f in derived)
        say(console, tr("From the earlier days' counts (not in the game file): {said}",
                        said=said))  # fmt: skip
    console.print(totals_table(result))
    _print_floors(console, _floor_rows(result))
    for flag in result.flags:
        say(console, flag_line(flag.rule, flag.floor, flag.note))
    if result.not_voted:
        say(console, not_voted_line(result.not_voted))
    say(console, outcome_line(result))


def _derived(f: Fact) -> str:
    """A fact tally's count of an earlier day gave, as the count's header says it."""
    if f.what is FactKind.SHERIFF:
        return tr("sheriff {player} ({note})", player=f.player, note=f.note)
    if f.what is FactKind.DEPUTY:
        return tr("deputy {player} ({note})", player=f.player, note=f.note)
    if f.what is FactKind.DECLARATION:
        return tr("the sheriff {player}'s {note}", player=f.player, note=f.note)
    return tr("{player} out ({note})", player=f.player, note=f.note)


def flag_line(rule: str, floor: int | None, note: str) -> str:
    """A flag under the count: its rule, its floor (a flag of the day as a whole has none),
    what it says."""
    if floor:
        return tr("flag {rule}: floor {floor}: {note}", rule=rule, floor=floor, note=note)
    return tr("flag {rule}: {note}", rule=rule, note=note)


def not_voted_line(players: Iterable[str]) -> str:
    names = list(players)
    return tr("Not voted ({n}): {players}", n=len(names), players="、".join(names))


class _FloorRow(NamedTuple):
    """A line of the ballots table: a ballot, or a post that holds none."""

    order: tuple[Any, ...]  # the thread's order: floor, its 点评 after it, then time
    floor: str
    who: str
    kind: str
    target: str
    when: str
    status: str
    style: str
    why: str


def _floor_rows(result: DayResult) -> list[_FloorRow]:
    """The ballots and the posts that hold none (listed, never counted), in the thread's
    order, each with why it stands so."""
    rows = []
    for b in result.ballots:
        counted = b.status == Status.COUNTED
        now = result.provisional and counted
        status = tr("in force now") if now else word(b.status)
        # The note the status already says (made in the run's language, as the status word).
        why = "" if b.note == (tr("in force now") if now else str(b.status)) else b.note
        if b.reason:
            why = f"{b.reason}: {why}"  # the code once, then what it means here
        flags = [f for f in b.flags if f != b.note]  # a look-alike's note is its flag too
        if flags:
            why += " " + tr("[flag: {flags}]", flags=tr("; ").join(flags))
        floor = f"{b.floor}" + (" 点评" if b.comment else "")
        target, style = b.target or b.written or "", _STATUS_STYLE[b.status]
        order = (b.floor, b.comment, b.posted_at)
        rows.append(_FloorRow(order, floor, b.voter or b.author, word(b.kind), target,
                              short(b.time), status, style, why.strip()))  # fmt: skip
    for r in result.remarks:
        floor = f"{r.floor}" + (" 点评" if r.comment else "")
        style = "dim" if r.status == Status.NOT_A_BALLOT else "red"
        rows.append(_FloorRow((r.floor, r.comment, r.time), floor, r.player or r.author, "", "",
                              short(r.time), tr(_REMARK_STATUS[r.status]), style,
                              r.note or r.words))  # fmt: skip
    rows.sort(key=lambda row: row.order)
    return rows


def _print_floors(console: Console, rows: list[_FloorRow]) -> None:
    """The rows as a table on a wide terminal; on a narrow one, each on a line, why it
    stands so on the next."""
    if console.width >= WIDE:
        ballots = Table(title=tr("Ballots, floor by floor"))
        for column in (tr("floor"), tr("voter"), tr("kind"), tr("target"), tr("time"),
                       tr("status")):  # fmt: skip
            ballots.add_column(column, no_wrap=True)
        ballots.add_column(tr("why"), overflow="fold")  # wrapped at spaces, never cut short
        for _, floor, who, kind, target, when, status, style, why in rows:
            ballots.add_row(floor, cell(who), kind, cell(target), when, cell(status, style),
                            cell(why))  # fmt: skip
        console.print(ballots)
        return
    say(console, "\n" + tr("Ballots, floor by floor"))
    for _, floor, who, kind, target, when, status, style, why in rows:
        head = Text(f"{floor:>6}  ") + cell(who) + Text(f"  {kind} ")
        head += cell(target) + Text(f"  {when}  ") + cell(status, style)
        line(console, head)
        if why:
            say(console, f"        {why}")


def outcome_line(result: DayResult) -> str:
    """The last line of a count: who is out (or sheriff) and by which rule; before the
    close, who leads and what would happen if the day closed now."""
    o = result.outcome
    if not result.provisional:
        return final_line(o, result.kind)
    fields = dict(leaders="、".join(result.leaders) or tr("nobody"), player=o.player,
                  note=o.note, rule=o.code)  # fmt: skip
    if o.result is OutcomeResult.ELIMINATED:
        return tr("Standing now (not final): {leaders} leading; if the day closed now, "
                  "{player} would be out — {note} [rule {rule}]", **fields)  # fmt: skip
    if o.result is OutcomeResult.SHERIFF:
        return tr("Standing now (not final): {leaders} leading; if the day closed now, "
                  "{player} would be sheriff — {note} [rule {rule}]", **fields)  # fmt: skip
    if result.kind == DayKind.SHERIFF:
        return tr("Standing now (not final): {leaders} leading; if the day closed now, "
                  "nobody would be sheriff — {note} [rule {rule}]", **fields)  # fmt: skip
    return tr("Standing now (not final): {leaders} leading; if the day closed now, "
              "nobody would be out — {note} [rule {rule}]", **fields)  # fmt: skip


def final_line(o: Outcome, kind: DayKind) -> str:
    """The outcome of a closed day: who is out (or sheriff), by which rule; of a sheriff's
    election that elected nobody, no sheriff (the Chinese of "nobody" says nobody is out)."""
    if o.result is OutcomeResult.ELIMINATED:
        return tr("Outcome: {player} is out — {note} [rule {rule}]", player=o.player,
                  note=o.note, rule=o.code)  # fmt: skip
    if o.result is OutcomeResult.SHERIFF:
        return tr("Outcome: {player} is sheriff — {note} [rule {rule}]", player=o.player,
                  note=o.note, rule=o.code)  # fmt: skip
    if kind == DayKind.SHERIFF:
        return tr("Outcome: no sheriff — {note} [rule {rule}]", note=o.note, rule=o.code)
    return tr("Outcome: nobody — {note} [rule {rule}]", note=o.note, rule=o.code)


def print_demo(
    console: Console,
    name: str,
    forum: str,
    threads: Iterable[Thread],
    result: DayResult,
    markup: str,
) -> None:
    """The demo in a dozen lines: what was read, how the day was counted, what it says."""
    from tally.rules.counting.count import votes_text

    say(console, tr("Sample game {name}, served at {forum} (pages a real Discuz! X3.5 "
                    "rendered)", name=name, forum=forum))  # fmt: skip
    for t in threads:
        comments = sum(len(p.comments) for p in t.posts)
        read = tr("read thread {thread} “{title}”: {pages} page(s), {posts} posts, {comments} 点评",
                  thread=t.thread_id, title=t.title, pages=t.page_count, posts=len(t.posts),
                  comments=comments)  # fmt: skip
        say(console, "  " + read)
    by_status = {s: [b for b in result.ballots if b.status == s] for s in Status}
    reasons = "、".join(dict.fromkeys(str(b.reason) for b in by_status[Status.VOID]))
    fields = dict(day=result.day.day, ruleset=result.ruleset, ballots=len(result.ballots),
                  counted=len(by_status[Status.COUNTED]),
                  changed=len(by_status[Status.SUPERSEDED]), void=len(by_status[Status.VOID]),
                  reasons=reasons)  # fmt: skip
    if reasons:
        say(console, tr("Day {day} (ruleset {ruleset}): {ballots} ballots — {counted} in force, "
                        "{changed} changed, {void} void ({reasons})", **fields))  # fmt: skip
    else:
        say(console, tr("Day {day} (ruleset {ruleset}): {ballots} ballots — {counted} in force, "
                        "{changed} changed, {void} void", **fields))  # fmt: skip
    totals = " · ".join(f"{t.player} {votes_text(t.votes)}" for t in result.totals)
    say(console, tr("Totals: {totals}; not voted: {players}", totals=totals or tr("none"),
                    players="、".join(result.not_voted) or tr("none")))  # fmt: skip
    say(console, final_line(result.outcome, result.kind))
    say(console, "\n" + tr("The announcement to paste ({markup}), as `tally announce` prints "
                           "it:", markup=markup))  # fmt: skip
    console.print()
