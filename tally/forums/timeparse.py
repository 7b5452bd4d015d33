"""Forum times: absolute strings in the forum's zone, read strictly.

A time that cannot be read is an error, never "now": a ballot's time decides whether it counts.
Discuz! prints the clock its admin chose (``timeformat``): ``H:i`` (20:05) on most boards,
``h:i A`` (08:05 PM) on some, and Chinese boards may write 下午 08:05. A 12-hour clock read as
a 24-hour one puts an evening's ballots twelve hours early, so the marker is never ignored:
wherever it stands (before the date, between date and time, after the time), in whatever
width or spacing (``ＰＭ``, ``P M``, ``p. m.``, ``下 午``), it is read, and a text holding
two is refused. A clock of 12 hours printed without any marker (``h:i``) cannot be told
from a 24-hour one by one time; ``backwards`` finds it on a page, whose floors run forward.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from datetime import datetime, timedelta, tzinfo
from itertools import pairwise

from tally.errors import ParseError
from tally.i18n import tr
from tally.times import instant

# "2024-5-6 09:31", "2023-3-14 10:02:00", "2024-08-05 17:07", "2024/5/6 9:31",
# "2010-5-21 01:43:58 PM", "2010-5-21 下午 01:43", "2024年5月6日 上午9:31"
_ABSOLUTE = re.compile(
    r"(?P<y>\d{4})\s*[-/年.]\s*(?P<mo>\d{1,2})\s*[-/月.]\s*(?P<d>\d{1,2})\s*日?"
    r"(?P<between>[^\d:]{0,24}?)"
    r"(?P<h>\d{1,2})\s*:\s*(?P<mi>\d{2})(?:\s*:\s*(?P<s>\d{2}))?(?!\d)"
)


def _spaced(word: str) -> str:
    return r"\s*".join(word)


# Each marker a page may print, by the hours it names: "am" (12 is midnight), "pm" (12 is
# noon), "noon" (11, 12, 1, 2), "evening" (6 to 11 in the evening; 晚上12点 could be either
# midnight, so it is refused).
_KINDS = {
    "上午": "am", "早上": "am", "早晨": "am", "清晨": "am", "凌晨": "am", "午前": "am",
    "中午": "noon", "下午": "pm", "午后": "pm", "午後": "pm", "傍晚": "pm",
    "晚上": "evening", "晚间": "evening", "夜里": "evening", "夜間": "evening",
    "夜间": "evening", "深夜": "evening",
}  # fmt: skip
_CHINESE = "|".join(_spaced(w) for w in sorted(_KINDS, key=len, reverse=True))
# Latin markers after NFKC (ＰＭ is PM): "PM", "p.m.", "P M", "p. m.", not inside a word.
_MARKER = re.compile(
    rf"(?P<zh>{_CHINESE})|(?<![A-Za-z])(?P<ap>[AaPp])\s*\.?\s*[Mm]\s*\.?(?![A-Za-z])"
)
# Relative forms Discuz! shows for recent posts; they only ever appear with the exact
# time in a title attribute, so on their own they are an error.
_RELATIVE = re.compile(r"(刚刚|秒前|分钟前|半小时前|小时前|今天|昨天|前天|天前)")
# A time as Discuz! prints it by default ("2026-12-6 08:32", "发表于 2026-12-6 08:32:10"): ASCII
# digits and white space, and the word before it, NFKC leaves as they are and no half of the
# day can be named in them, so it reads as ``_ABSOLUTE`` reads it without the rest of the
# general path (NFKC and the markers' search took most of a post's time).
_PLAIN = re.compile(
    r"\s*(?:发表于|發表於)?\s*(\d{4})-(\d{1,2})-(\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*",
    re.ASCII,
)


def _hour(hour: int, kind: str) -> int | None:
    """The hour of the day a 12-hour clock's ``hour`` means with a marker of ``kind``."""
    if not 1 <= hour <= 12:
        return None
    if kind == "am":
        return hour % 12
    if kind == "pm":
        return hour % 12 + 12
    if kind == "noon":
        return {11: 11, 12: 12, 1: 13, 2: 14}.get(hour)
    return hour + 12 if 6 <= hour <= 11 else None  # evening


class Printed(tzinfo):
    """The clock a page prints every time on it at: one offset (Discuz! knows no summer
    time and adds its footer's offset to every time, whenever it was posted), and the zone
    the times are then shown in (the game's), each at its own offset there."""

    def __init__(self, offset: timedelta, zone: tzinfo) -> None:
        self.offset, self.zone = offset, zone

    def utcoffset(self, dt: datetime | None) -> timedelta:
        return self.offset

    def dst(self, dt: datetime | None) -> None:
        return None

    def tzname(self, dt: datetime | None) -> str:
        return f"UTC{self.offset.total_seconds() / 3600:+g}"

    def __repr__(self) -> str:
        return f"Printed({self.tzname(None)}, {self.zone})"


