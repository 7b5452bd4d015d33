"""What the desk holds while it runs: the game file as it is now (``tally.desk.follow``: read
again when it changed), the run's one ``Reader`` (behind one lock: an HTTP client and a page
cache are not shared between threads), and one poller per day, started by the first page or
stream that asks for the day, however many tabs follow, and started again when the game
file, or who the card ledger sends off, changed since (not for the journal of posts).

A poller is `tally watch`'s own loop (``tally.commands.watch.read_polls``): the same reads, counts
and checks, with its waits made on an event, so that "read now" wakes it and the desk's
end stops it. Every action the director takes is the call its command makes, with the game
file as it is when the director acts.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from tally import i18n
from tally.commands.watch import Schedule, read_polls
from tally.desk.follow import GameFile, Seen, sent_off_news
from tally.desk.posted import Sent, closing_sent
from tally.errors import InputError, TallyError
from tally.forums.reader import Reader
from tally.i18n import Choice, Language, tr
from tally.outputs.results import Announced, Lurked
from tally.rules.cards.ledger import LedgerView
from tally.rules.counting.polls import Poll, changes
from tally.rules.game.game import Day, Game
from tally.vocabulary import Announcement

T = TypeVar("T")


class _Stopped(Exception):
    """The desk is closing, or the game file changed since the poller began: its wait ends
    its loop."""


@dataclass(frozen=True)
class Options:
    """What the command line gave the desk for its reads and posts."""

    every: float = 60.0
    full_every: int = 10
    late_ok: bool = False
    template_dir: Path | None = None


class DayPoller:
    """The polls of one day's vote thread with one version of the game file, in a thread of
    its own; ``version`` grows with each poll, and goes on from the poller this one follows
    (``before``: the same day counted with the file as it was), so that every stream sends
    what is new once. Until its first poll it shows the count ``before`` took."""

    def __init__(self, desk: Desk, game: Game, day: Day, seen: Seen,
                 before: DayPoller | None = None,
                 why: Callable[[], str] = lambda: ""):  # fmt: skip
        self.desk, self.game, self.day = desk, game, day
        # What it counts with: the game file's version, the ledger's send-offs for the day.
        self.file_version, self.sent_off = seen.version, seen.before(day.day)
        # Why the day is counted again, while it is (``before``'s count shown): said in the
        # language of the page that shows it.
        self._why = why
        self.poll: Poll | None = before.poll if before is not None else None
        self.error: str | None = None  # the count could not be taken: the sentence
        self.version: int = before.version if before is not None else 0
        self.counted = False  # a poll (or the sentence why none) of this poller's own
        self._before = self.poll
        self.changed = threading.Condition()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"desk-day-{day.day}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        desk = self.desk
        schedule = Schedule(every=desk.options.every, full_every=desk.options.full_every)
        try:
            with desk.lock, i18n.speaking(lambda: desk.language):
                polls = read_polls(self.game, self.day.vote, day=self.day.day, schedule=schedule,
                                   reader=desk.reader, wait=self._wait,
                                   late_ok=desk.options.late_ok)  # fmt: skip
                for poll in polls:
                    self._publish(self._continued(poll), None)
        except _Stopped:
            return
        except TallyError as exc:
            self._publish(self.poll, str(exc))

    @property
    def why(self) -> str:
        return self._why()

    def _continued(self, poll: Poll) -> Poll:
        """``poll`` numbered on from the count before this poller's, its first saying what
        the game file's change changed (a ruling: a ballot void now)."""
        before = self._before
        if before is None:
            return poll
        found = poll.changes
        if poll.number == 1 and before.result is not None and poll.result is not None:
            found = changes(before.result, poll.result)
        return dataclasses.replace(poll, number=before.number + poll.number, changes=found)

    def _publish(self, poll: Poll | None, error: str | None) -> None:
        if self._stop.is_set():
            return  # counted with a file that has changed since: its successor shows
        with self.changed:
            self.poll, self.error = poll, error
            self.version += 1
            self.counted = True
            self.changed.notify_all()

    def _wait(self, seconds: float) -> None:
        # The reader is free while the poller waits: the director's pages read meanwhile.
        self.desk.lock.release()
        try:
            self._wake.wait(seconds)
            self._wake.clear()
        finally:
            self.desk.lock.acquire()
        if self.desk.stopped.is_set() or self._stop.is_set():
            raise _Stopped

    def read_now(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    @property
    def failed(self) -> bool:
        """Done without a count of its own: the first read failed (the forum down, a wrong
        URL) or the count stopped (a game file the thread contradicts)."""
        return self.done and self.error is not None

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)


