"""The door for answers that are not HTML pages: a forum's interface for its own clients
(Tieba's protobuf, Discuz!'s JSON for mobile clients), beside its HTML pages, as yt-dlp has
``_download_json`` beside ``_download_webpage``.

A platform whose forums serve one declares it (``Platform.api``); ``tally.forums.fetch`` asks
it once per board whether the board serves it (``Api.probe``: the answer is kept in the
cache with the board's other facts), then reads a thread's every page through it into the
same ``Page`` the HTML pages give, with the same checks of completeness. A board that does
not serve it, or stops serving it mid-read, is read from its HTML pages, said once: no thread
is read half one way and half the other, and the cache keeps a thread read each way apart
(their pages are numbered differently).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import timedelta, tzinfo
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tally.errors import TallyError
    from tally.forums.asking import Getter, Request
    from tally.forums.boards import Boards
    from tally.model import Page, ThreadRef

# The two ways a live thread is read (``Thread.read_by``).
PAGES, API = "pages", "api"
# How long a board's answer to the probe is trusted before it is asked again.
PROBE_KEPT = timedelta(hours=12)


class Api(ABC):
    """A forum's interface for its own clients, read into tally's model."""

    # How messages name it ("its JSON for mobile clients").
    title: str = "its client API"

    def probe_request(self, ref: ThreadRef) -> Request | None:
        """What asks the board whether it serves the interface; None: every board does (a
        platform that is one site, Tieba)."""
        return None

    def probe(self, ref: ThreadRef, body: bytes, content_type: str | None) -> str | None:
        """None when the probe's answer says the board serves the interface; else the one
        sentence why not, after which its HTML pages are read."""
        return None

    def wanted(self, ref: ThreadRef, boards: Boards | None) -> bool | None:
        """What the board's profile says (``api = true`` or ``false``); None: it says
        nothing, the probe decides."""
        return None

    @abstractmethod
    def read_page(
        self, ref: ThreadRef, number: int, get: Getter, tz: tzinfo, boards: Boards | None = None
    ) -> Page:
        """Page ``number`` of the thread through the interface, everything it holds read
        (nested comments too); ``ApiUnavailable`` when the answer is no answer of the
        interface (the board turned it off since the probe: the thread is read again from
        its HTML pages)."""

    def truncated(self, request: Request, body: bytes) -> bool:
        """Whether the answer's bytes end before the forum finished them (empty, by
        default: an interface's answer has no end mark of its own)."""
        return not body

    def refusal(self, request: Request, body: bytes) -> TallyError | None:
        """What a 200 answer says when it is no answer (an error number, "too frequent":
        raise ``tally.forums.http.TryAgain`` for one a wait may cure), or None."""
        return None

    def scrub(self, body: bytes) -> bytes:
        """An answer as it may be kept or shown: the session's secrets it echoes (a login's
        keys, a form hash) taken out. Every answer through the door passes here first."""
        return body
