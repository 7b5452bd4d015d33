"""The forum's clock, as its answers tell it, against this computer's.

A forum stamps every post with its own clock, and a day closes when that clock says so:
a ballot the forum stamps 21:29:50 is in time for a 21:30 close, whatever this computer's
clock said when it came. Every answer of a forum's server carries its clock in a Date
header (to the second), and every Discuz! page prints in its footer the time the forum made
it ("GMT+8, 2026-12-6 10:16", to the minute: the clock that stamps the posts). tally learns
from them how far the forum's clock is from this computer's (``ForumClocks.offset``) and
reads by the forum's: a read is stamped with the forum's time of it (a count is final once
the forum's clock has passed the close; ``tally watch`` waits for the close by it). A skew
over a minute is said once, in one sentence.

Each of them is a time the forum had reached when the answer arrived: a Date or a footer is
when the answer or the page was made (a page the forum kept in a cache prints an older
time, never a newer), so the forum's clock is at least that far from this computer's. The
offset is the largest such bound heard of the site; one within ``TOLERANCE`` is no offset
(a Date counts whole seconds, and an answer takes time on its way). A footer alone is a
page from anywhere (a saved copy served again, a mirror): it counts only from a server
that dates its answers.

    clocks = ForumClocks(now=env.clock)
    clocks.heard(url, response.headers, received)  # every answer (tally.forums.http)
    clocks.printed(url, page.printed_at, received)  # a page's footer (tally.forums.fetch)
    clocks.now(url)  # this computer's time, set by the forum's clock
"""

from __future__ import annotations

import email.utils
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from tally.i18n import tr
from tally.times import duration

# An offset this small is none: a Date header counts whole seconds, and an answer takes a
# moment to come.
TOLERANCE = timedelta(seconds=2)
# A skew past this is said (once a site): past it, a forum's minutes and tally's differ.
SAID = timedelta(minutes=1)
Warn = Callable[[str], None]


@dataclass
class _Site:
    dated: timedelta | None = None  # the largest bound its answers' Date gave
    printed: timedelta | None = None  # the largest bound its pages' footers gave
    said: bool = False

    @property
    def bound(self) -> timedelta | None:
        if self.dated is None:
            return None  # a footer alone: a page from anywhere
        return self.dated if self.printed is None else max(self.dated, self.printed)


def site(url: str) -> str:
    """The server a URL's answers come from: its host and port, without www."""
    return urlsplit(url).netloc.lower().removeprefix("www.")


def date_of(headers: Mapping[str, str]) -> datetime | None:
    """The time an answer was made, as its Date header says (and its Age: a cache's copy
    was made that many seconds before); None when it has none tally can read. Total: any
    header gives a time or None."""
    found = {k.lower(): v for k, v in headers.items()}
    try:
        when = email.utils.parsedate_to_datetime(found.get("date", "").strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:  # pragma: no cover - older Pythons return None instead of raising
        return None
    when = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    age = found.get("age", "").strip()
    if age.isascii() and age.isdigit() and len(age) < 10:
        when += timedelta(seconds=int(age))
    return when


class ForumClocks:
    """What a run learnt of each forum's clock; thread-safe (pages are read in parallel)."""

    def __init__(self, now: Callable[[], datetime], warn: Warn | None = None) -> None:
        self._now = now
        self._warn = warn or logging.getLogger("tally").warning
        self._sites: dict[str, _Site] = {}
        self._lock = threading.Lock()

    def heard(self, url: str, headers: Mapping[str, str], received: datetime) -> None:
        """An answer from ``url``'s server, arrived at ``received`` (this computer's time)."""
        made = date_of(headers)
        if made is not None:
            self._bound(url, "dated", made - received)

    def printed(self, url: str, at: datetime | None, received: datetime) -> None:
        """A page of ``url``'s forum whose footer says it was made ``at``."""
        if at is not None:
            self._bound(url, "printed", at - received)

    def _bound(self, url: str, which: str, bound: timedelta) -> None:
        name = site(url)
        with self._lock:
            s = self._sites.setdefault(name, _Site())
            was = getattr(s, which)
            setattr(s, which, bound if was is None else max(was, bound))
            found, printed = s.bound, s.printed
            say = found is not None and abs(found) > SAID and not s.said
            s.said = s.said or say
        if say and found is not None:
            self._warn(skew_sentence(name, found, printed=printed == found))

    def offset(self, url: str | None = None) -> timedelta:
        """How far the forum's clock is ahead of this computer's (behind: negative); 0 when
        unknown or within ``TOLERANCE``. Without ``url``: the forums heard in this run, the
        one furthest behind (a close is past when every forum read says so)."""
        with self._lock:
            if url is not None:
                s = self._sites.get(site(url))
                bounds = [s.bound] if s is not None else []
            else:
                bounds = [s.bound for s in self._sites.values()]
        known = [b if abs(b) >= TOLERANCE else timedelta(0) for b in bounds if b is not None]
        return min(known, default=timedelta(0))

    def now(self, url: str | None = None) -> datetime:
        """The time now by the forum's clock (``url``'s; without it, ``offset``'s)."""
        return self._now() + self.offset(url)


def skew_sentence(name: str, offset: timedelta, *, printed: bool = False) -> str:
    """The one sentence a skew over a minute is said in."""
    how = duration(abs(offset), seconds=True)
    told = tr("the time its pages print") if printed else tr("the Date of its answers")
    if offset > timedelta(0):
        return tr(
            "{forum}'s clock is {how} ahead of this computer's ({told}): tally goes by the "
            "forum's, which stamps the posts and closes the day, and waits for the close by "
            "it; set this computer's clock right if it is the one that is off.",
            forum=name,
            how=how,
            told=told,
        )
    return tr(
        "{forum}'s clock is {how} behind this computer's ({told}): tally goes by the "
        "forum's, which stamps the posts and closes the day, and waits for the close by it; "
        "set this computer's clock right if it is the one that is off.",
        forum=name,
        how=how,
        told=told,
    )
