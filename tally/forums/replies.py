"""A reply as a platform takes it, whatever the forum: the reply form a thread page shows its
logged-in member (or the platform's client interface gives it: ``Platform.interface_form``),
the forum's acceptance of a reply, and the checks every form passes before anything is sent.
Each platform that posts reads its own form and sends through it (``Platform.reply_form``,
``Platform.send_reply``); ``tally.commands.post`` holds the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from tally.errors import PostError
from tally.i18n import tr

if TYPE_CHECKING:
    from tally.forums.http import Explain, Response

# How a reply is sent: through the thread page's form, or the platform's client interface.
PAGE_FORM, INTERFACE = "form", "api"


@dataclass(frozen=True)
class ReplyForm:
    """The reply form of a thread page, as the logged-in member sees it, or what the
    platform's client interface gives its member to reply with (``via``)."""

    action: str  # absolute URL of the form's action
    # The hidden fields, in page order. They hold the session's form hash, a secret of the
    # member's session: never shown, not even in a repr.
    fields: tuple[tuple[str, str], ...] = field(repr=False)
    charset: str  # what the board reads the message in
    uid: str  # "0": a guest
    member: str  # the logged-in member's name ("" for a guest)
    page_url: str  # the page the form was read from (the Referer a browser sends)
    # What the form asks a person for with each reply ("验证码", "验证问答"), "" for nothing.
    asks: str = ""
    # The board's longest post (in bytes of its charset), when the page says.
    max_chars: int | None = None
    via: str = PAGE_FORM


@dataclass(frozen=True)
class Unserved:
    """A board that does not serve its platform's client interface (its admin turned it
    off, an anti-bot page stands in front of it): why, in words a director reads, which name
    what the board answered and never repeat its body."""

    why: str


@dataclass(frozen=True)
class Accepted:
    pid: str
    url: str  # where the forum says the post is


class Ask(Protocol):
    """One GET as the member's own client makes it (the cookies, never the cache): the
    answer whatever its status."""

    def __call__(self, url: str) -> Response: ...


class Submit(Protocol):
    """One POST as a person makes it: sent once, never retried (``Http.submit``)."""

    def __call__(
        self, url: str, body: bytes, headers: dict[str, str], explain: Explain | None = None
    ) -> Response: ...


def member_check(form: ReplyForm, board: str) -> None:
    """A form of a guest is no form to post with: said before anything is sent."""
    if form.uid == "0":
        raise PostError(
            tr(
                "the cookie file does not log tally in to {board} (the page shows a guest): "
                "export the cookies again from a browser that is logged in as the director.",
                board=board,
            )
        )


def person_check(form: ReplyForm) -> None:
    """A form that wants a person to read a code or answer a question: said before anything
    is sent (by `tally watch --post` at its start, hours before the close)."""
    if form.asks:
        raise PostError(
            tr(
                "the board asks {member} for a {asks} with each reply, which only a person can "
                "give: tally cannot post there; post by hand (or ask the board's admin to "
                "exempt the director's group).",
                member=form.member,
                asks=form.asks,
            )
        )
