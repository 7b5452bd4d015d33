"""The text tally posts and the text the thread shows of it (``tally.commands.post``'s rules
3 and 8, and the edited copy rule 4 looks for): made once (``final_text``: tally's mark last,
spaces plain, invisible characters out), within the board's charset and its size, and,
markup and spaces aside, held against a post the thread shows: an announcement with its mark
edited out (``edited_copy``), the post read back (``difference``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from tally.errors import PostError
from tally.forums.reader import Reader
from tally.forums.replies import ReplyForm
from tally.i18n import tr
from tally.model import Post, Thread
from tally.rules.counting.closed import mark, outcome_code
from tally.rules.game.game import Day, Game
from tally.vocabulary import BBCODE_TAG, INERT_BBCODE, Announcement

# Spaces a board shows as something else, or that GBK cannot hold: one plain space; and
# characters that show as nothing: gone (a player's invisible characters never stop a post).
_AS_SPACE = dict.fromkeys(map(ord, "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                              "\u2007\u2008\u2009\u200a\u202f\u205f"), " ")  # fmt: skip
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)


def final_text(game: Game, day: int, kind: Announcement, text: str,
               outcome: Mapping[str, Any] | None = None) -> str:  # fmt: skip
    """The text as tally posts it, made once, so that what is checked, kept and shown is what
    is sent: line breaks as "\n", the spaces of ``_AS_SPACE`` plain, invisible characters out
    (the zero-width space ``inert`` breaks a player's tag with becomes ``INERT_BBCODE``), and
    tally's ``mark`` on the last line (a closing post's with its ``outcome``'s code, by which
    a recount knows what was posted: tally.rules.counting.closed)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("[\u200b", INERT_BBCODE).translate(_AS_SPACE).translate(_INVISIBLE)
    own = mark(game, day, kind)
    if outcome and Announcement(kind) is Announcement.CLOSE:
        own += "/" + outcome_code(outcome.get("result"), outcome.get("player"))
    # Made once: a text that ends with this mark already is this text. A mark anywhere
    # else (a player's 投票理由 quoting one) is words: the mark goes last all the same.
    if text.rstrip().rsplit("\n", 1)[-1].strip() == own:
        return text
    return text.rstrip("\n") + f"\n\n{own}\n"


def check_size(form: ReplyForm, text: str) -> None:
    """The body against the forum's limit on a post's length (the form's ``max_chars``, which
    the forum counts in bytes of the board's charset: 3 a Chinese character in UTF-8), said
    in its own sentence before anything is sent."""
    if form.max_chars is None:
        return
    size = len(text.encode(form.charset, errors="replace"))
    if size > form.max_chars:
        raise PostError(
            tr("the post is {size} bytes in the board's {charset} and the board "
               "takes at most {most} (its maxpostsize): shorten the template, or post "
               "it in two parts by hand.", size=size, charset=form.charset.upper(),
               most=form.max_chars)
        )


def players_unheld(text: str, charset: str, game: Game, thread: Thread, reader: Reader) -> str:
    """Characters of the text the board's charset cannot hold (an emoji on a GBK board) that
    only players wrote (in the thread: a reason, a name) become "?", said in a warning:
    nothing a player writes stops the post. One the director's own text holds (the game's
    name, a template) is the director's to change: the platform refuses it, named, before
    it sends."""
    codec = charset.lower()
    unheld = {c for c in set(text) if not _holds(c, codec)}
    if not unheld:
        return text
    # Each writing by its own author: a player's 点评 under the director's floor is theirs,
    # the director's under a player's floor is not.
    cast = game.cast()
    theirs = "".join(
        w.text + w.author + (w.author_display or "")
        for w in thread.writings()
        if not cast.of(w).is_director
    )
    if any(c not in theirs for c in unheld):
        return text
    if reader.how.warn is not None:
        shown = "".join(sorted(unheld))
        reader.how.warn(
            tr("the board reads posts as {charset}, which cannot hold {shown!r} that "
               "players wrote: posted as '?'.", charset=charset.upper(), shown=shown)
        )
    return text.translate({ord(c): "?" for c in unheld})


def _holds(char: str, codec: str) -> bool:
    try:
        char.encode(codec)
    except UnicodeEncodeError:
        return False
    return True


def _ends(text: str, own: str) -> tuple[str, str] | None:
    """The first and the last line of ``text`` that show something (markup aside), the
    lines with the mark ``own`` left out: a post's heading and, in a result, its outcome."""
    lines = [ln for ln in text.splitlines() if own not in ln and _plain(_markup_free(ln))]
    if len(lines) < 2:
        return None
    return lines[0], lines[-1]


def ends_said(text: str, own: str) -> str:
    """The heading and the last line ``_ends`` finds, quoted, for a sentence."""
    ends = _ends(text, own)
    if ends is None:
        return ""
    first, last = (repr(_markup_free(ln).strip()) for ln in ends)
    return tr("{first} and {last}", first=first, last=last)


def edited_copy(game: Game, day: Day, kind: Announcement, thread: Thread, text: str) -> Post | None:
    """Without the journal (a copy of the game file elsewhere, another machine): the post of
    the thread that is this announcement with tally's mark edited out (a director tidying
    the odd-looking line). The rule: a post by a director's account (by its id when the
    file gives it), whenever posted (by either clock), that holds both the first line of
    the text tally would post (the heading: the game, the day, the kind) and its last line
    before the mark (a result's outcome, in the built-in templates), markup and spaces
    aside. The same kind of post for the same day, whatever else was edited."""
    ends = _ends(text, mark(game, day.day, kind))
    if ends is None:
        return None
    head, last = (_plain(_markup_free(ln)) for ln in ends)
    cast = game.cast()
    for p in thread.posts:
        if cast.of(p).is_director:
            body = _plain(p.text)
            if head in body and last in body:
                return p
    return None


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
    return tr("the forum shows {shown!r} where tally sent {sent!r}",
              shown=b[max(0, at - 12) : at + 24], sent=a[max(0, at - 12) : at + 24])
