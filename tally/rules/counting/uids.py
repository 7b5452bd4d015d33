"""Whose account each post is, by the uid the page shows beside it, held against the game
file's ids and against tally's earlier reads of the game's threads.

A count reads the day's vote thread, its discussion thread when it counts 加速 requests, and
the earlier days' vote threads (``Carried.read``); each as the forum shows it now and as
every read tally kept of it showed it (``Thread.history``: an old post shows its author's
name of the day it is read). Over those threads:

- an account id the game file gives that no post carries, while the account's name posts
  under another uid in the vote thread, is a slip of the file (a typo in the id): counted, the
  player's every post would be a look-alike's, void, and the outcome turn with exit 0. It
  stops (``check_ids``). A look-alike beside the account's own posts (``bob。``, a Cyrillic
  ``о``, the same name on another uid) stays a look-alike; so does one whose name is not the
  file's as written (anyone may register ``bob。``: a stranger could stop every count);
- without an id for a player, tally knows the player by the name alone: a name that another
  uid carried in an earlier read (an account renamed and the name taken, two accounts that
  swapped names between days) is flagged with both uids (``accounts_note``).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from tally.errors import GameFileError
from tally.i18n import N_, ntr, tr
from tally.model import Thread, Writing
from tally.rules.counting.guards import Exempt
from tally.rules.game.cast import Cast
from tally.rules.game.game import Game
from tally.rules.game.names import ANONYMOUS, author_key
from tally.rules.judging.ballots import Flag, floors_text
from tally.times import short


@dataclass(frozen=True)
class Seen:
    """An account seen under a name in a thread: at each read that showed it so, oldest
    first (None: saved pages, which say nothing of when)."""

    uid: str
    names: tuple[str, ...]  # the account's name, and on Tieba the nickname shown beside it
    thread_id: str
    reads: tuple[datetime | None, ...]

    def reads_by(self, until: datetime | None) -> tuple[datetime | None, ...]:
        """The reads that showed it by ``until`` (all of them without a time to hold them
        to), oldest first."""
        return tuple(w for w in self.reads if w is None or until is None or w <= until)

    def where(self, game: Game, when: datetime | None) -> str:
        if when is None:
            return tr("tally's read of thread {thread}", thread=self.thread_id)
        return tr("tally's read of thread {thread}, {at}", thread=self.thread_id,
                  at=short(when.astimezone(game.timezone)))  # fmt: skip


# Each thread's accounts, made once a thread (a count asks for the earlier days' threads once
# for each day after them), kept by the thread's id while it lives, as ``Thread.writings``.
_SEEN: dict[int, tuple[Seen, ...]] = {}


def seen_in(thread: Thread) -> tuple[Seen, ...]:
    """Every account the thread shows, under the names it showed: as read now and in each
    read tally kept of it (an anonymous post, 匿名, under that name: a moderator is shown its
    uid); a writing the page shows no uid for is no account's."""
    made = _SEEN.get(id(thread))
    if made is not None:
        return made
    reads = [(thread.read_at, thread.posts)]
    if thread.history is not None:
        reads += [(v.read_at, v.posts) for v in thread.history.versions]
    found: dict[tuple[str | None, str, str | None], set[datetime | None]] = {}
    for when, posts in reads:
        for post in posts:
            found.setdefault((post.author_id, post.author, post.author_display), set()).add(when)
            for c in post.comments:
                found.setdefault((c.author_id, c.author, c.author_display), set()).add(when)
    made = tuple(
        Seen(uid, tuple(dict.fromkeys(n for n in (name, display) if n)), thread.thread_id,
             tuple(sorted(times, key=lambda t: (t is not None, t or _EPOCH))))
        for (uid, name, display), times in found.items()
        if uid and name
    )  # fmt: skip
    _SEEN[id(thread)] = made
    weakref.finalize(thread, _SEEN.pop, id(thread), None)
    return made


_EPOCH = datetime.fromtimestamp(0, UTC)


def _threads(thread: Thread, others: Iterable[Thread]) -> list[Thread]:
    """The thread, then the others, each once (the vote thread may be among them)."""
    return list({id(t): t for t in (thread, *others)}.values())


