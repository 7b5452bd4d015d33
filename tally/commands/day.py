"""`tally day add`: the next day's ``[[days]]`` block, proposed from the day's two threads and
appended to the game file.

Every morning a director opens two threads and types the day into the game file: its number,
the URLs, the open and the close copied from the first posts. Each slip in that edit is one
the checks of ``tally.rules.counting.guards`` catch at closing time; here the block is made from the
threads themselves, held against the same checks before anything is written, shown, and
appended with tomlkit, which keeps the file's comments and order (a hand-written text edit
would have to re-implement TOML's layout rules to do that).

What a day inherits (the sheriff, who is out) is left for tally to derive from its own counts
of the days before (``tally.rules.counting.state``), and said in comments; the keys only the
director knows (who died in the night, who is slandered…) are commented placeholders, those of
the ruleset in force only.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from tally import tomlfile
from tally.errors import GameFileError, InputError, clause
from tally.forums import resolve_url
from tally.i18n import N_, tr
from tally.model import Thread
from tally.outputs.results import DayAdded, Proposal
from tally.rules.counting.announced import Close, announced_closes
from tally.rules.counting.guards import thread_fits_day
from tally.rules.counting.state import Carried, Fact, FactKind, Source, questions, who_is_out
from tally.rules.game.filekeys import PLACEHOLDER
from tally.rules.game.game import Day, Game
from tally.rules.game.rulesets import Ruleset
from tally.rules.verdicts import ThreadRole, TieStep
from tally.times import compared

if TYPE_CHECKING:
    from tally.forums.reader import Reader

# The day-specific keys a ruleset uses, each with what it asks of the director: a key is
# offered as a placeholder only where the ruleset in force has the rule it serves.
_DAY_KEYS: tuple[tuple[str, str, Callable[[Ruleset], bool]], ...] = (
    ("dead", '["…"]  # out in the night, before the day opened', lambda r: True),
    ("died", '{ "…" = NOON }  # out during the day, at that time', lambda r: True),
    ("deputy", '"…"  # the deputy (执警)', lambda r: r.sheriff_election_day is not None),
    ("sheriff_declaration", '"独裁"  # 任职宣言: 独裁, 自由 or 秩序', lambda r: r.dictator_bonus),
    ("slandered", '["…"]  # each receives the slander bonus', lambda r: r.slander_bonus > 0),
    ("acolyte", '"…"  # the living 侍僧', lambda r: TieStep.ACOLYTE in r.tie_chain),
    ("bar_owner", '"…"  # the 主管', lambda r: r.based_on == "023"),
    ("trapped", '["…"]  # the living 受困者', lambda r: r.unity_bonus > 0),
    ("cannot_vote", '["…"]  # may not vote today', lambda r: True),
    ("cannot_be_voted", '["…"]  # may not be voted for today', lambda r: True),
    ("immune", '["…"]  # not eliminated though top-voted', lambda r: True),
    ("weights", '{ "…" = 0 }  # today\'s weight of a vote (迷魂 0)', lambda r: True),
)


# A thread as a sentence names it by its role ("day 1's discussion thread"): the catalog's
# words for it, which the sentence's own entry places (第1天的{role}: 第1天的讨论帖).
ROLES = {ThreadRole.VOTE: N_("vote thread"), ThreadRole.DISCUSSION: N_("discussion thread"),
         ThreadRole.PROGRESS: N_("progress thread"),
         ThreadRole.SHERIFF: N_("sheriff thread")}  # fmt: skip


def said(role: ThreadRole) -> str:
    return tr(ROLES[ThreadRole(role)])


def next_number(game: Game, day: int | None) -> int:
    """The day to add: the one named, else the one after the file's last."""
    number = day if day is not None else max((d.day for d in game.days), default=0) + 1
    if any(d.day == number for d in game.days):
        raise InputError(
            tr("{where} has day {day} already; give another with --day N, or edit "
               "that day's block.", where=game.where(), day=number)
        )
    return number


