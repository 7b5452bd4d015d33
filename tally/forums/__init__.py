"""Forum platforms, and how a URL or a saved file finds its own."""

from __future__ import annotations

import functools
import re
from urllib.parse import urlsplit

from tally.errors import InputError
from tally.forums.base import Platform
from tally.forums.boards import Boards
from tally.forums.discuz import Discuz
from tally.forums.tieba import Tieba
from tally.i18n import tr
from tally.model import ThreadRef
from tally.vocabulary import Markup

PLATFORMS: tuple[Platform, ...] = (Discuz(), Tieba())


def by_name(name: str) -> Platform:
    for platform in PLATFORMS:
        if platform.name == name:
            return platform
    raise InputError(tr("tally knows no forum platform called {name}.", name=repr(name)))


@functools.lru_cache(maxsize=256)  # the game's few threads, resolved again at every turn of a run
def resolve_url(url: str) -> tuple[Platform, ThreadRef]:
    """The platform and thread a pasted URL names; an unknown shape is the director's to fix."""
    stripped = url.strip()
    if "://" not in stripped:
        raise InputError(
            tr(
                "{url} is not a full URL; paste it with its http:// or https:// prefix.",
                url=repr(stripped),
            )
        )
    try:
        # urlsplit raises on a malformed host ("http://[::1/…") or port, only when asked.
        parts = urlsplit(stripped)
        parts.port  # noqa: B018
    except ValueError as exc:
        raise InputError(
            tr("{url} is not a URL tally can read ({why}).", url=repr(stripped), why=exc)
        ) from None
    if any(c.isspace() or ord(c) < 0x20 for c in parts.netloc):
        raise InputError(
            tr("{url} has a space or a control character in its host.", url=repr(stripped))
        )
    claims = [(p, ref) for p in PLATFORMS if (ref := p.match_url(stripped)) is not None]
    if len(claims) == 1:
        return claims[0]
    if claims:  # pragma: no cover - the platforms' shapes are disjoint (tested)
        names = ", ".join(p.name for p, _ in claims)
        raise InputError(
            tr(
                "{url} is claimed by several forum platforms ({names}).",
                url=repr(stripped),
                names=names,
            )
        )
    raise InputError(
        tr(
            "{url} is not a thread URL tally knows ({shapes}).",
            url=repr(stripped),
            shapes=url_shapes(),
        )
    )


_NUMBER = re.compile(r"(?<=[/-])\d+(?=[-./]|$)")


def url_shape(url: str, platform: Platform) -> tuple[str, frozenset[str]]:
    """An example URL as a shape: its path from the board's root, the thread's id as N and
    the page as P (in the query, any other number as "…"); and its query's parts."""
    ref = platform.match_url(url)
    if ref is None:  # every example is its platform's (tests/test_house.py)
        raise ValueError(f"{platform.title}'s example URL {url} is not its own")

    def number(value: str, other: str) -> str:
        if value == ref.thread_id:
            return "N"
        return "P" if ref.page > 1 and value == str(ref.page) else other

    parts, root = urlsplit(url), urlsplit(ref.base).path
    path = _NUMBER.sub(lambda m: number(m.group(), m.group()), parts.path)
    path = path[len(root) - 1 :] if path.startswith(root) else path
    query = tuple(
        f"{k}={number(v, '…') if v.isdigit() else v}"
        for k, _, v in (item.partition("=") for item in parts.query.split("&") if item)
    )
    return path + ("?" + "&".join(query) if query else ""), frozenset(query)


def url_shapes() -> str:
    """The URL shapes tally reads, per platform, from each one's example URLs: a shape that
    is another's with more parameters is left out (any extra parameters are read)."""
    said = []
    for platform in PLATFORMS:
        shapes = [url_shape(url, platform) for url in platform.example_urls]
        kept: list[str] = []
        for shape, query in shapes:
            path = shape.split("?")[0]
            covered = any(
                other != shape and other.split("?")[0] == path and more < query
                for other, more in shapes
            )
            if not covered and shape not in kept:
                kept.append(shape)
        said.append(f"{platform.title}: {', '.join(kept)}")
    return "; ".join(said)


def platform_of(ref: ThreadRef) -> Platform:
    """The platform a resolved thread belongs to."""
    return by_name(ref.platform)


def recognise_text(text: str, source: str) -> Platform:
    """The platform that rendered a saved page."""
    for platform in PLATFORMS:
        if platform.pages.recognises(text):
            return platform
    raise InputError(tr("{source} is not a saved page of a forum tally can read.", source=source))


__all__ = [
    "PLATFORMS",
    "Platform",
    "ThreadRef",
    "by_name",
    "platform_of",
    "recognise_text",
    "resolve_url",
]


def markup_for(ref: ThreadRef, boards: Boards | None = None) -> Markup:
    """What an announcement for the thread ``ref`` is written in: the markup a board profile
    says its board renders, else its platform's (BBCode for Discuz!, plain text for Tieba)."""
    board = boards.for_host(urlsplit(ref.base).hostname) if boards is not None else None
    if board is not None and board.markup is not None:
        return board.markup
    return platform_of(ref).markup
