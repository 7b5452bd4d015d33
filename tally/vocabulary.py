"""Words that more than one layer speaks, each once: the markup a forum renders, the kinds of
announcement, where a page of a thread came from.

A light module (enums, and the BBCode tags of that markup): the command line builds its
choices from it at start.
The words of a verdict (status, void reason, outcome, …) are ``tally.rules.verdicts``.
"""

from __future__ import annotations

import re
from enum import StrEnum


class Markup(StrEnum):
    """What a forum renders in a post, and so what an announcement is written in."""

    BBCODE = "bbcode"  # Discuz!
    TEXT = "text"  # Tieba, and anything pasted as it is


# The tags BBCode boards render (Discuz!'s discuzcode, with the common plugins'); a text
# forum renders none, but a post may be copied between them. Only these are made inert:
# "[A01]" in a game's name is no tag and stays as it is.
BBCODE_TAGS = (
    "b", "i", "u", "s", "p", "color", "size", "font", "align", "url", "email", "img", "quote",
    "code", "hide", "free", "list", "*", "table", "tr", "td", "th", "media", "audio", "flash",
    "qq", "float", "indent", "hr", "backcolor", "sup", "sub", "strike", "attach", "attachimg",
    "password", "postbg", "ed2k", "flv", "wmv", "rm", "sound", "swf",
)  # fmt: skip
_TAG_NAMES = "|".join(map(re.escape, BBCODE_TAGS))
# The bracket that opens one of those tags (where a player's tag is broken).
BBCODE_OPENING = re.compile(rf"\[(?=/?(?:{_TAG_NAMES})(?:[=\]\s]))", re.IGNORECASE)
# One whole tag of those, as the board takes it away when it shows a post (reading back).
BBCODE_TAG = re.compile(rf"\[/?(?:{_TAG_NAMES})(?:=[^\]]*)?\]", re.IGNORECASE)
# A player's tag made inert as posted: the board replaces "[i]" and "[/i]" by themselves,
# so "[" + an empty [i][/i] + "b]" shows "[b]" and is no tag; every charset holds it.
INERT_BBCODE = "[[i][/i]"


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
