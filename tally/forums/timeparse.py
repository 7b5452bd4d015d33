"""Forum times: absolute strings in the forum's zone, read strictly.

A time that cannot be read is an error, never "now": a ballot's time decides whether it counts.
Discuz! prints the clock its admin chose (``timeformat``): ``H:i`` (20:05) on most boards,
``h:i A`` (08:05 PM) on some, and Chinese boards may write 下午 08:05. A 12-hour clock read as
a 24-hour one puts an evening's ballots twelve hours early, so the marker is never ignored.
"""

from __future__ import annotations

import re
from datetime import datetime, tzinfo

from tally.errors import ParseError

# "2024-5-6 09:31", "2023-3-14 10:02:00", "2024-08-05 17:07", "2024/5/6 9:31",
# "2010-5-21 01:43:58 PM", "2010-5-21 下午 01:43", "2024年5月6日 上午9:31"
_ABSOLUTE = re.compile(
    r"(?P<y>\d{4})[-/年](?P<mo>\d{1,2})[-/月](?P<d>\d{1,2})日?\s*"
    r"(?:(?P<pre>上午|下午)\s*)?"
    r"(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2}))?"
    r"(?:\s*(?P<post>[AaPp]\.?[Mm]\.?|上午|下午)(?![A-Za-z]))?"
)
# Which half of the day each marker names.
_AFTERNOON = {"pm": True, "下午": True, "am": False, "上午": False}
# Relative forms Discuz! shows for recent posts; they only ever appear with the exact
# time in a title attribute, so on their own they are an error.
_RELATIVE = re.compile(r"(刚刚|秒前|分钟前|半小时前|小时前|今天|昨天|前天|天前)")


def parse_forum_time(text: str, tz: tzinfo, *, what: str = "time") -> datetime:
    """Read the first absolute date-time in ``text`` as a time in the forum's zone ``tz``."""
    cleaned = text.replace("\xa0", " ")
    m = _ABSOLUTE.search(cleaned)
    if m is None:
        if _RELATIVE.search(cleaned):
            raise ParseError(
                f"{what} is shown only as a relative time ({cleaned.strip()!r}) "
                "without the exact time; refusing to guess it."
            )
        raise ParseError(f"{what} {cleaned.strip()!r} is not a date and time tally can read.")
    hour = int(m["h"])
    marker = m["pre"] or m["post"]
    if marker is not None:
        if m["pre"] and m["post"]:
            raise ParseError(f"{what} {m.group(0)!r} names the half of the day twice.")
        if not 1 <= hour <= 12:
            raise ParseError(f"{what} {m.group(0)!r} is not a 12-hour clock time.")
        afternoon = _AFTERNOON[marker.replace(".", "").lower()]
        # 12 AM is midnight, 12 PM is noon.
        hour = hour % 12 + (12 if afternoon else 0)
    try:
        naive = datetime(
            int(m["y"]), int(m["mo"]), int(m["d"]), hour, int(m["mi"]), int(m["s"] or 0)
        )
    except ValueError:
        raise ParseError(f"{what} {m.group(0)!r} is not a real date and time.") from None
    return naive.replace(tzinfo=tz)