def parse_forum_time(text: str, tz: tzinfo, *, what: str | None = None) -> datetime:
    """Read the first absolute date-time in ``text`` as a time in the forum's zone ``tz``
    (a page's ``Printed`` clock: at its offset, shown in its zone)."""
    return read_forum_time(text, tz, what=what)[0]


def read_forum_time(text: str, tz: tzinfo, *, what: str | None = None) -> tuple[datetime, bool]:
    """``parse_forum_time``, and whether the time read is to the minute (no seconds printed:
    Discuz! with 人性化时间 off, Discuz! 6/7, a 点评): posted somewhere in that minute."""
    plain = _PLAIN.fullmatch(text)
    if plain is not None:
        y, mo, d, h, mi, s = plain.groups()
        if 1990 <= int(y) <= 2200:
            try:
                naive = datetime(int(y), int(mo), int(d), int(h), int(mi), int(s or 0))
            except ValueError:
                pass  # the general path says why
            else:
                return _placed(naive, tz), s is None
    return read_any_time(text, tz, what=what)


def read_any_time(text: str, tz: tzinfo, *, what: str | None = None) -> tuple[datetime, bool]:
    """``read_forum_time`` by the general path, whatever the text."""
    what = tr("time") if what is None else what
    cleaned = unicodedata.normalize("NFKC", text).replace("\xa0", " ")
    shown = repr(cleaned.strip())
    m = _ABSOLUTE.search(cleaned)
    if m is None:
        if _RELATIVE.search(cleaned):
            raise ParseError(
                tr(
                    "{what} is shown only as a relative time ({time}) without the exact time; "
                    "refusing to guess it.",
                    what=what,
                    time=shown,
                )
            )
        raise ParseError(
            tr("{what} {time} is not a date and time tally can read.", what=what, time=shown)
        )
    hour = int(m["h"])
    markers = list(_MARKER.finditer(cleaned))
    if len(markers) > 1:
        raise ParseError(
            tr("{what} {time} names the half of the day twice.", what=what, time=shown)
        )
    if markers:
        marker = markers[0]
        if marker["ap"]:
            kind = "pm" if marker["ap"].lower() == "p" else "am"
            said = marker.group(0).strip()
        else:
            said = re.sub(r"\s+", "", marker["zh"])
            kind = _KINDS[said]
        read = _hour(hour, kind)
        if read is None:
            raise ParseError(
                tr(
                    "{what} {time}: {hour} o'clock is not a time {marker} can name on a 12-hour "
                    "clock.",
                    what=what,
                    time=shown,
                    hour=hour,
                    marker=repr(said),
                )
            )
        hour = read
    elif m["between"].strip(" \t,|·-@Tt"):
        raise ParseError(
            tr(
                "{what} {time} holds {between} between its date and its time, which tally "
                "cannot read.",
                what=what,
                time=shown,
                between=repr(m["between"].strip()),
            )
        )
    try:
        # A year no forum post has (0001, 9999) would overflow any move of zone later.
        if not 1990 <= int(m["y"]) <= 2200:
            raise ValueError
        naive = datetime(
            int(m["y"]), int(m["mo"]), int(m["d"]), hour, int(m["mi"]), int(m["s"] or 0)
        )
    except (ValueError, OverflowError):
        raise ParseError(
            tr("{what} {time} is not a real date and time.", what=what, time=repr(m.group(0)))
        ) from None
    return _placed(naive, tz), m["s"] is None


def _placed(naive: datetime, tz: tzinfo) -> datetime:
    if isinstance(tz, Printed):
        return instant(naive.replace(tzinfo=tz).astimezone(tz.zone))
    return naive.replace(tzinfo=tz)


def backwards(times: Sequence[tuple[int, datetime]], tz: tzinfo) -> tuple[int, int] | None:
    """Two floors (earlier, later) whose times run backwards by more than a change of the
    zone's clock explains, on a page whose every time reads as 1 to 12 o'clock: the sign of
    a 12-hour clock printed without its marker (12:30, 12:10, 01:05 for 00:30, 12:10, 13:05).
    None when the times run forward, or when any hour is 0 or past 12 (a 24-hour clock)."""
    ordered = sorted(times, key=lambda item: item[0])
    if not ordered or any(not 1 <= t.astimezone(tz).hour <= 12 for _, t in ordered):
        return None
    for (floor_a, a), (floor_b, b) in pairwise(ordered):
        # A clock put back (summer time's end) repeats an hour of wall time.
        around = [
            (t.astimezone(tz) + timedelta(hours=h)).utcoffset() or timedelta()
            for t in (a, b)
            for h in (-3, 3)
        ]
        shift = max(around) - min(around)
        if b < a - shift:
            return floor_a, floor_b
    return None
