"""The small interface every forum platform implements (gallery-dl style), the only door
through which the rest of tally reaches a forum.

A platform answers: does this URL (or saved file) belong to me, which request answers page P
of the thread (a page's URL, or an API call), what posts does an answer hold, what does a
page hold field by field (``tally doctor``), and, where it posts, the reply form and the
sending of a reply. Parsing is pure: bytes or text in, frozen dataclasses out. Fetching,
the cache and retries live in ``tally.forums.fetch`` and ``tally.forums.http``.
"""

from __future__ import annotations

import hashlib
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from tally.errors import (
    InputError,
    NotAThreadError,
    PageMismatchError,
    ParseError,
    PostError,
    TallyError,
    TruncatedPageError,
)
from tally.forums.asking import Getter, Request
from tally.forums.boards import DEFAULT, Board, Boards
from tally.forums.fields import Diagnosis, read_whole
from tally.forums.htmltext import Node, html_tree, utf8
from tally.forums.replies import Accepted, Ask, ReplyForm, Submit, Unserved
from tally.forums.timeparse import backwards
from tally.i18n import N_, tr
from tally.kept import Kept
from tally.model import Comment, Page, Post, ThreadRef, origin_of
from tally.vocabulary import Markup

if TYPE_CHECKING:
    from tally.forums.api import Api

_HTML_END = re.compile(rb"</html\s*>\s*$", re.I)

_ENDED = re.compile(r"</html\s*>\s*$", re.I)


@dataclass(frozen=True)
class CommentBatch:
    """Nested comments read from somewhere other than the thread page (Tieba's 楼中楼 JSON)."""

    thread_id: str | None
    comments: Mapping[str, tuple[Comment, ...]] = field(default_factory=dict)
    # How many comments the forum says each post has, when the batch says so.
    totals: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class PageFrame:
    """What a thread page says of itself, read before its posts."""

    thread_id: str | None
    page: int
    page_count: int
    title: str = ""
    # The thread's reply count as the page header shows it, when it does.
    reply_count: int | None = None
    forum_id: str | None = None
    # The board the page says it is of (its script's SITEURL, canonical link, saver's mark).
    origin: str = ""
    # Where each of the above was found, for `tally doctor` ("thread_id": "the page's script").
    found: Mapping[str, str] = field(default_factory=dict)
    # The page says the thread is closed (关闭).
    closed: bool = False
    # The one offset the page prints every time at, when it says (a Discuz! footer).
    clock: tzinfo | None = None
    # When the forum made the page, as it prints it (``Page.printed_at``).
    printed_at: datetime | None = None


@dataclass(frozen=True)
class ReadPosts:
    """A page's posts, each on its floor, and those it shows out of their place (``Page``'s
    ``elsewhere``, ``floating`` and ``top``)."""

    posts: tuple[Post, ...]
    elsewhere: tuple[str, ...] = ()
    floating: tuple[Post, ...] = ()
    top: tuple[str, ...] = ()


def url_page(value: str, url: str) -> int:
    """A page number from a URL (page=, pn=): ASCII digits, 1 to a million ("²" and "٣" are
    digits to Python's isdigit, and no page); anything else one sentence."""
    if value.isascii() and value.isdigit() and 1 <= int(value) <= 1_000_000:
        return int(value)
    raise InputError(
        tr("{url} asks for page {page}, which is not a page number.", url=repr(url),
           page=repr(value))
    )


def url_id(value: str) -> bool:
    """Whether a thread or post id from a URL is one: ASCII digits, at most 18 of them."""
    return value.isascii() and value.isdigit() and len(value) <= 18


T = TypeVar("T")
# What a required field found nowhere is called (a module may say it otherwise: an archive's
# empty cell).
MISSING = N_("{where} has no {name}.")


def missing_field(
    where: str, name: str, *, error: type[TallyError] = ParseError, said: str = MISSING
) -> TallyError:
    """The one sentence for a required field found nowhere: which, and where it was looked for."""
    return error(tr(said, where=where, name=name))


