"""What tally reads from one page of a board, field by field, and where (``tally doctor``).

The first thing a director runs on a new board, and what they paste into a bug report: for
each field a count of the posts it was found in, the places it was found (the selector or
fallback, as the readers of ``tally.forums.discuz_post`` name them), an example, and what
could not be read. A page that is no thread page says what it is instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tally.errors import InputError, ParseError, TallyError
from tally.files import PAGE, read_capped
from tally.forums import PLATFORMS, resolve_url
from tally.forums.base import Pages, PageText
from tally.forums.boards import DEFAULT, Board, Boards
from tally.forums.charset import decode_page
from tally.forums.discuz import DiscuzPages, place
from tally.forums.discuz_post import READERS, PostFields
from tally.forums.reader import Reader
from tally.times import long


@dataclass(frozen=True)
class FieldFound:
    """One field over the page's posts (or the page itself): how often, where, an example."""

    name: str
    essential: bool
    found: int
    of: int
    # The places it was found, most used first, with how many posts each answered.
    where: tuple[tuple[str, int], ...] = ()
    example: str = ""
    # What could not be read, as tally says it (the first few).
    missing: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return self.found == self.of


@dataclass(frozen=True)
class Diagnosis:
    source: str
    software: str  # "Discuz!", "Tieba", or "" when tally knows no forum in the page
    board: Board = DEFAULT
    # Whether tally knows the shape of the URL (a file: None).
    url_known: bool | None = None
    status: int | None = None  # the HTTP status, for a URL
    # Why the page is no thread page tally can read; None when it is one.
    problem: str | None = None
    posts: int = 0
    fields: tuple[FieldFound, ...] = field(default_factory=tuple)
    # What tally read instead of the URL given, and why ("" when it read that URL).
    read_instead: str = ""

    @property
    def missing(self) -> tuple[FieldFound, ...]:
        return tuple(f for f in self.fields if f.essential and not f.complete)

    @property
    def readable(self) -> bool:
        return self.problem is None and not self.missing


def look(source: str, reader: Reader, tz: tzinfo) -> Diagnosis:
    """Read one page (a URL, as the forum answers it, or a saved file) and diagnose it."""
    status = None
    url_known: bool | None = None
    instead = ""
    if "://" in source:
        url = source
        try:
            platform, ref = resolve_url(source)
            url_known = True
            if isinstance(platform.pages, DiscuzPages) and _touch(source):
                # The URL a phone shows: the forum answers it with its touch template,
                # another page than the one tally reads; every command reads the desktop
                # page of the same thread, and so does doctor.
                url = platform.page_url(ref, ref.page)
                instead = (
                    f"the touch template's URL (mobile=…): tally reads the desktop page {url} "
                    "instead, as every command does; give that URL"
                )
        except InputError:
            url_known = False
        if urlsplit(source).scheme not in ("http", "https"):
            raise InputError(f"{source!r} is not an http or https URL.")
        response = reader.page(url)
        status = response.status
        try:
            text = decode_page(response.body, response.headers.get("content-type"), source=source)
        except ParseError as exc:  # a diagnosis too (--json prints it)
            return Diagnosis(source, "", url_known=url_known, status=status, problem=str(exc))
    else:
        path = Path(source)
        if not path.is_file():
            raise InputError(f"no such file: {source}.")
        body = read_capped(path, "saved page", PAGE)
        for platform in PLATFORMS:  # a view of a thread saved by mistake (archiver, mobile)
            refused = platform.pages.saved_refusal(body, source)
            if refused is not None:
                return Diagnosis(source, platform.title, problem=str(refused))
        try:
            text = decode_page(body, None, source=source)
        except ParseError as exc:
            return Diagnosis(source, "", problem=str(exc))
    found = diagnose(text, tz, source, reader.boards)
    return Diagnosis(
        found.source, found.software, found.board, url_known, status, found.problem,
        found.posts, found.fields, instead,
    )  # fmt: skip


def _touch(url: str) -> bool:
    """Whether a Discuz! URL asks for the touch (phone) template: mobile=2 (X3), mobile=yes
    or mobile=1 (X2)."""
    from urllib.parse import parse_qs

    return bool(parse_qs(urlsplit(url).query).get("mobile"))


