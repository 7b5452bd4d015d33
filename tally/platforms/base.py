"""The small interface every forum platform implements (gallery-dl style).

A platform answers three questions: does this URL (or saved file) belong to me,
which URL holds page P of the thread, and what posts does a page hold. Parsing is
pure: text in, frozen dataclasses out. Fetching lives in ``tally.fetch``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import tzinfo

from tally.errors import NotAThreadError
from tally.model import Page


@dataclass(frozen=True)
class ThreadRef:
    """A thread as a URL names it, independent of which page was pasted."""

    platform: str
    thread_id: str
    # The site root the thread's pages live under, e.g. "https://bbs.example.com/bbs/".
    base: str
    # The page the pasted URL pointed at (informational: tally always reads every page).
    page: int = 1


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

    @abstractmethod
    def error_page(self, text: str, source: str) -> NotAThreadError | None:
        """The forum's own message when ``text`` is a message page instead of the thread."""

    @abstractmethod
    def parse_page(
        self, text: str, tz: tzinfo, *, source: str, thread_id: str | None = None
    ) -> Page:
        """Parse one page; ``source`` (a URL or file name) is used in error messages."""
