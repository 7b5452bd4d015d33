"""What the desk's pages show, from what the library returns: the count as `tally votes
--json` gives it (``poll_json``), the sentences of the terminal (``outcome_line``,
``majority_text``), the announcements as `tally announce` renders them, the report's
pictures. The pages are Jinja2 templates with autoescaping on: every name is text."""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from tally.desk.bbcode import preview
from tally.desk.follow import Seen
from tally.desk.posted import Sent
from tally.errors import TallyError, clause
from tally.forums import platform_of
from tally.i18n import N_, tr
from tally.outputs.results import Announced, Lurked, Posted
from tally.outputs.shown.json_output import poll_json
from tally.rules.counting.polls import Poll
from tally.rules.counting.state import Source
from tally.rules.counting.votes import DayResult
from tally.rules.game.game import Day, Game
from tally.rules.judging.ballots import Flag
from tally.rules.verdicts import Status, ThreadRole
from tally.times import duration, short
from tally.vocabulary import Announcement, Markup


@functools.lru_cache(maxsize=1)
def _jinja() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    from tally.i18n import gettext_plain, ngettext_plain

    env = Environment(
        loader=PackageLoader("tally.desk", "templates"),
        extensions=["jinja2.ext.i18n"],
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # A time is data (ISO 8601 in a page's JSON twin) until a page shows it.
    env.filters["short"] = short
    # A word kept as a value (a day's state, a ballot's status or kind) in the page's words;
    # the value stays the JSON's.
    env.filters["said"] = lambda value: tr(WORDS.get(str(value), str(value)))
    # The pages' words in the request's language (tally.desk.speaking), as Babel extracts
    # them: {{ _("…") }} and {% trans %}.
    env.install_gettext_callables(gettext_plain, ngettext_plain, newstyle=True)  # type: ignore[attr-defined]
    return env


def page(name: str, **context: Any) -> str:
    from tally.desk.speaking import html_lang

    return str(_jinja().get_template(name).render(lang=html_lang(), **context))


# The words of values the pages show (the JSON keeps the values): a day's state, a ballot's
# status and kind.
WORDS = {
    "not open yet": N_("not open yet"), "open": N_("open"), "closed": N_("closed"),
    "posted": N_("posted"),
    Status.COUNTED: N_("counted"), Status.SUPERSEDED: N_("superseded"), Status.VOID: N_("void"),
    Status.NOT_A_BALLOT: N_("not a ballot"), Status.BANNED: N_("banned"),
    Status.DELETED: N_("deleted"), Status.MOVED_IN: N_("moved_in"),
    Status.DISCUSSION: N_("discussion"),
    "vote": N_("vote"), "change": N_("change"), "abstain": N_("abstain"), "proxy": N_("proxy"),
    "in force now": N_("in force now"),
    "close": N_("close"), "morning": N_("morning"), "elevator": N_("elevator"),
    "reminder": N_("reminder"),
    "totals": N_("totals"), "who voted whom": N_("who voted whom"), "over time": N_("over time"),
}  # fmt: skip


def state_of(day: Day, now: datetime, posted: bool) -> str:
    """The day's state, a value (the game page's JSON); the page says it in its words."""
    if posted:
        return "posted"
    if now < day.opens:
        return "not open yet"
    return "open" if now < day.closes else "closed"


def game_view(game: Game, now: datetime, polls: Mapping[int, Poll | None],
              posted: Collection[int]) -> dict[str, Any]:  # fmt: skip
    """The game: each day, its threads, whether it is open, closed or posted, and the facts
    a count of it rests on (the game file's, or derived from an earlier day's count)."""
    days = []
    for day in game.days:
        poll = polls.get(day.day)
        result = poll.result if poll is not None else None
        facts = rests_on(result) if result is not None else None
        days.append({
            "day": day.day,
            "opens": day.opens,
            "closes": day.closes,
            "vote": day.vote,
            "discussion": day.discussion,
            "state": state_of(day, now, day.day in posted),
            "facts": facts,
            "outcome": _outcome(result) if result is not None and not result.provisional else "",
        })  # fmt: skip
    return {"name": game.name, "ruleset": game.rules.name, "days": days,
            "players": list(game.players), "directors": list(game.directors),
            "file": game.path.name if game.path is not None else ""}  # fmt: skip


def _outcome(result: DayResult) -> str:
    from tally.outputs.shown.console import outcome_line

    return outcome_line(result)


def live_view(game: Game, poll: Poll | None, error: str | None, now: datetime) -> dict[str, Any]:
    """The open day as the last poll counted it: ballots (status, flags, rulings), totals,
    the leader and the gap, who has not voted, the time to the close, what changed.
    ``error``: why the count could not be taken (again, with the game file as it is now:
    then the count shown is the one before)."""
    from tally.outputs.shown.console import weighed
    from tally.outputs.shown.live import majority_text

    if poll is None or poll.result is None:
        return {"counted": False, "error": error or tr("reading the vote thread…")}
    result = poll.result
    data = poll_json(poll)
    changed = {(c.floor, c.comment) for c in poll.changes if c.floor is not None}
    ref = result.day.vote_ref
    platform = platform_of(ref)
    rows = []
    for b in data["ballots"]:
        status = _status(b, result.provisional)
        rows.append({
            **b,
            "status_text": tr(status),
            # The note where it says more than the status (in either language).
            "more": b["note"] not in (status, tr(status)),
            "link": platform.post_url(ref, b["parent_post_id"] or b["post_id"]),
            "changed": poll.number > 1 and (b["floor"], b["comment"]) in changed,
        })  # fmt: skip
    # Each voter with their weight where it is not 1, as the terminal and the closing post
    # show them: a total of 6 from three voters says why.
    totals = [{**t, "voters": [weighed(v, result) for v in t["voters"]]} for t in data["totals"]]
    gap = None
    if len(totals) > 1:
        gap = totals[0]["votes"] - totals[1]["votes"]
    day = result.day
    if now < day.closes:
        clock = tr("closes {close}, in {left}", close=short(day.closes),
                   left=duration(day.closes - now, seconds=True))  # fmt: skip
    else:
        clock = tr("closed {close}", close=short(day.closes))
    return {
        "counted": True,
        "error": poll.error,
        "stopped": error,
        "day": day.day,
        "final": poll.final,
        "provisional": result.provisional,
        "poll": data["poll"],
        "as_of": short(result.as_of, seconds=True),
        "clock": clock,
        "ballots": rows,
        "totals": totals,
        "abstained": data["abstained"],
        "leaders": data["leaders"],
        "gap": gap,
        "majority": majority_text(result, game.rules),
        "outcome": _outcome(result),
        "not_voted": data["not_voted"],
        "flags": data["flags"],
        "changes": [c.text for c in poll.changes] if poll.number > 1 else [],
        "rests_on": rests_on(result),
    }


def rests_on(result: DayResult) -> list[str]:
    """What a count rests on, as `tally votes` names it (``facts_json``), each with where it
    comes from: the game file's day block, or the earlier day it was derived from, as the
    fact's note names it ("voted out on day 2", "day 1's election", "day 2's game file"; the
    JSON's ``day`` of a death is the first day the player is out), or the card ledger. The
    sheriff and the deputy (执警) with their weight where it is not 1: the totals rest on it."""
    from tally.outputs.shown.console import weighed
    from tally.outputs.shown.json_output import facts_json

    facts = facts_json(result)

    def where(f: Mapping[str, Any]) -> str:
        if f["from"] == Source.DERIVED:
            return tr("derived: {note}", note=f["note"])
        if f["from"] == Source.LEDGER:
            return str(f["note"])  # "sent off by a red card for day 2 (K2, the card ledger)"
        source = tr(SOURCES.get(f["from"], str(f["from"])))
        return tr("{source}, day {day}", source=source, day=f["day"]) if f["day"] else source

    said = []
    for role, words in (("sheriff", N_("sheriff {player} ({where})")),
                        ("deputy", N_("deputy {player} ({where})"))):  # fmt: skip
        f = facts[role]
        if f is not None and f["player"] is None:  # 'sheriff = "none"': the note says why
            said.append(tr("{note} ({source}, day {day})", note=f["note"], day=f["day"],
                           source=tr(SOURCES.get(f["from"], str(f["from"])))))  # fmt: skip
        elif f is not None:
            said.append(tr(words, player=weighed(f["player"], result), where=where(f)))
    if (f := facts["declaration"]) is not None:  # 宣言 独裁, as day 2's game file named it
        said.append(tr("the sheriff {player}'s {note} (derived)", player=f["player"],
                       note=f["note"]))  # fmt: skip
    said.extend(tr("{player} out ({where})", player=f["player"], where=where(f))
                for f in facts["dead"])  # fmt: skip
    said.extend(tr("unchecked: {what}", what=u) for u in facts["unchecked"])
    return said


# Where a fact comes from, in words (the JSON's ``from`` is the value).
SOURCES = {Source.GAME_FILE: N_("game file"), Source.DERIVED: N_("derived"),
           Source.LEDGER: N_("card ledger")}  # fmt: skip


def _status(ballot: Mapping[str, Any], provisional: bool) -> str:
    """The status as `tally votes` prints it, in English (the page says it in its words)."""
    status = ballot["status"]
    if status == Status.COUNTED and provisional:
        return "in force now"
    return WORDS.get(status, str(status))


def lurkers_view(done: Lurked | None, error: str | None) -> dict[str, Any]:
    """The day's posts per player and the cards it earns, each card with the flags that
    say why it may be wrong beside it (a 屏蔽 where a player moderates the board: the floor
    its L3 card rests on may have been hidden by another player), the other flags below."""
    from tally.outputs.shown.json_output import acceleration_json

    if done is None:
        return {"error": error, "players": [], "cards": [], "flags": [], "acceleration": None}
    check, view = done.check, done.ledger
    ledger = {c.key for c in view.cards} - {c.key for c in view.new}
    threads = {ref.thread_id: tr(_THREADS[role]) if role in _THREADS
               else tr("the {role} thread", role=role)
               for role, ref in check.day.threads.items()}  # fmt: skip
    carded = {c.player for c in check.cards if c.rule == "L3"}
    beside = [f for f in check.flags if f.rule == "moderator" and f.player in carded]
    return {
        "error": None,
        "provisional": check.provisional,
        "players": [{"player": p.player, "posts": p.posts, "voted": p.voted}
                    for p in check.players],
        "cards": [{"player": c.player, "colour": str(c.colour), "label": c.colour.label,
                   "rule": c.rule, "reason": c.reason, "in_ledger": c.key in ledger,
                   "struck": view.was_struck(c),
                   "flags": [flag_line(f, threads) for f in beside
                             if c.rule == "L3" and f.player == c.player]}
                  for c in check.cards],
        "flags": [flag_line(f, threads) for f in check.flags if f not in beside],
        "warnings": list(done.warnings),
        "acceleration": acceleration_json(check.acceleration),
    }  # fmt: skip


# A day's threads as the cards page names them, by their role in the day.
_THREADS = {ThreadRole.VOTE: N_("the vote thread"),
            ThreadRole.DISCUSSION: N_("the discussion thread"),
            ThreadRole.PROGRESS: N_("the progress thread"),
            ThreadRole.SHERIFF: N_("the sheriff's thread")}  # fmt: skip


def flag_line(f: Flag, threads: Mapping[str, str]) -> str:
    """A lurker check's flag in one line: its rule, the thread and floor it points at (by
    the thread's role in the day: "the discussion thread's floor 8"), the player where the
    note does not name them, the note."""
    said = []
    if f.floor is not None:
        thread = threads.get(f.thread_id or "", tr("thread {thread}", thread=f.thread_id)
                             if f.thread_id else "")  # fmt: skip
        said.append(tr("{thread}'s floor {floor}", thread=thread, floor=f.floor) if thread
                    else tr("floor {floor}", floor=f.floor))  # fmt: skip
    if f.player and f.player not in f.note:
        said.append(f.player)
    said.append(f.note)
    return tr("flag {rule}: {said}", rule=f.rule, said=clauses(said))


def clauses(said: list[str]) -> str:
    """Clauses that narrow one another ("the discussion thread's floor 8: kiwi: a note"),
    with the colon of the page's language."""
    # TRANSLATORS: the colon between a place, a player and a note ("floor 8: kiwi: …").
    return tr(": ").join(said)


KINDS = (Announcement.CLOSE, Announcement.REMINDER, Announcement.MORNING, Announcement.ELEVATOR)


def announcement_view(kind: Announcement, done: Announced | None, error: str | None,
                      markup: Markup) -> dict[str, Any]:  # fmt: skip
    text = done.text if done is not None else ""
    shown = preview(text) if markup is Markup.BBCODE else preview(text, bbcode=False)
    return {"kind": str(kind), "text": text, "preview": shown, "error": error,
            "markup": str(markup), "note": None}  # fmt: skip


def no_reminder(day: Day) -> dict[str, Any]:
    """A closed day's reminder pane: said in the desk's terms (the command's refusal names
    `tally announce --kind close`, while the desk shows that announcement above and posts it
    from its Post page)."""
    note = tr("Day {day} closed at {close}: a reminder (催票) is for before the close. The "
              "day's post now is the closing announcement above; post it from the post the "
              "result page.", day=day.day, close=short(day.closes))  # fmt: skip
    return {"kind": str(Announcement.REMINDER), "text": "", "preview": "", "error": None,
            "markup": "", "note": note}  # fmt: skip


def charts_view(result: DayResult | None) -> list[dict[str, Any]]:
    """The report's three pictures of the day, as the report draws them (inline SVG)."""
    from tally.outputs.written import charts

    if result is None or not result.ballots:
        return []
    salt = f"desk{result.day.day}"
    return [
        {"title": "totals", "svg": charts.svg(charts.totals_figure, result, salt=salt + "t")},
        {"title": "who voted whom", "svg": charts.svg(charts.flow_figure, result, salt=salt + "f")},
        {"title": "over time",
         "svg": charts.svg(charts.timeline_figure, result, salt=salt + "l")},
    ]  # fmt: skip


def posted_view(posted: Posted) -> dict[str, Any]:
    return {"pid": posted.pid, "floor": posted.floor, "link": posted.url,
            "member": posted.member, "at": posted.at,
            "difference": posted.difference}  # fmt: skip


def sent_view(sent: Sent | None) -> dict[str, Any] | None:
    """The day's closing post made before this page (the journal, the thread's mark)."""
    if sent is None:
        return None
    return {"answered": sent.answered, "floor": sent.floor, "at": sent.at,
            "link": sent.link, "by": sent.by, "how": sent.how,
            "sentence": sent_sentence(sent)}  # fmt: skip


def sent_sentence(sent: Sent) -> str:
    """What the desk says of it: floor 9, 05-09 21:41 (the journal of posts, game.posts.jsonl)."""
    floor = (tr("floor {floor}", floor=sent.floor) if sent.floor is not None
             else tr("its floor not read back"))  # fmt: skip
    if sent.by:
        return tr("{floor}, {at}, by {by} ({how})", floor=floor, at=short(sent.at), by=sent.by,
                  how=sent.how)  # fmt: skip
    return tr("{floor}, {at} ({how})", floor=floor, at=short(sent.at), how=sent.how)


def file_problem(seen: Seen) -> str | None:
    """The sentence for a game file that cannot be read as it is now (a save half-typed):
    the desk goes on with the file as last read, and says so on every page."""
    if seen.problem is None:
        return None
    return tr("{problem}. The desk goes on with the game file as it last read it, and reads it "
              "again when it is saved.", problem=clause(seen.problem))


def sentence(exc: TallyError) -> str:
    return str(exc)
