"""What the desk knows of a day's closing post already made, as `--post` knows it before it
sends (tally.commands.post, ``_never_twice``): the journal of posts beside the game file
(every post tally made on this machine: the desk's, `tally announce --post`'s, `tally watch
--post`'s, from this run or another), else tally's mark in a director's post of the vote
thread as last read (a co-director's, from another machine)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from tally.forums import platform_of
from tally.i18n import tr
from tally.model import Thread
from tally.rules.game.game import Day, Game
from tally.vocabulary import Announcement


@dataclass(frozen=True)
class Sent:
    """A closing post made (``answered``), or sent and its answer never heard: then it may
    be in the thread, and a second Post looks for it there before anything is sent."""

    at: datetime
    how: str  # where the desk knows it from
    answered: bool = True
    floor: int | None = None
    link: str | None = None
    by: str | None = None  # the account, when the thread shows it


def closing_sent(game: Game, day: Day, thread: Thread | None) -> Sent | None:
    """The day's closing post by the journal (its last entry not known to have failed),
    else by the mark in ``thread`` (the vote thread as last read), else None. InputError
    for a journal that cannot be read (its sentence)."""
    from tally.journal import Journal, journal_path
    from tally.rules.counting.closed import marked_post

    if game.path is not None:
        journal = Journal(journal_path(game.path))
        entries = [e for e in journal.of(game.id, day.day, Announcement.CLOSE) if e.open]
        answered = next((e for e in reversed(entries) if e.pid is not None), None)
        kept = tr("the journal of posts, {file}", file=journal.path.name)
        if answered is not None and answered.pid is not None:
            link = platform_of(day.vote_ref).post_url(day.vote_ref, answered.pid)
            return Sent(datetime.fromisoformat(answered.at), kept, True, answered.floor, link)
        if entries:
            return Sent(datetime.fromisoformat(entries[-1].at), kept, answered=False)
    if thread is None:
        return None
    found = marked_post(game, day, Announcement.CLOSE, thread, cast=game.cast())
    if found is None:
        return None
    link = platform_of(day.vote_ref).post_url(day.vote_ref, found.post_id)
    return Sent(found.time, tr("tally's mark on it in the vote thread"), True, found.floor, link,
                found.author)  # fmt: skip
