"""What `tally watch` writes and posts besides its screen: the 催票 reminder (``--remind-at``),
the closing announcement written (``--announce-to``) and posted (``--post``), and the floors
that came in late (审核, 移动, 合并), which stop the unattended closing post while they stand.
A post that fails unattended leaves its text in a file, to paste by hand (``post_or_keep``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tally.errors import (
    AlreadyPosted,
    FetchError,
    InputError,
    MaybePosted,
    PostError,
    clause,
)
from tally.forums.reader import Reader
from tally.i18n import tr
from tally.model import DURING_A_READ, History, Post
from tally.rules.counting.polls import Poll
from tally.rules.counting.votes import DayResult
from tally.rules.game.game import Day, Game
from tally.times import short
from tally.vocabulary import Announcement, Markup

if TYPE_CHECKING:
    from tally.outputs.results import Posted
    from tally.outputs.shown.watchers import Watcher


class Says(Protocol):
    """Where a watch says what it did (a file written) and what went wrong (standard error)."""

    def note(self, message: str) -> None: ...

    def warn(self, message: str) -> None: ...


@dataclass(frozen=True)
class Writes:
    """What a watch writes and posts: at the close the announcement to the file ``to``,
    posted when ``post``; the reminder ``remind_at`` minutes before it; in ``markup`` (the
    forum's when None), from ``template_dir``."""

    to: Path | None = None
    post: bool = False
    remind_at: int | None = None
    markup: Markup | None = None
    template_dir: Path | None = None

    @property
    def closing(self) -> bool:
        """Whether the close writes or posts an announcement at all."""
        return self.to is not None or self.post


@dataclass
class Reminder:
    """`--remind-at N`: the 催票 post, once, at the first poll N minutes or less before the
    close. A reminder that fails is said at once and again at the end (the command fails),
    its text kept to paste; the watch goes on to the close."""

    minutes: int
    writes: Writes
    done: bool = False
    failure: Exception | None = None

    def at(
        self, poll: Poll, game: Game, reader: Reader, show: Says, watchers: Sequence[Watcher]
    ) -> None:
        from tally.outputs.written.announce import reminder_context, render

        result = poll.result
        # A failed poll carries the last good count, which may rest on cached pages: the
        # reminder waits for the next poll, which reads every page.
        if self.done or result is None or poll.final or not result.provisional or poll.error:
            return
        if poll.at < result.day.closes - timedelta(minutes=self.minutes):
            return
        self.done = True
        if not result.not_voted:  # nobody to remind: a 催票 would only be noise
            show.note(tr("no reminder posted: every living player has voted on day {day}.",
                         day=result.day.day))
            return
        markup = self.writes.markup or reader.markup_for(result.day.vote_ref)
        context = reminder_context(result, game)
        text = render(Announcement.REMINDER, markup, context, self.writes.template_dir)
        try:
            made = post_or_keep(game, result.day, Announcement.REMINDER, text, reader=reader)
            _posted(watchers, made)
        except AlreadyPosted as exc:  # a watch started again: the players were reminded
            show.note(tr("no second reminder: {reason}", reason=exc))
        except (PostError, FetchError) as exc:
            self.failure = exc
            show.warn(tr("the reminder was not posted: {reason}", reason=exc))


def _posted(watchers: Sequence[Watcher], posted: Posted) -> None:
    for watcher in watchers:
        watcher.posted(posted)


# How far before a read a floor it did not show must be dated to be late.
_MARGIN = DURING_A_READ


@dataclass
class Arrivals:
    """Players' floors that came into the vote thread with times before what tally's reads
    had already shown: approved by a moderator since (审核), or moved or merged in from
    another thread (移动, 合并; a merged thread's ballot lines put the wrong player out,
    posted unattended, on a real X3.5). Followed poll by poll (a merge at any poll, not only
    the last), from the reads in the cache's history before the first (a version lost from
    it counted as showing what it could have: ``History.lost_could_show``); "before" is older
    than the newest floor those reads showed, or ``_MARGIN`` before the last of them.
    `watch --post` posts nothing while one stands."""

    game: Game
    seen: set[str] = field(default_factory=set)
    newest: datetime | None = None
    late: dict[str, Post] = field(default_factory=dict)
    started: bool = False

    def poll(self, poll: Poll) -> None:
        if poll.error is not None or poll.result is None:
            return  # a poll that failed read nothing new
        thread = poll.result.thread
        if not self.started:
            self.started = True
            history = thread.history or History()
            for v in history.versions:
                if v.read_at < poll.at:
                    self._saw(v.posts, v.read_at)
            # A lost page shows none of its posts: not one of them came in for it.
            lost = (v for v in history.lost if v.read_at < poll.at)
            self.seen |= history.lost_could_show(thread.posts, lost)
        if self.newest is not None:
            cast = self.game.cast()
            for post in thread.posts:
                if (
                    post.post_id not in self.seen
                    and post.floor != 1
                    and post.time < self.newest
                    and not cast.of(post).is_director
                ):
                    self.late[post.post_id] = post
        self._saw(thread.posts, poll.result.as_of)

    def _saw(self, posts: Sequence[Post], read_at: datetime) -> None:
        self.seen.update(p.post_id for p in posts)
        # A time past the read's is one the clock puts in the future: no measure.
        times = [p.time for p in posts if p.floor != 1 and p.time <= read_at]
        for t in (*times, read_at - _MARGIN):
            self.newest = t if self.newest is None or t > self.newest else self.newest

    def check(self, result: DayResult) -> None:
        """Stop the unattended post while a late floor stands in the final read."""
        standing = {p.post_id for p in result.thread.posts}
        late = sorted((p for pid, p in self.late.items() if pid in standing),
                      key=lambda p: p.floor)  # fmt: skip
        if not late:
            return
        floors = "、".join(f"{p.floor}楼 {p.author} {short(p.time)}" for p in late[:8])
        floors += "…" if len(late) > 8 else ""
        where = f" --game {self.game.path}" if self.game.path is not None else ""
        raise PostError(
            tr("the closing announcement was not posted: {n} floor(s) came into the "
               "thread with times before what tally's reads had already shown ({floors}): "
               "approved by a moderator since (审核), or moved in from another thread (移动, "
               "合并); look at them in the count above, then post with tally announce"
               "{where} --day {day} --kind close --post.", n=len(late), floors=floors,
               where=where, day=result.day.day)
        )


def _closing_text(result: DayResult, game: Game, markup: Markup | None,
                  template_dir: Path | None, post: bool) -> str:  # fmt: skip
    """The closing post, rendered once for the file and the post. A template that fails
    at the close (stopped at its time or size limit, or broken since the start) posts
    nothing: with --post, the command fails as a post that was not made does (exit 7)."""
    from tally.outputs.written.announce import closing_post

    try:
        return closing_post(result, game, markup, template_dir=template_dir)
    except InputError as exc:
        if not post:
            raise
        raise PostError(
            tr("the closing announcement was not posted, nor written: {reason}; the "
               "final count is above.", reason=clause(exc))
        ) from None


def close(
    writes: Writes,
    last: Poll,
    game: Game,
    reader: Reader,
    show: Says,
    watchers: Sequence[Watcher],
    arrivals: Arrivals,
) -> None:
    """The closing announcement of the final poll ``last`` (``game`` as its count read the
    game file), written to ``writes.to`` and/or posted; a count is never lost to a file
    that cannot be written, as the watchers have shown it already."""
    assert last.result is not None
    if not writes.closing:
        return
    from tally.commands.sent_text import final_text
    from tally.rules.counting.closed import record

    result = last.result
    markup = writes.markup or reader.markup_for(result.day.vote_ref)
    text = _closing_text(result, game, markup, writes.template_dir, writes.post)
    outcome = record(result.ballots, result.outcome)
    if writes.post:  # the file holds what is posted, mark and all: pasted, it is known again
        text = final_text(game, result.day.day, Announcement.CLOSE, text, outcome)
    if writes.to is not None:
        from tally.atomic import write_atomic

        write_atomic(writes.to, text.encode("utf-8"))
        show.note(tr("wrote the announcement to {path}", path=writes.to))
    if writes.post:
        arrivals.check(result)
        made = post_or_keep(
            game, result.day, Announcement.CLOSE, text, reader=reader, keep=writes.to,
            outcome=outcome, unchecked=result.unchecked,
        )  # fmt: skip
        _posted(watchers, made)


def paste_path(game: Game, day: int, kind: Announcement) -> Path:
    """Where the text of a post that failed is kept, to paste by hand: beside the game file."""
    folder = game.path.parent if game.path is not None else Path.cwd()
    stem = game.path.stem if game.path is not None else "game"
    return folder / f"{stem}.day{day}.{kind}.txt"


def post_or_keep(
    game: Game, day: Day, kind: Announcement, text: str, *, reader: Reader,
    keep: Path | None = None, outcome: Mapping[str, Any] | None = None,
    unchecked: Sequence[str] = (),
) -> Posted:  # fmt: skip
    """Post unattended; when it fails, the text goes to ``keep`` (else beside the game file)
    and the sentence says where: the director pastes it by hand (unless the thread may hold
    it: then the sentence says to look at the thread)."""
    import contextlib

    from tally.atomic import write_atomic
    from tally.commands.post import post_text
    from tally.commands.sent_text import final_text

    text = final_text(game, day.day, kind, text, outcome)
    try:
        return post_text(game, day, kind, text, reader=reader, yes=True, outcome=outcome,
                         unchecked=unchecked)  # fmt: skip
    except AlreadyPosted:
        raise  # it is in the thread: nothing to paste
    except MaybePosted as exc:  # the thread may hold it: never "paste by hand"
        path = keep or paste_path(game, day.day, kind)
        with contextlib.suppress(OSError):
            if keep is None or not path.exists():
                write_atomic(path, text.encode("utf-8"))
        raise MaybePosted(tr("{reason}; the text is in {path}.", reason=clause(exc),
                             path=path)) from None
    except (PostError, FetchError) as exc:
        path = keep or paste_path(game, day.day, kind)
        try:
            if keep is None or not path.exists():
                write_atomic(path, text.encode("utf-8"))
        except OSError as err:
            raise PostError(tr("{reason}; and the text could not be kept in {path} "
                               "({error}): it is printed above.", reason=clause(exc), path=path,
                               error=err.strerror)) from None  # fmt: skip
        raise PostError(tr("{reason}. The {kind} post is in {path}, to paste by hand.",
                           reason=clause(exc), kind=kind, path=path)) from None  # fmt: skip
