"""Who wrote what: each post's author as the game file's accounts say (``Accounts``), an
``Author``, decided once a count for every stage of it (``Cast``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from tally.rules.game.names import author_key, normalise


@dataclass(frozen=True)
class Author:
    """Who wrote a post, as the game file knows its accounts (``Game.author``)."""

    role: str | None  # "player", "director", "outsider"; None: no account of the game
    name: str | None = None  # the player, director or outsider as the file names them
    # A name the file gives to another account (its id differs): a look-alike, never it.
    lookalike: str | None = None
    lookalike_id: str | None = None
    # The account's id is the file's, its name is not (the forum renamed it).
    renamed: bool = False

    @property
    def player(self) -> str | None:
        return self.name if self.role == "player" else None

    @property
    def is_director(self) -> bool:
        return self.role == "director"


class Signed(Protocol):
    """What was written by someone: a post, a 楼中楼, a writing."""

    @property
    def author(self) -> str: ...
    @property
    def author_display(self) -> str | None: ...
    @property
    def author_id(self) -> str | None: ...


@dataclass(frozen=True)
class Cast:
    """Who wrote what in one count (``Game.cast``): each account decided once, from the game
    file's accounts, when a stage first asks, and the same answer to every stage after it, so
    that no two stages can take one account for two people."""

    decide: Callable[[str, str | None, str | None], Author] = field(repr=False)
    _known: dict[tuple[str, str | None, str | None], Author] = field(
        default_factory=dict, repr=False, compare=False
    )

    def of(self, w: Signed) -> Author:
        key = (w.author, w.author_display, w.author_id)
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = self.decide(*key)
        return found


@dataclass(frozen=True)
class Accounts:
    """The game file's accounts (players and their aliases, directors, outsiders, the ids
    given), and who wrote a post by them (``author``)."""

    players: tuple[str, ...]
    aliases: Mapping[str, tuple[str, ...]]
    directors: tuple[str, ...]
    outsiders: tuple[str, ...]
    ids: Mapping[str, str]

    @cached_property
    def _maps(self) -> tuple[dict[str, tuple[str, str]], ...]:
        """The file's accounts by id, by name (``author_key``) and by the name folded
        (``normalise``: what a look-alike shares): (role, whose)."""
        by_id: dict[str, tuple[str, str]] = {}
        by_name: dict[str, tuple[str, str]] = {}
        by_fold: dict[str, tuple[str, str]] = {}
        names: list[tuple[str, str, str]] = [(p, "player", p) for p in self.players]
        names += [(a, "player", p) for p, spellings in self.aliases.items() for a in spellings]
        names += [(d, "director", d) for d in self.directors]
        names += [(o, "outsider", o) for o in self.outsiders]
        for name, role, owner in names:
            by_name.setdefault(author_key(name), (role, owner))
            by_fold.setdefault(normalise(name), (role, owner))
            uid = self.ids.get(name)
            if uid is not None:
                by_id.setdefault(uid, (role, owner))
        return by_id, by_name, by_fold

    def _ids_of(self, role: str, owner: str) -> set[str]:
        by_id = self._maps[0]
        return {uid for uid, held in by_id.items() if held == (role, owner)}

    def author(
        self, author: str, display: str | None = None, author_id: str | None = None
    ) -> Author:
        """Who wrote a post: by its author's account id when the file gives ids (whatever the
        account is called now), else by its name, exactly (``author_key``: "bob。" is not
        "bob"); a name the file gives to an account with another id is a look-alike."""
        by_id, by_name, by_fold = self._maps
        if author_id and author_id in by_id:
            role, owner = by_id[author_id]
            known = {author_key(n) for n, uid in self.ids.items() if uid == author_id}
            renamed = not any(author_key(n) in known for n in (author, display) if n)
            return Author(role, owner, renamed=renamed)
        for name in (author, display):
            if not name:
                continue
            held = by_name.get(author_key(name))
            if held is None:
                continue
            theirs = self._ids_of(*held)
            if author_id and theirs:
                return Author(None, lookalike=held[1], lookalike_id=min(theirs))
            return Author(*held)
        for name in (author, display):
            held = by_fold.get(normalise(name)) if name else None
            if held is not None:  # "bob。", "Bob": another account, named like one of the game
                theirs = self._ids_of(*held)
                return Author(None, lookalike=held[1], lookalike_id=min(theirs, default=None))
        return Author(None)
