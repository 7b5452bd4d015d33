"""The game, as its game file describes it: players, days, threads, rulings, rules.

Frozen once loaded (``tally.rules.game.gamefile`` reads and checks the file). The game knows
its threads: ``Game.locate`` says which day and role a thread has, from an index made
once, ``Game.vote_day`` whose vote thread one is (or why it is none), and ``Game.closed``
which days have closed by a given time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from functools import cached_property
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from tally.errors import GameFileError, InputError
from tally.i18n import N_, tr
from tally.model import Post, Thread, ThreadKey, ThreadRef, origin_of
from tally.rules.game.cast import Accounts, Author, Cast
from tally.rules.game.names import Roster
from tally.rules.game.rulesets import PRESETS, Ruleset
from tally.rules.verdicts import RulingAction, ThreadRole

# A thread the game file gives a day in another role than the vote thread asked for: a
# sentence per role (the role is a word of its own in Chinese, not one glued in).
_NOT_A_VOTE = {
    ThreadRole.DISCUSSION: N_("thread {thread} is day {found}'s discussion thread, not a vote "
                              "thread; day {day}'s vote thread is {url}"),
    ThreadRole.PROGRESS: N_("thread {thread} is day {found}'s progress thread, not a vote "
                            "thread; day {day}'s vote thread is {url}"),
    ThreadRole.SHERIFF: N_("thread {thread} is day {found}'s sheriff thread, not a vote "
                           "thread; day {day}'s vote thread is {url}"),
}  # fmt: skip


@dataclass(frozen=True)
class Day:
    day: int
    opens: datetime
    closes: datetime
    vote: str
    discussion: str | None = None
    accelerated: bool = False
    dead: tuple[str, ...] = ()
    sheriff: str | None = None
    # sheriff = "none": the game file says there is no sheriff this day (the badge is gone).
    no_sheriff: bool = False
    # Why the badge changed hands while its holder lives (see tally.rules.counting.state).
    sheriff_change: str | None = None
    deputy: str | None = None
    # deputy = "none": the game file says there is no deputy this day (none named yet).
    no_deputy: bool = False
    slandered: tuple[str, ...] = ()
    cannot_vote: tuple[str, ...] = ()
    cannot_be_voted: tuple[str, ...] = ()
    weights: Mapping[str, Decimal] = field(default_factory=dict)
    immune: tuple[str, ...] = ()
    acolyte: str | None = None
    sheriff_declaration: str | None = None
    bar_owner: str | None = None
    trapped: tuple[str, ...] = ()
    # Players out during the day (正午 skills), with the time (an extension of the contract):
    # their ballots lapse, ballots for them lapse (RULES V9), lurking is checked up to then.
    died: Mapping[str, datetime] = field(default_factory=dict)
    # The day's progress thread (进程帖), where dead players must not post either (L5).
    progress: str | None = None
    # Ruleset 245: the 自由 sheriff's own thread (自由警长发言贴), whose posts count with the
    # day's discussion ("共用当天讨论数", seed 001).
    sheriff_thread: str | None = None
    # Ballots after the close are late, as the director means (many would say the close is
    # wrong: tally.rules.counting.guards.late_ballots).
    late_ok: bool = False
    # Why the close differs from the one the thread's first post announced.
    close_changed: str | None = None
    # Who the rules forbid to speak this day (seed 001's 离开游戏; seed 000's 信用担保, 权力
    # 反转日: everyone, ``silent``): no L1 card, and an L2 run passes over the day.
    silenced: tuple[str, ...] = ()
    silent: bool = False
    # Back in the game from this day's open though an earlier day put them out (seed 001:
    # "若被复活将重新回到游戏").
    revived: tuple[str, ...] = ()
    # Why the day's announced result changed (tally.rules.counting.closed): without it, a recount
    # that comes out otherwise than the result tally posted stops.
    result_changed: str | None = None
    # The threads above as the forum names them, resolved when the file is loaded (a URL
    # that names no thread is a game-file error then, not a surprise at closing time).
    threads: Mapping[ThreadRole, ThreadRef] = field(default_factory=dict)

    @property
    def vote_ref(self) -> ThreadRef:
        return self.threads[ThreadRole.VOTE]

    def ref(self, role: ThreadRole) -> ThreadRef | None:
        return self.threads.get(role)

    def url(self, role: ThreadRole) -> str | None:
        """The thread's URL as the game file gives it."""
        return {
            ThreadRole.VOTE: self.vote,
            ThreadRole.DISCUSSION: self.discussion,
            ThreadRole.PROGRESS: self.progress,
            ThreadRole.SHERIFF: self.sheriff_thread,
        }[role]

    @property
    def out_by_close(self) -> frozenset[str]:
        """Who is out at the day's close: out before it, or during it (V9). A death after
        the close (黄昏) is the next day's."""
        return frozenset(
            (*self.dead, *(p for p, death in self.died.items() if death <= self.closes))
        )

    def is_silenced(self, player: str) -> bool:
        """Whether the rules forbid ``player`` to speak this day (no lurking card for it)."""
        return self.silent or player in self.silenced

    def out_at(self, player: str, when: datetime) -> bool:
        """Whether ``player`` is out (dead) at ``when`` of this day."""
        if player in self.dead:
            return True
        death = self.died.get(player)
        return death is not None and when >= death