def diagnose(text: str, tz: tzinfo, source: str, boards: Boards | None = None) -> Diagnosis:
    """What tally reads from the page ``text``, field by field."""
    software = next((p for p in PLATFORMS if p.pages.recognises(text)), None)
    if software is None:
        return Diagnosis(source, "", problem="no forum tally knows rendered this page.")
    pages = software.pages
    if not isinstance(pages, DiscuzPages):
        return _by_parsing(pages, text, tz, source, boards)
    page = pages.open(text, tz, source, boards, naming=True)
    nodes = pages.post_nodes(page)
    if not nodes:
        message = pages.error_page(text, source)
        why = str(message) if message is not None else (
            "it holds no posts tally can find (div#post_N, table#pidN, or a board profile's "
            "post selectors)."
        )
        return Diagnosis(source, pages.title, page.board, problem=why)
    try:
        frame = pages.frame(page, nodes)
    except TallyError as exc:
        return Diagnosis(source, pages.title, page.board, problem=str(exc), posts=len(nodes))
    page_fields = [
        _page_field("thread id", True, frame.thread_id, frame.found["thread_id"]),
        _page_field("page", True, f"{frame.page} of {frame.page_count}", frame.found["page"]),
        _page_field("page count", True, str(frame.page_count), frame.found["page_count"]),
        _page_field("title", False, frame.title or None, frame.found["title"]),
    ]
    tid = frame.thread_id or "?"
    post_fields = _post_fields(page, nodes, tid, frame.page)
    return Diagnosis(
        source, pages.title, page.board, problem=None, posts=len(nodes),
        fields=(*page_fields, *post_fields),
    )  # fmt: skip


def _page_field(name: str, essential: bool, value: str | None, where: str) -> FieldFound:
    if value is None:
        return FieldFound(name, essential, 0, 1, missing=(f"{where}.",))
    return FieldFound(name, essential, 1, 1, ((where, 1),), value)


# How each post field is shown as an example.
_SHOWN: dict[str, Callable[[Any], str]] = {
    "floor": str,
    "author": lambda v: v[0],
    "time": lambda v: long(v) if isinstance(v, datetime) else str(v),
    "body": lambda v: "(hidden by the forum)" if v is None else v.text().strip()[:30],
}


def _post_fields(page: PageText, nodes: list[Any], tid: str, number: int) -> list[FieldFound]:
    names = ("post id", "floor", "author", "uid", "time", "body")
    wheres: dict[str, Counter[str]] = {n: Counter() for n in names}
    examples: dict[str, str] = {}
    missing: dict[str, list[str]] = {n: [] for n in names}
    for index, node in enumerate(nodes):
        try:
            fields = PostFields(node, place(page, tid, number), index)
        except ParseError as exc:
            missing["post id"].append(str(exc))
            continue
        wheres["post id"][fields.pid_where] += 1
        examples.setdefault("post id", fields.pid)
        for name, read in READERS.items():
            try:
                value, where = read(fields)
            except ParseError as exc:
                missing[name].append(str(exc))
                continue
            wheres[name][where] += 1
            examples.setdefault(name, _SHOWN[name](value))
            if name == "author":
                uid = value[1]
                if uid is None:
                    missing["uid"].append(f"post {fields.pid}: {value[0]} has no uid in its link.")
                else:
                    wheres["uid"][where] += 1
                    examples.setdefault("uid", uid)
    return [
        FieldFound(
            name,
            name != "uid",  # guests and anonymous posts have none
            sum(wheres[name].values()),
            len(nodes),
            tuple(wheres[name].most_common()),
            examples.get(name, ""),
            tuple(missing[name][:3]),
        )
        for name in names
    ]


def _by_parsing(
    pages: Pages, text: str, tz: tzinfo, source: str, boards: Boards | None
) -> Diagnosis:
    """A software whose pages tally reads one way only (Tieba's saved pages): parsed whole."""
    try:
        parsed = pages.parse_saved(text, tz, source=source, boards=boards)
    except TallyError as exc:
        return Diagnosis(source, pages.title, problem=str(exc))
    posts = getattr(parsed, "posts", ())
    where = ((f"the {pages.title} reader", len(posts)),)
    fields = tuple(
        FieldFound(name, True, len(posts), len(posts), where)
        for name in ("post id", "floor", "author", "time", "body")
    )
    return Diagnosis(source, pages.title, problem=None, posts=len(posts), fields=fields)