def refuse_known_threads(game: Game, discussion: str, vote: str) -> None:
    """Before anything is read: neither thread may be another day's already."""
    keys = []
    for url, role in ((discussion, ThreadRole.DISCUSSION), (vote, ThreadRole.VOTE)):
        key = resolve_url(url)[1].key
        keys.append(key)
        found = game.locate(key)
        if found is not None:
            raise InputError(
                tr("thread {thread} is day {day}'s {role} in "
                   "{where} already, not a new day's {new_role}; give the new day's "
                   "threads.", thread=key.thread_id, day=found[0].day, role=said(found[1]),
                   where=game.where(), new_role=said(role))
            )
    if keys[0] == keys[1]:
        raise InputError(
            tr("thread {thread} is given as both the discussion and the vote thread; "
               "give the day's discussion thread, then its vote thread.", thread=keys[0].thread_id)
        )


def propose(
    game: Game, number: int, talk: Thread, vote: Thread, urls: tuple[str, str],
    now: datetime, carried: Carried,
) -> Proposal:  # fmt: skip
    """The block for day ``number`` from its discussion and vote threads (read), checked as
    a count would check them; InputError with the checks' sentence when a thread is not the
    day's."""
    for thread, role in ((talk, ThreadRole.DISCUSSION), (vote, ThreadRole.VOTE)):
        if not thread.posts or thread.posts[0].floor != 1:
            raise InputError(
                tr("thread {thread} “{title}” has no first post to read the "
                   "day from; is it the day's {role}?", thread=thread.thread_id,
                   title=thread.title, role=said(role))
            )
    from tally.outputs.written.draft import is_vote_thread, opening

    opened = opening(vote, talk, game.timezone)
    assert opened is not None  # both threads have their first post
    opens, opens_from = opened[0].astimezone(game.timezone), opened[1]
    closes, closes_from, fast = _closes_said(game, talk, vote)
    day = _new_day(number, opens, closes, urls)
    if closes is not None and closes <= opens:
        shut, begun = compared(closes, opens)
        raise InputError(
            tr("{closes_from} says day {day} closes {close}, not after it opens "
               "{open} ({opens_from}).", closes_from=closes_from, day=number, close=shut,
               open=begun, opens_from=opens_from)
        )
    if is_vote_thread(talk) and not is_vote_thread(vote):
        raise InputError(
            tr("thread {thread} “{title}” is a vote thread and thread "
               "{other} “{other_title}” is not: give the discussion thread first, then "
               "the vote thread.", thread=talk.thread_id, title=talk.title,
               other=vote.thread_id, other_title=vote.title)
        )
    with_day = dataclasses.replace(game, days=(*game.days, day))
    thread_fits_day(with_day, talk, day, ThreadRole.DISCUSSION, cast=with_day.cast())
    # Given a close, the two first posts must not say another.
    thread_fits_day(with_day, vote, day, ThreadRole.VOTE, cast=with_day.cast(),
                    announced=(vote, talk) if closes is not None else ())  # fmt: skip
    # Last: a thread of the wrong day is said as such, not as a day that has not opened.
    if opens > now:
        at, it_is = compared(opens, now.astimezone(game.timezone))
        raise InputError(
            tr("day {day} is not open yet: {opens_from} says it opens {open}, "
               "and it is {now}; add the day once it has opened.", day=number,
               opens_from=opens_from.split(":")[0], open=at, now=it_is)
        )
    gone, asked = _inherited(with_day, day, carried)
    todo = _todo(number, closes is not None, asked, carried)
    block = _block(game.rules, day, closes, opens_from, closes_from, fast, carried, gone)
    out = tuple((p, f.note) for p, f in gone.items())
    sheriff = carried.sheriff if carried.sheriff not in gone else None
    deputy = carried.deputy if _deputy_carried(carried, gone) else None
    return Proposal(
        number, urls[0], urls[1], opens, opens_from, closes, closes_from, fast,
        sheriff, carried.sheriff_how if sheriff else "", out, carried.unchecked, block,
        todo, deputy, carried.deputy_how if deputy else "",
    )  # fmt: skip


def _new_day(number: int, opens: datetime, closes: datetime | None, urls: tuple[str, str]) -> Day:
    """The day as the block will say it, for the checks a count makes (a close a day on
    from the open, only for them, when no first post says one)."""
    discussion, vote = urls
    refs = {ThreadRole.VOTE: vote, ThreadRole.DISCUSSION: discussion}
    threads = {role: resolve_url(url)[1] for role, url in refs.items()}
    return Day(
        number, opens, closes or opens + timedelta(days=1), vote, discussion, threads=threads
    )


