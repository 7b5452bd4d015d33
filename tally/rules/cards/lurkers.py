"""Lurking (潜水) and posting violations, day by day (RULES L1-L3, L5-L8, S3).

Pure: threads in, counts, proposed cards and flags out. Cards (L1-L3) are what the
rules give automatically; flags (L5-L8) point the director at a floor, and the director
decides. Which day a post belongs to is its time inside the day's open-close window.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass

from tally.i18n import tr
from tally.model import Lost, Thread
from tally.rules.cards.daycount import PlayerDay, count_day
from tally.rules.cards.ledger import Card
from tally.rules.cards.posting import (
    account_flags,
    came_in,
    dead_posting,
    out_at_the_close,
    stranger_flags,
)
from tally.rules.cards.writings import DayThreads, by_players, comment_discussion, floods, fonts
from tally.rules.counting.acceleration import Acceleration, count_requests
from tally.rules.counting.guards import (
    check_roster,
    late_ballots,
    thread_fits_day,
)
from tally.rules.counting.votes import in_order
from tally.rules.game.cast import Cast
from tally.rules.game.game import Day, Game
from tally.rules.game.rulesets import RequestsIn
from tally.rules.judging.as_of import lost_said
from tally.rules.judging.ballots import Flag, Remark
from tally.rules.judging.changes import bar_owner_hours
from tally.rules.judging.judge import judge
from tally.rules.judging.merges import seen_in_vote_thread
from tally.rules.judging.rows import moderated_cards
from tally.rules.judging.sorting import remarks
from tally.rules.judging.standing import kept_from_the_close
from tally.rules.verdicts import Colour, Status, ThreadRole
from tally.times import compared, short


@dataclass(frozen=True)
class DayCheck:
    day: Day
    players: tuple[PlayerDay, ...]
    cards: tuple[Card, ...]
    flags: tuple[Flag, ...]
    # Every day checked up to this one: its players' counts (the L2 streaks rest on them).
    days: Mapping[int, tuple[PlayerDay, ...]]
    # A day (this one or one before) whose threads were read before its close: the counts
    # are the counts so far, and no card may be written for them.
    provisional: bool = False
    # S3: the day's acceleration requests (its discussion and progress threads).
    acceleration: Acceleration | None = None
    # Earlier days that could not be counted, so nothing was carried from them.
    unchecked: tuple[str, ...] = ()
    # The versions of the history lost that the days' threads as they stood at their closes
    # would take (``tally.rules.judging.as_of.lost_notes``), each said once.
    lost: tuple[str, ...] = ()

    @property
    def warnings(self) -> tuple[str, ...]:
        """What the director should hear besides the counts (days that could not be
        counted; S3: the requests disagree with the game file; a version of a thread's
        history lost that the counts would take)."""
        warning = self.acceleration.warning if self.acceleration is not None else None
        return (*self.unchecked, *((warning,) if warning else ()), *self.lost)


# The rows of the vote thread an L3 card names apart, in this order, and its words for each.
_APART = {Status.BANNED: "被屏蔽", Status.MOVED_IN: "由他帖移入"}


def _doubtful_cards(
    cards: Sequence[Card], counts: Mapping[int, Mapping[str, PlayerDay]], game: Game, number: int
) -> list[Flag]:
    """An L1 or L2 card that the day's posts shown in the minute of its open or close decide
    (not counted: perhaps outside the day), flagged for the director to judge."""
    flags = []
    for card in (c for c in cards if c.rule in ("L1", "L2")):
        need = game.rules.min_posts if card.rule == "L1" else game.rules.streak_posts
        pd = counts[number].get(card.player)
        if pd is None or not pd.doubtful or pd.posts + len(pd.doubtful) < need:
            continue
        where = "、".join(tr("floor {floor} of thread {thread} ({time})", floor=w.post.floor,
                             thread=w.post.thread_id, time=short(w.time))
                          for w in pd.doubtful)  # fmt: skip
        note = tr("{player}'s posts shown in the minute of day {day}'s open or close ({where}; "
                  "the forum shows a minute only) are not counted, perhaps outside the day: with "
                  "them the {rule} card ({reason}) would not be; judge it, and take it back "
                  "(tally cards remove) if they were in time", player=card.player, day=number,
                  where=where, rule=card.rule, reason=card.reason)  # fmt: skip
        first = pd.doubtful[0]
        flags.append(Flag(card.rule, note, card.player, first.post.floor, first.item_id,
                          first.post.thread_id))  # fmt: skip
    return flags


def history(
    game: Game, number: int, read: Callable[[list[str], Day], list[Thread]]
) -> list[DayThreads]:
    """The threads of every day up to ``number``, read with ``read(urls, day)``."""
    out = []
    for day in game.days:
        if day.day > number:
            continue
        urls = list(dict.fromkeys(
            u for u in (day.discussion, day.vote, day.progress, day.sheriff_thread) if u
        ))  # fmt: skip
        got = dict(zip(urls, read(urls, day), strict=True))
        one = got.get
        out.append(DayThreads(day, one(day.discussion or ""), one(day.vote),
                              one(day.progress or ""), one(day.sheriff_thread or "")))  # fmt: skip
    return out


def check(
    game: Game, history: Sequence[DayThreads], number: int, *, late_ok: bool = False
) -> DayCheck:
    """The cards and flags of day ``number``; ``history`` holds it and the days before it.

    Stops (InputError) before any card is proposed on: a thread that is not its day's (by
    its title or its times), a close the day's threads announce otherwise or that leaves a
    real share of the day's ballots late (unless ``late_ok``), a roster that misspells a
    player (``tally.rules.counting.guards``), and a game file the days' counts contradict.
    """
    # Each day as it stands after the days before it (who is out, from tally's own counts),
    # up to this one (a later day is none of its business), this one with its late ballots
    # let through where the director said so: the day it carded is the day it counted.
    unread = tr("its vote thread was not read")
    days = tuple(dataclasses.replace(d, late_ok=True) if late_ok and d.day == number else d
                 for d in game.days)  # fmt: skip
    chain = in_order(dataclasses.replace(game, days=days) if late_ok else game,
                     {t.day.day: t.vote or unread for t in history}, until=number)  # fmt: skip
    cast = game.cast()  # who wrote what, in every thread of the days: decided once
    history = [_as_at_close(dataclasses.replace(t, day=chain.days.get(t.day.day, t.day)), game,
                            cast) for t in history]  # fmt: skip
    by_day = {t.day.day: t for t in history}
    if number not in by_day:
        raise ValueError(f"day {number} is not in the history")
    threads = [t for d in history for t in d.threads]
    _fit_days(game, history, number, cast)
    _not_late(game, by_day[number], late_ok, cast)
    strangers = check_roster(game, threads, cast=cast)
    counts = {t.day.day: {pd.player: pd for pd in count_day(game, t, cast)} for t in history}
    target = by_day[number]
    rows = remarks(target.vote, game, cast=cast, day=target.day) if target.vote is not None else ()
    # A day before whose discussion thread the game file does not name: its posts are not
    # known, and 0 would be a guess that earns L2 cards.
    talkless = {t.day.day for t in history if t.discussion is None and t.day.day != number}
    cards = _cards(game, target, counts, _VoteWords.of(game, target, rows, cast), talkless)
    lost = _lost(history)
    found = [
        *_unread_days(game, history, target, talkless),
        *stranger_flags(strangers, target, game),
        *account_flags(game, target, cast, threads),
        *came_in(game, target, cast),
        *dead_posting(game, target, cast, out_at_the_close(game, chain, number), history),
        *comment_discussion(game, target.day, target.discussion, cast),
        *fonts(target.day, target.threads, cast),
        *floods(game, target.day, (target.discussion, target.vote), cast),
        *_doubtful_cards(cards, counts, game, number),
        *moderated_cards([c.player for c in cards if c.rule == "L3"], target.vote, rows, cast),
        *_lost_cards(game, cards, lost, by_day, counts, talkless),
    ]
    # Thread by thread (discussion, vote, progress), floor by floor: as the director reads.
    place = {t.thread_id: i for i, t in enumerate(target.threads)}
    flags = sorted(found, key=lambda f: (place.get(f.thread_id or "", len(place)), f.floor or 0))
    acceleration = acceleration_of(game, target)
    if acceleration is not None:
        # A line only where someone asked or the file says accelerated: "0 of 15 asked"
        # on every day said nothing.
        if acceleration.asked or acceleration.marked:
            flags.append(Flag("S3", acceleration.text))
        if acceleration.warning:
            flags.append(Flag("S3", tr("warning: {warning}", warning=acceleration.warning)))
    ordered = sorted(cards, key=lambda c: (game.players.index(c.player), c.rule))
    checked = {n: tuple(c.values()) for n, c in counts.items()}
    provisional = not all(t.closed for t in history)
    return DayCheck(
        day=target.day, players=checked[number], cards=tuple(ordered), flags=tuple(flags),
        days=checked, provisional=provisional, acceleration=acceleration,
        unchecked=chain.carried.unchecked,
        lost=tuple({(t.key, v.way, v.page, v.read_at): n for _, t, v, n in lost}.values()),
    )  # fmt: skip


# A version lost that a day's thread as it stood at the close takes: the day, the thread,
# the version, and the warning that says it (``lost_said``).
_LostAt = tuple[int, Thread, Lost, str]


def _lost(history: Sequence[DayThreads]) -> list[_LostAt]:
    """The versions lost (``History.lost``) that each day's threads as they stood at its
    close would take (``_as_at_close``): what a post deleted or changed since said."""
    return [(t.day.day, thread, version, note) for t in history for thread in t.threads
            for version, note in lost_said(thread, t.day.closes)]  # fmt: skip


def _lost_cards(
    game: Game,
    cards: Sequence[Card],
    lost: Sequence[_LostAt],
    by_day: Mapping[int, DayThreads],
    counts: Mapping[int, Mapping[str, PlayerDay]],
    talkless: Set[int],
) -> list[Flag]:
    """A card of the day whose threads (the posts of L1 and L2, the ballots of L3 and V11)
    stood at a close as a version lost would show them, flagged for the director to judge:
    a post or ballot of the player's deleted or changed since may be missing from its count.
    The card is still given (nothing brings the lost read back), never in silence."""
    flags = []
    for card in cards:
        days = [card.day]
        if card.rule == "L2":
            days = _streak(counts, game, card.player, card.day, game.rules.streak_posts,
                           game.rules.streak_days, unread=talkless)  # fmt: skip
        ballots = card.rule in ("L3", "V11")
        on = {(d, t.key) for d in days if d in by_day
              for t in _rests_on(by_day[d], ballots=ballots) if t is not None}  # fmt: skip
        said = set()
        for day, thread, version, _ in lost:
            if (day, thread.key) not in on or (thread.key, version.page) in said:
                continue
            said.add((thread.key, version.page))
            # Its time as the warning says it: to the second where the close's minute needs it.
            closes = by_day[day].day.closes
            read = compared(version.read_at.astimezone(game.timezone), closes)[0]
            said_of = {"page": version.page, "read": read, "player": card.player,
                       "rule": card.rule, "reason": card.reason}  # fmt: skip
            if version.read_at > closes:
                note = tr("page {page}: tally's read of it {read} is missing or damaged in the "
                          "cache (see the warnings), and {player}'s {rule} card ({reason}) could "
                          "differ for it: a post of theirs deleted or changed after the close may "
                          "not be counted as it stood; judge it, and take it back (tally cards "
                          "remove) if so", **said_of)  # fmt: skip
            else:
                note = tr("page {page}: tally's read of it {read}, before the close, is missing or "
                          "damaged in the cache (see the warnings), and {player}'s {rule} card "
                          "({reason}) could differ for it: the page is counted as another read "
                          "showed it, or not at all, and a post of theirs may be missing; judge "
                          "it, and take it back (tally cards remove) if so", **said_of)  # fmt: skip
            flags.append(Flag(card.rule, note, card.player, thread_id=thread.thread_id))
    return flags


def _rests_on(t: DayThreads, *, ballots: bool) -> tuple[Thread | None, ...]:
    """The day's threads a card rests on: the vote thread for a ballot (L3, V11), else those
    whose posts are counted (``count_day``: the discussion and the sheriff's thread)."""
    return (t.vote,) if ballots else (t.discussion, t.sheriff)


def _unread_days(
    game: Game, history: Sequence[DayThreads], target: DayThreads, talkless: Set[int]
) -> list[Flag]:
    """L2: the days before whose posts are not known (no discussion thread named), said
    where it matters: among the last days an L2 run ending today could span."""
    if target.day.accelerated or game.rules.streak_days <= 1:
        return []
    recent = [t.day.day for t in history if not t.day.accelerated][-game.rules.streak_days :]
    return [
        Flag("L2", tr("day {day} names no discussion thread in the game file: its posts are "
                      "not counted, and a run of low days (L2) passes over it", day=d))
        for d in sorted(talkless)
        if d in recent
    ]  # fmt: skip


def _fit_days(game: Game, history: Sequence[DayThreads], number: int, cast: Cast) -> None:
    """Each day's discussion and vote threads are its own (``thread_fits_day``); the day
    checked's close as its threads announced it, after the last one fits."""
    for t in history:
        told = [x for x in (t.vote, t.discussion) if x is not None] if t.day.day == number else []
        for role, thread in ((ThreadRole.DISCUSSION, t.discussion), (ThreadRole.VOTE, t.vote)):
            if thread is not None:
                # By role: a day whose discussion thread is its vote thread holds one object.
                last = role is ThreadRole.VOTE or t.vote is None
                thread_fits_day(game, thread, t.day, role, cast=cast,
                                announced=told if last else ())  # fmt: skip


def acceleration_of(game: Game, t: DayThreads) -> Acceleration | None:
    """S3: the day's acceleration requests, in the threads the rules take them from; None
    where the rules have none or name no thread (then it is asked of the director, seed 000)."""
    asked_in = {RequestsIn.PROGRESS: t.progress, RequestsIn.DISCUSSION: t.discussion}
    taken = game.rules.acceleration_threads or ()
    asked = [x for x in (asked_in[r] for r in taken) if x is not None]
    if not asked or not game.rules.acceleration:
        return None
    return count_requests(game, t.day, asked)


@dataclass(frozen=True)
class _VoteWords:
    """What the vote thread says of a player who cast no vote, for the L3 card to name: the
    floors that hold no ballot, those set apart by the forum (``_APART``), and when tally
    found the thread closed (关闭) inside the day."""

    unballots: Mapping[str, tuple[int, ...]]
    apart: Mapping[Status, Mapping[str, tuple[int, ...]]]
    closed: str | None
    # L3 under seed 001 ("未回复投票帖者将被判罚黄牌"): who replied in the vote thread in the
    # day, a ballot or not, is not carded for it.
    replied: frozenset[str]

    @classmethod
    def of(cls, game: Game, t: DayThreads, rows: Sequence[Remark], cast: Cast) -> _VoteWords:
        unballots: dict[str, list[int]] = {}
        # Floors no vote was seen in for a reason of the forum's, each named on the card by
        # that reason, for the director to know why: 屏蔽ed (its words are not the director's
        # to judge here), or posted in another thread and moved in since.
        apart: dict[Status, dict[str, list[int]]] = {s: {} for s in _APART}
        for r in rows:
            if r.status is Status.DISCUSSION:
                continue  # a discussion post of the thread the vote thread was merged into
            if r.status in apart:
                if r.player is not None:
                    apart[r.status].setdefault(r.player, []).append(r.floor)
                continue
            if r.player is not None and r.floor not in unballots.get(r.player, []):
                unballots.setdefault(r.player, []).append(r.floor)
        replied = frozenset(
            p for p, _ in by_players(cast, t.day, t.vote, comments=False, sure=True)
        ) if game.rules.no_vote_is_no_reply and t.vote is not None else frozenset()  # fmt: skip
        return cls(
            {p: tuple(f) for p, f in unballots.items()},
            {s: {p: tuple(f) for p, f in by.items()} for s, by in apart.items()},
            _closed_while_open(game, t), replied,
        )  # fmt: skip

    def l3_reason(self, day: Day, pd: PlayerDay) -> str:
        """The L3 card's reason: the day, and what the vote thread holds of the player."""
        said = self.unballots.get(pd.player)
        # Posts in the vote thread that hold no ballot, and void ballots: named, for the
        # director to judge.
        floors = "、".join(f"{f}楼" for f in said or ())
        where = f"（投票帖{floors}的发言不是选票）" if said else ""
        if pd.void:
            where += f"（投票帖{'；'.join(pd.void)}）"
        for status, by_player in self.apart.items():
            if pd.player in by_player:
                floors = "、".join(f"{f}楼" for f in by_player[pd.player])
                where += f"（投票帖{floors}{_APART[status]}）"
        if self.closed is not None:
            where += f"（投票帖{self.closed}）"
        return f"第{day.day}天未投票{where}"


def _closed_while_open(game: Game, t: DayThreads) -> str | None:
    """When tally found the vote thread closed (关闭) inside the day, as the L3 card says it:
    who had not voted by then could not, for the director to judge."""
    run = t.vote.closed_during(t.day.opens, t.day.closes) if t.vote is not None else None
    if run is None:
        return None
    begun, ended = (short(x.astimezone(game.timezone)) for x in run[:2])
    closed = (begun if begun == ended else f"{begun}至{ended}") + "读到已关闭"
    if run[2] is not None:
        closed += f"，{short(run[2].astimezone(game.timezone))}读到已开放"
    return closed


def _cards(
    game: Game,
    target: DayThreads,
    counts: Mapping[int, Mapping[str, PlayerDay]],
    words: _VoteWords,
    talkless: Set[int],
) -> list[Card]:
    """The cards the rules give for the day (V11, L1, L3, L2), player by player."""
    day, rules, number = target.day, game.rules, target.day.day
    cards: list[Card] = []
    for pd in counts[number].values():
        if "V11" in pd.vote_flags:
            # Seed 002: "不允许弃权或投无效票，否则记作黄牌" (also on an accelerated day, with its
            # shorter hours: it is the 主管's duty, not lurking).
            hours = bar_owner_hours(day, rules)[0]
            cards.append(
                Card(day.day, pd.player, Colour.YELLOW, "V11",
                     f"第{day.day}天主管未在开门{hours}小时内投出有效票（或弃权、投废票、超时改票）")
            )  # fmt: skip
    if day.accelerated:  # S3: an accelerated day carries no lurking cards
        return cards
    for pd in counts[number].values():
        if pd.until is not None:
            continue  # out during the day: the rules card the living
        if pd.posts < rules.min_posts and not day.is_silenced(pd.player):
            few = f"第{day.day}天发言{pd.posts}条（少于{rules.min_posts}条）"
            cards.append(Card(day.day, pd.player, Colour.YELLOW, "L1", few))
        if rules.card_no_vote and pd.voted is False and pd.player not in words.replied:
            cards.append(Card(day.day, pd.player, Colour.YELLOW, "L3", words.l3_reason(day, pd)))
        streak = _streak(
            counts, game, pd.player, number, rules.streak_posts, rules.streak_days,
            unread=talkless,
        )  # fmt: skip
        if streak:
            days = "、".join(map(str, streak))
            low = f"第{days}天发言均少于{rules.streak_posts}条"
            cards.append(Card(day.day, pd.player, Colour.YELLOW, "L2", low))
    return cards


def _as_at_close(t: DayThreads, game: Game, cast: Cast) -> DayThreads:
    """The day's threads with what the forum took away after the close put back, as they
    stood at the close (S2; ``kept_from_the_close``): a ballot or a post deleted since is
    no missed vote (L3) nor a missing post (L1). `tally votes` flags each."""
    def kept(thread: Thread | None) -> Thread | None:
        return kept_from_the_close(thread, game, t.day, cast)[0] if thread is not None else None

    return dataclasses.replace(t, discussion=kept(t.discussion), vote=kept(t.vote),
                               progress=kept(t.progress), sheriff=kept(t.sheriff))  # fmt: skip


def _not_late(game: Game, t: DayThreads, late_ok: bool, cast: Cast) -> None:
    """Not a close that leaves a real share of the day's ballots late: a wrong close would
    card the players who posted after it (its threads' own word on it: ``thread_fits_day``)."""
    if t.vote is None or late_ok or t.day.late_ok:
        return
    ballots = judge(t.vote, game, t.day, cast=cast, seen=seen_in_vote_thread(t.vote, t.day)).ballots
    late_ballots(game, t.day, t.vote, ballots)


def _streak(
    counts: Mapping[int, Mapping[str, PlayerDay]],
    game: Game,
    player: str,
    number: int,
    threshold: int,
    length: int,
    *,
    unread: Set[int] = frozenset(),
) -> list[int]:
    """L2: the days of a run of ``length`` low days ending today, or [] when there is none.

    Accelerated days neither count nor break a run (S3), nor do ``unread`` days (no
    discussion thread named: their posts are not known), nor a day the rules forbade the
    player to speak (``Day.silenced``). A run that earned a card is
    spent: the next card needs ``length`` new low days, so day 6 of a six-day lull earns
    the second card, not days 4 and 5.
    """
    run: list[int] = []
    for d in sorted(n for n in counts if n <= number):
        day = game.day(d)
        pd = counts[d].get(player)
        if day.accelerated or d in unread or day.is_silenced(player):
            continue
        if pd is None or pd.until is not None or pd.posts >= threshold:
            run = []
            continue
        run.append(d)
        if len(run) == length:
            if d == number:
                return run
            run = []
    return []
