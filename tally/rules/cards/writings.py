"""The players' writings of a day (its threads: ``DayThreads``), and what their form says
(RULES L1, L6-L8).

``by_players`` gives what each player wrote in a thread inside the day's window (a time shown
to the minute in the minute of the open or the close counted in, unless only the sure are
asked for: ``tally.rules.judging.minutes``); the lurker check counts them (L1) and flags, from
the same writings, a long 楼中楼 that is discussion (L6), the director's red or enlarged font
(L7) and a flood of near-empty posts (L8), each for the director to judge.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from tally.i18n import N_, tr
from tally.model import Thread, Writing
from tally.rules.game.cast import Cast
from tally.rules.game.game import Day, Game
from tally.rules.judging.ballots import Flag
from tally.rules.judging.minutes import in_window

_NOT_CONTENT = re.compile(r"[\s\W_]+", re.UNICODE)


@dataclass(frozen=True)
class DayThreads:
    """A day and its threads as tally read them, each None where the game file names none
    or it was not read."""

    day: Day
    discussion: Thread | None
    vote: Thread | None = None
    progress: Thread | None = None
    sheriff: Thread | None = None  # ruleset 245's 自由警长发言贴

    @property
    def threads(self) -> tuple[Thread, ...]:
        every = (self.discussion, self.vote, self.progress, self.sheriff)
        # Once each: a day whose discussion thread is its vote thread has one thread.
        return tuple({t.key: t for t in every if t is not None}.values())

    @property
    def as_of(self) -> datetime | None:
        """The earliest time any of the day's threads is known to be complete up to."""
        return min((t.as_of for t in self.threads if t.as_of is not None), default=None)

    @property
    def closed(self) -> bool:
        as_of = self.as_of
        return as_of is not None and as_of >= self.day.closes



def by_players(
    cast: Cast, day: Day, thread: Thread | None, *, comments: bool = True, whole: bool = False,
    sure: bool = False,
) -> Iterator[tuple[str, Writing]]:
    """What players (not directors) wrote in ``thread`` inside the day's window, and in the
    minute of its open or close (a time to the minute: perhaps inside) unless ``sure``; with
    ``whole``, at any time."""
    if thread is None:
        return
    for w in thread.writings(comments=comments):
        who = cast.of(w)
        inside = True if whole else in_window(w, day.opens, day.closes)
        if who.is_director or inside is False or (sure and inside is None):
            continue
        player = who.player
        if player is not None:
            yield player, w


def comment_discussion(game: Game, day: Day, discussion: Thread | None, cast: Cast) -> list[Flag]:
    """L6 (seed 000): discussion belongs in floors; a long 楼中楼 is probably discussion."""
    if not game.rules.flag_comment_discussion:
        return []
    limit = game.rules.comment_chat_chars
    flags = []
    for player, w in by_players(cast, day, discussion):
        if w.is_comment and len(_NOT_CONTENT.sub("", w.text)) > limit:
            note = tr("{player} wrote {count} characters in a 楼中楼 under floor {floor}: "
                      "discussion, or chat?", player=player, count=len(w.text),
                      floor=w.post.floor)  # fmt: skip
            flags.append(Flag("L6", note, player, w.post.floor, w.item_id, w.post.thread_id))
    return flags


# L7's words, by the font (red, enlarged) and whether in a floor or in one of its 点评.
_FONTS = {
    (True, False): (N_("{player} used red font"),
                    N_("{player} used red font in 点评 {comment} under floor {floor}")),
    (False, True): (N_("{player} used enlarged font"),
                    N_("{player} used enlarged font in 点评 {comment} under floor {floor}")),
    (True, True): (N_("{player} used red and enlarged font"),
                   N_("{player} used red and enlarged font in 点评 {comment} under floor {floor}")),
}  # fmt: skip


def fonts(day: Day, threads: Iterable[Thread], cast: Cast) -> list[Flag]:
    """L7: red and enlarged font are the director's."""
    flags = []
    for thread in threads:
        for player, w in by_players(cast, day, thread, comments=True):
            if w.red_font or w.large_font:
                p = w.post
                said = _FONTS[(w.red_font, w.large_font)][w.is_comment]
                note = tr(said, player=player, comment=w.comment_index, floor=p.floor)
                flags.append(Flag("L7", note, player, p.floor, w.item_id, p.thread_id))
    return flags


def floods(
    game: Game, day: Day, threads: Iterable[Thread | None], cast: Cast
) -> list[Flag]:
    """L8: many near-empty posts in a short time ("连发十楼数字只为抢占某一层")."""
    rules = game.rules
    window = timedelta(minutes=rules.flood_minutes)
    flags = []
    by_player: dict[str, list[tuple[datetime, int, str, str]]] = {}
    for thread in threads:
        for player, w in by_players(cast, day, thread, comments=False):
            content = _NOT_CONTENT.sub("", unicodedata.normalize("NFKC", w.text))
            if len(content) <= rules.flood_chars:
                entry = (w.time, w.post.floor, w.item_id, w.post.thread_id)
                by_player.setdefault(player, []).append(entry)
    for player, posts in by_player.items():
        posts.sort()
        start = 0
        for end in range(len(posts)):
            while posts[end][0] - posts[start][0] > window:
                start += 1
            if end - start + 1 == rules.flood_posts:
                first = posts[start]
                flags.append(
                    Flag(
                        "L8",
                        tr("{player} posted {count} near-empty posts within {minutes} minutes "
                           "from floor {floor}", player=player, count=rules.flood_posts,
                           minutes=rules.flood_minutes, floor=first[1]),
                        player,
                        first[1],
                        first[2],
                        first[3],
                    )
                )
                break
    return flags