def check_ids(
    game: Game,
    thread: Thread,
    others: Iterable[Thread] = (),
    *,
    cast: Cast,
    exempt: Exempt | None = None,
) -> None:
    """Stop (GameFileError) on an account id of the game file that no post of ``thread`` or
    ``others`` carries (in any read tally kept of them), while the account's name, exactly as
    the file writes it, posts under another uid in ``thread``: a typo of the id, most likely,
    and the account's posts would be a look-alike's. A post under the file's own id that
    shows a new name (a renamed account) is the account's; one under a name the file gives
    another of its accounts is not. Writings ``exempt`` names (a floor the director has
    ruled on) are left out."""
    if not game.ids:
        return
    accounts: dict[tuple[str, str], set[str]] = {}
    for name, uid in game.ids.items():
        who = game.author(name, None, uid)
        if who.role is not None and who.name is not None:
            accounts.setdefault((who.role, who.name), set()).add(uid)
    threads = _threads(thread, others)
    given = set(game.ids.values())
    seen = [s for t in threads for s in seen_in(t) if s.uid in given]
    for (role, owner), uids in accounts.items():
        mine = [s for s in seen if s.uid in uids]
        if any(_carries(game, s, role, owner) for s in mine):
            continue
        names = {author_key(n) for n in (owner, *game.aliases.get(owner, ()))}
        posts = [
            w
            for w in thread.writings()
            if w.author_id
            and w.author_id not in uids
            and cast.of(w).lookalike == owner
            and any(author_key(n) in names for n in (w.author, w.author_display) if n)
            and not (exempt is not None and exempt(thread, w))
        ]
        if posts:
            raise GameFileError(_slip(game, role, owner, sorted(uids), posts, mine, threads))


def _carries(game: Game, seen: Seen, role: str, owner: str) -> bool:
    """Whether a post under one of the account's ids is the account's: under its own name,
    or a new one; not under a name the file gives another of its accounts (a player's uid
    typed for another, who has no id of their own in the file)."""
    for name in seen.names:
        held = game.author(name)
        if held.role is None or (held.role, held.name) == (role, owner):
            return True
    return False


def _slip(
    game: Game,
    role: str,
    owner: str,
    uids: list[str],
    posts: list[Writing],
    mine: list[Seen],
    threads: Sequence[Thread],
) -> str:
    """The sentence for an id of the file that no post carries: the account, the id the file
    gives, the uid(s) its name posts under and where, and how to mend the file."""
    read = tr(", ").join(t.thread_id for t in threads)
    elsewhere = ""
    if mine:  # the id posts, under a name the file gives another account
        other = sorted({s.names[0] for s in mine})
        elsewhere = tr(" but as {names}, another account of the file",
                       names=tr(" and ").join(other))  # fmt: skip
    theirs = sorted({w.author_id for w in posts if w.author_id}, key=_order)
    fields = {
        "game": game.where(), "role": tr(_ROLES.get(role, role)), "owner": owner,
        "given": tr(" or ").join(uids), "elsewhere": elsewhere,
        "threads": ntr("thread {ids}", "threads {ids}", len(threads), ids=read),
        "under": ntr("uid {uids}", "uids {uids}", len(theirs), uids=tr(" and ").join(theirs)),
        "thread": posts[0].post.thread_id, "floors": floors_text(w.post.floor for w in posts),
        "fix": f'{{ name = "{owner}", id = {theirs[0] if len(theirs) == 1 else "…"} }}',
    }  # fmt: skip
    if len(theirs) == 1:
        return tr("{game} gives the {role} {owner} the account id {given}, and no post in "
                  "tally's reads of {threads} comes from it{elsewhere}; {owner}'s name posts "
                  "under {under} (thread {thread}, {floors}): if uid {uid} is {owner}'s account, "
                  "give {owner} that id ({fix}); if it is another account that took the name, "
                  'rule on {floors} ([[rulings]], action = "void").', uid=theirs[0],
                  **fields)  # fmt: skip
    return tr("{game} gives the {role} {owner} the account id {given}, and no post in tally's "
              "reads of {threads} comes from it{elsewhere}; {owner}'s name posts under {under} "
              "(thread {thread}, {floors}): if one of them is {owner}'s account, give {owner} "
              "that id ({fix}); if it is another account that took the name, rule on {floors} "
              '([[rulings]], action = "void").', **fields)  # fmt: skip


