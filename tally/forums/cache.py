"""Pages kept between runs, so that the runs of the last hour fetch only what may change.

One folder per thread under the cache root; in it each fetched URL's body and an index
(``index.json``, ``tally.forums.page_index``) with the URL, the time it was fetched, its
SHA-256, and the validators (ETag, Last-Modified) for conditional requests. Beside them the
thread's history (``tally.forums.history``): each page's posts as each read found them, in
``versions/`` by their SHA-256, listed with the time of the read in ``history.json``; a read
that finds a page as the last one did adds nothing, and a thread keeps at most
``MAX_VERSIONS``. And what the reads found besides the pages (``tally.forums.reads``): the
roles each read read the thread as, and the runs of reads that found it closed.
Every write is atomic; a body whose checksum does not match, or an index entry of the
wrong shape, is treated as absent, never used; a version so damaged, or gone, is lost to the
history (``History.lost``: a count that would take it says so) until a read of the same
content writes it again. A cache that cannot be written (a read-only
or full disk) is no reason to stop a count: the run goes on without it, after one warning.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from tally.atomic import try_lock, unlock, write_atomic
from tally.errors import OutputError
from tally.files import PAGE, read_own
from tally.forums.api import API, PAGES
from tally.forums.history import listed_versions, listing, page_posts
from tally.forums.page_index import Entry, PageIndex, entry
from tally.forums.page_index import read_index as _read_index
from tally.forums.reads import (
    ClosedRun,
    Roles,
    closed_runs_from,
    first_roles,
    roles_from,
    with_closed,
    with_read,
)
from tally.i18n import tr
from tally.model import History, Lost, ThreadRef, Version

# How long a change of a thread's history (and of what else is read, changed and written
# whole) waits for another tally changing it: two runs of one thread at once (a watch and a
# count, two counts) each kept their pages, and one run's listing overwrote the other's.
LOCK_WAIT = 10.0
LOCK_POLL = 0.01

# The versions one thread's history keeps (a day's vote thread read every minute by watch
# and growing a post a minute makes about 1,500).
MAX_VERSIONS = 5000


class ThreadCache:
    """The cached requests of one thread."""

    def __init__(self, folder: Path, health: _Health | None = None):
        self.folder = folder
        self._health = health or _Health()
        self._lock = threading.Lock()
        self._index = PageIndex(
            folder,
            self._lock,
            lambda: self._changing(locked=True),
            lambda name, data: self._write(name, data, durable=False),
            _read_index,  # looked up here, when the folder is opened (a test counts reads)
        )

    @staticmethod
    def _name(url: str) -> str:
        return hashlib.sha256(url.encode("utf-8")).hexdigest()[:32] + ".body"

    @contextlib.contextmanager
    def _changing(self, locked: bool = False) -> Iterator[None]:
        """Hold this thread's folder for one change of a file read and written whole (the
        history, the post ids, the roles, the closed runs, the index): this run's threads
        wait on the lock (``locked``: held already), other runs on an exclusive lock of
        ``.lock`` in the folder. A folder that cannot be made or locked changes without it
        (its writes fail and say so)."""
        with contextlib.nullcontext() if locked else self._lock:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                handle = open(self.folder / ".lock", "a+b")  # noqa: SIM115 - held below
            except OSError:
                yield
                return
            try:
                deadline = time.monotonic() + LOCK_WAIT
                while not try_lock(handle):
                    if time.monotonic() > deadline:
                        self._health.warn(
                            tr(
                                "another tally has held {folder} for {seconds} s; this read "
                                "is kept without waiting for it.",
                                folder=self.folder,
                                seconds=format(LOCK_WAIT, "g"),
                            )
                        )
                        break
                    time.sleep(LOCK_POLL)
                yield
            finally:
                unlock(handle)
                handle.close()

    def index_held(self) -> contextlib.AbstractContextManager[None]:
        """Write the index once, when the block ends (``PageIndex.held``)."""
        return self._index.held()

    @property
    def page_count(self) -> int | None:
        return self._index.page_count

    def get(self, url: str) -> Entry | None:
        meta = self._index.entries.get(url)
        if not meta:
            return None
        body = read_own(self.folder / self._name(url), PAGE)
        if body is None:
            return None
        digest = hashlib.sha256(body).hexdigest()
        if digest != meta.get("sha256"):
            return None
        self._index.on_disk[url] = digest
        return entry(url, body, meta)

    def put(self, url: str, body: bytes, fetched_at: datetime, headers: dict[str, str]) -> None:
        lower = {k.lower(): v for k, v in headers.items()}
        digest = hashlib.sha256(body).hexdigest()
        meta: dict[str, object] = {
            "fetched_at": fetched_at.isoformat(),
            "sha256": digest,
            "content_type": lower.get("content-type"),
            "etag": lower.get("etag"),
            "last_modified": lower.get("last-modified"),
        }
        with self._lock:
            # A body this run found whole on disk, or wrote, is not written again (a 304
            # renews it, a page is read again unchanged): its entry alone changes. Were the
            # file changed since, by another run, it fails the entry's checksum, as never
            # cached.
            if self._index.on_disk.get(url) == digest or self._write(
                self._name(url), body, durable=False
            ):
                self._index.on_disk[url] = digest
                self._index.change(url, meta)

    def store_version(self, page: int, data: bytes, read_at: datetime, read: str = "") -> str:
        """Add a version of ``page`` read at ``read_at`` by the read ``read`` (an id each read
        of the thread makes, so that the pages of two runs reading at once are told apart)
        to the history: "kept", "same" (the
        page as last kept: the read is listed, pointing at the version kept, no new file; a
        second unchanged read moves that listing's time on),
        "full" (``MAX_VERSIONS`` reached) or "unwritable". Every read is listed: that a
        read after the close found a page unchanged is what shows its posts stood then (a
        delete after it is put back, ``tally.rules.judging.standing.kept_from_the_close``)."""
        return self.store_versions([(page, data, read_at)], read)[0]

    def store_versions(self, pages: Sequence[tuple[int, bytes, datetime]], read: str) -> list[str]:
        """``store_version`` for each of one read's pages (page, data, read at), in order,
        up to the first "full"; the history read and written once (durably: once, not once a
        page), after the versions' own files."""
        done: list[str] = []
        with self._changing():
            listed = [listing(*e) for e in self._versions()]
            for page, data, read_at in pages:
                done.append(self._listed(listed, page, data, read_at.isoformat(), read))
                if done[-1] == "full":
                    break
            changed = [w in ("listed", "moved on") for w in done]
            if any(changed) and not self._write("history.json", json.dumps(listed).encode()):
                return ["unwritable" if c else w for w, c in zip(done, changed, strict=True)]
        return [{"listed": "kept", "moved on": "same"}.get(w, w) for w in done]

    def _listed(
        self, listed: list[tuple[object, ...]], page: int, data: bytes, when: str, read: str
    ) -> str:
        """List one version in ``listed`` (the history as it will be written), its file
        written first where it is new or not whole (``_whole``): "listed", "moved on" (the
        page as last kept, listed again or its last listing moved on), "same" (as last kept,
        the history full), "full" or "unwritable"."""
        digest = hashlib.sha256(data).hexdigest()
        mine = [i for i, e in enumerate(listed) if e[0] == page]
        again = bool(mine) and listed[mine[-1]][1] == digest
        if not again and len(listed) >= MAX_VERSIONS:
            return "full"
        if not self._whole(digest, len(data), hashed=not again) and not self._write(
            f"versions/{digest}.json", data
        ):
            return "unwritable"  # said once already
        if not again:
            listed.append(listing(page, digest, when, read))
            return "listed"
        entry = listing(page, digest, when, read)
        # A page unchanged again: its last confirmation is moved on, not added to, so the
        # history holds a page's first read of each content and its last (a watch polling
        # all day stays far from MAX_VERSIONS).
        if len(mine) > 1 and listed[mine[-2]][1] == digest:
            del listed[mine[-1]]  # and listed at the end: the list stays in read order
        elif len(listed) >= MAX_VERSIONS:
            return "same"
        listed.append(entry)
        return "moved on"

    def _whole(self, digest: str, size: int, *, hashed: bool) -> bool:
        """Whether the file of the version ``digest`` (``size`` bytes) is whole, so that a
        read listing it again need not write it: one missing, cut short by a crash or a full
        disk, or (``hashed``: read and hashed) with a byte changed, is mended with the data
        just read. Hashed where the page's content is listed again after another (rare);
        where a page is as its last read found it (every page of every poll), its size alone
        is weighed."""
        if hashed:
            return self._version(digest) is not None
        try:
            return (self.folder / "versions" / f"{digest}.json").stat().st_size == size
        except OSError:
            return False

    def versions(self) -> list[tuple[int, datetime, bytes]]:
        """The history's versions in the order read: (page, read at, the stored posts); one
        whose file is missing or damaged is left out (``history`` lists it as lost)."""
        return [(page, when, data) for page, when, data, *_ in self._stored()[0]]

    def _stored(self) -> tuple[list[tuple[int, datetime, bytes, str, str]], list[Lost]]:
        """``versions``, each with the id of the read that kept it ("": kept before reads
        had ids) and its digest; and those listed whose file is missing or damaged. A
        listing whose time is not one tally wrote cannot be placed among the reads: left
        out."""
        found, lost = [], []
        stored: dict[str, bytes | None] = {}  # a version listed for many reads, read once
        for page, digest, when, read in self._versions():
            if digest not in stored:
                stored[digest] = self._version(digest)
            kept = stored[digest]
            try:
                read_at = datetime.fromisoformat(when)
            except ValueError:
                continue
            if read_at.tzinfo is None:
                continue
            if kept is None:
                lost.append(Lost(page, read_at, read, digest=digest))
            else:
                found.append((page, read_at, kept, read, digest))
        return found, lost

    def mend(self, data: bytes) -> bool:
        """Write the version of ``data`` again where its file is not whole (the history found
        it lost, and a read read the same content): whether it was written. Its name is its
        content's SHA-256: the same bytes whoever writes them, no lock needed."""
        digest = hashlib.sha256(data).hexdigest()
        return self._version(digest) is None and self._write(f"versions/{digest}.json", data)

    def _version(self, digest: str) -> bytes | None:
        """The stored posts of the version ``digest``; None where its file is missing or
        does not hash to its name."""
        data = read_own(self.folder / "versions" / f"{digest}.json", PAGE)
        return data if data is not None and hashlib.sha256(data).hexdigest() == digest else None

    def _versions(self) -> list[tuple[int, str, str, str]]:
        try:
            return listed_versions(json.loads(_own(self.folder / "history.json")))
        except ValueError:
            return []

    def post_ids(self) -> frozenset[str]:
        """Every post id any read of this thread found in it (``posts.json``; a cache
        written before it was kept: the ids of the history's versions)."""
        kept = self._kept_ids()
        return self._ids_in_history() if kept is None else kept

    def _kept_ids(self) -> frozenset[str] | None:
        data = read_own(self.folder / "posts.json", PAGE)
        if data is None:  # none, or none to read as one (a FIFO, unreadable): from the history
            return None
        try:
            loaded = json.loads(data.decode("utf-8", "replace"))
        except ValueError:
            return frozenset()
        if not isinstance(loaded, list):
            return frozenset()
        return frozenset(i for i in loaded if isinstance(i, str))

    def _ids_in_history(self) -> frozenset[str]:
        return frozenset(p.post_id for v in self.history().versions for p in v.posts)

    def history(self) -> History:
        """The thread's history as kept: each stored version's posts, in the order read; a
        version whose file is missing, damaged or of the wrong shape is listed as lost."""
        versions = []
        stored, lost = self._stored()
        for number, when, data, read, digest in stored:  # each stored version read once
            try:
                versions.append(Version(number, when, page_posts(data), read))
            except (ValueError, KeyError, TypeError, IndexError):
                lost.append(Lost(number, when, read, digest=digest))
        listed = len(versions) + len(lost)
        lost.sort(key=lambda v: v.read_at)
        return History(tuple(versions), capped=listed >= MAX_VERSIONS, lost=tuple(lost))

    def note_post_ids(self, ids: frozenset[str]) -> None:
        """Add post ids a read found first in this thread to those kept (never removed: a
        post moved to another thread since was read here first)."""
        with self._changing():
            known = self._kept_ids()
            if known is not None and ids <= known:
                return
            known = known or frozenset()
            self._write("posts.json", json.dumps(sorted(known | ids)).encode())

    def roles(self) -> Roles | None:
        """What the reads that found this thread's posts read it as (``roles.json``): by
        the game's day, each role the game file gave it then ("vote", "discussion", …)
        and the post ids first read in it under that role; ``UNSURE`` the posts first read
        when it had just become that day's vote thread, having been read as another of
        its threads before (a vote thread merged into it, 合并: posted in either). None:
        no read that knew the game's days kept any (a cache written before they were)."""
        try:
            return roles_from(json.loads(_own(self.folder / "roles.json")))
        except ValueError:
            return None

    def note_roles(
        self,
        roles: tuple[tuple[int, str], ...],
        new: frozenset[str],
        merged: frozenset[int] = frozenset(),
        older: frozenset[str] = frozenset(),
        talk: frozenset[int] = frozenset(),
        mended: frozenset[int] = frozenset(),
    ) -> Roles | None:
        """Keep that this read read the thread as ``roles`` (day, role) and first found
        the posts ``new`` in it. A thread holding posts first read in that day's vote thread
        (days ``merged``), or read before as another of a day's threads (its discussion
        thread) and now as its vote thread with posts that came in unseen (``older``: older
        than the read before): what it shows new may have been posted in the vote thread
        merged into it, or in it, and is kept as ``UNSURE``, by the first such read.
        A thread read as another of the day's threads before and nothing come in unseen:
        the game file named its role wrongly then, and mends it now (``mended``: the file
        says so). And the day's vote thread holding posts first read as another of its
        threads (days ``talk``: the discussion merged into it): what the first read to find
        them shows new is ``UNSURE``, and after it what came in unseen. Gives the
        roles as kept now (``roles``), the read's own among them."""
        if not roles:
            return self.roles()
        with self._changing():
            kept = self.roles()
            before = kept or {}
            data = with_read(before, roles, new, merged, older, talk, mended)
            if {d: {r: set(i) for r, i in by.items()} for d, by in before.items()} == data:
                return kept
            out = {str(d): {r: sorted(ids) for r, ids in sorted(by.items())}
                   for d, by in sorted(data.items())}  # fmt: skip
            self._write("roles.json", json.dumps(out, ensure_ascii=False).encode())
            return {d: {r: frozenset(ids) for r, ids in by.items()} for d, by in data.items()}

    def note_closed(self, closed: bool, read_at: datetime) -> tuple[ClosedRun, ...]:
        """Keep each run of reads that found the thread closed (关闭): its first and last
        closed read, and the first read after it that found it open (None while none has);
        give them all. When between those it was opened, no read can tell."""
        with self._changing():
            try:
                runs = closed_runs_from(json.loads(_own(self.folder / "closed.json")))
            except ValueError:
                runs = []
            changed = with_closed(runs, closed, read_at)
            if changed is None:
                return tuple(runs)
            data = [[t.isoformat() if t is not None else None for t in run] for run in changed]
            self._write("closed.json", json.dumps(data).encode())
            return tuple(changed)

    def forget(self, url: str) -> None:
        with self._lock:
            self._index.on_disk.pop(url, None)
            if url in self._index.entries:
                self._index.change(url, None)

    def set_page_count(self, count: int) -> None:
        with self._lock:
            if self._index.entries.get("") != {"page_count": count}:
                self._index.change("", {"page_count": count})

    def _write(self, name: str, data: bytes, *, durable: bool = True) -> bool:
        """Write one file of the cache; False (after one warning a run) when it cannot be.

        The pages and their index are written without fsync (``durable=False``): a page
        lost to a power cut is fetched again, and a damaged one fails its checksum or its
        index's shape and is treated as never cached. The history (``versions/``,
        ``history.json``) stays durable: a page as an earlier read found it cannot be
        fetched again."""
        if self._health.unwritable:
            return False
        try:
            try:
                (self.folder / name).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise OutputError(
                    tr("cannot create {folder} ({why})", folder=self.folder, why=exc.strerror)
                ) from None
            write_atomic(self.folder / name, data, durable=durable)
        except OutputError as exc:
            self._health.failed(str(exc))
            return False
        return True


class _Health:
    """Whether the cache can be written, shared by the threads of one run: one warning."""

    def __init__(self, warn: Callable[[str], None] | None = None):
        self.warn = warn or logging.getLogger("tally").warning
        self.unwritable = False
        self._lock = threading.Lock()

    def failed(self, why: str) -> None:
        with self._lock:
            if self.unwritable:
                return
            self.unwritable = True
        self.warn(
            tr(
                "the page cache cannot be written ({why}); going on without it, so the next "
                "run fetches every page again.",
                why=why.rstrip(".。"),
            )
        )


class Cache:
    """The cache root; ``thread(...)`` gives one thread's folder."""

    def __init__(self, root: Path, warn: Callable[[str], None] | None = None):
        self.root = root
        self._health = _Health(warn)

    def thread(self, platform: str, host: str, thread_id: str) -> ThreadCache:
        return ThreadCache(self.root / self._name(platform, host, thread_id), self._health)

    def history(self, ref: ThreadRef) -> History:
        """What tally's reads kept of the thread ``ref`` names, from this cache alone: one
        history, whichever way each read was made (``one_history``)."""
        host = urlsplit(ref.base).netloc
        return one_history({way: self.thread(cache_name(ref.platform, way), host,
                                             ref.thread_id).history()
                            for way in (PAGES, API)})  # fmt: skip

    def board(self, platform: str, host: str) -> ThreadCache:
        """The board's own facts (its answer to an API's probe), kept apart from its threads."""
        return ThreadCache(self.root / self._name(f"{platform}~board", host, ""), self._health)

    @staticmethod
    def _name(platform: str, host: str, thread_id: str) -> str:
        safe_host = "".join(c if c.isalnum() or c in ".-" else "_" for c in host)
        return f"{platform}-{safe_host}-{thread_id}"

    def read_elsewhere(
        self, platform: str, host: str, thread_id: str, ids: frozenset[str]
    ) -> dict[str, str]:
        """Which of ``ids`` (posts of one thread) a read of another thread of the same board
        found there, and the id of that thread: a moderator moved or merged them in (移动,
        合并; a post keeps its id). Post ids are the board's, one per post, whatever its
        thread."""
        found: dict[str, str] = {}
        prefix = self._name(platform, host, "")
        if not ids or not self.root.is_dir():
            return found
        for folder in sorted(self.root.glob(f"{prefix}*")):
            other = folder.name[len(prefix) :]
            if other == thread_id or not folder.is_dir():
                continue
            for pid in ThreadCache(folder, self._health).post_ids() & ids:
                found.setdefault(pid, other)
        return found

    def roles_of(
        self, platform: str, host: str, where: dict[str, str]
    ) -> dict[str, tuple[tuple[int, str], ...]]:
        """The (day, role) pairs each post (post id -> the thread it was first read in)
        was first read under there; a post no read with the game's days kept is left out."""
        found: dict[str, tuple[tuple[int, str], ...]] = {}
        kept: dict[str, Roles | None] = {}
        for pid, tid in where.items():
            if tid not in kept:
                kept[tid] = self.thread(platform, host, tid).roles()
            roles = first_roles(kept[tid], pid)
            if roles:
                found[pid] = roles
        return found


def cache_name(platform: str, way: str) -> str:
    """What the cache keeps a thread of ``platform`` read ``way`` under: the pages of the
    two ways are numbered differently (an API's page holds 100 floors, a Discuz! page 20);
    their histories are read as one (``one_history``)."""
    return platform if way == PAGES else f"{platform}.{way}"


def one_history(kept: Mapping[str, History]) -> History:
    """A thread's histories as each way's folder keeps them (their pages are numbered
    differently, ``cache_name``), as one, in the order read. The posts are the same posts
    (ids, uids, times, words) whichever way they were read: a thread read through the
    interface before the close and through its pages after it (the board switched the
    interface off after the day, a profile says ``api = false``, a 点评 shown "1 分钟前"), or
    the other way round, has its reads before the close, and an edit after it is caught."""
    versions = sorted(
        (replace(v, way=way) for way, h in kept.items() for v in h.versions),
        key=lambda v: v.read_at,
    )
    lost = sorted((replace(v, way=way) for way, h in kept.items() for v in h.lost),
                  key=lambda v: v.read_at)  # fmt: skip
    return History(tuple(versions), capped=any(h.capped for h in kept.values()),
                   lost=tuple(lost))  # fmt: skip


def _own(path: Path) -> str:
    """A JSON file of the cache's as text: "" (no JSON) where it is missing, damaged, not a
    regular file or past the cap (``read_own``)."""
    data = read_own(path, PAGE)
    return data.decode("utf-8", "replace") if data is not None else ""
