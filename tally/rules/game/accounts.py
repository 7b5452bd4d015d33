"""Who the director means by a name or an account id typed on the command line (`tally cards
add|remove|keep|list`): a player, as the game file names them.

A person is an account. The game file may give each player's account id (``players = [{
name = "bob", id = 3 }]``), and tally's reads of the game's threads show the name each
account posted under when read: a forum lets a player rename their account mid-game (uid 3
posts as "bobby" from day 2), and the director copies the name from the page. So a name is

- the game file's name of a player, or one of their aliases, as ever;
- else the name an account posts under now, by tally's newest read that shows it, when the
  file gives that account's id to a player (a rename tally knows);
- else nobody's: refused, with the closest names (did you mean …?).

``uid:3`` (also ``UID:3``, ``uid：3``) names the account by its id: the player the file gives
that id, or, in a file that gives no ids, the player whose name the account posts under now.
A bare number is a name (forum names may be digits). A name that is a player's in the game
file and another account's on the page now (bob renamed, and carol took "bob") cannot be
told, and is refused with both uids: the card would go to one person or the other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from tally.errors import InputError
from tally.i18n import tr
from tally.model import History
from tally.rules.game.game import Game
from tally.rules.game.names import ANONYMOUS, Roster, author_key
from tally.times import short

UID = re.compile(r"^\s*uid\s*[:：]\s*(\d+)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Shown:
    """The name(s) an account showed in tally's newest read that held a post of it."""

    uid: str
    names: tuple[str, ...]  # the account's name, and on Tieba the nickname shown beside it
    read_at: datetime
    thread_id: str

    def shows(self, name: str) -> bool:
        return any(author_key(n) == author_key(name) for n in self.names)

    def read(self, game: Game) -> str:
        when = short(self.read_at.astimezone(game.timezone))
        return tr("tally's read of thread {thread}, {when}", thread=self.thread_id, when=when)


def names_now(kept: Iterable[tuple[str, History]]) -> dict[str, Shown]:
    """Each account's name as the newest read that showed a post of it showed it, from the
    threads' kept histories (thread id, history): an old post shows its author's name of
    the day it is read, not of the day it was written."""
    now: dict[str, Shown] = {}
    for thread_id, history in kept:
        for version in history.versions:
            for post in version.posts:
                writers = [(post.author_id, post.author, post.author_display)]
                writers += [(c.author_id, c.author, c.author_display) for c in post.comments]
                for uid, name, display in writers:
                    if not uid or not name or name == ANONYMOUS:
                        continue
                    held = now.get(uid)
                    if held is None or version.read_at >= held.read_at:
                        names = tuple(dict.fromkeys(n for n in (name, display) if n))
                        now[uid] = Shown(uid, names, version.read_at, thread_id)
    return now


@dataclass(frozen=True)
class Named:
    """The player a name or an id typed names, and how, when not by the file's name."""

    player: str
    how: str = ""


def named_player(game: Game, typed: str, now: Mapping[str, Shown]) -> Named:
    """The player ``typed`` names: a name (the file's, or one an account posts under now,
    ``now`` from ``names_now``) or ``uid:N``; InputError with one sentence when it names
    nobody, or cannot be told."""
    found = UID.match(typed)
    if found is not None and game.author(typed).player is None:  # a player called so is theirs
        return _by_uid(game, found.group(1), now)
    return _by_name(game, typed.strip(), now)


def _owner(game: Game, uid: str) -> str | None:
    """The game file's name of the account it gives the id ``uid``, if any."""
    return next((name for name, given in game.ids.items() if given == uid), None)


def _with_ids(game: Game) -> bool:
    """Whether the game file gives any player's account its id (a director's may be alone)."""
    return any(game.author(name).player is not None for name in game.ids)


def _player_of(game: Game, uid: str) -> str | None:
    """The player the game file gives the account ``uid`` to, if any."""
    owner = _owner(game, uid)
    return game.author(owner, author_id=uid).player if owner is not None else None


