"""The director's posts and tally's own in a vote thread: never ballots of their own (V8).

A director posts the opening post, 催票, notices, rulings and results; tally posts the same
through ``--post``. None of them is a ballot, whatever words it holds (tally's 催票 says
"法官代投时限：…", its result lists 代投超时 among the 废票). A director's post is a ballot
only as a proxy ballot, in its form: a line that says whom it is for (``代投：南瓜``; read by
``tally.rules.judging.ballot_text``). tally's own posts are never ballots at all: known by the
journal of posts beside the game file (the post id the forum gave it), or by tally's mark on
the last line of a director's post.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

from tally.vocabulary import Announcement

if TYPE_CHECKING:
    from tally.model import Post
    from tally.rules.game.cast import Cast
    from tally.rules.game.game import Game

# tally's mark, the last line of every post it makes (``tally.rules.counting.closed.mark``), of any
# day and kind: the game's hash, the day, the kind, and a result's outcome code.
_KINDS = "|".join(a.value for a in Announcement)
_MARK = re.compile(
    rf"tally#(?P<game>[0-9a-f]{{8}})/d(?P<day>[0-9]{{1,6}})/(?P<kind>{_KINDS})(?:/(?P<code>[0-9a-f]{{6}}))?"
)


def _hashes(game: Game) -> frozenset[str]:
    return frozenset(hashlib.sha256(k.encode("utf-8")).hexdigest()[:8] for k in game.post_keys)


def last_mark(text: str, game: Game) -> re.Match[str] | None:
    """tally's mark of this game (any day, any kind) when it is the last line of ``text``
    that shows something, where tally puts it (``tally.commands.post.final_text``): its
    ``day``, ``kind`` and a result's outcome ``code``. A mark anywhere else in a post (a
    player's 投票理由 quoting one, shown again in tally's result) is words, never a mark."""
    last = next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "")
    m = _MARK.fullmatch(last)
    return m if m is not None and m.group("game") in _hashes(game) else None


def marked(text: str, game: Game) -> bool:
    """Whether ``text`` ends with tally's mark of this game (``last_mark``)."""
    return last_mark(text, game) is not None


def tallys_own(post: Post, game: Game, cast: Cast) -> bool:
    """Whether tally posted ``post``: its id is in the journal of posts, or a director's
    account posted it with tally's mark of this game on its last line."""
    if post.post_id in game.own_posts:
        return True
    return cast.of(post).is_director and marked(post.text, game)
