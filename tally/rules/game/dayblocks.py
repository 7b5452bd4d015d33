"""A game file's [[days]] blocks, read and checked into ``Day``s: each day's window, its
threads (each day votes in a thread of its own), who is out, silenced, holds a badge or a
weight. Each mistake one sentence naming the day and the key (``Checker``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from tally.i18n import N_, tr
from tally.model import ThreadKey, ThreadRef
from tally.rules.game.filekeys import Checker
from tally.rules.game.game import Day
from tally.rules.game.names import normalise
from tally.rules.verdicts import ThreadRole
from tally.times import long

# What a game file writes for "nobody" where a key names a player (sheriff = "none").
NO_ONE = ("none", "无")
# A role's key in a [[days]] block, where it is not the role's own name.
_KEY = {ThreadRole.SHERIFF: "sheriff_thread"}
# A day's other thread that is a vote thread, by its role: a sentence each (the role is a
# word of its own in Chinese, not one glued in).
_NOT_A = {
    ThreadRole.DISCUSSION: N_("{url} is day {day}'s vote thread, not a discussion thread"),
    ThreadRole.PROGRESS: N_("{url} is day {day}'s vote thread, not a progress thread"),
    ThreadRole.SHERIFF: N_("{url} is day {day}'s vote thread, not a sheriff thread"),
}
_DAY_KEYS = {
    "day",
    "opens",
    "closes",
    "discussion",
    "vote",
    "accelerated",
    "dead",
    "sheriff",
    "sheriff_change",
    "deputy",
    "slandered",
    "cannot_vote",
    "silenced",
    "revived",
    "sheriff_thread",
    "cannot_be_voted",
    "weights",
    "immune",
    "acolyte",
    "sheriff_declaration",
    "bar_owner",
    "trapped",
    "died",
    "progress",
    "late_ok",
    "close_changed",
    "result_changed",
}
_DECLARATIONS = ("独裁", "自由", "秩序")


def read_days(checker: Checker, value: Any, roster: set[str], tz: ZoneInfo) -> tuple[Day, ...]:
    """The [[days]] array: each block a Day, in the order of their numbers."""
    if not isinstance(value, list):
        raise checker.fail("days", tr("must be an array of tables ([[days]])"))
    days: list[Day] = []
    for i, table in enumerate(value, start=1):
        if not isinstance(table, dict):
            raise checker.fail(f"days #{i}", tr("must be a table"))
        days.append(_day(checker, table, i, roster, tz))
    numbers = [d.day for d in days]
    for n in numbers:
        if numbers.count(n) > 1:
            raise checker.fail("days", tr("day {day} is given twice", day=n))
    days.sort(key=lambda d: d.day)
    _own_vote_threads(checker, days)
    return tuple(days)


def _own_vote_threads(checker: Checker, days: list[Day]) -> None:
    """Each day votes in a thread of its own: the same vote thread on two days (a
    [[days]] block copied and not edited) would count one thread twice."""
    votes: dict[ThreadKey, Day] = {}
    for d in days:
        first = votes.setdefault(d.vote_ref.key, d)
        if first is not d:
            raise checker.fail(f"day {d.day}.vote", tr(
                "{url} is day {day}'s vote thread too; each day votes in a thread of its own (a "
                "[[days]] block copied and not edited?)", url=d.vote, day=first.day))  # fmt: skip
    for d in days:
        for role in (ThreadRole.DISCUSSION, ThreadRole.PROGRESS, ThreadRole.SHERIFF):
            ref = d.ref(role)
            owner = votes.get(ref.key) if ref is not None else None
            key = _KEY.get(role, str(role))
            # The sheriff's thread is never a vote thread, the day's own included: its
            # ballots and chat would count as the sheriff's discussion (L1).
            ours = owner is d and role is not ThreadRole.SHERIFF
            if owner is not None and not ours:
                raise checker.fail(f"day {d.day}.{key}",
                                   tr(_NOT_A[role], url=d.url(role), day=owner.day))  # fmt: skip


def _day(checker: Checker, t: dict[str, Any], index: int, roster: set[str], tz: ZoneInfo) -> Day:
    number, where = _numbered(checker, t, index)
    block = _Block(checker, t, where, roster, tz)
    opens = block.when("opens")
    closes = block.when("closes")
    if closes <= opens:
        said = tr("{closes} is not after opens {opens}", closes=long(closes), opens=long(opens))
        raise checker.fail(f"{where}.closes", said)
    accelerated, late_ok = block.flag("accelerated"), block.flag("late_ok")
    declaration = block.declaration()
    weights = block.weights()
    dead, died = block.out(opens)
    revived = block.revived(dead)
    sheriff, deputy = block.badges(dead)
    # silenced = true: nobody may speak this day; a list: those players.
    silent = t.get("silenced") is True
    silenced = () if isinstance(t.get("silenced", []), bool) else block.players("silenced")
    vote = checker.string(t["vote"], f"{where}.vote")
    discussion, progress = block.text("discussion"), block.text("progress")
    sheriff_thread = block.text("sheriff_thread")
    return Day(
        day=number,
        opens=opens,
        closes=closes,
        vote=vote,
        discussion=discussion,
        accelerated=accelerated,
        weights=weights,
        sheriff_declaration=declaration,
        dead=dead,
        slandered=block.players("slandered"),
        cannot_vote=block.players("cannot_vote"),
        cannot_be_voted=block.players("cannot_be_voted"),
        silenced=silenced,
        silent=silent,
        revived=revived,
        immune=block.players("immune"),
        trapped=block.players("trapped"),
        late_ok=late_ok,
        close_changed=block.text("close_changed"),
        result_changed=block.text("result_changed"),
        sheriff=sheriff,
        no_sheriff=block.no_one("sheriff"),
        sheriff_change=block.text("sheriff_change"),
        deputy=deputy,
        no_deputy=block.no_one("deputy"),
        acolyte=block.one("acolyte"),
        bar_owner=block.one("bar_owner"),
        died=died,
        progress=progress,
        sheriff_thread=sheriff_thread,
        threads=block.threads(
            {
                ThreadRole.VOTE: vote,
                ThreadRole.DISCUSSION: discussion,
                ThreadRole.PROGRESS: progress,
                ThreadRole.SHERIFF: sheriff_thread,
            }
        ),
    )


def _numbered(checker: Checker, t: Mapping[str, Any], index: int) -> tuple[int, str]:
    """The block's day number, and how its mistakes name it ("day 3", or "days #3" before
    its number is known), once its keys are known and the required ones there."""
    where = f"days #{index}"
    number = t.get("day")
    if isinstance(number, int) and not isinstance(number, bool):
        where = f"day {number}"
    checker.unknown_keys(t, _DAY_KEYS, f"{where}.")
    for required in ("day", "opens", "closes", "vote"):
        if required not in t:
            raise checker.fail(f"{where}.{required}", tr("is required"))
    if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= 10_000:
        raise checker.fail(f"{where}.day", tr("must be a whole number from 1 to 10,000"))
    return number, where


@dataclass(frozen=True)
class _Block:
    """One [[days]] block as its keys are read, each mistake named ``day N.key``."""

    checker: Checker
    t: Mapping[str, Any]
    where: str
    roster: set[str]
    tz: ZoneInfo

    def key(self, k: str) -> str:
        return f"{self.where}.{k}"

    def when(self, k: str) -> datetime:
        return self.checker.when(self.t[k], self.key(k), self.tz)

    def players(self, k: str) -> tuple[str, ...]:
        key = self.key(k)
        names = self.checker.names(self.t.get(k, []), key)
        return tuple(self.checker.player(p, key, self.roster) for p in names)

    def one(self, k: str) -> str | None:
        raw = self.t.get(k, "")
        return self.checker.player(raw, self.key(k), self.roster) if raw != "" else None

    def no_one(self, k: str) -> bool:
        """sheriff = "none" (deputy = "none") says there is none (unless a player is called
        that)."""
        called_none = any(normalise(p) in NO_ONE for p in self.roster)
        return not called_none and str(self.t.get(k, "")).strip().lower() in NO_ONE

    def flag(self, k: str) -> bool:
        value = self.t.get(k, False)
        if not isinstance(value, bool):
            raise self.checker.fail(self.key(k), tr("must be true or false"))
        return value

    def text(self, k: str) -> str | None:
        """An optional string: absent or empty is None."""
        value = self.t.get(k)
        return self.checker.string(value, self.key(k)) if value else None

    def declaration(self) -> str | None:
        """What the sheriff declared for the day (ruleset 245), one of ``_DECLARATIONS``."""
        declaration = self.t.get("sheriff_declaration", "") or None
        if declaration is not None and declaration not in _DECLARATIONS:
            said = tr("must be one of {choices}", choices=", ".join(_DECLARATIONS))
            raise self.checker.fail(self.key("sheriff_declaration"), said)
        return declaration

    def weights(self) -> dict[str, Decimal]:
        raw = self.t.get("weights", {})
        if not isinstance(raw, dict):
            raise self.checker.fail(self.key("weights"), tr("must be a table of player = weight"))
        weights = {}
        for p, w in raw.items():
            key = self.key(f"weights.{p}")
            weights[self.checker.player(p, key, self.roster)] = self.checker.number(w, key)
        return weights

    def out(self, opens: datetime) -> tuple[tuple[str, ...], dict[str, datetime]]:
        """Who is out before the day (``dead``), and who went out during it, when (``died``,
        V9): one player is in one of them."""
        raw = self.t.get("died", {})
        if not isinstance(raw, dict):
            raise self.checker.fail(self.key("died"),
                                    tr("must be a table of player = time of death"))  # fmt: skip
        dead = self.players("dead")
        died = {}
        for p, w in raw.items():
            key = self.key(f"died.{p}")
            player = self.checker.player(p, key, self.roster)
            died[player] = self.checker.when(w, key, self.tz)
            if player in dead:
                raise self.checker.fail(key, tr("{player} is in {where}.dead too: out before the "
                                                "day, or during it, not both", player=player,
                                                where=self.where))  # fmt: skip
            if died[player] < opens:
                raise self.checker.fail(key, tr(
                    "{died} is before the day opens {opens}: a player out before the day is in "
                    "dead", died=long(died[player]), opens=long(opens)))  # fmt: skip
        return dead, died

    def revived(self, dead: tuple[str, ...]) -> tuple[str, ...]:
        revived = self.players("revived")
        for p in revived:
            # Back at the open and out again at noon is `died` beside it; `dead` is not.
            if p in dead:
                raise self.checker.fail(self.key("revived"), tr(
                    "{player} is in {where}.dead too: back in the game this day, or out before "
                    "it, not both", player=p, where=self.where))  # fmt: skip
        return revived

    def badges(self, dead: tuple[str, ...]) -> tuple[str | None, str | None]:
        """The day's sheriff and deputy: one badge each, none held by one who is out."""
        sheriff = None if self.no_one("sheriff") else self.one("sheriff")
        deputy = None if self.no_one("deputy") else self.one("deputy")
        if sheriff is not None and sheriff in dead:
            raise self.checker.fail(self.key("sheriff"), tr(
                "{player} is in {where}.dead: one who is out holds no badge (name who holds it, "
                'or sheriff = "none")', player=sheriff, where=self.where))  # fmt: skip
        if deputy is not None and deputy == sheriff:
            raise self.checker.fail(self.key("deputy"), tr(
                "{player} is the day's sheriff: one badge each", player=deputy))  # fmt: skip
        return sheriff, deputy

    def threads(self, urls: Mapping[ThreadRole, str | None]) -> dict[ThreadRole, ThreadRef]:
        """Each thread the day names, resolved at load (a URL naming no thread is an error)."""
        return {
            role: self.checker.thread(url, self.key(_KEY.get(role, role)))
            for role, url in urls.items()
            if url
        }
