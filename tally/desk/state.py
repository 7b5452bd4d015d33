"""What the desk holds while it runs: the game, the run's one ``Reader`` (behind one lock:
an HTTP client and a page cache are not shared between threads), and one poller per day,
started by the first page or stream that asks for the day, however many tabs follow.

A poller is `tally watch`'s own loop (``tally.commands.watch.read_polls``): the same reads, counts
and checks, with its waits made on an event, so that "read now" wakes it and the desk's
end stops it. Every action the director takes is the call its command makes.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from tally.commands.watch import Schedule, read_polls
from tally.errors import InputError, TallyError
from tally.forums.reader import Reader
from tally.outputs.results import Announced, Lurked
from tally.rules.game import Day, Game
from tally.rules.ledger import LedgerView
from tally.rules.polls import Poll
from tally.vocabulary import Announcement

T = TypeVar("T")


class _Stopped(Exception):
    """The desk is closing: a poller's wait ends its loop."""


@dataclass(frozen=True)
class Options:
    """What the command line gave the desk for its reads and posts."""

    every: float = 60.0
    full_every: int = 10
    late_ok: bool = False
    template_dir: Path | None = None


class DayPoller:
    """The polls of one day's vote thread, in a thread of its own; ``version`` grows with
    each poll, so that every stream sends what is new once."""

    def __init__(self, desk: Desk, day: Day):
        self.desk, self.day = desk, day
        self.poll: Poll | None = None
        self.error: str | None = None  # the first read failed: the sentence, no count
        self.version = 0
        self.changed = threading.Condition()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"desk-day-{day.day}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        desk = self.desk
        schedule = Schedule(every=desk.options.every, full_every=desk.options.full_every)
        try:
            with desk.lock:
                polls = read_polls(desk.game, self.day.vote, day=self.day.day, schedule=schedule,
                                   reader=desk.reader, wait=self._wait,
                                   late_ok=desk.options.late_ok)  # fmt: skip
                for poll in polls:
                    self._publish(poll, None)
        except _Stopped:
            return
        except TallyError as exc:
            self._publish(self.poll, str(exc))

    def _publish(self, poll: Poll | None, error: str | None) -> None:
        with self.changed:
            self.poll, self.error = poll, error
            self.version += 1
            self.changed.notify_all()

    def _wait(self, seconds: float) -> None:
        # The reader is free while the poller waits: the director's pages read meanwhile.
        self.desk.lock.release()
        try:
            self._wake.wait(seconds)
            self._wake.clear()
        finally:
            self.desk.lock.acquire()
        if self.desk.stopped.is_set():
            raise _Stopped

    def read_now(self) -> None:
        self._wake.set()

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)


class Desk:
    def __init__(self, game: Game, reader: Reader, options: Options = Options()):
        self.game, self.reader, self.options = game, reader, options
        self.lock = threading.Lock()  # the reader's: one request at a time
        self.stopped = threading.Event()
        self._pollers: dict[int, DayPoller] = {}
        self._pollers_lock = threading.Lock()

    def day(self, number: int) -> Day:
        return self.game.day(number)  # InputError for a day the file does not have

    def poller(self, number: int, *, again: bool = False) -> DayPoller:
        """The day's one poller, started by the first that asks; ``again``: a poller whose
        first read failed (the forum down, a wrong URL fixed since) starts over."""
        day = self.day(number)
        with self._pollers_lock:
            found = self._pollers.get(number)
            if found is None or (again and found.done and found.poll is None):
                found = self._pollers[number] = DayPoller(self, day)
            return found

    def opened(self) -> list[int]:
        """The days that have opened: the game page counts them (their facts, their state)."""
        now = self.reader.now()
        return [d.day for d in self.game.days if d.opens <= now]

    @property
    def pollers(self) -> dict[int, DayPoller]:
        return dict(self._pollers)

    def close(self) -> None:
        self.stopped.set()
        for poller in self.pollers.values():
            poller.read_now()
        for poller in self.pollers.values():
            poller.join(timeout=10)

    @contextmanager
    def reading(self) -> Iterator[Reader]:
        with self.lock:
            yield self.reader

    def call(self, work: Callable[[Reader], T]) -> T:
        from tally.commands.run import with_ledger

        with self.reading() as reader:
            # Each action with the ledger as it is now: a red card confirmed here or by
            # `tally cards` since the desk started counts at once (K2).
            self.game = with_ledger(self.game)
            return work(reader)

    # -- the director's actions: each the call its command makes --------------------------

    def lurkers(self, number: int) -> Lurked:
        """`tally lurkers --day N --no-write`: the counts and the cards the day earns."""
        from tally.commands.lurkers import lurkers

        return self.call(lambda r: lurkers(self.game, day=number, write=False, reader=r,
                                              late_ok=self.options.late_ok))  # fmt: skip

    def confirm_card(self, number: int, player: str, colour: str, rule: str,
                     reason: str) -> LedgerView:  # fmt: skip
        """One proposed card into the ledger, as `tally lurkers --write` writes it (with the
        K1 escalations it makes): the card must be one the check proposes now."""
        from tally.commands.lurkers import record

        if self.game.path is None:
            raise InputError("the card ledger lives beside the game file; load one.")
        check = self.lurkers(number).check
        wanted = (player, colour, rule, reason)
        card = next((c for c in check.cards
                     if (c.player, str(c.colour), c.rule, c.reason) == wanted), None)  # fmt: skip
        if card is None:
            raise InputError(
                f"the lurker check of day {number} proposes no {colour} card for {player} "
                f"under {rule} ({reason}): read the day again."
            )
        one = dataclasses.replace(check, cards=(card,))
        view = record(self.game, self.game.path, one, write=True)
        for poller in self.pollers.values():
            poller.read_now()  # a red card changes the counts of the days after its own
        return view

    def announcement(self, number: int, kind: Announcement, *, post: bool = False,
                     confirmed: str | None = None) -> Announced:  # fmt: skip
        """`tally announce --day N --kind K`. With ``post``: `--post`, the director having
        read the text on the confirmation page: ``confirmed`` is the digest of that text,
        held against the text post_text is about to send, inside its lock (a count that
        changed in between is not posted). Before the close the closing post is the mid-day
        standing (暂计), which is never posted."""
        from tally.commands.announce import announce

        provisional = kind is Announcement.CLOSE and not post and not self.closed(number)
        asker = _Confirmed(confirmed) if post and confirmed is not None else None
        return self.call(lambda r: announce(
            self.game, day=number, kind=kind, reader=r, provisional=provisional,
            template_dir=self.options.template_dir, late_ok=self.options.late_ok,
            post=post, yes=post and asker is None, show=asker,
        ))  # fmt: skip

    def closed(self, number: int) -> bool:
        return self.reader.now() >= self.day(number).closes


def text_digest(text: str) -> str:
    """What the confirmation page and the Post button know a text by (its trailing line
    breaks aside: the question post_text asks shows the text without them)."""
    import hashlib

    return hashlib.sha256(text.rstrip().encode("utf-8")).hexdigest()[:16]


class _Confirmed:
    """The director's "yes" on the confirmation page, given for one text: the question
    post_text asks (the text, then the question) is answered yes only for that text."""

    def __init__(self, digest: str) -> None:
        self.digest = digest

    def confirm(self, question: str) -> bool:
        from tally.errors import PostError

        if text_digest(question.rsplit("\n\n", 1)[0]) != self.digest:
            raise PostError(
                "the count changed since the text was shown: nothing was posted; read it "
                "again before posting."
            )
        return True