@overload
def field_value(
    value: T | None, where: str, name: str, *, fatal: Literal[True] = ...,
    error: type[TallyError] = ..., said: str = ...,
) -> T: ...
@overload
def field_value(
    value: T | None, where: str, name: str, *, fatal: bool, error: type[TallyError] = ...,
    said: str = ...,
) -> T | None: ...
def field_value(
    value: T | None, where: str, name: str, *, fatal: bool = True,
    error: type[TallyError] = ParseError, said: str = MISSING,
) -> T | None:  # fmt: skip
    """A field as read (yt-dlp's ``fatal=``): a value found is returned; one not found (None,
    or a blank string) is ``missing_field`` when the field is required (``fatal``), never a
    guess, and None when it is optional."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if fatal:
            raise missing_field(where, name, error=error, said=said)
        return None
    return value


def check_clock(posts: Sequence[Post], tz: tzinfo, source: str) -> None:
    """Refuse posts whose times run backwards against their floors as a 12-hour clock
    printed without its marker (``tally.forums.timeparse.backwards``)."""
    turned = backwards([(p.floor, p.time) for p in posts], tz)
    if turned is None:
        return
    first, then = (next(p for p in posts if p.floor == f) for f in turned)
    raise ParseError(
        tr(
            "{source}: floor {floor} was posted at {time}, before floor {first} at "
            "{first_time}, and no time on the page is past 12 o'clock: the board prints a "
            "12-hour clock without AM/PM, which cannot be read; ask its admin for a 24-hour "
            "time format (H:i), or save the pages with a theme that shows the marker.",
            source=source, floor=then.floor, time=format(then.time, "%Y-%m-%d %H:%M"),
            first=first.floor, first_time=format(first.time, "%Y-%m-%d %H:%M"),
        )
    )


@dataclass(frozen=True)
class PageText:
    """One page being parsed: its text and tree, what names it in messages, the zone its
    times are read in and the board profile that reads it."""

    text: str
    tree: Any
    source: str
    tz: tzinfo
    board: Board = DEFAULT
    # What a reading works out once for all the page's posts.
    memo: dict[str, Any] = field(default_factory=dict, compare=False)


def _digest(text: str) -> bytes:
    # The UTF-8 lexbor parses next (``utf8``: encoded once); a lone surrogate as itself.
    # SHA-256, which processors compute in hardware (SHA-NI): twice as fast as BLAKE2b.
    raw = utf8(text)
    data = raw if raw is not None else text.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).digest()


# The pages parsed last, each by a digest of its whole text and everything else its reading
# depends on (the software, the zone, the source its host and origin come from, the thread
# asked for), with the board profiles it was read with (compared by value): a memo of a pure
# function, never a cache of a URL, so a page whose text changed by one byte is parsed
# afresh. A ``Page`` is frozen all through, so one may be handed to every read that asks.
# The tests read the same pages in hundreds of runs in one process; a run reads again a
# page the cache gave. By a digest, not by the text itself (one hash of it, cheaper): the
# memo would then hold the last pages' texts, ten times what their ``Page``s take (a run
# of 1,000 pages peaked at 158 MB, not 92; bench/README.md).
PARSED_KEPT = 256
_PARSED: Kept[tuple[Any, ...], tuple[tuple[Board, ...] | None, Page]] = Kept(PARSED_KEPT)


def forget_parsed() -> None:
    """Forget every page parsed so far: what a benchmark of the parsing itself, or of a run
    in a new process, starts from."""
    _PARSED.clear()


class Pages(ABC):
    """How one forum software's HTML thread pages are read: their integrity (checked here,
    the same for every forum) and their parts (what each declares). Discuz! reads its live
    pages so; Tieba only the pages saved from its desktop site before 2026.
    """

    platform: str  # the platform whose pages these are ("discuz", "tieba")
    title: str  # as messages name the software: "Discuz!", "Tieba"
    # CSS selectors of the container of a thread page's posts (any one will do).
    post_list: tuple[str, ...]
    # Text that only this software's thread pages hold near their top.
    page_marker: str

    @abstractmethod
    def recognises(self, text: str) -> bool:
        """Whether a saved page's text was rendered by this software."""

    @abstractmethod
    def error_page(self, text: str, source: str) -> NotAThreadError | None:
        """The forum's own message when ``text`` is a message page instead of the thread."""

    def parse_page(
        self,
        text: str,
        tz: tzinfo,
        *,
        source: str,
        thread_id: str | None = None,
        boards: Boards | None = None,
    ) -> Page:
        """Parse one thread page; ``source`` (a URL or file name) names it in errors.

        Checked here, for every forum alike: the forum's own message instead of the thread,
        a page that ends before ``</html>`` or lacks the thread's post list (truncated),
        a page of another thread. The software supplies the post nodes, what the page says
        of itself (``frame``) and the reading of one post; ``boards`` the profiles a board
        whose theme moves things is read with.

        A page is parsed once a process: the same text read again with the same arguments
        (the next run's read of a page that did not change, the cache's copy, a saved
        file read again) is the same ``Page``, kept by a digest of the whole text (see
        ``_PARSED``). A page that fails is parsed again each time.
        """
        key = (type(self), _digest(text), len(text), tz, source, thread_id)
        profiles = boards.boards if boards is not None else None
        found = _PARSED.get(key)
        if found is not None and found[0] == profiles:  # profiles compared by value
            return found[1]
        page = self._parse_page(text, tz, source, thread_id, boards)
        _PARSED.put(key, (profiles, page))
        return page

    def _parse_page(
        self, text: str, tz: tzinfo, source: str, thread_id: str | None, boards: Boards | None
    ) -> Page:
        page = self.open(text, tz, source, boards)
        nodes = self.post_nodes(page)
        ended = _ENDED.search(text[-2000:]) is not None
        if not nodes:
            message = self.error_page(text, source)
            if message is not None:
                raise message
            if not ended and self.page_marker in text[:20000]:
                raise TruncatedPageError(
                    tr("{source} ends before the forum finished the page.", source=source)
                )
            if self.has_post_list(page):
                raise TruncatedPageError(
                    tr("{source} has the thread's frame but no posts in it.", source=source)
                )
            raise NotAThreadError(
                tr("{source} is not a {forum} thread page.", source=source, forum=self.title)
            )
        if not ended:
            raise TruncatedPageError(
                tr("{source} ends before the forum finished the page (no </html>).",
                   source=source)
            )
        if not self.has_post_list(page):
            raise TruncatedPageError(
                tr("{source} lacks the thread's post list ({selectors}).", source=source,
                   selectors=" or ".join(self.post_list))
            )
        frame = self.frame(page, nodes)
        tid = frame.thread_id or thread_id
        if tid is None:
            raise ParseError(tr("{source} does not say which thread it belongs to.", source=source))
        if thread_id is not None and tid != thread_id:
            raise ParseError(
                tr("{source} is a page of thread {thread}, not of thread {wanted}.",
                   source=source, thread=tid, wanted=thread_id)
            )
        read = self.read_posts(page, nodes, tid, frame.page)
        posts = read.posts
        check_clock(posts, page.board.zone or tz, source)
        return Page(
            platform=self.platform,
            thread_id=tid,
            page=frame.page,
            page_count=frame.page_count,
            posts=posts,
            title=frame.title,
            reply_count=frame.reply_count,
            comment_counts=self.comment_counts(nodes, posts),
            forum_id=frame.forum_id,
            origin=frame.origin,
            elsewhere=read.elsewhere,
            floating=read.floating,
            top=read.top,
            closed=frame.closed,
            clock=frame.clock,
            printed_at=frame.printed_at,
        )

    def open(self, text: str, tz: tzinfo, source: str, boards: Boards | None) -> PageText:
        """The page parsed, with the board profile it is read with (tally's own unless the
        software has boards that differ)."""
        return PageText(text, html_tree(text), source, tz)

    def has_post_list(self, page: PageText) -> bool:
        return any(page.tree.css_first(selector) is not None for selector in self.post_list)

    @abstractmethod
    def post_nodes(self, page: PageText) -> list[Node]:
        """The nodes of the page's posts, in page order (none: not a thread page)."""

    @abstractmethod
    def frame(self, page: PageText, nodes: Sequence[Node]) -> PageFrame:
        """What the page says of itself: which thread, which page of how many, its title."""

    @abstractmethod
    def parse_post(
        self, page: PageText, node: Node, index: int, thread_id: str, number: int
    ) -> Post:
        """One post (the ``index``-th of page ``number``): strict about its id, floor,
        author and time, tolerant of the rest."""

    def read_posts(
        self, page: PageText, nodes: Sequence[Node], thread_id: str, number: int
    ) -> ReadPosts:
        """The page's posts, each on its floor, and those it shows out of their place
        (``ReadPosts``): every node read by ``parse_post``, unless the software's pages show
        posts out of place."""
        posts = tuple(
            self.parse_post(page, node, index, thread_id, number)
            for index, node in enumerate(nodes)
        )
        return ReadPosts(posts)

    def comment_counts(self, nodes: Sequence[Node], posts: Sequence[Post]) -> Mapping[str, int]:
        """How many nested comments the page says each post has, where it says so."""
        return {}

    def diagnose(
        self, text: str, tz: tzinfo, source: str, boards: Boards | None = None
    ) -> Diagnosis:
        """What tally reads from the page, field by field (``tally doctor``). A software whose
        pages are read one way only (Tieba's saved pages) says it for the page parsed whole:
        each essential field found in every post, or what stopped the reading."""
        try:
            parsed = self.parse_saved(text, tz, source=source, boards=boards)
        except TallyError as exc:
            return Diagnosis(source, self.title, problem=str(exc))
        posts = getattr(parsed, "posts", ())
        return read_whole(source, self.title, posts, tr("the {forum} reader", forum=self.title))

    # -- saved files ----------------------------------------------------------------------

    def saved_refusal(self, body: bytes, source: str) -> InputError | None:
        """A saved file of this forum that is the wrong view of a thread (its bytes are
        enough to tell, before decoding): what it is, and which pages to save instead."""
        return None

    def parse_saved(
        self, text: str, tz: tzinfo, *, source: str, boards: Boards | None = None
    ) -> Page | CommentBatch:
        """A saved file: a thread page, or (on forums that have them) saved comments."""
        return self.parse_page(text, tz, source=source, boards=boards)

    def attach_saved(
        self,
        pages: Sequence[Page],
        batches: Sequence[CommentBatch],
        *,
        source: str,
        missing: list[str] | None = None,
    ) -> list[Page]:
        """Put saved comments under their floors; forums without such files take none.

        A floor short of comments is an error, or with ``missing`` a note appended to it.
        """
        if batches:
            raise InputError(
                tr("{source}: {forum} threads have no separate comment files.", source=source,
                   forum=self.title)
            )
        return list(pages)


