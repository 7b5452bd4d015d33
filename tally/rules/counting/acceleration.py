"""S3: acceleration (加速) requests, counted.

A day is accelerated (it closes the evening it opened) when enough of the players alive
at the open ask: more than half, or under seed 001 at least half, of the requests posted
3 hours before the accelerated close. tally counts the requests and says what they make;
whether the day is accelerated stays the game file's ``accelerated``, and a count that
disagrees with it is a warning naming the day, never a silent override.

A request is a line of the player's own words (quotes of others' requests are not theirs)
that asks for acceleration and nothing else:

- ``加速``, ``加速！``, ``加速+1``, ``+1加速``;
- with a verb of asking or agreeing before it: ``申请加速``, ``我也申请加速+1``, ``求加速``,
  ``同意加速``, ``支持加速``, ``要加速``, ``希望加速``; in brackets: ``【申请加速】``;
- with thanks after it: ``申请加速，谢谢导演``.

Not requests: ``不加速``, ``不要加速``, ``反对加速``, ``别加速`` (nothing may come before the
verb), questions (``加速吗？``, ``要加速吗``), and lines that only mention it (``我觉得今天
不该加速``, ``加速的话票型会很乱``). A request in a 楼中楼/点评 counts like one in a floor.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from tally.errors import GameFileError
from tally.i18n import tr
from tally.model import Thread
from tally.rules.game.game import Day, Game
from tally.rules.game.rulesets import Share
from tally.rules.judging.minutes import in_window
from tally.times import instant, short, wall_time

_REQUEST = re.compile(
    r"^(?:我们?|本人)?也?"
    r"(?:申请|请求|要求|求|想|要|同意|支持|赞成|希望|建议)?"
    r"(?:\+1)?加速(?:\+1)?"
    r"[!。.~,，]*"
    r"(?:谢谢.{0,8}|感谢.{0,8})?"
    r"[!。.~]*$"
)
_BRACKETS = str.maketrans("", "", "【】[]「」()（） \t")


def is_request(text: str) -> bool:
    """Whether a post (its own words) asks for acceleration."""
    for line in unicodedata.normalize("NFKC", text).splitlines():
        if _REQUEST.match(line.translate(_BRACKETS)):
            return True
    return False


@dataclass(frozen=True)
class Request:
    player: str
    thread_id: str
    floor: int
    comment: bool
    time: datetime


@dataclass(frozen=True)
class Acceleration:
    day: int
    living: int  # players alive at the open
    needed: int
    asked: tuple[Request, ...]  # each player's first request, in time order
    deadline: datetime  # requests count up to here
    marked: bool  # the game file's accelerated
    # The players who asked only in the minute of the open or of the deadline, shown to the
    # minute (a 点评, a page without seconds): perhaps in time, not counted.
    doubtful: tuple[Request, ...] = ()

    @property
    def accelerates(self) -> bool:
        return len(self.asked) >= self.needed

    @property
    def text(self) -> str:
        fields = {"n": len(self.asked), "living": self.living, "by": short(self.deadline),
                  "needed": self.needed, "doubt": self._doubt}  # fmt: skip
        if self.accelerates:
            return tr("加速: {n} of {living} living asked by {by} (needs {needed}): "
                      "accelerated{doubt}", **fields)  # fmt: skip
        return tr("加速: {n} of {living} living asked by {by} (needs {needed}): "
                  "not accelerated{doubt}", **fields)  # fmt: skip

    @property
    def _doubt(self) -> str:
        """The requests shown in the minute of the open or of the deadline, said where there
        are any: not counted, perhaps in time."""
        if not self.doubtful:
            return ""
        who = "、".join(tr("{player} (floor {floor}, {time})", player=r.player, floor=r.floor,
                           time=short(r.time)) for r in self.doubtful)  # fmt: skip
        return tr("; {n} more shown in the minute of the open or of {by}, to the minute, "
                  "perhaps outside it, not counted: {who}", n=len(self.doubtful),
                  by=short(self.deadline), who=who)  # fmt: skip

    @property
    def warning(self) -> str | None:
        """A sentence when the requests and the game file disagree about the day, or when the
        requests in a boundary's minute decide it."""
        n, living, needed = len(self.asked), self.living, self.needed
        doubt = self._doubt
        if not self.accelerates and n + len(self.doubtful) >= needed and not self.marked:
            return tr("day {day}: {n} of {living} living players asked for 加速 by {by} "
                      "(needs {needed}){doubt}: they decide the day; check the game file's "
                      "accelerated (S3).", day=self.day, n=n, living=living,
                      by=short(self.deadline), needed=needed, doubt=doubt)  # fmt: skip
        if self.accelerates and not self.marked:
            return tr(
                "day {day}: {n} of {living} living players asked for 加速 (needs {needed}), "
                "but the game file does not mark the day accelerated = true; check it (S3).",
                day=self.day,
                n=n,
                living=living,
                needed=needed,
            )
        if self.marked and not self.accelerates:
            return tr(
                "day {day} is marked accelerated = true, but only {n} of {living} living "
                "players asked for 加速 by {by} (needs {needed}){doubt}; check the game file "
                "(S3).",
                day=self.day,
                n=n,
                living=living,
                by=short(self.deadline),
                needed=needed,
                doubt=doubt,
            )
        return None


def needed(living: int, share: Share) -> int:
    """S3: more than half of the living (seed 001: at least half)."""
    return living // 2 + 1 if share == Share.MORE_THAN_HALF else (living + 1) // 2


def deadline(day: Day, cutoff_hours: int, zone: tzinfo) -> datetime:
    """The accelerated close (the open's date, at the close's time of day on the game's
    clock ``zone``, whatever summer time did between them), less the cutoff."""
    opens, closes = day.opens.astimezone(zone), day.closes.astimezone(zone)
    close = instant(
        wall_time(
            datetime.combine(opens.date(), closes.time()),
            zone,
            lambda why: GameFileError(
                tr("day {day}'s accelerated close {why}.", day=day.day, why=why)
            ),
        )
    )
    if close <= day.opens:
        close = day.closes
    return min(close, day.closes) - timedelta(hours=cutoff_hours)


def count_requests(game: Game, day: Day, threads: Iterable[Thread]) -> Acceleration:
    """The requests for acceleration of ``day`` in its discussion and progress threads."""
    rules = game.rules
    until = deadline(day, rules.acceleration_cutoff_hours, game.timezone)
    # The living when the requests are counted (seed 001: three hours before the close), not
    # at the open: one out at noon neither asks nor counts.
    alive = [p for p in game.players if not day.out_at(p, until)]
    first: dict[str, Request] = {}
    doubtful: dict[str, Request] = {}
    cast = game.cast()
    for thread in threads:
        for w in thread.writings():
            who = cast.of(w)
            if who.is_director:
                continue
            player = who.player
            if player is None or player not in alive or day.out_at(player, w.time):
                continue
            inside = in_window(w, day.opens, until)
            if inside is False or not is_request(w.text):
                continue
            request = Request(player, thread.thread_id, w.post.floor, w.is_comment, w.time)
            found = first if inside else doubtful
            if player not in found or request.time < found[player].time:
                found[player] = request
    return Acceleration(
        day=day.day,
        living=len(alive),
        needed=needed(len(alive), rules.acceleration_share),
        asked=tuple(sorted(first.values(), key=lambda r: r.time)),
        deadline=until,
        marked=day.accelerated,
        doubtful=tuple(sorted((r for p, r in doubtful.items() if p not in first),
                              key=lambda r: r.time)),
    )  # fmt: skip
