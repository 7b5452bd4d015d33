"""Small games and threads built from the post model, for rule-by-rule tests of the tally.

The HTML path is covered by test_counting_whole_day.py on real-shaped pages; these tests feed the
judge and the count directly, so that each rule is shown on the fewest posts.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from tally.model import Comment, Post, Quote, Thread
from tally.rules.counting.votes import DayResult, tally_day
from tally.rules.game.game import Game
from tally.rules.game.gamefile import parse_game

CHINA = ZoneInfo("Asia/Shanghai")
PLAYERS = ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛"]


def game(
    ruleset: str = "000",
    day: str = "",
    rules: str = "",
    players: list[str] | None = None,
    number: int = 2,
    extra: str = "",
) -> Game:
    names = ", ".join(f'"{p}"' for p in (players or PLAYERS))
    text = f"""
ruleset = "{ruleset}"
directors = ["导演"]
players = [{names}]
{extra}
[rules]
{rules}

[[days]]
day = {number}
opens = 2024-05-08T09:30:00
closes = 2024-05-09T21:30:00
vote = "https://bbs.example.com/thread-102-1-1.html"
{day}
"""
    return parse_game(text, source="test.toml")


def at(stamp: str) -> datetime:
    """ "08 10:00" is 2024-05-08 10:00 China time."""
    d, hm = stamp.split()
    return datetime.fromisoformat(f"2024-05-{d} {hm}").replace(tzinfo=CHINA)


class T:
    """A vote thread: ``T().post("乙", "08 10:00", "投票对象：甲 投票理由：x")``."""

    def __init__(self) -> None:
        self.posts: list[Post] = [
            Post(
                "discuz",
                "102",
                "1",
                1,
                "导演",
                "1",
                at("08 09:30"),
                "投票格式：\n投票对象：\n投票理由：",
            )
        ]

    def post(
        self,
        author: str,
        time: str,
        text: str,
        *,
        quote: int | None = None,
        reply: int | None = None,
    ) -> T:
        floor = len(self.posts) + 1
        quotes: tuple[Quote, ...] = ()
        if quote is not None:
            q = self.posts[quote - 1]
            quotes = (Quote(q.text, q.post_id, q.author),)
        reply_to = self.posts[reply - 1].post_id if reply is not None else None
        self.posts.append(
            Post(
                "discuz",
                "102",
                str(floor),
                floor,
                author,
                None,
                at(time),
                text,
                quotes=quotes,
                reply_to=reply_to,
            )
        )
        return self

    def comment(self, floor: int, author: str, time: str, text: str) -> T:
        p = self.posts[floor - 1]
        c = Comment(f"{p.post_id}.{len(p.comments) + 1}", author, None, at(time), text)
        self.posts[floor - 1] = Post(**{**p.__dict__, "comments": (*p.comments, c)})
        return self

    def thread(self) -> Thread:
        return Thread(
            "discuz",
            "102",
            "https://bbs.example.com/thread-102-1-1.html",
            "投票帖",
            1,
            tuple(self.posts),
        )


def vote(target: str, reason: str = "理由") -> str:
    return f"投票对象：{target}\n投票理由：{reason}"


def change(target: str, reason: str = "改一下") -> str:
    return f"改票对象：{target}\n改票理由：{reason}"


def run(g: Game, t: T, day: int = 2) -> DayResult:
    return tally_day(t.thread(), g, day)


def rows(result: DayResult) -> list[tuple[int, str | None, str, str | None, str, str | None]]:
    return [(b.floor, b.voter, b.kind, b.target, b.status, b.reason) for b in result.ballots]


def status_of(result: DayResult, floor: int, comment: bool = False) -> tuple[str, str | None]:
    b = next(b for b in result.ballots if b.floor == floor and b.comment == comment)
    return b.status, b.reason


def totals(result: DayResult) -> dict[str, str]:
    return {t.player: str(t.votes) for t in result.totals}
