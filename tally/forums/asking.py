"""What a platform asks a forum and what the forum answers: a ``Request`` (a page, or an API
call), its ``Answer``, and the ``Getter`` that answers it, from the forum or the cache. Apart
from ``tally.forums.base`` so that the door for non-HTML answers (``tally.forums.api``) and
the platforms share them without a circle."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from tally.forums.charset import decode_page


@dataclass(frozen=True)
class Request:
    """What a platform needs answered: a page (GET ``url``) or an API call (POST ``body``)."""

    url: str
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()
    # What the request is, for messages ("page 3 of thread 88", "the 楼中楼 of floor 7").
    what: str = ""
    # The thread page it answers, when it is one (a 404 for page 1 is a missing thread).
    page: int | None = None
    # Read whatever the forum's robots.txt says: the board's admin lets tally read it (a
    # board profile says so), or it is an interface the board serves its own clients.
    past_robots: bool = False
    # Follow a redirect (False: the answer is the redirect itself, ``Answer.status``).
    redirects: bool = True

    @property
    def key(self) -> str:
        """What the cache files the answer under: the URL, and for a POST its body's hash."""
        if self.body is None:
            return self.url
        return f"{self.url}#{hashlib.sha256(self.body).hexdigest()[:24]}"

    @property
    def name(self) -> str:
        return self.what or self.url


@dataclass(frozen=True)
class Answer:
    body: bytes
    content_type: str | None = None
    # 200, or the redirect a request that follows none was answered with (or, through an
    # interface, a 404 whose body says why).
    status: int = 200
    # When the forum made it, by its clock (a cached answer: when it was fetched); None
    # where nobody said.
    at: datetime | None = None

    def text(self, source: str) -> str:
        return decode_page(self.body, self.content_type, source=source)


class Getter(Protocol):
    """Answers requests for a platform: from the forum, or from the cache where allowed.

    Raises tally's errors for anything but a good answer.
    """

    def __call__(self, request: Request) -> Answer: ...

    def cached(self, request: Request) -> Answer | None:
        """The cached answer when the cache may be trusted for it (not before the close,
        not with --fresh); None otherwise. Never asks the forum."""
        ...

    def cookie(self, name: str, url: str) -> str | None:
        """A cookie's value from the director's cookie file, for ``url``'s host."""
        ...

    def allows(self, url: str) -> bool:
        """Whether the forum's robots.txt lets tally read ``url`` (always, reading only
        from the cache)."""
        ...
