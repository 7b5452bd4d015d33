"""Who posted where they should not, for the director to judge (RULES L5, S2): the dead
(诈尸), authors who are no player, accounts renamed or behind a look-alike name, and posts
that came in from elsewhere (moved, merged, approved late). Flags only: no card rests on them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from tally.i18n import tr
from tally.model import DURING_A_READ, Thread, Writing
from tally.rules.cards.writings import DayThreads, by_players
from tally.rules.counting.guards import renamed_flags
from tally.rules.counting.uids import accounts_note
from tally.rules.counting.votes import Chain
from tally.rules.game.cast import Cast
from tally.rules.game.game import Day, Game
from tally.rules.game.names import normalise
from tally.rules.judging.ballots import Flag, floors_text
from tally.rules.verdicts import OutcomeResult
from tally.times import short


def stranger_flags(
    strangers: Mapping[str, Sequence[Writing]], t: DayThreads, game: Game
) -> list[Flag]:
    """Authors in the day's threads who are no player: the director should know who they are.
    One that posts under a player's name (the forum renamed it, or the player) is named with
    its uid and the player's, so the flag does not read as the player's."""
    threads = {th.key for th in t.threads}
    flags = []
    for author, writings in strangers.items():
        here = [
            w
            for w in writings
            if w.post.thread_key in threads and t.day.opens <= w.time <= t.day.closes
        ]
        if here:
            where = floors_text(w.post.floor for w in here)
            note = tr("{author} posted on {where} and is not a player of this game",
                      author=author, where=where)  # fmt: skip
            uid = here[0].author_id
            if uid and normalise(author) in {normalise(p) for p in game.players}:
                player = next(p for p in game.players if normalise(p) == normalise(author))
                note = (tr("{author} (uid {uid}) posted on {where} and is not a player of this "
                           "game: not the player {player} (uid {theirs})", author=author, uid=uid,
                           where=where, player=player, theirs=game.ids[player])
                        if player in game.ids else
                        tr("{author} (uid {uid}) posted on {where} and is not a player of this "
                           "game: not the player {player}", author=author, uid=uid, where=where,
                           player=player))  # fmt: skip
            first = here[0]
            flags.append(
                Flag("roster", note, None, first.post.floor, first.item_id, first.post.thread_id)
            )
    return flags


def out_at_the_close(game: Game, chain: Chain, number: int) -> dict[str, str]:
    """Who went out at day ``number``'s close, with how: voted out by its count, sent off
    by a red card for it (K2). Their posts after the close in the day's own threads are 诈尸
    too (L5): no later day's check reads those (one a later day shares, it does)."""
    out: dict[str, str] = {}
    result, player = chain.outcome(number) or (None, None)
    if result is OutcomeResult.ELIMINATED and player:
        out[player] = tr("voted out at day {day}'s close", day=number)
    for player, carded in game.sent_off.items():
        if carded == number:
            out.setdefault(player, tr("sent off at day {day}'s close (red card, K2)", day=number))
    return out


def dead_posting(
    game: Game, t: DayThreads, cast: Cast, at_close: Mapping[str, str] | None = None,
    history: Sequence[DayThreads] = (),
) -> list[Flag]:
    """L5: the dead do not post in the discussion, vote or progress threads (诈尸); a role
    the rules let post after death (seed 003's 侦探) may. ``at_close``: who went out at the
    day's close (``out_at_the_close``), out for the posts after it. In the threads of the
    days before (``history``), still open, the posts made during this day: a player killed
    at night posting there was flagged by no check (the earlier day counts them alive, this
    day's read only its own threads; a differential count found it)."""
    at_close = at_close or {}
    day, allowance = t.day, game.rules.dead_post_allowance
    flags = []
    allowed_on: set[tuple[str, object]] = set()
    for window in _windows(game, t, history):
        since, until = window.since, window.until
        writings = by_players(cast, day, window.thread, whole=True)
        for player, w in sorted(writings, key=lambda pw: pw[1].time):
            if (since is not None and w.time < since) or (until is not None and w.time >= until):
                continue
            # In a thread a later day shares, the later day's check has them (its dead).
            gone_at_close = w.time > day.closes and player in at_close and until is None
            # Revived at this day's open: out until then (a night post in a shared thread).
            not_yet_back = player in day.revived and w.time < day.opens
            if not day.out_at(player, w.time) and not gone_at_close and not not_yet_back:
                continue
            # Seed 003's 侦探: "除非被红牌罚下" — sent off, they post like the other dead.
            carded = game.sent_off.get(player)
            sent_off = carded is not None and (
                carded < day.day or (carded == day.day and w.time > day.closes)
            )
            if game.has_role(player, game.rules.may_post_when_dead) and not sent_off:
                continue
            once = (player, w.time.astimezone(game.timezone).date())  # the game's natural day
            if allowance is not None and w.text.strip() == allowance and once not in allowed_on:
                allowed_on.add(once)  # seed 000: once a natural day
                continue
            how = at_close[player] if gone_at_close and not day.out_at(player, w.time) else None
            note = _dead_note(player, w.time, day, window, how)
            flags.append(Flag("L5", note, player, w.post.floor, w.item_id, w.post.thread_id))
    return flags


