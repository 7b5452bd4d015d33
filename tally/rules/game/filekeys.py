"""The game file's values, checked one key at a time (``Checker``): each mistake one
sentence naming the file and the key, because the director edits the file by hand at
closing time. What the file's tables hold is gamefile's (the top level, rulings) and
dayblocks' ([[days]]).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tally.errors import GameFileError, InputError, clause
from tally.forums import resolve_url
from tally.i18n import tr
from tally.model import ThreadRef
from tally.rules.game.names import normalise
from tally.rules.game.overrides import parse_number
from tally.times import instant, wall_time

# What `tally init` writes where only the director knows the value (a day's close).
PLACEHOLDER = "TODO"


class Checker:
    """The values of one game file, checked as its keys are read; what it holds: every
    name claimed so far (two that read the same are an error) and each account's id."""

    def __init__(self, source: str) -> None:
        self.source = source
        # Each account's forum id, by the name the file gives it; and whose each id is.
        self.ids: dict[str, str] = {}
        self.id_owner: dict[str, tuple[str, str]] = {}
        # Every name the file gives, under the one folding tally compares names in
        # (tally.rules.game.names.normalise): folded -> (what it is, whose it is, as written).
        self.claimed: dict[str, tuple[str, str, str]] = {}

    def fail(self, key: str, problem: str) -> GameFileError:
        return GameFileError(tr("{source}, key {key}: {problem}.", source=self.source,
                                key=repr(key), problem=problem))  # fmt: skip

    def unknown_keys(self, table: Mapping[str, Any], allowed: set[str], prefix: str) -> None:
        for key in table:
            if key not in allowed:
                close = difflib.get_close_matches(key, sorted(allowed), n=1)
                said = (tr("is not a key tally knows (did you mean {close}?)", close=repr(close[0]))
                        if close else tr("is not a key tally knows"))  # fmt: skip
                raise self.fail(f"{prefix}{key}", said)

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, tr("must be a non-empty string"))
        return value.strip()

    def names(self, value: Any, key: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.fail(key, tr("must be a list of names"))
        return tuple(self.string(v, key) for v in value)

    def accounts(self, value: Any, key: str, owner: str | None = None) -> tuple[str, ...]:
        """A list of accounts: each a name, or ``{ name = "bob", id = 3 }`` with the
        account's forum id (Discuz! uid, Tieba user id) beside it. ``owner``: the player
        whose aliases they are (an alias may be the player's account under its old name)."""
        if not isinstance(value, list):
            raise self.fail(key, tr("must be a list of names"))
        out = []
        for v in value:
            if not isinstance(v, dict):
                out.append(self.string(v, key))
                continue
            self.unknown_keys(v, {"name", "id"}, f"{key}.")
            if "name" not in v:
                raise self.fail(key, tr("{table} has no name", table=repr(dict(v))))
            name = self.string(v["name"], f"{key}.name")
            if "id" in v:
                self.account_id(name, v["id"], key, owner or name)
            out.append(name)
        return tuple(out)

    def account_id(self, name: str, value: Any, key: str, owner: str) -> None:
        raw = str(value).strip() if isinstance(value, int | str) else ""
        if isinstance(value, bool) or not raw.isascii() or not raw.isdigit():
            raise self.fail(f"{key}.id", tr("the id of {name} must be a number, like 3 (its uid)",
                                            name=repr(name)))  # fmt: skip
        uid = str(int(raw))
        held = self.id_owner.get(uid)
        if held is not None and held[1] != owner:
            said = tr("{name} and {other} are given one id, {uid}: one account",
                      name=repr(name), other=repr(held[0]), uid=uid)  # fmt: skip
            raise self.fail(f"{key}.id", said)
        self.id_owner.setdefault(uid, (name, owner))
        self.ids[name] = uid

    def claim(self, name: str, key: str, what: str, owner: str) -> None:
        """Register a name; two names that read the same to tally are an error naming both.

        Names are compared after NFKC, invisible characters and case (Mika, mika, Ｍｉｋａ
        and Mi<U+200B>ka are one name), so two such names would silently be one player.
        """
        folded = normalise(name)
        if not folded:
            raise self.fail(key, tr("{name} has no visible character", name=repr(name)))
        held = self.claimed.get(folded)
        if held is None:
            self.claimed[folded] = (what, owner, name)
            return
        other_what, other_owner, other_name = held
        if what == "alias" and other_owner == owner and other_what in ("player", "alias"):
            return  # a player's own name again: harmless
        role = {
            "player": tr("a player"),
            "alias": tr("an alias of {player}", player=other_owner),
            "director": tr("a director"),
            "outsider": tr("an outsider"),
        }[other_what]
        if name == other_name:
            raise self.fail(key, tr("{name} is already {role}", name=repr(name), role=role))
        raise self.fail(key, tr("{name} and {other} ({role}) are one name to tally (both read "
                                "{folded}); rename one", name=repr(name), other=repr(other_name),
                                role=role, folded=repr(folded)))  # fmt: skip

    def number(
        self, value: Any, key: str, *, low: Decimal = Decimal(0), high: Decimal = Decimal(100)
    ) -> Decimal:
        """A weight or a bonus: a finite number within bounds (TOML allows nan and inf)."""
        try:
            return parse_number(value, low=low, high=high)
        except ValueError as exc:
            raise self.fail(key, str(exc)) from None

    def when(self, value: Any, key: str, tz: ZoneInfo) -> datetime:
        if isinstance(value, str) and value.strip().upper().startswith(PLACEHOLDER):
            raise self.fail(key, tr("is still the placeholder `tally init` wrote; write the time, "
                                    "like 2024-05-09T21:30:00"))  # fmt: skip
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value.strip())
            except ValueError:
                raise self.fail(key, tr("{value} is not a date and time like 2024-05-08T09:30:00",
                                        value=repr(value))) from None  # fmt: skip
        if isinstance(value, datetime):
            # A game is played in a forum's lifetime: a year Python cannot move a day or a
            # zone from (0001, 9999) would be an OverflowError wherever it is used.
            if not 1990 <= value.year <= 2200:
                raise self.fail(key, tr("{value} is not a date of a forum game",
                                        value=value.isoformat()))  # fmt: skip
            # A local time is in the game's zone (one its clock skips or shows twice, as
            # summer time begins or ends, is refused); an explicit offset is converted to it.
            # Kept at its own offset: a day's windows and waits are elapsed time across a
            # change of summer time (tally.times.instant).
            if value.tzinfo is None:
                return instant(wall_time(value, tz, lambda why: self.fail(key, why)))
            return instant(value.astimezone(tz))
        if isinstance(value, date):
            raise self.fail(key, tr("{date} has no time of day; write it like {date}T21:30:00",
                                    date=value))  # fmt: skip
        raise self.fail(key, tr("must be a date and time like 2024-05-08T09:30:00"))

    def timezone(self, value: Any) -> ZoneInfo:
        name = self.string(value, "timezone")
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            shown = name if len(name) <= 40 else name[:40] + "…"
            raise self.fail("timezone", tr("{zone} is not a time zone name like Asia/Shanghai",
                                           zone=repr(shown))) from None  # fmt: skip

    def player(self, name: Any, key: str, roster: set[str]) -> str:
        """A player named in a day's list, a ruling or a table: as the roster spells it."""
        value = self.string(name, key)
        held = self.claimed.get(normalise(value))
        if held is not None and held[0] in ("player", "alias"):
            return held[1]
        close = difflib.get_close_matches(value, sorted(roster), n=1, cutoff=0.5)
        said = (tr("{name} is not one of the players (did you mean {close}?)", name=repr(value),
                   close=repr(close[0])) if close
                else tr("{name} is not one of the players", name=repr(value)))  # fmt: skip
        raise self.fail(key, said)

    def thread(self, url: str, key: str) -> ThreadRef:
        if url.upper().startswith(PLACEHOLDER):
            said = tr("is still the placeholder `tally init` wrote; paste the thread's URL")
            raise self.fail(key, said)
        try:
            _, ref = resolve_url(url)
        except InputError as exc:
            raise self.fail(key, clause(exc)) from None
        return ref
