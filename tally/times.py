"""Times as tally shows and writes them, each form once; and the one reader of Unix times.

A director reads times on a screen, in a post and in a spreadsheet; each of those places
takes its form from here, so the same instant never reads two ways:

- ``short``: "05-09 21:30", the console, the announcements, messages (to the second with
  ``seconds=True``; ``compared`` for times a sentence compares, to the second where the
  minutes are equal);
- ``long``: "2024-05-09 21:30", where the year matters (a thread's posts, the report);
- ``clock``: "21:30" (or "21:30:05"), a time of the day whose date is plain;
- ``iso``: "2024-05-09T21:30:00+08:00", JSON, CSV and SQLite (empty for no time);
- ``duration``: "1 h 23 min", "4 min 30 s", how long until something.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone, tzinfo

from tally.errors import ParseError
from tally.i18n import tr


def short(t: datetime, *, seconds: bool = False) -> str:
    return t.strftime("%m-%d %H:%M:%S" if seconds else "%m-%d %H:%M")


def compared(*times: datetime) -> tuple[str, ...]:
    """Times a sentence holds against each other, in ``short`` form, to the second whenever
    two of them read the same to the minute and are not the same instant: "posted 12-01
    15:33:10, before the open 12-01 15:33:40", never a contradiction."""
    shown = [short(t) for t in times]
    clash = any(
        shown[i] == shown[j] and times[i] != times[j]
        for i in range(len(times))
        for j in range(i + 1, len(times))
    )
    return tuple(short(t, seconds=True) for t in times) if clash else tuple(shown)


def long(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M")


def clock(t: datetime, *, seconds: bool = False) -> str:
    return t.strftime("%H:%M:%S" if seconds else "%H:%M")


def iso(t: datetime | None) -> str:
    """ISO 8601 to the second with the UTC offset; "" for no time (an empty cell)."""
    return t.isoformat(timespec="seconds") if t is not None else ""


def duration(delta: timedelta, *, seconds: bool = False) -> str:
    """How long until something: "2 d 3 h", "1 h 23 min", "12 min" for a director's eye;
    with ``seconds`` (a clock that ticks) "1 h 02 min 05 s", "4 min 30 s", "9 s"."""
    total = max(0, int(delta.total_seconds()))
    if seconds:
        hours, rest = divmod(total, 3600)
        minutes, secs = divmod(rest, 60)
        mm, ss = format(minutes, "02d"), format(secs, "02d")
        if hours:
            return tr("{hours} h {minutes} min {seconds} s", hours=hours, minutes=mm, seconds=ss)
        if minutes:
            return tr("{minutes} min {seconds} s", minutes=minutes, seconds=ss)
        return tr("{seconds} s", seconds=secs)
    days, rest = divmod(total // 60, 24 * 60)
    hours, minutes = divmod(rest, 60)
    if days:
        return tr("{days} d {hours} h", days=days, hours=hours)
    if hours:
        return tr("{hours} h {minutes} min", hours=hours, minutes=minutes)
    return tr("{minutes} min", minutes=minutes)


def from_unix(value: object, tz: tzinfo, where: str) -> datetime:
    """A Unix time (seconds, as an API or a page's JSON gives it) in the forum's zone.

    0 and negative times are no times (an empty field read as 0 would date a post 1970);
    anything that is not a whole number of seconds is an error naming ``where``.
    """
    try:
        stamp = int(value)  # type: ignore[call-overload]
        if stamp <= 0 or isinstance(value, bool):
            raise ValueError
        return instant(datetime.fromtimestamp(stamp, tz))
    except (TypeError, ValueError, OverflowError, OSError):
        raise ParseError(tr("{where}: time {value!r} is not a Unix time.", where=where,
                            value=value)) from None  # fmt: skip


def wall_time(naive: datetime, tz: tzinfo, fail: Callable[[str], Exception]) -> datetime:
    """A time of the clock in ``tz`` (a game file's opens and closes, ``--as-of``), or
    ``fail(why)`` raised when that clock never shows it (the hour skipped as summer time
    begins) or shows it twice (the hour repeated as it ends): a close at 01:30 on such a
    night is two moments an hour apart, and tally does not pick one."""
    first, second = naive.replace(tzinfo=tz, fold=0), naive.replace(tzinfo=tz, fold=1)
    before, after = first.utcoffset(), second.utcoffset()
    if before == after or before is None or after is None:
        return first
    step = abs(after - before)
    hour = tr("an hour") if step == timedelta(hours=1) else duration(step)
    when = naive.strftime("%Y-%m-%d %H:%M")
    if first.astimezone(UTC).astimezone(tz).replace(tzinfo=None) != naive:
        raise fail(
            tr("{when} is no time in {zone}: its clocks go forward {hour} that night (summer "
               "time begins) and never show it; give a time outside the hour they skip",
               when=when, zone=tz, hour=hour)
        )
    raise fail(
        tr("{when} comes twice in {zone}: its clocks go back {hour} that night (summer time "
           "ends); say which with its offset, {first} (the first) or "
           "{second} (the second)", when=when, zone=tz, hour=hour, first=first.isoformat(),
           second=second.isoformat())
    )


def instant(t: datetime) -> datetime:
    """``t`` at its own UTC offset. Python adds to and subtracts from a time of a zone with
    summer time on its clock face (09:30 + 24 h is 09:30 the next day, 23 h or 25 h later
    across the change) and compares two of one zone the same way; at a fixed offset both
    are elapsed time: the last hour before a close, a day's length, a wait."""
    offset = t.utcoffset()
    return t if offset is None else t.astimezone(timezone(offset))
