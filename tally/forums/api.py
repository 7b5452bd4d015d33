"""The door for answers that are not HTML pages: a forum's interface for its own clients
(Tieba's protobuf, Discuz!'s JSON for mobile clients), beside its HTML pages, as yt-dlp has
``_download_json`` beside ``_download_webpage``.

A platform whose forums serve one declares it (``Platform.api``); ``tally.forums.fetch`` asks
it once per board whether the board serves it (``Api.probe``: the answer is kept in the
cache with the board's other facts), then reads a thread's every page through it into the
same ``Page`` the HTML pages give, with the same checks of completeness. A board that does
not serve it, or stops serving it mid-read, is read from its HTML pages, said once: no thread
is read half one way and half the other, and the cache keeps a thread's pages read each way
apart (they are numbered differently) and its history one (``tally.forums.cache.one_history``:
the posts are the same posts, whichever way a read was made).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import timedelta, tzinfo
from typing import TYPE_CHECKING

from tally.i18n import N_

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from tally.errors import TallyError
    from tally.forums.asking import Getter, Request
    from tally.forums.boards import Boards
    from tally.model import Edit, History, Page, Post, ThreadRef

# The two ways a live thread is read (``Thread.read_by``).
PAGES, API = "pages", "api"
# How long a board's answer to the probe is trusted before it is asked again.
PROBE_KEPT = timedelta(hours=12)


class Api(ABC):
    """A forum's interface for its own clients, read into tally's model."""

    # How messages name it ("its JSON for mobile clients").
    title: str = N_("its client API")  # translated where said

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

    def edits(
        self, ref: ThreadRef, pages: Sequence[Page], get: Getter, tz: tzinfo
    ) -> Mapping[str, Edit | None]:
        """Each post of ``pages`` with its edit mark as the board shows it elsewhere, where
        the interface hides it (Discuz!'s version 4 strips it): by post id, its mark or None
        (not edited). Asked only for a read after the close that holds a post no read before
        the close showed (``learn_edits``). Nothing, by default: the interface hides none."""
        return {}

    def scrub(self, body: bytes) -> bytes:
        """An answer as it may be kept or shown: the session's secrets it echoes (a login's
        keys, a form hash) taken out. Every answer through the door passes here first."""
        return body


def learn_edits(
    api: Api, ref: ThreadRef, pages: Mapping[int, Page], get: Getter, tz: tzinfo,
    before: History | None,
) -> dict[int, Page]:
    """``pages`` with the edit marks the interface hid (Discuz!'s version 4 strips them):
    a post tally read before with its mark known, its words unchanged since, keeps that
    mark; for the others the interface's other version says it (``Api.edits``), asked only
    for the pages that hold them. What it said at the close rests on whether and when it
    was edited (tally.rules.judging.standing); a mark that stays unknown is counted as an edit at an
    unknown time, never silently as none."""
    from dataclasses import replace

    from tally.model import UNKNOWN_EDIT

    known: dict[str, Post] = {}
    for version in before.versions if before is not None else ():
        for post in version.posts:
            if UNKNOWN_EDIT not in post.unknown:
                known[post.post_id] = post  # the newest read that knew its mark
    def kept(post: Post) -> Post | None:
        was = known.get(post.post_id)
        if was is None or was.text != post.text:
            return None
        return replace(post, edited=was.edited, unknown=post.unknown - {UNKNOWN_EDIT})

    out = {}
    asked: list[Page] = []
    for n, page in pages.items():
        posts = tuple((kept(p) or p) if UNKNOWN_EDIT in p.unknown else p for p in page.posts)
        out[n] = replace(page, posts=posts)
        if any(UNKNOWN_EDIT in p.unknown for p in posts):
            asked.append(out[n])
    if not asked:
        return out
    marks = api.edits(ref, asked, get, tz)
    for page in asked:
        posts = tuple(
            replace(p, edited=marks[p.post_id], unknown=p.unknown - {UNKNOWN_EDIT})
            if UNKNOWN_EDIT in p.unknown and p.post_id in marks else p
            for p in page.posts
        )
        out[page.page] = replace(page, posts=posts)
    return out
