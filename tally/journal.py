"""What tally posts, recorded before it is sent: the journal beside the game file, and the
lock that lets one poster at a time send a day's post.

``GAME.posts.jsonl`` holds one line per post tally set out to make: the game's id, the day,
the kind, the digest of the text, the time, and (once the forum answered) the new post's id,
or how the attempt ended. An entry written before the send and never completed (the answer
never came) is the case the journal is for: the post may be in the thread, so tally reads
the thread for it rather than sending again.

The file is rewritten whole (tally.atomic) under an exclusive ``flock`` of its ``.lock``
file; ``post_lock`` is a second lock, per game, day and kind, held from the live read of the
thread to the journal's record of the answer, so that two watches or announces on one
machine send once (the second, let in after the first, reads the thread again and finds
the post).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from tally.atomic import write_atomic
from tally.errors import InputError, OutputError
from tally.files import JOURNAL, read_capped
from tally.i18n import tr
from tally.vocabulary import Announcement

# How an attempt ended. SENDING: written before the send, the answer not (yet) heard;
# UNKNOWN: the forum answered, but neither a post nor a refusal tally knows.
SENDING, POSTED, REFUSED, UNKNOWN = "sending", "posted", "refused", "unknown"


@dataclass(frozen=True)
class Entry:
    game: str
    day: int
    kind: str
    digest: str  # sha256 of the text sent, hex
    at: str  # ISO time the send began, in the forum's clock
    state: str = SENDING
    pid: str | None = None
    floor: int | None = None
    # A closing post's outcome and its ballots (floor, account, voter, status, target), so
    # that a recount of the day can say what changed (tally.rules.counting.closed).
    outcome: Mapping[str, Any] = field(default_factory=dict)

    @property
    def open(self) -> bool:
        """Sent, or about to be, and not known to have failed: the post may be there."""
        return self.state in (SENDING, UNKNOWN, POSTED)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def beside(game_path: Path | None, suffix: str) -> Path:
    folder = game_path.parent if game_path is not None else Path.cwd()
    stem = game_path.stem if game_path is not None else "game"
    return folder / f"{stem}{suffix}"


def journal_path(game_path: Path | None) -> Path:
    return beside(game_path, ".posts.jsonl")


@contextlib.contextmanager
def _flock(path: Path) -> Iterator[None]:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise OutputError(
            tr("cannot lock {path} ({reason}): nothing was posted.", path=path, reason=exc.strerror)
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits for the other poster, never fails on it
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


@contextlib.contextmanager
def post_lock(
    game_path: Path | None, day: int, kind: str, *, thread: str | None = None,
    folder: Path | None = None,
) -> Iterator[None]:  # fmt: skip
    """One poster at a time for this game, day and kind, on this machine; with ``thread``
    (the thread posted to: its board and id) and ``folder`` (the user's own, the cache's),
    also for that thread,
    day and kind whatever game file asks: two copies of one game file, in two folders, each
    with its own journal, both posted at once on a real X3.5."""
    with contextlib.ExitStack() as held:
        if thread is not None and folder is not None:
            where = folder / "posting"
            try:
                where.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise OutputError(
                    tr("cannot make {path} ({reason}): nothing was posted.", path=where,
                       reason=exc.strerror)
                ) from None
            name = hashlib.sha256(thread.encode("utf-8")).hexdigest()[:32]
            held.enter_context(_flock(where / f"{name}.day{day}.{kind}.lock"))
        held.enter_context(_flock(beside(game_path, f".day{day}.{kind}.lock")))
        yield


def can_record(game_path: Path | None) -> None:
    """Stop now when the journal of posts beside ``game_path`` could not record a post: it
    cannot be read, or its folder cannot take a new file (an unattended `watch --post` found
    out at the close, when no one was there)."""
    journal = Journal(journal_path(game_path))
    journal.entries()
    folder = journal.path.parent
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".tally-probe.", suffix=".part")
    except OSError as exc:
        raise OutputError(
            tr("the folder {folder} cannot be written ({reason}): tally records each post "
               "in the journal of posts there before sending it, and would post nothing at the "
               "close; make the folder writable (or move the game file), then start again.",
               folder=folder, reason=exc.strerror)
        ) from None
    os.close(fd)
    os.unlink(probe)


class Journal:
    """``Journal(path)``: read with ``entries()``; change with ``write(entry)`` (an entry of
    the same game, day, kind and time is replaced, others kept)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def entries(self) -> tuple[Entry, ...]:
        if not os.path.lexists(self.path):
            return ()
        # Only a regular file, read capped: a FIFO there hung every command, /dev/zero ended
        # in a MemoryError.
        data = read_capped(self.path, "journal of posts", JOURNAL)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(
                tr("{path} is not a journal of posts tally wrote (not UTF-8 text); put it "
                   "back as it was, or move it away if you know the fate of every post in it.",
                   path=self.path)
            ) from None
        found = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                found.append(Entry(**data))
            except (ValueError, TypeError):
                raise InputError(
                    tr("{path}, line {line}, is not a journal entry tally wrote; put the "
                       "line back as it was, or delete it if you know that post's fate.",
                       path=self.path, line=number)
                ) from None
        return tuple(found)

    def posted(self, game: str) -> tuple[dict[int, Mapping[str, Any]], frozenset[str]]:
        """What tally posted of ``game``: each day's result, as the last closing post the forum
        took (or tally found in the thread) recorded it, by day; and the ids of every post of
        the game tally made (never a ballot: tally.rules.judging.own)."""
        found: dict[int, Mapping[str, Any]] = {}
        own: set[str] = set()
        for e in self.entries():
            if e.game != game:
                continue
            if e.pid is not None:
                own.add(e.pid)
            if e.kind == Announcement.CLOSE and e.state == POSTED and e.outcome:
                found[e.day] = e.outcome
        return found, frozenset(own)

    def of(self, game: str, day: int, kind: str) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries() if (e.game, e.day, e.kind) == (game, day, kind))

    def write(self, entry: Entry) -> Entry:
        with _flock(self.path.with_name(self.path.name + ".lock")):
            kept = [e for e in self.entries() if _key(e) != _key(entry)]
            lines = [json.dumps(asdict(e), ensure_ascii=False) for e in [*kept, entry]]
            write_atomic(self.path, ("\n".join(lines) + "\n").encode("utf-8"))
        return entry

    def begin(self, game: str, day: int, kind: str, text: str, at: datetime,
              outcome: Mapping[str, Any] | None = None) -> Entry:  # fmt: skip
        """Before the send: what is about to be posted."""
        return self.write(Entry(game, day, kind, digest(text), at.isoformat(),
                                outcome=dict(outcome or {})))  # fmt: skip

    def end(self, entry: Entry, state: str, pid: str | None = None,
            floor: int | None = None) -> Entry:  # fmt: skip
        return self.write(replace(entry, state=state, pid=pid, floor=floor))


def _key(e: Entry) -> tuple[str, int, str, str]:
    return (e.game, e.day, e.kind, e.at)
