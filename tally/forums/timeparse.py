"""Forum times: absolute strings in the forum's zone, read strictly.

A time that cannot be read is an error, never "now": a ballot's time decides whether it counts.
"""

from __future__ import annotations

import re
from datetime import datetime, tzinfo

from tally.errors import ParseError

# "2024-5-6 09:31", "2023-3-14 10:02:00", "2024-08-05 17:07", "2024/5/6 9:31"
_ABSOLUTE = re.compile(
    r"(?P<y>\d{4})[-/年](?P<mo>\d{1,2})[-/月](?P<d>\d{1,2})日?\s*"
    r"(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2}))?"
)
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
    try:
        naive = datetime(
            int(m["y"]),
            int(m["mo"]),
            int(m["d"]),
            int(m["h"]),
            int(m["mi"]),
            int(m["s"] or 0),
        )
    except ValueError:
        raise ParseError(f"{what} {m.group(0)!r} is not a real date and time.") from None
    return naive.replace(tzinfo=tz)
