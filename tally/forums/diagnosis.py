"""What tally reads from one page of a board, field by field, and where (``tally doctor``).

The first thing a director runs on a new board, and what they paste into a bug report: the
page is read (a URL as the forum answers it, or a saved file) and its platform's pages say
what they find in it (``Pages.diagnose``): for each field a count of the posts it was found
in, the places it was found, an example, and what could not be read. A page that is no
thread page says what it is instead.
"""

from __future__ import annotations

import dataclasses
from datetime import tzinfo
from pathlib import Path
from urllib.parse import urlsplit

from tally.errors import InputError, NotAThreadError, ParseError
from tally.files import PAGE, read_capped
from tally.forums import PLATFORMS, resolve_url
from tally.forums.api import PAGES
from tally.forums.boards import Boards
from tally.forums.charset import decode_page
from tally.forums.fields import Diagnosis, FieldFound, read_whole
from tally.forums.reader import Reader
from tally.i18n import tr

__all__ = ["Diagnosis", "FieldFound", "diagnose", "look"]


def look(source: str, reader: Reader, tz: tzinfo) -> Diagnosis:
    """Read one page (a URL, as the forum answers it, or a saved file) and diagnose it."""
    status = None
    url_known: bool | None = None
    instead = ""
    way: tuple[str, str | None] = ("", None)
    if "://" in source:
        url = source
        try:
            platform, ref = resolve_url(source)
            url_known = True
            # Every command reads the view of the thread tally reads, and so does doctor.
            url, instead = platform.desktop_url(source, ref) or (url, "")
        except InputError:
            url_known = False
        else:
            if platform.api is not None and platform.api.probe_request(ref) is None:
                return _through_api(source, platform.title, reader, tz)  # no HTML pages live
            # Every command reads the board the one way; the page is diagnosed all the same
            # (its pages are the fallback).
            way = reader.way(url, tz) if platform.api is not None else (PAGES, None)
        if urlsplit(source).scheme not in ("http", "https"):
            raise InputError(tr("{url} is not an http or https URL.", url=repr(source)))
        response = reader.page(url)
        status = response.status
        try:
            text = decode_page(response.body, response.headers.get("content-type"), source=source)
        except ParseError as exc:  # a diagnosis too (--json prints it)
            return Diagnosis(source, "", url_known=url_known, status=status, problem=str(exc))
    else:
        path = Path(source)
        if not path.is_file():
            raise InputError(tr("no such file: {path}.", path=source))
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
        found.posts, found.fields, instead, *way,
    )  # fmt: skip


def _through_api(source: str, title: str, reader: Reader, tz: tzinfo) -> Diagnosis:
    """A live thread whose pages an API answers (no HTML page to read field by field): read
    as every command reads it, each essential field in every post, or what stopped it."""
    try:
        thread = reader.thread(source, tz)
    except (NotAThreadError, ParseError) as exc:
        return Diagnosis(source, title, url_known=True, problem=str(exc))
    by = tr("the {forum} reader, every page of its API", forum=title)
    found = read_whole(source, title, thread.posts, by)
    return dataclasses.replace(found, url_known=True)


def diagnose(text: str, tz: tzinfo, source: str, boards: Boards | None = None) -> Diagnosis:
    """What tally reads from the page ``text``, field by field."""
    software = next((p for p in PLATFORMS if p.pages.recognises(text)), None)
    if software is None:
        return Diagnosis(source, "", problem=tr("no forum tally knows rendered this page."))
    return software.pages.diagnose(text, tz, source, boards)
