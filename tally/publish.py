"""Posting the result: tally's announcement replied into the day's thread as the director.

Discuz! only, through the forum's own fast-reply form (``tally.forums.posting``), with the
cookie file the director already gives tally. The safety rules, in the order they are
checked:

1. only where the platform posts (Discuz!; on Tieba its client API wants the BDUSS login
   and trips Baidu's risk control): elsewhere the text is printed to paste by hand;
2. never a provisional count (the caller refuses those as `tally announce` does), never
   a count a check of the game file stopped (the count raised before there is a post);
3. never twice: the thread is read again first, and a director's post that already holds
   the post's heading (its first line) stops it;
4. only as a director of the game, logged in (the page must show the member);
5. asked on the terminal unless ``yes`` (tally watch --post is unattended by design);
6. sent once, never retried;
7. read back: the new post is looked up in the thread and its text compared with what was
   sent; a difference is reported (``Posted.difference``), never hidden.

    from tally.publish import post_text
    posted = post_text(game, game.day(2), "close", text, reader=reader, yes=True)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

from tally.errors import FetchError
from tally.forums import platform_of, resolve_url
from tally.forums.charset import charset_of, decode_page
from tally.forums.posting import (
    Accepted,
    AlreadyPosted,
    PostError,
    ReplyForm,
    ajax_url,
    form_body,
    member_check,
    person_check,
    read_answer,
    reply_form,
)
from tally.forums.reader import Reader
from tally.model import Thread, ThreadRef
from tally.outputs.announce import BBCODE_TAG
from tally.outputs.results import Posted
from tally.rules.game import Day, Game
from tally.times import short
from tally.vocabulary import Announcement

# Ask the person at the terminal; None when there is nobody to ask.
Confirm = Callable[[str], "bool | None"]


def heading(text: str) -> str:
    """The post's first line, without markup: what "this post again" is looked for by."""
    for line in text.splitlines():
        plain = _markup_free(line).strip()
        if plain:
            return plain
    return ""


def where_to_post(game: Game, day: Day, kind: Announcement) -> tuple[str, ThreadRef]:
    """The thread a post goes in: the vote thread (the result, the reminder), the day's
    discussion thread for the morning and elevator posts when the file names one."""
    url = day.vote
    if kind in (Announcement.MORNING, Announcement.ELEVATOR) and day.discussion:
        url = day.discussion
    return url, resolve_url(url)[1]


def post_text(
    game: Game,
    day: Day,
    kind: Announcement,
    text: str,
    *,
    reader: Reader,
    yes: bool = False,
    confirm: Confirm | None = None,
) -> Posted:
    """Post ``text`` (the announcement of ``kind`` for ``day``) as a reply, under the rules
    of this module's docstring; PostError with one sentence when any stops it."""
    url, ref = where_to_post(game, day, kind)
    platform = platform_of(ref)
    if platform.no_posting:  # Tieba: see README, Posting the result
        raise PostError(platform.no_posting)
    head = heading(text)
    thread = _read(reader, url, game)
    _never_twice(game, thread, head)
    form = ready(game, ref, thread.page_count, reader)
    if not yes:
        asked = confirm(f"Post this to {url} as {form.member}?") if confirm else None
        if asked is None:
            raise PostError(
                "there is no terminal to ask before posting: add --yes to post without asking."
            )
        if not asked:
            raise PostError("not posted: you said no.")
    accepted = _send(form, text, ref, reader)
    at = reader.now().astimezone(game.timezone)
    link = platform.post_url(ref, accepted.pid)
    floor, difference = _read_back(reader, url, game, accepted.pid, text)
    return Posted(kind, day.day, accepted.pid, link, url, at, form.member, floor, difference)


def ready(game: Game, ref: ThreadRef, page: int, reader: Reader) -> ReplyForm:
    """The reply form of the thread's page ``page`` as the cookies' member sees it, checked:
    logged in, as a director of the game. `tally watch --post` asks this at its start, so
    that a wrong cookie file is said hours before the close, not at it."""
    platform = platform_of(ref)
    if platform.no_posting:
        raise PostError(platform.no_posting)
    page_url = platform.page_url(ref, page)
    answer = reader.page(page_url)
    if answer.status != 200:
        raise FetchError(f"{page_url} answered HTTP {answer.status}: no form to post with.")
    content_type = answer.headers.get("content-type")
    text = decode_page(answer.body, content_type, source=page_url)
    form = reply_form(text, page_url, charset_of(answer.body, content_type))
    board = ref.base
    if form is None:
        raise PostError(
            f"{page_url} has no reply box (the thread is closed, or the board's theme puts it "
            "elsewhere): post by hand."
        )
    member_check(form, board)
    if not game.is_director(form.member, None, form.uid):
        who = game.author(form.member, None, form.uid)
        also = (
            f" ({form.member} is uid {form.uid}; the director {who.lookalike} is uid "
            f"{who.lookalike_id})"
            if who.lookalike
            else ""
        )
        raise PostError(
            f"the cookies log tally in as {form.member}, who is not a director of "
            f"{game.where()}{also}: tally posts as the director only (add the account to "
            "directors if it is one)."
        )
    person_check(form)
    return form


