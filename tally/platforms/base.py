"""The small interface every forum platform implements (gallery-dl style).

A platform answers three questions: does this URL (or saved file) belong to me,
which URL holds page P of the thread, and what posts does a page hold. Parsing is
pure: text in, frozen dataclasses out. Fetching lives in ``tally.fetch``.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import tzinfo

from tally.errors import InputError, NotAThreadError, PageMismatchError
from tally.model import Comment, Page

# Fetches a URL and returns its text; raises tally's errors for anything but a good answer.
Getter = Callable[[str], str]
_HTML_END = re.compile(rb"</html\s*>\s*$", re.I)


@dataclass(frozen=True)
class ThreadRef:
    """A thread as a URL names it, independent of which page was pasted."""

    platform: str
    thread_id: str
    # The site root the thread's pages live under, e.g. "https://bbs.example.com/bbs/".
    base: str
    # The page the pasted URL pointed at (informational: tally always reads every page).
    page: int = 1


@dataclass(frozen=True)
class CommentBatch:
    """Nested comments read from somewhere other than the thread page (Tieba's 楼中楼 JSON)."""

    thread_id: str | None
    comments: Mapping[str, tuple[Comment, ...]] = field(default_factory=dict)
    # How many comments the forum says each post has, when the batch says so.
    totals: Mapping[str, int] = field(default_factory=dict)


class Platform(ABC):
    """One forum software."""

    name: str

    @abstractmethod
    def match_url(self, url: str) -> ThreadRef | None:
        """The thread this URL names, or None when the URL is not of this platform's shape."""

    @abstractmethod
    def page_url(self, ref: ThreadRef, page: int) -> str:
        """The URL of page ``page`` (1-based) of the thread."""

    @abstractmethod
    def recognises(self, text: str) -> bool:
        """Whether a saved page's text was rendered by this platform."""

    def truncated(self, url: str, body: bytes) -> bool:
        """Whether the bytes of ``url`` end before the forum finished them.

        Decided on the bytes, before decoding: a body cut inside a multi-byte character, in
        its first bytes, or empty is a cut (fetched again), not a damaged or foreign page.
        """
        return _HTML_END.search(body[-4096:]) is None

    @abstractmethod
    def error_page(self, text: str, source: str) -> NotAThreadError | None:
        """The forum's own message when ``text`` is a message page instead of the thread."""

    @abstractmethod
    def parse_page(
        self, text: str, tz: tzinfo, *, source: str, thread_id: str | None = None
    ) -> Page:
        """Parse one page; ``source`` (a URL or file name) is used in error messages."""

    @abstractmethod
    def post_url(self, ref: ThreadRef, post_id: str) -> str:
        """A link that opens the thread at one floor."""

    @abstractmethod
    def author_url(self, ref: ThreadRef, author: str, author_id: str | None) -> str | None:
        """A link to one player's posts alone (the elevator thread, RULES A2), when one exists."""

    def read_page(self, ref: ThreadRef, number: int, get: Getter, tz: tzinfo) -> Page:
        """Page ``number`` with everything it needs; Tieba also asks for its 楼中楼."""
        url = self.page_url(ref, number)
        page = self.parse_page(get(url), tz, source=url, thread_id=ref.thread_id)
        if page.page != number:
            # Forums answer a page past the end with the last page; that is not page ``number``.
            raise PageMismatchError(f"{url} returned page {page.page} instead of page {number}.")
        return page

    def parse_saved(self, text: str, tz: tzinfo, *, source: str) -> Page | CommentBatch:
        """A saved file: a thread page, or (on platforms that have them) saved comments."""
        return self.parse_page(text, tz, source=source)

    def attach_saved(
        self, pages: Sequence[Page], batches: Sequence[CommentBatch], *, source: str
    ) -> list[Page]:
        """Put saved comments under their floors; platforms without such files take none."""
        if batches:
            raise InputError(f"{source}: {self.name} threads have no separate comment files.")
        return list(pages)