def _by_uid(game: Game, uid: str, now: Mapping[str, Shown]) -> Named:
    where, shown = game.where(), now.get(uid)
    player = _player_of(game, uid)
    if player is not None:
        return Named(player, tr("uid {uid} is {player}'s account in {game}", uid=uid,
                                player=player, game=where))  # fmt: skip
    owner = _owner(game, uid)
    if owner is not None:
        if game.author(owner, author_id=uid).is_director:
            raise InputError(tr("uid {uid} is {owner}'s account in {game}, a director, not a "
                                "player.", uid=uid, owner=owner, game=where))  # fmt: skip
        raise InputError(tr("uid {uid} is {owner}'s account in {game}, an outsider, not a "
                            "player.", uid=uid, owner=owner, game=where))  # fmt: skip
    if shown is not None and not _with_ids(game):
        for name in shown.names:
            player = game.author(name).player
            if player is not None:
                how = tr("uid {uid} posts as {name}, {player}'s name in {game} ({read})",
                         uid=uid, name=name, player=player, game=where,
                         read=shown.read(game))  # fmt: skip
                return Named(player, how)
    seen = (
        tr("{read} shows it as {names}", read=shown.read(game), names=" / ".join(shown.names))
        if shown is not None
        else tr("no read of the game's threads by tally shows it")
    )
    gives = (tr("the file gives no player that id") if _with_ids(game)
             else tr("the file gives its players no account ids"))  # fmt: skip
    raise InputError(tr("uid {uid} is no player's account in {game}: {gives}; {seen}.", uid=uid,
                        game=where, gives=gives, seen=seen))  # fmt: skip


def _by_name(game: Game, typed: str, now: Mapping[str, Shown]) -> Named:
    player = game.author(typed).player
    if player is not None:
        _not_taken(game, typed, player, now)
        return Named(player)
    renamed: dict[str, list[Shown]] = {}  # the names each player's account posts under now
    for s in now.values():
        whose = _player_of(game, s.uid)
        if whose is not None:
            renamed.setdefault(whose, []).append(s)
    theirs = {p: s for p, shown in renamed.items() for s in shown if s.shows(typed)}
    if len(theirs) == 1:
        [(player, s)] = theirs.items()
        return Named(player, tr("{name} is the name {player}'s account (uid {uid}) posts under "
                                "now ({read})", name=typed, player=player, uid=s.uid,
                                read=s.read(game)))  # fmt: skip
    if theirs:
        each = tr("; ").join(tr("{player}'s, uid {uid} ({read})", player=p, uid=s.uid,
                                read=s.read(game)) for p, s in theirs.items())  # fmt: skip
        uids = tr(" or ").join(f"uid:{s.uid}" for s in theirs.values())
        raise InputError(tr("{name} is the name of {n} players' accounts in tally's reads "
                            "({each}); give the account's id: {uids}.", name=repr(typed),
                            n=len(theirs), each=each, uids=uids))  # fmt: skip
    spellings = {p: [*game.aliases.get(p, ()), *(n for s in renamed.get(p, ()) for n in s.names)]
                 for p in game.players}  # fmt: skip
    close = Roster(game.players, spellings).suggest(typed)
    name, where = repr(typed), game.where()
    said = (tr("{name} is not a player of {game} (did you mean {close}?)", name=name, game=where,
               close=tr(" or ").join(close)) if close
            else tr("{name} is not a player of {game}", name=name, game=where))  # fmt: skip
    posting = next((s for s in now.values() if s.shows(typed)), None)
    if posting is not None and not _with_ids(game):
        why = tr("uid {uid} posts under it now, and the file gives its players no ids to say "
                 'whose account that is: give each player its id, players = [{{ name = "bob", '
                 "id = 3 }}], or name the player as the file does", uid=posting.uid)  # fmt: skip
    elif posting is not None:
        why = tr("it is the name uid {uid} posts under now, no player's account", uid=posting.uid)
    else:
        raise InputError(tr("{said}.", said=said))
    raise InputError(tr("{said}; {why}.", said=said, why=why))


def _not_taken(game: Game, typed: str, player: str, now: Mapping[str, Shown]) -> None:
    """A player's name in the file that another account posts under now: whom the director
    means cannot be told (the page's name, or the file's)."""
    mine = sorted(uid for name, uid in game.ids.items() if game.author(name).player == player)
    if not mine:
        return  # no ids: a name is the file's, and tally tells accounts by name alone
    other = next((s for s in now.values() if s.uid not in mine and s.shows(typed)), None)
    if other is None:
        return
    raise InputError(tr(
        "{name} is {player}'s name in {game} (uid {uid}), and the name uid {other} posts under "
        "now ({read}): give the account's id, uid:{uid} for {player}, or uid:{other}.",
        name=repr(typed), player=player, game=game.where(), uid=mine[0], other=other.uid,
        read=other.read(game)))  # fmt: skip