def _read(reader: Reader, url: str, game: Game) -> Thread:
    [thread] = reader.read([url], game.timezone)
    return thread


def _never_twice(game: Game, thread: Thread, head: str) -> None:
    if not head:
        raise PostError("the post has no first line to know it by; tally does not post it.")
    for p in thread.posts:
        if game.is_director(p.author, p.author_display) and head in _markup_free(p.text):
            raise AlreadyPosted(
                f"floor {p.floor} of the thread already holds this post ({head}), posted by "
                f"{p.author} at {short(p.time)}: tally posts it once."
            )


def _send(form: ReplyForm, text: str, ref: ThreadRef, reader: Reader) -> Accepted:
    body = form_body(form, text)
    headers = {
        "Content-Type": f"application/x-www-form-urlencoded; charset={form.charset}",
        "Referer": form.page_url,
    }

    def explain(raw: bytes, content_type: str | None) -> PostError | None:
        # X3.5 answers a formhash it did not issue with HTTP 503, "System Error".
        try:
            read_answer(503, {}, raw.decode(form.charset, errors="replace"), ref.base)
        except PostError as exc:
            return exc
        return None

    answer = reader.http.submit(ajax_url(form), body, headers, explain)
    said = decode_page(answer.body, answer.headers.get("content-type"), source="the answer")
    return read_answer(answer.status, answer.headers, said, ref.base)


def _read_back(
    reader: Reader, url: str, game: Game, pid: str, text: str
) -> tuple[int | None, str | None]:
    thread = _read(reader, url, game)
    found = next((p for p in thread.posts if p.post_id == pid), None)
    if found is None:
        return None, f"the thread does not show post {pid} (yet): look at it before posting again"
    return found.floor, difference(text, found.text)


_SPACE = re.compile(r"[\s\u200b\u200c\u200d\u2060\ufeff]+")


def _markup_free(text: str) -> str:
    return BBCODE_TAG.sub("", text)


def _plain(text: str) -> str:
    return _SPACE.sub("", unicodedata.normalize("NFKC", text))


def difference(sent: str, shown: str) -> str | None:
    """Where the post as the forum shows it differs from the text sent (its markup, spaces
    and line breaks aside: a player's "[b]" made inert shows as typed); None when it does
    not."""
    a, b = _plain(_markup_free(sent)), _plain(shown)
    if a == b:
        return None
    pairs = enumerate(zip(a, b, strict=False))
    at = next((i for i, (x, y) in pairs if x != y), min(len(a), len(b)))
    return (
        f"the forum shows {b[max(0, at - 12) : at + 24]!r} where tally sent "
        f"{a[max(0, at - 12) : at + 24]!r}"
    )


# -- tally watch --post / --remind-at: unattended ---------------------------------------------


def kept_path(game: Game, day: int, kind: Announcement) -> Path:
    """Where the text of a post that failed is kept, to paste by hand: beside the game file."""
    folder = game.path.parent if game.path is not None else Path.cwd()
    stem = game.path.stem if game.path is not None else "game"
    return folder / f"{stem}.day{day}.{kind}.txt"


def post_or_keep(
    game: Game, day: Day, kind: Announcement, text: str, *, reader: Reader,
    keep: Path | None = None,
) -> Posted:  # fmt: skip
    """Post unattended; when it fails, the text goes to ``keep`` (else beside the game file)
    and the sentence says where: the director pastes it by hand."""
    from tally.atomic import write_atomic

    try:
        return post_text(game, day, kind, text, reader=reader, yes=True)
    except AlreadyPosted:
        raise  # it is in the thread: nothing to paste
    except (PostError, FetchError) as exc:
        path = keep or kept_path(game, day.day, kind)
        try:
            if keep is None or not path.exists():
                write_atomic(path, text.encode("utf-8"))
        except OSError as err:
            raise PostError(f"{str(exc).rstrip('.')}; and the text could not be kept in {path} "
                            f"({err.strerror}): it is printed above.") from None  # fmt: skip
        raise PostError(f"{str(exc).rstrip('.')}. The {kind} post is in {path}, to paste by "
                        "hand.") from None  # fmt: skip
