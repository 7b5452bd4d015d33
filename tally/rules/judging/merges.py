"""A day's vote thread merged with another of its threads (合并), told apart post by post.

A moderator's merge (Discuz! topicadmin ``action=merge``) moves every post of one thread
into another, which keeps its own tid; each post keeps its id, which is the board's. When
the discussion thread is merged INTO the vote thread, the discussion's posts come in (the
``moved_in`` rows of ``tally.rules.judging.judge``). When the vote thread is merged into the
discussion thread, the vote thread is gone ("主题不存在") and the director points the day's
vote at the discussion thread: the ballots are then posts "moved in", and the discussion's
own ``投票对象`` lines stand beside them (counted, and the ballots not, before this module).

tally's cache keeps what the game file made of each thread when a read first found each of
its posts (``tally.forums.cache.ThreadCache.roles``: each day's role, and ``unsure`` for the
posts a read could not tell: new when the day's vote thread was found merged in, or when
the thread, read as another of the day's threads before, became its vote thread with posts
older than the last read). From it, in the day's vote thread (RULES S2: a vote is cast in
the day's vote thread):

- a post first read in that day's vote thread elsewhere, wherever it stands now, is a
  ballot (moved in from the vote thread: flagged); one first read in another thread is not
  (``moved_in``);
- where such posts show the merge, a post first read here as the day's discussion thread's
  is no ballot (``discussion``);
- where the game file shows a mend instead (a thread it names otherwise now was read as
  that day's vote thread: the two URLs swapped), the thread's posts are its own ballots;
- where neither shows (a mistyped URL mended since, or a vote thread tally never read
  merged in: they look the same), and wherever tally cannot tell (``unsure``; a post read
  without the game file in a merged thread), the count stops unless the director ruled on
  the floor (``[[rulings]]``).

And in the lurker count (RULES L1, L2): a post moved in from the day's vote thread, or
accepted as cast there, is a ballot, not a discussion post.
"""

from __future__ import annotations

from enum import Enum

from tally.model import Thread, Writing
from tally.rules.game.game import Day, Game
from tally.rules.verdicts import RulingAction, ThreadRole

# The cache's word for a post its first read could not tell (tally.forums.cache.UNSURE).
UNSURE = "unsure"
VOTE = str(ThreadRole.VOTE)
DISCUSSION = str(ThreadRole.DISCUSSION)


class Seen(Enum):
    """What one post of a day's vote thread was when tally first read it."""

    BALLOT = "its own"  # read in the vote thread, or nothing says otherwise (as before)
    FROM_VOTE = "moved in from the vote thread"  # first read in the day's vote thread elsewhere
    MOVED_IN = "moved in"  # first read in another thread, not the day's vote thread
    DISCUSSION = "discussion"  # first read as the day's discussion thread's, in this thread
    UNSURE = "unsure"  # cannot be told: stop unless ruled on


def day_roles(thread: Thread, post_id: str, day: int) -> frozenset[str] | None:
    """The roles the game gave ``post_id``'s thread on ``day`` when tally first read the post
    there (``unsure`` among them where that read could not tell); None when no read of the
    game kept them for the post (a cache written before they were kept)."""
    roles = thread.read_as.get(post_id)
    if roles is None:
        return None
    return frozenset(r for d, r in roles if d == day)


def is_discussion_thread(thread: Thread, day: Day) -> bool:
    ref = day.ref(ThreadRole.DISCUSSION)
    return ref is not None and ref.key == thread.key


def seen_in_vote_thread(thread: Thread, day: Day | None) -> dict[str, Seen]:
    """What each post of ``day``'s vote thread ``thread`` was when tally first read it (post
    id -> ``Seen``). What the cache kept of the thread's own posts counts only where the
    thread shows a merge: posts first read in the day's vote thread elsewhere, or posts
    tally could not tell; elsewhere the game file named the thread wrongly before (a
    discussion URL pasted for the vote's, the two swapped) and its posts are its own."""
    if day is None:
        return {p.post_id: Seen.MOVED_IN if p.post_id in thread.moved_in else Seen.BALLOT
                for p in thread.posts}  # fmt: skip
    roles = {p.post_id: day_roles(thread, p.post_id, day.day) for p in thread.posts}
    discussion = is_discussion_thread(thread, day)
    seen: dict[str, Seen] = {}
    unknown: list[str] = []  # its own posts that no read with the game file kept
    for pid, mine in roles.items():
        if mine is not None and UNSURE in mine:
            seen[pid] = Seen.UNSURE
        elif pid in thread.moved_in:
            # From a thread read without the game file, or by a tally that kept no roles,
            # into the day's discussion thread: its old vote thread, perhaps.
            told = Seen.UNSURE if not mine and discussion else Seen.MOVED_IN
            seen[pid] = Seen.FROM_VOTE if mine and VOTE in mine else told
        elif mine and VOTE not in mine:
            # Read here as another of the day's threads (its discussion thread) while the
            # game file named another thread the vote thread: posted there, no ballot (S2).
            seen[pid] = Seen.DISCUSSION
        else:
            seen[pid] = Seen.BALLOT
            if not mine:
                unknown.append(pid)
    if any(s is Seen.FROM_VOTE for s in seen.values()):
        # A merge, known by its posts (first read in the day's vote thread elsewhere): its own
        # posts read as the discussion's are no ballots; one read without the game file
        # cannot be told.
        seen |= dict.fromkeys(unknown, Seen.UNSURE)
    elif day.day in thread.mended:
        # No merge: the game file named the threads wrongly then (a thread it names otherwise
        # now was read as the day's vote thread), mended since. Read as discussion rows, its
        # ballots were none (the wrong player out, exit 0).
        seen = {pid: Seen.BALLOT if s is Seen.DISCUSSION else s for pid, s in seen.items()}
    elif any(s in (Seen.DISCUSSION, Seen.UNSURE) for s in seen.values()):
        # Read as another of the day's threads before, and no post says a merge nor the file
        # a mend: a vote thread tally never read (or read only elsewhere) merged in, its
        # ballots newer than the last read, looks like a mended file. The posts read under
        # the other role are asked about, never taken for discussion rows nor for ballots
        # (cold reads: each guess put the wrong player out, exit 0).
        seen = {pid: Seen.UNSURE if s is Seen.DISCUSSION else s for pid, s in seen.items()}
        seen |= dict.fromkeys(unknown, Seen.UNSURE)
    return seen


def cast_in_vote_thread(game: Game, day: Day, thread: Thread | None, w: Writing) -> bool:
    """Whether ``w``, in ``day``'s discussion thread ``thread``, was cast in the day's vote
    thread: tally first read it in another thread, as the day's vote thread's and not the
    discussion thread's, or
    could not tell and the director accepted it as a ballot. Then it is a ballot, no
    discussion post (L1, L2), whichever thread it stands in now."""
    roles = day_roles(thread, w.post.post_id, day.day) if thread is not None else None
    if roles is None:
        return False
    if UNSURE in roles:
        return any(r.day == day.day and r.action == RulingAction.ACCEPT
                   and r.names(w.post, w.comment_index) for r in game.rulings)  # fmt: skip
    # Only a post read first in another thread (its vote thread, merged in since): one first
    # read in this thread while the game file named it the vote thread alone was posted here
    # all the same (that file mended since; its posts read as ballots carded their authors
    # for too few posts, L1).
    moved = thread is not None and w.post.post_id in thread.moved_in
    return moved and VOTE in roles and DISCUSSION not in roles
