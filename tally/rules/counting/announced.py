"""What a director writes of a day in the threads: the day a title names (第二天, Day 2,
警长竞选), and the close the first post announces ("投票截止：11月24日 21:30",
"关门：11月26日 21:00", "如执行加速，则于11月25日21:30关门").

Read so that a game file typed at closing time can be held against them
(``tally.rules.counting.guards``): the threads were written at leisure, the file in a hurry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

_NUMERALS = {c: i for i, c in enumerate("零一二三四五六七八九")}
_DAY_IN_TITLE = re.compile(r"第\s*([0-9]+|[零一二三四五六七八九十百]+)\s*[天日轮]")
# "Day 2", "D2" where no Chinese day is named; not "[D01]", a game's code in brackets.
_DAY_IN_ENGLISH = re.compile(
    r"\bday\s*([0-9]{1,3})\b|(?<![\[【(（\w])[Dd]([0-9]{1,2})(?![\w\]】)）])", re.IGNORECASE
)
ELECTION = re.compile(r"警长竞选|竞选警长|警长选举|选警长")


def chinese_number(text: str) -> int | None:
    """第二天 -> 2, 第十二天 -> 12, 第3天 -> 3."""
    if text.isdecimal():
        return int(text)
    total, current = 0, 0
    for c in text:
        if c == "百":
            total += (current or 1) * 100
            current = 0
        elif c == "十":
            total += (current or 1) * 10
            current = 0
        elif c in _NUMERALS:
            current = _NUMERALS[c]
        else:
            return None
    return total + current or None


def day_in_title(title: str) -> int | None:
    """The day a thread's title names: 第二天, 第2天, 第三轮, Day 2; None if it names none
    ("[D01]" is a game's code, not day 1)."""
    m = _DAY_IN_TITLE.search(title)
    if m is not None:
        return chinese_number(m.group(1))
    m = _DAY_IN_ENGLISH.search(title)
    return int(m.group(1) or m.group(2)) if m is not None else None


# A close is a line that says 截止, 关门, 结束 or 关闭, with a date and a time on it.
_CLOSING = re.compile(r"截止|关门|结束|关闭")
# The weekday a director may add after the date, in any bracket or none: （周六）, (星期六),
# 【礼拜天】, 周六.
_WEEKDAY = (
    r"(?:\s*[（(\[【〔［<＜《「]?\s*(?:周|星期|礼拜|禮拜|週)[一二三四五六日天七]"
    r"\s*[）)\]】〕］>＞》」]?)?"
)
_DATE = re.compile(
    r"(?:(?P<y>\d{4})\s*[年/.-]\s*)?(?P<mo>\d{1,2})\s*[月/.-]\s*(?P<d>\d{1,2})\s*[日号]?"
    + _WEEKDAY
    + r"\s*(?P<part>凌晨|早上|上午|中午|下午|傍晚|晚上|晚)?\s*"
    r"(?P<h>\d{1,2})\s*(?:[:：]\s*(?P<mi>\d{2})(?:\s*[:：]\s*(?P<s>\d{2}))?"
    r"|[点时]\s*(?:(?P<mi2>\d{1,2})\s*分?(?:\s*(?P<s2>\d{1,2})\s*秒)?|(?P<half>半))?)"
)
_AFTERNOON = ("下午", "傍晚", "晚上", "晚")


@dataclass(frozen=True)
class Close:
    """A close a post announces: when, the line that says it, whether it is the close
    of an accelerated day (加速), and whether the line names the second (else it says
    the minute, and is held against the game file's close to the minute)."""

    at: datetime
    line: str
    accelerated: bool
    seconds: bool = False


def announced_closes(text: str, written: datetime, tz: tzinfo) -> tuple[Close, ...]:
    """The closes a post announces, in the order written. ``written`` (when the post was
    made) gives the year a date leaves out: the nearest one at or after the post."""
    found = []
    for line in text.splitlines():
        if not _CLOSING.search(line):
            continue
        m = _DATE.search(line)
        if m is None:
            continue
        at = _when(m, written, tz)
        if at is not None:
            found.append(Close(at, line.strip(), "加速" in line, bool(m["s"] or m["s2"])))
    return tuple(found)


def _when(m: re.Match[str], written: datetime, tz: tzinfo) -> datetime | None:
    hour, minute = int(m["h"]), int(m["mi"] or m["mi2"] or 0) + (30 if m["half"] else 0)
    if m["part"] in _AFTERNOON and hour < 12:
        hour += 12
    local = written.astimezone(tz)
    year = int(m["y"]) if m["y"] else local.year
    if not 1990 <= year <= 2200:
        return None  # no game's close; a year Python cannot move a zone from
    try:
        second = int(m["s"] or m["s2"] or 0)
        at = datetime(year, int(m["mo"]), int(m["d"]), hour, minute, second, tzinfo=tz)
    except (ValueError, OverflowError):
        return None
    if not m["y"] and at < local - timedelta(days=183):
        at = at.replace(year=year + 1)  # "1月2日" written in late December
    return at


# An opening is a line that says 开门 (or 开放, 开始投票), with or without a date and time:
# "第二天讨论帖开门", "开门：11月25日 09:30". 关门 on the same line is a close, not an opening.
_OPENING = re.compile(r"开门|开放|开始投票|开始讨论")


def announced_open(text: str, written: datetime, tz: tzinfo) -> tuple[datetime, str] | None:
    """The opening a post announces, with its line: the date and time on the 开门 line (the
    text before any close on it), else the post's own time when the line names none (the
    post opens the day as it is made). None for a post that says no 开门."""
    for line in text.splitlines():
        m = _OPENING.search(line)
        if m is None:
            continue
        before = _CLOSING.search(line, m.end())
        rest = line[m.start() : before.start() if before else len(line)]
        found = _DATE.search(rest) or _DATE.search(line[: m.start()].split("关门")[0])
        at = _when(found, written, tz) if found is not None else None
        return (at or written.astimezone(tz), line.strip())
    return None