@dataclass(frozen=True)
class Ruling:
    day: int
    floor: int
    action: RulingAction
    note: str = ""
    # The 点评/楼中楼 under the floor, 1 = the oldest; None for the floor itself.
    comment: int | None = None
    # For "accept": the player the ballot is for, when tally could not read the target.
    target: str | None = None
    # The forum's id of the post (a floor's pid): the ruling follows the post when a delete
    # before it numbers the floors again. None: the floor as the thread numbers it now.
    post: str | None = None

    def names(self, post: Post, comment: int | None) -> bool:
        """Whether the ruling is about ``post`` (its comment number ``comment``, or None)."""
        if self.comment != comment:
            return False
        return self.post == post.post_id if self.post is not None else self.floor == post.floor


@dataclass(frozen=True)
class Game:
    name: str
    players: tuple[str, ...]
    timezone: ZoneInfo
    ruleset: str = "default"
    directors: tuple[str, ...] = ()
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    days: tuple[Day, ...] = ()
    rulings: tuple[Ruling, ...] = ()
    # The ruleset preset with the game file's [rules] applied.
    rules: Ruleset = PRESETS["default"]
    # Each player's camp, when the director gives it (RULES K2: two reds in one camp).
    camps: Mapping[str, str] = field(default_factory=dict)
    # Accounts that post in the game's threads and are not players (spectators, a former
    # player): never a player, never taken for a misspelt one.
    outsiders: tuple[str, ...] = ()
    # Each player's role, when the rules need it (V12 election voters, L5 侦探): never
    # printed in an announcement.
    roles: Mapping[str, str] = field(default_factory=dict)
    path: Path | None = None
    # The game file's own id (``id = "…"``), when it gives one.
    given_id: str = ""
    # What the file sets of what the config file may set (tally.settings), checked.
    settings: Mapping[str, Any] = field(default_factory=dict)
    # Each account's forum id (Discuz! uid, Tieba user id) by the name the file gives it
    # (players, aliases, directors, outsiders): with it, an account is known by its id.
    ids: Mapping[str, str] = field(default_factory=dict)
    # What tally posted as each day's result (the journal of posts beside the file), by day.
    announced: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    # The ids of the posts the journal of posts says tally made in the game's threads: never
    # ballots, never rows (tally.rules.judging.own).
    own_posts: frozenset[str] = frozenset()
    # The players a red card sends off (K2), each with the day of its first red card, from
    # the card ledger beside the file (applied by the run's setup, ``with_ledger``).
    sent_off: Mapping[str, int] = field(default_factory=dict)

    @cached_property
    def id(self) -> str:
        """What keys the game in the SQLite archive: the file's ``id``, else the file's name
        and a hash of the first day's threads (which never change as the game goes on), so
        that two games of one name stay two games."""
        if self.given_id:
            return self.given_id
        import hashlib

        first = self.days[0] if self.days else None
        refs = first.threads.values() if first is not None else ()
        threads = sorted(f"{origin_of(r.base)}{r.platform}:{r.thread_id}" for r in refs)
        digest = hashlib.sha256("\n".join(threads).encode()).hexdigest()[:10]
        stem = self.path.stem if self.path is not None else "game"
        return f"{stem}-{digest}"

    @property
    def named_threads(self) -> tuple[ThreadRef, ...]:
        """Every thread the file names, once (its days' threads, by role)."""
        found: dict[tuple[str, object], ThreadRef] = {}
        for day in self.days:
            for ref in day.threads.values():
                found.setdefault((origin_of(ref.base), ref.key), ref)
        return tuple(found.values())

    def roles_of(self, ref: ThreadRef) -> tuple[tuple[int, str], ...]:
        """Each (day, role) the file names the thread ``ref`` for (the same board, the same
        thread id): what a read of it keeps with the posts it finds first, for a count after
        a merge to tell the vote thread's posts from the discussion thread's."""
        where = (origin_of(ref.base), ref.key)
        return tuple(
            (day.day, str(role))
            for day in self.days
            for role, r in day.threads.items()
            if (origin_of(r.base), r.key) == where
        )

    @cached_property
    def post_key(self) -> str:
        """What tally's mark on its posts names the game by (tally.rules.counting.closed.mark): the
        file's ``id``, else the first day's vote thread (board and thread id) alone, which
        a renamed or copied game file (a co-director's) and a thread added to day 1 later
        leave as it was: the mark found again is what stops a second post."""
        return self.post_keys[0]

    @cached_property
    def post_keys(self) -> tuple[str, ...]:
        """``post_key``, then what a tally before this one named the game by, where that
        differs (a mark it posted is the same post): the board with its ``www.``. The board
        is one with or without it (a co-director's copy of the file, its URLs pasted from
        www.…, posted the result a second time on a real X3.5)."""
        if self.given_id:
            return (self.given_id,)
        first = self.days[0] if self.days else None
        if first is None:
            return (self.id,)
        ref = first.vote_ref
        bare = origin_of(ref.base).removeprefix("www.")
        # The mark posts are made with, then the one an earlier tally made from a copy of the
        # file spelled the other way (it named the board as written): either is the post.
        thread = f"{ref.platform}:{ref.thread_id}"
        return (f"{bare}{thread}", f"www.{bare}{thread}")

    @cached_property
    def roster(self) -> Roster:
        return Roster(self.players, self.aliases)

    @cached_property
    def _accounts(self) -> Accounts:
        return Accounts(self.players, self.aliases, self.directors, self.outsiders, self.ids)

    def author(
        self, author: str, display: str | None = None, author_id: str | None = None
    ) -> Author:
        """Who wrote a post, as the file's accounts say (``Accounts.author``)."""
        return self._accounts.author(author, display, author_id)

    def cast(self) -> Cast:
        """Who wrote what, for one count: every stage of it asks the one ``Cast``."""
        return Cast(self.author)

    @property
    def has_ids(self) -> bool:
        return bool(self.ids)


    def has_role(self, player: str, roles: tuple[str, ...]) -> bool:
        return self.roles.get(player) in roles

    def day(self, number: int) -> Day:
        for d in self.days:
            if d.day == number:
                return d
        if not self.days:
            raise GameFileError(tr("{game} has no day {day} (days: none).", game=self.where(),
                                   day=number))  # fmt: skip
        known = ", ".join(str(d.day) for d in self.days)
        raise GameFileError(tr("{game} has no day {day} (days: {days}).", game=self.where(),
                               day=number, days=known))  # fmt: skip

    @cached_property
    def _places(self) -> Mapping[ThreadKey, tuple[Day, ThreadRole]]:
        """Each thread's day and role, indexed once. A vote thread is one day's (the loader
        refuses it on two days); a thread that is also another day's discussion or
        progress thread is known by its vote role, then by its earliest day."""
        places: dict[ThreadKey, tuple[Day, ThreadRole]] = {}
        for role in ThreadRole:
            for day in self.days:
                ref = day.ref(role)
                if ref is not None:
                    places.setdefault(ref.key, (day, role))
        return places

    def locate(self, key: ThreadKey) -> tuple[Day, ThreadRole] | None:
        """The day and role the game file gives this thread; None for a thread it does not
        name."""
        return self._places.get(key)

    def closed(self, now: datetime) -> tuple[Day, ...]:
        """The days that have closed by ``now``, in order."""
        return tuple(d for d in self.days if d.closes <= now)

    def vote_thread(
        self, threads: Sequence[Thread], chosen: Day | None = None, number: int | None = None
    ) -> tuple[Thread, Day]:
        """The one vote thread among the threads read (an archive holds many), and its day
        (``vote_day``): among ``chosen``'s threads when the day is known before the read."""
        if len(threads) == 1:
            [thread] = threads
        else:
            days = [chosen] if chosen is not None else list(self.days)
            votes = {d.vote_ref.key: d.day for d in days}
            boards = {d.vote_ref.key: origin_of(d.vote_ref.base) for d in days}
            # Thread 23 of another board is not the day's: an archive may hold both.
            found = [t for t in threads if t.key in votes and t.origin in ("", boards[t.key])]
            if len(found) > 1:
                numbers = ", ".join(str(votes[t.key]) for t in found)
                raise InputError(tr("the sources hold the vote threads of days {days}; name one "
                                    "with --day N.", days=numbers))  # fmt: skip
            if not found and chosen is not None:
                raise InputError(tr("the sources hold {n} threads and none is day {day}'s vote "
                                    "thread ({url}).", n=len(threads), day=chosen.day,
                                    url=chosen.vote))  # fmt: skip
            if len(found) != 1:
                raise InputError(tr("give the pages of one vote thread, not of {n} threads.",
                                    n=len(threads)))  # fmt: skip
            [thread] = found
        started = thread.posts[0].time if thread.posts else None
        return thread, self.vote_day(thread.key, number, started=started)

    def vote_day(
        self, key: ThreadKey, number: int | None = None, *, started: datetime | None = None
    ) -> Day:
        """The day whose vote thread ``key`` is; refuses (InputError) any other thread.

        With ``number`` the thread must be that day's vote thread. Without it, it must be
        the vote thread of one of the game's days. ``started`` (the time of the thread's
        first post, once read) narrows the days a thread the game file does not name was
        meant for."""
        thread = key.thread_id
        found = self.locate(key)
        if number is not None:
            day = self.day(number)
            if day.vote_ref.key == key:
                return day
            if found is not None and found[1] is ThreadRole.VOTE:
                said = tr("thread {thread} is day {found}'s vote thread, not day {day}'s; day "
                          "{day}'s vote thread is {url}", thread=thread, found=found[0].day,
                          day=day.day, url=day.vote)  # fmt: skip
            elif found is not None:
                said = tr(_NOT_A_VOTE[found[1]], thread=thread, found=found[0].day, day=day.day,
                          url=day.vote)  # fmt: skip
            else:
                said = tr("thread {thread} is not day {day}'s vote thread in {game}; day {day}'s "
                          "vote thread is {url}", thread=thread, day=day.day, game=self.where(),
                          url=day.vote)  # fmt: skip
            raise InputError(said)
        if found is not None and found[1] is ThreadRole.VOTE:
            return found[0]
        if found is not None:
            day = found[0]
            raise InputError(tr(_NOT_A_VOTE[found[1]], thread=thread, found=day.day, day=day.day,
                                url=day.vote))  # fmt: skip
        days = self.open_around(started)
        if len(days) == 1:
            raise InputError(tr("thread {thread} is not the vote thread of any day in {game}; day "
                                "{day}'s vote thread is {url}", thread=thread, game=self.where(),
                                day=days[0].day, url=days[0].vote))  # fmt: skip
        listed = tr(", ").join(tr("day {day}: {url}", day=d.day, url=d.vote) for d in days)
        raise InputError(tr("thread {thread} is not the vote thread of any day in {game}; the vote "
                            "threads are {listed}", thread=thread, game=self.where(),
                            listed=listed))  # fmt: skip

    def open_around(self, started: datetime | None) -> tuple[Day, ...]:
        """The days a thread started at ``started`` could be meant for: those open then (or
        up to 12 hours before they open, as a director opens a thread the night before),
        else every day."""
        if started is not None:
            slack = timedelta(hours=12)
            near = tuple(d for d in self.days if d.opens - slack <= started <= d.closes)
            if near:
                return near
        return tuple(self.days)

    def last_closed(self, now: datetime) -> Day:
        """What a check is about when no day is named: the last day that has closed."""
        closed = self.closed(now)
        if not closed:
            raise InputError(tr("no day of the game has closed yet; name one with --day N."))
        return closed[-1]

    def where(self) -> str:
        """How messages name this game: its file, or its name."""
        return str(self.path) if self.path else tr("game {name}", name=repr(self.name))

    def thread_urls(self) -> tuple[str, ...]:
        """Every thread of the game, discussion before vote, day by day, without repeats."""
        seen: dict[str, None] = {}
        for d in sorted(self.days, key=lambda d: d.day):
            for url in (d.discussion, d.vote, d.progress, d.sheriff_thread):
                if url:
                    seen.setdefault(url, None)
        return tuple(seen)