def _dead_note(player: str, time: datetime, day: Day, window: _Window, how: str | None) -> str:
    """The L5 flag's words: when the post was made against the day, how the player went out
    at the close (``how``), and in which earlier day's thread."""
    said = short(time)
    if time < day.opens:
        said = tr("{time}, before the day opened", time=said)
    elif time > day.closes:
        said = tr("{time}, after the close", time=said)
    if how is not None:
        said = tr("{said}; {how}", said=said, how=how)
    if window.day is not None:
        said = tr("{said}, in day {day}'s thread {thread}", said=said, day=window.day,
                  thread=window.thread.thread_id)  # fmt: skip
    return tr("{player} posted while out ({said}): 诈尸", player=player, said=said)


@dataclass(frozen=True)
class _Window:
    """A thread the L5 check reads, the span of its posts this day's check has (None: open
    on that side), and what the note adds of where it is."""

    thread: Thread
    since: datetime | None
    until: datetime | None
    day: int | None = None  # the earlier day whose thread it is (None: the day's own)


def _windows(game: Game, t: DayThreads, history: Sequence[DayThreads]) -> list[_Window]:
    """The threads whose posts the L5 check of day ``t`` reads, each with its window: the
    day's own threads, and the threads of the days before it still open."""
    day = t.day
    days = sorted(game.days, key=lambda d: d.day)
    read: list[_Window] = []
    for thread in t.threads:
        # The dead post at night too: at any hour, but in a thread other days read as well
        # (a game's one 进程帖), from the close of the last earlier such day (one out now
        # was alive before it) to the open of the next (that day's check has them).
        sharing = [d for d in days if d.day != day.day
                   and any(ref.key == thread.key for ref in d.threads.values())]  # fmt: skip
        before = [d.closes for d in sharing if d.day < day.day]
        after = [d.opens for d in sharing if d.day > day.day]
        read.append(_Window(thread, before[-1] if before else None, after[0] if after else None))
    later = [d.opens for d in days if d.day > day.day]
    mine = {thread.key for thread in t.threads}
    for d in history:
        for thread in d.threads if d.day.day < day.day else ():
            if thread.key not in mine:
                mine.add(thread.key)
                read.append(_Window(thread, day.opens, later[0] if later else None, d.day.day))
    return read


def account_flags(game: Game, t: DayThreads, cast: Cast, others: list[Thread]) -> list[Flag]:
    """Who is behind the posts counted, as `tally votes` says it: a player's renamed account,
    a game file without ids (a renamed player's posts lost, a look-alike's counted as the
    player's: found on a real X3.5, where `tally lurkers` said neither), a name another
    account has taken since tally read it (there, or in ``others``, the days' threads read).
    Once each, in the day's own threads."""
    found: dict[tuple[str, str | None, str], Flag] = {}
    for thread in (t.discussion, t.vote):
        if thread is None:
            continue
        for flag in (*renamed_flags(thread, cast), *accounts_note(game, thread, others, cast=cast)):
            key = (flag.rule, flag.player, flag.note if flag.player is None else "")
            found.setdefault(key, dataclasses.replace(flag, thread_id=thread.thread_id))
    return list(found.values())


def came_in(game: Game, t: DayThreads, cast: Cast) -> list[Flag]:
    """Posts of the discussion thread that tally's reads show came in from elsewhere, each
    counted (L1) and flagged for the director: read in another thread before (moved or
    merged in, 移动, 合并), or missing from its read before with a time older than that read
    (merged in from a thread tally never read, or approved late, 审核): posts merged into
    the discussion thread on a real X3.5 lifted a player over the L1 line without a word."""
    thread = t.discussion
    if thread is None:
        return []
    came: frozenset[str] = frozenset()
    last = None
    if thread.history is not None and thread.read_at is not None:
        # The reads before this one: those its own pages (read within minutes) are not.
        came, last = thread.history.came_in_unseen(thread.posts, thread.read_at - DURING_A_READ)
    flags = []
    for player, w in by_players(cast, t.day, thread, comments=False):
        post = w.post
        other = thread.moved_in.get(post.post_id)
        if other is not None:
            why = tr("was read in thread {other} before, and moved or merged in since (移动, 合并)",
                     other=other)  # fmt: skip
        elif last is not None and post.post_id in came:
            read = short(last.astimezone(game.timezone))
            why = tr("was not in the thread when tally read it {read}, though posted before: "
                     "merged in from another thread (合并), or held for a moderator and approved "
                     "since (审核)", read=read)  # fmt: skip
        else:
            continue
        note = tr("floor {floor} ({player}, {time}) {why}; counted as a discussion post (L1): "
                  "the director judges whether it was one", floor=post.floor, player=player,
                  time=short(post.time), why=why)  # fmt: skip
        flags.append(Flag("came in", note, player, post.floor, post.post_id, thread.thread_id))
    return flags
