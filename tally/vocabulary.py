"""Words that more than one layer speaks, each once: the markup a forum renders, the kinds of
announcement, where a page of a thread came from.

A light module (nothing but enums): the command line builds its choices from it at start.
The words of a verdict (status, void reason, outcome, …) are ``tally.rules.verdicts``.
"""

from __future__ import annotations

from enum import StrEnum


class Markup(StrEnum):
    """What a forum renders in a post, and so what an announcement is written in."""

    BBCODE = "bbcode"  # Discuz!
    TEXT = "text"  # Tieba, and anything pasted as it is


class Announcement(StrEnum):
    """The posts `tally announce` writes; each is ``templates/<kind>.<markup>.j2``."""

    CLOSE = "close"  # the day's result
    MORNING = "morning"  # the opening of a day (A1)
    ELEVATOR = "elevator"  # every player with a link to their posts (A2)
    REMINDER = "reminder"  # 催票, before the close


class Origin(StrEnum):
    """Where a page of a thread came from in a read."""

    NETWORK = "network"
    REVALIDATED = "revalidated"  # the forum said the cached page is unchanged (304)
    CACHE = "cache"
    MEMORY = "memory"  # held parsed since the last read (tally watch)
    FILE = "file"  # a saved page
    ARCHIVE = "archive"  # tally archive's CSV or SQLite
