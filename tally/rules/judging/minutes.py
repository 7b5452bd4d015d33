"""Times shown to the minute (RULES S2, S3, V5, V8, V11, L1): which side of a boundary a
writing stands on when its time says minutes only.

A Discuz! 点评 shows its minute, and so does every floor of a page that prints no seconds (a
board whose admin turned 人性化时间 off, Discuz! 6/7, most themes): posted somewhere in that
minute. One shown in the minute that holds a boundary (a close at 21:30:30, or at 21:30:00,
which 21:30's other 59 seconds are past; an open with seconds; the start of the final hour; a
deadline) may stand on either side of it. Each boundary's check asks ``after`` or ``before``,
which say so (None), and takes the side that does not count the writing, with a flag the
director rules on: nothing published rests on a guessed second.

tally's own reads narrow a minute: a post one of them showed was posted by the time of that
read (``seen_by``), so a ballot read before the close is on time whatever its minute says.
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import datetime, timedelta

from tally.forums import by_name
from tally.forums.clocks import TOLERANCE
from tally.i18n import tr
from tally.model import History, Writing
from tally.rules.judging.work import Work
from tally.times import short

# A read is stamped by the forum's clock as tally knows it (``tally.forums.clocks``): an offset
# within TOLERANCE is taken as none, and a Date header counts whole seconds.
READ_DOUBT = TOLERANCE + timedelta(seconds=1)


def after(earliest: datetime, latest: datetime, moment: datetime) -> bool | None:
    """Whether a writing posted between ``earliest`` and ``latest`` was posted after
    ``moment`` (a close, a deadline); None: its minute holds instants on both sides."""
    if earliest > moment:
        return True
    return False if latest <= moment else None


def before(earliest: datetime, latest: datetime, moment: datetime) -> bool | None:
    """Whether it was posted before ``moment`` (an open, the start of the final hour: a
    writing at it is not before it); None: its minute holds instants on both sides."""
    if latest < moment:
        return True
    return False if earliest >= moment else None


def in_window(w: Writing, opens: datetime, closes: datetime) -> bool | None:
    """Whether ``w`` was posted from ``opens`` to ``closes``; None: shown in the minute of
    either, it may be inside or out."""
    early, late = before(w.earliest, w.latest, opens), after(w.earliest, w.latest, closes)
    if early or late:
        return False
    return None if early is None or late is None else True


def shown(w: Work) -> str:
    """A writing's time as the forum shows it, to the minute, and why it says no more."""
    if w.is_comment:
        return tr(
            "{time}; the forum shows a {comment}'s time to the minute",
            time=short(w.posted_at),
            comment=by_name(w.post.platform).comment_word,
        )
    return tr("{time}; the forum shows this floor's time to the minute", time=short(w.posted_at))


def comment_key(post_id: str, author: str, time: datetime, text: str) -> tuple[str, ...]:
    """A 点评 as reads of it are matched: Discuz! numbers them by their place under the floor,
    which a delete changes, so by its floor, author, time and words."""
    return (post_id, author, time.isoformat(), text)


def writing_key(w: Writing) -> Hashable:
    """How ``seen_by`` knows ``w``: a floor by its post id, a 点评 by ``comment_key``."""
    return comment_key(w.post.post_id, w.author, w.time, w.text) if w.is_comment else w.item_id


def seen_by(history: History | None) -> dict[Hashable, datetime]:
    """When tally's reads first showed each floor (by post id) and each 点评 (``comment_key``),
    the doubt of the forum's clock added: each was posted by then."""
    found: dict[Hashable, datetime] = {}
    for version in sorted(history.versions if history is not None else (),
                          key=lambda v: v.read_at):  # fmt: skip
        by = version.read_at + READ_DOUBT
        for post in version.posts:
            found.setdefault(post.post_id, by)
            for c in post.comments:
                found.setdefault(comment_key(post.post_id, c.author, c.time, c.text), by)
    return found