def _closes_said(
    game: Game, talk: Thread, vote: Thread
) -> tuple[datetime | None, str, Close | None]:
    """The close the first posts say (the vote thread's before the discussion's), where it
    is said, and the close of an accelerated day (加速) when one says it."""
    closes, closes_from, fast = None, "", None
    for thread, which in ((vote, "vote"), (talk, "discussion")):
        post = thread.posts[0]
        closes_said = announced_closes(post.text, post.time, game.timezone)
        plain = [c for c in closes_said if not c.accelerated]
        fast = fast or next((c for c in closes_said if c.accelerated), None)
        if plain and closes is None:
            closes = plain[0].at
            closes_from = f"the {which} thread's first post: {_q(plain[0].line)}"
    return closes, closes_from, fast


def _todo(number: int, closes: bool, asked: tuple[str, ...], carried: Carried) -> tuple[str, ...]:
    """What the director has still to write into the block, or to do before it counts."""
    todo = []
    if not closes:
        todo.append(
            tr("write day {day}'s closes (neither first post says it, like 关门：11月26日 21:30)",
               day=number)
        )
    todo += asked
    if carried.unchecked:
        todo.append(tr("count the days before first: {days}", days="; ".join(carried.unchecked)))
    return tuple(todo)


def _inherited(
    game: Game, day: Day, carried: Carried
) -> tuple[dict[str, Fact], tuple[str, ...]]:
    """Who is out on ``day`` as its count will have it (the days before, the card ledger),
    each with the fact that says so, in the order they went; and what the block must still
    say of the lasting roles, as a count of it would stop on them (a sheriff or a deputy who
    is out, a badge that passes)."""
    try:
        facts = who_is_out(game, day, carried)[1]
        asked = questions(game, day, carried)
    except GameFileError as exc:
        return {}, (clause(exc),)
    return {f.player: f for f in sorted(facts, key=lambda f: f.day or 0) if f.player}, asked


def _deputy_carried(carried: Carried, out: Mapping[str, Fact]) -> bool:
    """Whether the deputy the days before named stands on the new day: alive, and under the
    sheriff who named them (a badge that passes brings a deputy named anew)."""
    sheriff = carried.sheriff if carried.sheriff not in out else None
    return carried.deputy not in (None, *out) and carried.deputy_under == sheriff


def _q(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False)