class Desk:
    def __init__(self, game: Game, reader: Reader, options: Options = Options(),
                 choice: Choice | None = None):  # fmt: skip
        self.file, self.reader, self.options = GameFile(game), reader, options
        self.lock = threading.Lock()  # the reader's: one request at a time
        self.stopped = threading.Event()
        self._pollers: dict[int, DayPoller] = {}
        self._retired: list[DayPoller] = []  # stopped for a newer file, maybe mid-read
        self._pollers_lock = threading.Lock()
        self._said: dict[int, list[str]] = {}  # what an action said, for the day's next page
        # The language the desk speaks (tally.desk.speaking): the director's choice, else the
        # browser's of the latest page asked for, which the pollers count in.
        self.choice = choice if choice is not None else i18n.process_choice()
        self.language = self.choice.language

    def heard_in(self, language: Language) -> None:
        self.language = language

    @property
    def game(self) -> Game:
        """The game file as it is now (read again when it changed)."""
        return self.file.now().game

    def day(self, number: int) -> Day:
        return self.game.day(number)  # GameFileError for a day the file does not have

    def poller(self, number: int, *, again: bool = False) -> DayPoller:
        """The day's one poller, started by the first that asks, and again when the game
        file changed since it started, or the card ledger changed who is sent off before the
        day (its count is then taken again as they are now, an open day's and a closed day's
        alike; ``_again``); ``again``: a poller that failed (the forum down, a wrong URL fixed
        since) starts over."""
        seen = self.file.now()
        day = seen.game.day(number)
        with self._pollers_lock:
            self._drop_gone(seen.game)
            found = self._pollers.get(number)
            why = _again(found, seen, number, again)
            if why is not None:
                if found is not None:
                    self._retire(found)
                found = self._pollers[number] = DayPoller(self, seen.game, day, seen, found, why)
            assert found is not None
            return found

    def _drop_gone(self, game: Game) -> None:
        """Stop the pollers of days the game file no longer has."""
        days = {d.day for d in game.days}
        for number in [n for n in self._pollers if n not in days]:
            self._retire(self._pollers.pop(number))

    def _retire(self, poller: DayPoller) -> None:
        """Stop ``poller``; kept until its thread ends (a read it began goes on), for
        ``close`` to wait for."""
        poller.stop()
        self._retired = [p for p in self._retired if not p.done] + [poller]

    def opened(self) -> list[int]:
        """The days that have opened: the game page counts them (their facts, their state)."""
        now = self.reader.now()
        return [d.day for d in self.game.days if d.opens <= now]

    @property
    def pollers(self) -> dict[int, DayPoller]:
        return dict(self._pollers)

    def close(self) -> None:
        self.stopped.set()
        everyone = [*self.pollers.values(), *self._retired]
        for poller in everyone:
            poller.read_now()
        for poller in everyone:
            poller.join(timeout=10)

    def posted(self, number: int) -> Sent | None:
        """The day's closing post, when made (``tally.desk.posted``): by the journal, else by
        tally's mark in the vote thread as the day's poller last read it."""
        game = self.game
        poller = self._pollers.get(number)
        poll = poller.poll if poller is not None else None
        thread = poll.result.thread if poll is not None and poll.result is not None else None
        return closing_sent(game, game.day(number), thread)

    def say(self, number: int, sentence: str) -> None:
        """A sentence for the next page of day ``number`` (a card added, or why not)."""
        self._said.setdefault(number, []).append(sentence)

    def heard(self, number: int) -> list[str]:
        """What was said for day ``number`` since its last page, said once."""
        return self._said.pop(number, [])

    @contextmanager
    def reading(self) -> Iterator[Reader]:
        with self.lock:
            yield self.reader

    def call(self, work: Callable[[Game, Reader], T]) -> T:
        from tally.commands.run import with_ledger

        with self.reading() as reader:
            # Each action with the game file and its ledger as they are now: a ruling
            # written, or a red card confirmed here or by `tally cards` (K2), since the desk
            # started counts at once.
            return work(with_ledger(self.game), reader)

    # -- the director's actions: each the call its command makes --------------------------

    def lurkers(self, number: int) -> Lurked:
        """`tally lurkers --day N --no-write`: the counts and the cards the day earns."""
        from tally.commands.lurkers import lurkers

        return self.call(lambda g, r: lurkers(g, day=number, write=False, reader=r,
                                              late_ok=self.options.late_ok))  # fmt: skip

    def confirm_card(self, number: int, player: str, colour: str, rule: str,
                     reason: str) -> LedgerView:  # fmt: skip
        """One proposed card into the ledger, as `tally lurkers --write` writes it (with the
        K1 escalations it makes): the card must be one the check proposes now. The pollers
        count again with the ledger changed (a red card changes the days after its own)."""
        from tally.commands.lurkers import record

        game = self.game
        if game.path is None:
            raise InputError(tr("the card ledger lives beside the game file; load one."))
        check = self.lurkers(number).check
        wanted = (player, colour, rule, reason)
        card = next((c for c in check.cards
                     if (c.player, str(c.colour), c.rule, c.reason) == wanted), None)  # fmt: skip
        if card is None:
            raise InputError(tr(
                "the lurker check of day {day} proposes no {colour} card for {player} under "
                "{rule} ({reason}): read the day again.", day=number, colour=colour,
                player=player, rule=rule, reason=reason))  # fmt: skip
        one = dataclasses.replace(check, cards=(card,))
        return record(game, game.path, one, write=True)

    def announcement(self, number: int, kind: Announcement, *, post: bool = False,
                     confirmed: str | None = None) -> Announced:  # fmt: skip
        """`tally announce --day N --kind K`, with the game file as it is now. With ``post``:
        `--post`, the director having read the text on the confirmation page: ``confirmed``
        is the digest of that text, held against the text post_text is about to send,
        inside its lock (a count that changed in between, the file's or the thread's, is
        not posted). Before the close the closing post is the mid-day standing (暂计),
        which is never posted."""
        from tally.commands.announce import announce

        provisional = kind is Announcement.CLOSE and not post and not self.closed(number)
        asker = _Confirmed(confirmed) if post and confirmed is not None else None
        return self.call(lambda g, r: announce(
            g, day=number, kind=kind, reader=r, provisional=provisional,
            template_dir=self.options.template_dir, late_ok=self.options.late_ok,
            post=post, yes=post and asker is None, show=asker,
        ))  # fmt: skip

    def closed(self, number: int) -> bool:
        return self.reader.now() >= self.day(number).closes


def _again(found: DayPoller | None, seen: Seen, number: int,
           again: bool) -> Callable[[], str] | None:  # fmt: skip
    """Why day ``number`` is counted anew ("" the first time), or None: the game file said
    something else, the card ledger changed who is sent off before the day (its own
    sentence), a poller that failed is asked again. Nothing else re-reads the threads (the
    journal of posts, a yellow card, a red one for the day itself or after). The sentence
    is said when a page shows it, in that page's language."""
    if found is None:
        return lambda: ""
    if found.file_version != seen.version:
        return lambda: tr("Counting again with the game file as it is now…")
    before, now = found.sent_off, seen.before(number)
    if before != now:
        return lambda: tr("{news} Counting again…", news=sent_off_news(before, now))
    if again and found.failed:
        return lambda: tr("Reading the vote thread again…")
    return None


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
            raise PostError(tr(
                "the count changed since the text was shown: nothing was posted; read it "
                "again before posting."))  # fmt: skip
        return True
