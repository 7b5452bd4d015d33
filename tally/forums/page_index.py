"""The index of a thread's cached pages (``index.json`` in its cache folder): for each URL
fetched, when, its body's SHA-256, and the validators (ETag, Last-Modified) to ask the forum
again with; and the thread's page count. ``tally.forums.cache.ThreadCache`` keeps the bodies
beside it and asks it which to trust.

The index is read when first asked (most folders a run opens are asked for their history,
post ids or roles alone), changed in memory, and written once a read (``PageIndex.held``),
over index.json as it is at the write, the folder locked: what another run (a watch's poll,
a count beside it) kept since stays, and of a page both kept, the later fetch. An entry of
the wrong shape, or a damaged index, is as if never cached.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

Meta = dict[str, object]


@dataclass(frozen=True)
class Entry:
    url: str
    body: bytes
    fetched_at: datetime
    content_type: str | None
    etag: str | None
    last_modified: str | None

    def headers(self) -> dict[str, str]:
        """The headers the entry was stored with, to store it again (a 304 renews it)."""
        return {
            "content-type": self.content_type or "",
            "etag": self.etag or "",
            "last-modified": self.last_modified or "",
        }

    def validators(self) -> dict[str, str]:
        headers = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified
        return headers


def entry(url: str, body: bytes, meta: Mapping[str, object]) -> Entry | None:
    """The entry ``meta`` says of ``url``'s body (whole: its checksum checked), or None: no
    time it was fetched that tally wrote."""
    try:
        fetched = datetime.fromisoformat(str(meta["fetched_at"]))
    except (KeyError, ValueError):
        return None
    if fetched.tzinfo is None:
        return None  # not written by tally: when it was fetched cannot be known
    return Entry(
        url,
        body,
        fetched,
        _s(meta.get("content_type")),
        _s(meta.get("etag")),
        _s(meta.get("last_modified")),
    )


class PageIndex:
    """One thread folder's index, shared by the threads of a run reading it (``lock``, the
    folder's: held by whoever changes an entry). ``folder_held`` holds the folder against
    other runs while the index is read and written back; ``write`` writes a file of the
    folder (False: it cannot be); ``read`` reads index.json's entries."""

    def __init__(
        self,
        folder: Path,
        lock: threading.Lock,
        folder_held: Callable[[], AbstractContextManager[None]],
        write: Callable[[str, bytes], bool],
        read: Callable[[Path], dict[str, Meta]],
    ) -> None:
        self._file = folder / "index.json"
        self._lock = lock
        self._folder_held = folder_held
        self._write = write
        self._read = read
        self._loaded: dict[str, Meta] | None = None  # the index, once read
        self._loading = threading.Lock()
        self._held = 0  # the blocks of ``held`` open (the pool's threads share one)
        # The entries changed since it was written: each as read, and now (None: none).
        self._mine: dict[str, tuple[Meta | None, Meta | None]] = {}
        # The SHA-256 of each body this run found whole on disk or wrote there.
        self.on_disk: dict[str, str] = {}

    @property
    def entries(self) -> dict[str, Meta]:
        """The index, read when first asked."""
        if self._loaded is None:
            with self._loading:
                if self._loaded is None:
                    self._loaded = self._read(self._file)
        return self._loaded

    @property
    def page_count(self) -> int | None:
        value = self.entries.get("", {}).get("page_count")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            return None
        return value

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Write the index once, when the block ends however it ends, not at each change in
        it (a read of a thread: each page and sub-request put, and the page count), over
        what other runs wrote since (``_save``). A run killed inside it leaves the bodies it
        wrote without their entries: fetched again by the next run, as pages never cached."""
        with self._lock:
            self._held += 1
        try:
            yield
        finally:
            with self._lock:
                self._held -= 1
                if not self._held and self._mine:
                    self._save()

    def change(self, url: str, meta: Meta | None) -> None:
        """Set ``url``'s entry (None: drop it), the lock held: written now, or by ``held``."""
        self._mine[url] = (self._mine[url][0] if url in self._mine else self.entries.get(url), meta)
        if meta is None:
            self.entries.pop(url, None)
        else:
            self.entries[url] = meta
        if not self._held:
            self._save()

    def _save(self) -> None:
        """Write what changed over the index as it is now (the lock held): what another run
        (a watch's poll, a count beside it) kept since stays; of a page both kept, the later."""
        with self._folder_held():
            index = self._read(self._file)
            for url, (was, meta) in self._mine.items():
                theirs = index.get(url)
                if theirs != was and _fetched_at(theirs) > _fetched_at(meta):
                    self.on_disk.pop(url, None)  # its body is the other run's now
                elif meta is None:
                    index.pop(url, None)
                else:
                    index[url] = meta
            self._mine, self._loaded = {}, index
            self._write(self._file.name, json.dumps(index, ensure_ascii=False, indent=1).encode())


def read_index(index: Path) -> dict[str, Meta]:
    """The index's entries of the right shape; the rest (a damaged index: all) never cached."""
    try:
        loaded = json.loads(index.read_text(encoding="utf-8")) if index.is_file() else {}
    except (OSError, ValueError):
        return {}
    if not isinstance(loaded, dict):
        return {}
    return {k: v for k, v in loaded.items() if isinstance(k, str) and isinstance(v, dict)}


def _fetched_at(meta: Mapping[str, object] | None) -> datetime:
    """When an index entry's page was fetched (the earliest time: unknown, the page count)."""
    with contextlib.suppress(KeyError, ValueError):
        if (when := datetime.fromisoformat(str((meta or {})["fetched_at"]))).tzinfo is not None:
            return when
    return datetime.min.replace(tzinfo=UTC)


def _s(value: object) -> str | None:
    return value if isinstance(value, str) else None
