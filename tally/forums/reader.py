"""One run's way to its threads: ``Reader(env, how)``, built once per run.

A command reads several threads (a day's vote thread, then its discussion thread; every
day of the game for the report), and ``tally watch`` reads one thread again and again. The
Reader is what they share: one HTTP client (robots.txt read once per host, the limits
holding across threads and polls), the cache, the environment's clock and way of waiting,
the pages of a thread kept in memory between two reads of it, and an archive that stands
in for the forum when ``how.archive`` names one.

    from tally.environment import Environment
    from tally.forums.reader import Reader, Reading

    with Reader(Environment(), Reading(fresh=True)) as reader:
        [thread] = reader.read(["https://bbs.example.com/thread-102-1-1.html"], tz)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, tzinfo
from pathlib import Path

from tally.environment import Environment
from tally.errors import InputError
from tally.forums import markup_for, resolve_url
from tally.forums.archived import archive_kind, read_archive, whole
from tally.forums.boards import Boards, load_boards
from tally.forums.built import read_saved_thread_files
from tally.forums.cache import Cache
from tally.forums.clocks import ForumClocks
from tally.forums.fetch import Held, fetch_thread
from tally.forums.getting import MAX_PAGES, FetchOptions, Progress, is_url
from tally.forums.http import Http, Response
from tally.forums.ways import thread_way
from tally.i18n import tr
from tally.model import History, Thread, ThreadKey, ThreadRef, origin_of
from tally.vocabulary import Markup

_HOST_FIRST = re.compile(r"^[\w-]+(\.[\w-]+)+(:\d+)?/")


@dataclass(frozen=True)
class Reading:
    """How one run reads forums: the options every fetching command takes, and what to
    tell the person waiting."""

    fresh: bool = False  # ignore cached pages (on the first read of each thread)
    offline: bool = False  # every page from the cache, never the forum
    cookies: Path | None = None  # a Netscape cookie file
    cache_dir: Path | None = None  # None: the platform's cache folder
    use_cache: bool = True
    partial: bool = False  # saved pages: read what is there (archive --partial)
    # An archive (tally archive's CSV or SQLite file) to take the threads from, not the forum.
    archive: Path | None = None
    max_pages: int = MAX_PAGES  # a thread with more pages is refused
    # A file of board profiles (None: ~/.config/tally/boards.toml when it exists).
    boards: Path | None = None
    progress: Progress | None = None
    warn: Callable[[str], None] | None = None
    # What a read says that needs no action (how a board is read), a line --quiet silences.
    note: Callable[[str], None] | None = None
    thread_read: Callable[[Thread], None] | None = None  # each thread, once read
    # What the game file makes of a thread: each (day, role) it names it for (the cache
    # keeps them with the posts each read finds first); None: a run without a game file.
    roles: Callable[[ThreadRef], tuple[tuple[int, str], ...]] | None = None
    # Every thread the game file names (its days' threads), for a read to tell a game file
    # mended since from a merge (``FetchOptions.named``).
    named: tuple[ThreadRef, ...] = ()


class Reader:
    """Reads threads for one run; use as a context manager (it closes its HTTP client)."""

    def __init__(self, env: Environment | None = None, how: Reading | None = None):
        self.env = env or Environment()
        self.how = how or Reading()
        self._http: Http | None = None
        self._held: dict[ThreadKey, Held] = {}
        self._seen: set[ThreadKey] = set()  # threads read once already in this run
        self._archive: dict[tuple[ThreadKey, str], Thread] | None = None
        self._boards: Boards | None = None
        # Each forum's clock, as its answers tell it (every read is stamped by it).
        self.clocks = ForumClocks(self.env.clock, self.how.warn)

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None

    @property
    def http(self) -> Http:
        """The run's one HTTP client, made when the first URL is read (what a read learns of
        each board is kept there); it makes its httpx client at its first request, so a read
        from the cache alone (--offline) imports no httpx."""
        if self._http is None:
            env = self.env
            self._http = Http(
                env.http, cookies=self.how.cookies, sleep=env.sleep, clock=env.monotonic,
                now=env.clock, warn=self.how.warn, clocks=self.clocks,
            )  # fmt: skip
        return self._http

    @property
    def boards(self) -> Boards:
        """The run's board profiles: the director's, then the built-in ones."""
        if self._boards is None:
            self._boards = load_boards(self.how.boards, folder=self.env.config_folder())
        return self._boards

    def markup_for(self, ref: ThreadRef) -> Markup:
        """What an announcement for the thread is written in (``boards.markup_for``, with
        the run's board profiles)."""
        return markup_for(ref, self.boards)

    @property
    def requests(self) -> int:
        """HTTP requests sent so far (robots.txt and retries included)."""
        return self._http.requests if self._http is not None else 0

    def now(self, url: str | None = None) -> datetime:
        """The time now by the forum's clock: ``url``'s forum, else those read in this run
        (``ForumClocks.now``); this computer's until a forum has answered."""
        return self.clocks.now(url)

    def trusted_from(self, closes: datetime | None) -> datetime | None:
        """At or after a day's close, no page cached before the close may decide it."""
        return closes if closes is not None and self.now() >= closes else None

    def page(self, url: str) -> Response:
        """One page as the forum answers it, whatever its status (``tally doctor``)."""
        return self.http.get(url)

    def crawl_delay(self, url: str) -> float | None:
        """The seconds the forum's robots.txt asks between requests, if it asks."""
        return self.http.crawl_delay(url)

    def read(
        self,
        sources: Sequence[str],
        tz: tzinfo,
        *,
        closes: datetime | None = None,
        decides: bool = False,
    ) -> list[Thread]:
        """Every thread the sources name (URLs, saved page files, archives), each once, in
        the order first named; a URL's thread comes from ``how.archive`` when it is given.
        With ``closes`` (a day's close) no page cached before it decides a read made at or
        after it; with ``decides`` (the count, a reminder or the cards of that day, not a
        day before it) every page comes from the forum."""
        not_before = self.trusted_from(closes)
        urls: list[str] = []
        files: list[Path] = []
        archives: list[Thread] = []
        for source in sources:
            if is_url(source):
                urls.append(source)
            elif Path(source).is_file() and archive_kind(Path(source)):
                archives.extend(whole(read_archive(Path(source)), source, self.how.partial))
            elif Path(source).is_file():
                files.append(Path(source))
            elif _HOST_FIRST.match(source.strip()):
                resolve_url(source)  # a URL pasted without its scheme: say so
            else:
                raise InputError(
                    tr("{source} is neither a thread URL nor a saved page file.",
                       source=repr(source))
                )
        threads = [
            self.thread(url, tz, not_before=not_before, live=decides, closes=closes)
            for url in urls
        ]
        if files:
            threads.extend(
                read_saved_thread_files(files, tz, partial=self.how.partial, boards=self.boards)
            )
        threads.extend(archives)
        if self.how.thread_read is not None:
            for thread in threads:
                self.how.thread_read(thread)
        return threads

    def thread(
        self,
        url: str,
        tz: tzinfo,
        *,
        not_before: datetime | None = None,
        hold: bool = False,
        live: bool = False,
        closes: datetime | None = None,
    ) -> Thread:
        """Every page of the thread at ``url`` (from the archive, when the run has one).

        ``not_before``: pages cached (or held) before it are read again. ``hold``: keep the
        parsed pages in memory for the next read of this thread (``tally watch``), which
        then parses only what changed. ``--fresh`` and the progress bar are for the first
        read of each thread in the run. ``live``: every page from the forum, none from the
        cache or memory. ``closes``: the close of the day it is read for, when known (what an
        interface hides of a post is learnt for a read at or after it, else for every read).
        """
        if self.how.archive is not None:
            return self._from_archive(url)
        _, ref = resolve_url(url)
        first = ref.key not in self._seen
        self._seen.add(ref.key)
        options = replace(self._options(url, ref, first, not_before, live), closes=closes)
        held = self._held.setdefault(ref.key, Held()) if hold else None
        progress = self.how.progress if first else None
        return fetch_thread(url, tz, http=self.http, options=options, progress=progress, held=held)

    def way(self, url: str, tz: tzinfo) -> tuple[str, str | None]:
        """How the thread at ``url`` is read ("api" or "pages"; tally.forums.api), and why not
        through its platform's interface where it has one the board does not serve
        (``tally doctor``). The board is asked now, not its kept answer (which may be from
        before its admin switched the interface off), and the answer kept as a read keeps it."""
        _, ref = resolve_url(url)
        options = replace(self._options(url, ref, True), fresh=True)
        return thread_way(url, tz, http=self.http, options=options)

    def _options(
        self, url: str, ref: ThreadRef, first: bool, not_before: datetime | None = None,
        live: bool = False,
    ) -> FetchOptions:  # fmt: skip
        how = self.how
        return FetchOptions(
            cache_dir=(how.cache_dir or self.env.cache_folder()) if how.use_cache else None,
            fresh=how.fresh and first,
            not_before=not_before,
            max_pages=how.max_pages,
            clock=functools.partial(self.clocks.now, url),  # reads stamped by the forum's clock
            warn=how.warn,
            note=how.note,
            boards=self.boards,
            offline=how.offline,
            live=live,
            roles=how.roles(ref) if how.roles is not None else (),
            named=tuple((r, how.roles(r)) for r in how.named) if how.roles is not None else (),
        )

    def kept(self, ref: ThreadRef) -> History:
        """What tally's earlier reads kept of the thread (its pages as each read found them),
        from the cache alone, never the forum: nothing when the run uses no cache."""
        if not self.how.use_cache:
            return History()
        return Cache(self.how.cache_dir or self.env.cache_folder(), self.how.warn).history(ref)

    def _from_archive(self, url: str) -> Thread:
        """The thread ``url`` names, as the run's archive holds it."""
        path = self.how.archive
        assert path is not None
        if self._archive is None:
            if not path.is_file():
                raise InputError(tr("no such archive: {path}.", path=path))
            self._archive = {(t.key, t.origin): t for t in read_archive(path)}
        _, ref = resolve_url(url)
        # The thread of this URL's board (thread 23 of another board is another thread); an
        # archive of saved pages that named no board holds it under "".
        thread = self._archive.get((ref.key, origin_of(ref.base))) or self._archive.get(
            (ref.key, "")
        )
        if thread is None:
            raise InputError(
                tr("{path} holds no thread {thread} ({url}); archive it with tally archive, "
                   "or leave out --archive.", path=path, thread=ref.thread_id, url=url)
            )
        [held] = whole([thread], str(path), self.how.partial)
        return held
