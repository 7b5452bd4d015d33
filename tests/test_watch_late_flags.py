"""From the third cold read: Arrivals flags a normal ballot as 'late' when the forum prints times to the
minute (Discuz! default H:i) and the read's as_of is later than the fetch of the last page
(a full read of several pages: the last page is fetched first) or the forum clock is a few
seconds behind."""
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace as NS

from tally.commands.watch_posts import Arrivals
from tally.model import Post

CN = timezone(timedelta(hours=8))


def t(s: str) -> datetime:
    return datetime.fromisoformat(s).replace(tzinfo=CN)


def post(pid: int, floor: int, author: str, when: str) -> Post:
    return Post("discuz", "102", str(pid), floor, author, str(pid), t(when), "投票对象：长夜")


class Game:
    path = None

    def cast(self):  # type: ignore[no-untyped-def]
        return NS(of=lambda p: NS(is_director=False, player=p.author))


def poll(at: str, as_of: str, posts: list[Post]) -> NS:
    thread = NS(posts=tuple(posts), history=None)
    return NS(error=None, at=t(at), result=NS(thread=thread, as_of=t(as_of), day=NS(day=2)))


OPEN = post(1, 1, "导演", "2024-05-09 20:00")
A = post(2, 2, "甲", "2024-05-09 20:30")


def test_full_read_window_minute_times():
    # Poll at 21:00:50: the last page fetched at 21:00:50, nine pages before it by 21:01:10
    # (as_of). 乙 votes at 21:00:55 (after the last page was fetched): the forum prints 21:00.
    arrivals = Arrivals(Game())  # type: ignore[arg-type]
    arrivals.poll(poll("2024-05-09 21:00:50", "2024-05-09 21:01:10", [OPEN, A]))  # type: ignore[arg-type]
    B = post(3, 3, "乙", "2024-05-09 21:00")
    last = poll("2024-05-09 21:01:50", "2024-05-09 21:01:51", [OPEN, A, B])
    arrivals.poll(last)  # type: ignore[arg-type]
    arrivals.check(last.result)  # a normal ballot: must not stop the post


def test_forum_clock_ten_seconds_behind_minute_times():
    # Read at 21:20:05 (machine). 乙 votes 2 s later: forum clock (10 s behind) 21:19:57, shown 21:19.
    arrivals = Arrivals(Game())  # type: ignore[arg-type]
    arrivals.poll(poll("2024-05-09 21:20:04", "2024-05-09 21:20:05", [OPEN, A]))  # type: ignore[arg-type]
    B = post(3, 3, "乙", "2024-05-09 21:19")
    last = poll("2024-05-09 21:21:04", "2024-05-09 21:21:05", [OPEN, A, B])
    arrivals.poll(last)  # type: ignore[arg-type]
    arrivals.check(last.result)