class Platform(ABC):
    """One forum software: its URLs, the requests that answer a thread's pages, how its HTML
    pages are read and diagnosed (``pages``), and, where tally posts, its reply form and the
    sending of a reply (``reply_form``, ``send_reply``; elsewhere ``no_posting`` says why not).

    Individual forums are data (a URL's host and path); a platform is the software they
    run, and declares what differs. Outside tally/forums/ a forum is reached through this
    interface alone (tests/test_house.py).
    """

    name: str
    title: str  # as messages name it: "Discuz!", "Tieba"
    # The markup its posts render, and so what an announcement is written in.
    markup: Markup
    # How its HTML thread pages are read: live pages (Discuz!), or saved ones (Tieba).
    pages: Pages
    # URLs of every shape this platform claims, and no other platform does (tested).
    example_urls: tuple[str, ...] = ()
    # What its users call a reply inside a floor, as the announcements say it.
    comment_word: str = "楼中楼"
    # Whether "@name " in a post notifies the user (a reminder mentions who has not voted).
    mentions: bool = False
    # Whether its pages show a nested comment's time to the minute only (Discuz!'s 点评):
    # the comment was posted somewhere in that minute (``Comment.to_the_minute``).
    comment_minutes: bool = False
    # Why tally does not post here (--post), in one sentence; "" where it posts (and the
    # platform reads its reply form and sends through it: reply_form, send_reply).
    no_posting: str = N_("tally does not post to this forum; paste the text above by hand.")
    # Its forums' interface for their own clients, read where a board serves it
    # (``tally.forums.api``); None: its HTML pages only.
    api: Api | None = None

    @abstractmethod
    def match_url(self, url: str) -> ThreadRef | None:
        """The thread this URL names, or None when the URL is not of this platform's shape."""

    @abstractmethod
    def page_url(self, ref: ThreadRef, page: int) -> str:
        """The URL of page ``page`` (1-based) of the thread."""

    def page_request(self, ref: ThreadRef, page: int) -> Request:
        """The request that answers page ``page`` (1-based): by default, GET its URL."""
        return Request(
            self.page_url(ref, page),
            what=tr("page {page} of thread {thread}", page=page, thread=ref.thread_id),
            page=page,
        )

    def truncated(self, request: Request, body: bytes) -> bool:
        """Whether the answer's bytes end before the forum finished them.

        Decided on the bytes, before decoding: a body cut inside a multi-byte character, in
        its first bytes, or empty is a cut (fetched again), not a damaged or foreign page.
        """
        return _HTML_END.search(body[-4096:]) is None

    def refusal(self, request: Request, body: bytes) -> TallyError | None:
        """What a 200 answer says when it is no answer (an API's error number), or None.

        Raise ``tally.forums.http.TryAgain`` for a "too frequent" that a wait may cure.
        """
        return None

    def error_page(self, text: str, source: str) -> NotAThreadError | None:
        """The forum's own message when an answer is a message page instead of the thread."""
        return self.pages.error_page(text, source)

    def origin(self, ref: ThreadRef) -> str:
        """The board a thread is of (``Thread.origin``)."""
        return origin_of(ref.base)

    def thread_url(self, thread_id: str) -> str | None:
        """The thread's URL from its id alone, on a platform whose every forum is one site
        (Tieba); None where the board must be known (Discuz!)."""
        return None

    @abstractmethod
    def post_url(self, ref: ThreadRef, post_id: str) -> str:
        """A link that opens the thread at one floor."""

    @abstractmethod
    def author_url(self, ref: ThreadRef, author: str, author_id: str | None) -> str | None:
        """A link to one player's posts alone (the elevator thread, RULES A2), when one exists."""

    def author_id_url(self, ref: ThreadRef, author_id: str) -> str | None:
        """The same link from the account's id alone, before it has posted (the game file's
        id), where the platform builds one from the id; None elsewhere."""
        return None

    def read_page(
        self, ref: ThreadRef, number: int, get: Getter, tz: tzinfo, boards: Boards | None = None
    ) -> Page:
        """Page ``number`` with everything it needs (Tieba also asks for its 楼中楼)."""
        request = self.page_request(ref, number)
        url = request.url
        text = get(request).text(url)
        page = self.pages.parse_page(text, tz, source=url, thread_id=ref.thread_id, boards=boards)
        if page.page != number:
            # Forums answer a page past the end with the last page; that is not page ``number``.
            raise PageMismatchError(
                tr("{url} returned page {page} instead of page {wanted}.", url=url,
                   page=page.page, wanted=number)
            )
        return page

    def desktop_url(self, url: str, ref: ThreadRef) -> tuple[str, str] | None:
        """The page every command reads instead of the URL given, and why, when the URL asks
        for another view of the thread than the one tally reads (``tally doctor``)."""
        return None

    # -- posting (where the platform posts: no_posting is "") -------------------------------

    def reply_form(self, text: str, page_url: str, charset: str) -> ReplyForm | None:
        """The reply form of a thread page as the cookies' member sees it; None when the page
        has none (a closed thread, a theme that moved it)."""
        raise PostError(tr(self.no_posting))

    def interface_form(self, ref: ThreadRef, ask: Ask) -> ReplyForm | Unserved | None:
        """What the platform's client interface gives the cookies' member to reply to the
        thread with (Discuz!'s mobile interface), asked before the page's form: None where
        the platform has no such interface, ``Unserved`` (why) where the board does not
        serve it; the caller then posts through the page's form (``reply_form``)."""
        return None

    def send_reply(self, form: ReplyForm, text: str, ref: ThreadRef, submit: Submit) -> Accepted:
        """``text`` sent once as a reply through ``form``: the new post, or one sentence for
        each refusal (``MaybePosted`` when the thread may hold it)."""
        raise PostError(tr(self.no_posting))