def _when(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S")


def _block(rules: Ruleset, day: Day, closes: datetime | None, opens_from: str,
           closes_from: str, fast: Close | None, carried: Carried,
           out: Mapping[str, Fact]) -> str:  # fmt: skip
    lines = [
        "[[days]]",
        f"day = {day.day}",
        f"opens = {_when(day.opens)}  # {opens_from}",
        f"closes = {_when(closes)}  # {closes_from}"
        if closes is not None
        else f'closes = "{PLACEHOLDER}: the close, like 2024-05-09T21:30:00"',
    ]
    if fast is not None and rules.acceleration:
        lines.append(
            f"# accelerated: closes = {_when(fast.at)} and accelerated = true, if the day is "
            f"accelerated ({_q(fast.line)})"
        )
    lines += [f"discussion = {_q(day.discussion or '')}", f"vote = {_q(day.vote)}"]
    lines += _roles(carried, out)
    if out:
        shown = ", ".join(f"{p} ({f.note})" for p, f in out.items())
        lines.append(f"# out so far (tally derives them): {shown}")
    noon = _when(day.opens.replace(hour=12, minute=0, second=0))
    for key, hint, wanted in _DAY_KEYS:
        if wanted(rules) and not (key == FactKind.DEPUTY and carried.deputy is not None):
            lines.append(f"# {key} = {hint.replace('NOON', noon)}")
    return "\n".join(lines) + "\n"


def _roles(carried: Carried, out: Mapping[str, Fact]) -> list[str]:
    """The block's lines of the roles that last: each carried from the days before (a
    comment: tally derives it, as a count will), or asked (a commented key to fill in) when
    its holder is out or the badge passes (the rules' 殉职: the sheriff who goes names who
    has it; sent off by a red card, it passes at random; a new sheriff names a deputy)."""
    lines = []
    sheriff, deputy = carried.sheriff, carried.deputy
    if sheriff is not None and sheriff not in out:
        lines.append(
            f"# sheriff: {sheriff}, from {carried.sheriff_how} (tally derives it; "
            'write sheriff = "…" with sheriff_change = "…" if the badge passed)'
        )
    elif sheriff is not None:
        how = out[sheriff]
        passes = ("at random (a red card's send-off)" if how.source is Source.LEDGER
                  else f"to whom {sheriff} names (殉职)")  # fmt: skip
        lines.append(
            f'# sheriff = "…"  # {sheriff}, the sheriff, is out: who has the badge? ({how.note}; '
            f'it passes {passes}; sheriff = "none" if it is gone)'
        )
    if deputy is None:
        return lines
    if _deputy_carried(carried, out):
        lines.append(
            f"# deputy: {deputy}, from {carried.deputy_how} (tally derives it; write "
            'deputy = "…" if the sheriff named another)'
        )
    elif deputy in out:
        lines.append(
            f'# deputy = "…"  # {deputy}, the deputy, is out ({out[deputy].note}): whom did the '
            'sheriff name 执警? (deputy = "none" if nobody yet)'
        )
    else:
        under = carried.deputy_under or "no sheriff"
        lines.append(
            f'# deputy = "…"  # {deputy} was the deputy under {under}: the badge passed, and '
            'its new holder names the deputy anew (deputy = "none" if nobody yet)'
        )
    return lines


class Asker(Protocol):
    """Who shows the block and is asked before the file changes (the terminal)."""

    def confirm(self, question: str) -> bool | None: ...

    def proposed(self, text: str) -> None: ...


def add_day(
    game: Game,
    discussion: str,
    vote: str,
    *,
    day: int | None = None,
    yes: bool = False,
    reader: Reader,
    show: Asker | None = None,
) -> DayAdded:
    """`tally day add`: read the day's two threads, propose its block, show it, ask (unless
    ``yes``: without a terminal to ask, nothing is written), and append it atomically."""
    from tally.atomic import write_atomic
    from tally.commands.threads import days_before
    from tally.rules.game.gamefile import parse_game

    if game.path is None:
        raise InputError(tr("a day is added to a game file; load one."))
    number = next_number(game, day)
    refuse_known_threads(game, discussion, vote)
    talk, poll = reader.read([discussion, vote], game.timezone)
    carried = days_before(game, number, reader, [talk, poll]).carried
    proposal = propose(game, number, talk, poll, (discussion, vote), reader.now(), carried)
    text = tomlfile.read_text(game.path, "game file", GameFileError)
    edited = tomlfile.appended(text, proposal.block)
    check = edited
    if proposal.closes is None:  # the placeholder is the director's to fill; the rest is checked
        check = edited.replace(
            f'"{PLACEHOLDER}: the close, like 2024-05-09T21:30:00"',
            _when(proposal.opens + timedelta(days=1)),
        )
    parse_game(check, source=str(game.path), path=game.path, default_timezone=str(game.timezone))
    if show is not None:
        show.proposed(proposal.block)
    if not yes:
        question = tr("Add day {day} to {path}?", day=number, path=game.path)
        asked = show.confirm(question) if show is not None else None
        if asked is None:
            raise InputError(
                tr("there is no terminal to ask before changing {path}: add --yes to add "
                   "the day without asking.", path=game.path)
            )
        if not asked:
            raise InputError(tr("not added: you said no; {path} is as it was.", path=game.path))
    # The file saved again while the question waited (an editor open beside it): that edit
    # would be lost under the block; say so rather than write over it.
    if tomlfile.read_text(game.path, "game file", GameFileError) != text:
        raise InputError(
            tr("{path} changed while tally asked: nothing was added; run tally day add "
               "again, and it proposes the day from the file as it is now.", path=game.path)
        )
    # Notepad's byte-order mark, where the file had one, stays.
    bom = b"\xef\xbb\xbf" if game.path.read_bytes().startswith(b"\xef\xbb\xbf") else b""
    write_atomic(game.path, bom + edited.encode("utf-8"))
    return DayAdded(game.path, proposal, True)