# The roles an account has in a game (``Author.role``), as a sentence names them.
_ROLES = {"player": N_("player"), "director": N_("director"), "outsider": N_("outsider")}


def accounts_note(
    game: Game, thread: Thread, others: Iterable[Thread] = (), *, cast: Cast
) -> tuple[Flag, ...]:
    """Said once when the forum shows account ids and the game file gives none: players are
    told apart by their names alone, and a look-alike name is another account. And, for a
    player the file gives no id, a name carried by another uid than in tally's earlier
    reads of ``thread`` and ``others``."""
    if not any(w.author_id for w in thread.writings()):
        return ()
    taken = _names_carried(game, thread, others, cast)
    if game.has_ids:
        return tuple(taken)
    generic = Flag("accounts", tr(
        "the game file gives no account ids, so players are known by their names alone (a "
        "renamed player is lost, a look-alike account is told apart only by its spelling); "
        'give each its id, players = [{ name = "bob", id = 3 }] (the uid of its space page), '
        "or let tally init write them"))  # fmt: skip
    return (generic, *taken)


def _names_carried(game: Game, thread: Thread, others: Iterable[Thread], cast: Cast) -> list[Flag]:
    """A player known by name alone whose name another account posts under now than the one
    tally read under it before (in this thread, or in the earlier days' it read): the forum
    renamed the player's account and let another take the name (found on the real X3.5), or
    two accounts swapped names between days; each takes the other's ballots and weight."""
    given = set(game.ids.values())
    now: dict[str, dict[str, Writing]] = {}  # player -> uid -> its first writing here
    for w in thread.writings():
        player = cast.of(w).player
        if w.author_id and w.author_id not in given and player is not None:
            now.setdefault(player, {}).setdefault(w.author_id, w)
    # player -> uid -> the thread and the last read that showed the uid under the name
    before: dict[str, dict[str, tuple[Seen, datetime | None]]] = {}
    whose: dict[tuple[str, ...], str | None] = {}  # each name's player, by the name alone
    for t in _threads(thread, others):
        for s in seen_in(t):
            if s.uid in given or s.names[0] == ANONYMOUS:  # 匿名 is no one's name
                continue
            if s.names not in whose:
                whose[s.names] = game.author(*s.names[:2]).player
            player, reads = whose[s.names], s.reads_by(thread.read_at)
            if player not in now or not reads:
                continue
            last = reads[-1]
            held = before.setdefault(player, {}).get(s.uid)
            if held is None or _later(last, held[1]):
                before[player][s.uid] = (s, last)
    flags = []
    for player, uids in now.items():
        earlier = {u: s for u, s in before.get(player, {}).items() if u not in uids}
        if len(uids) < 2 and not earlier:
            continue
        w = next(iter(uids.values()))
        flags.append(Flag("accounts", _carried(game, player, sorted(uids, key=_order), earlier),
                          player, w.post.floor, w.item_id))  # fmt: skip
    return flags


def _order(uid: str) -> tuple[int, str]:
    """Ids in their numbers' order (an archive's may be any text)."""
    return len(uid), uid


def _later(a: datetime | None, b: datetime | None) -> bool:
    return a is not None and (b is None or a > b)


def _carried(
    game: Game, player: str, uids: list[str], earlier: dict[str, tuple[Seen, datetime | None]]
) -> str:
    now = ntr("uid {uids}", "uids {uids}", len(uids), uids=tr(" and ").join(uids))
    if earlier:
        [(first, (seen, when)), *_] = sorted(earlier.items(), key=lambda e: _order(e[0]))
        said = tr("{player} posts from {now} now, and tally read {player}'s posts from uid "
                  "{first} before ({where}): the forum may have renamed that account and let "
                  "another take the name, or two accounts swapped names", player=player,
                  now=now, first=first, where=seen.where(game, when))  # fmt: skip
    else:
        said = tr("{player} posts from {now} now: two accounts under one name", player=player,
                  now=now)  # fmt: skip
        first = uids[0]
    return tr(
        "{said}; counted as {player} by the name alone, ballots and weight. Give the players' "
        'ids (players = [{{ name = "{player}", id = {first} }}]) to know them apart',
        said=said,
        player=player,
        first=first,
    )
