"""The game file (TOML, see docs/game-file.md): read, checked, and frozen into a ``Game``.

Every mistake is reported as one sentence naming the file and the key, because the
director edits this file by hand at closing time. The threads' URLs are resolved here,
once: a URL that names no thread is a game-file error at load, not at closing time. Each
value is checked by ``filekeys``, each [[days]] block by ``dayblocks``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tally import settings, tomlfile
from tally.environment import home_expanded
from tally.errors import GameFileError
from tally.i18n import Language, current, tr
from tally.journal import Journal, journal_path
from tally.rules.game.dayblocks import read_days
from tally.rules.game.filekeys import PLACEHOLDER, Checker
from tally.rules.game.game import Day, Game, Ruling
from tally.rules.game.overrides import ruleset_for
from tally.rules.game.rulesets import PRESETS, Ruleset
from tally.rules.verdicts import RulingAction

RULESETS = tuple(PRESETS)

_TOP_KEYS = {
    "id",
    "name",
    "ruleset",
    "timezone",
    "directors",
    "players",
    "aliases",
    "days",
    "rulings",
    "rules",
    "camps",
    "outsiders",
    "roles",
    *settings.NAMES,  # what the config file may set, set for this game (tally config)
}
_RULING_KEYS = {"day", "floor", "comment", "action", "target", "note", "post"}


def load_game(path: str | Path, *, default_timezone: str = settings.DEFAULT_ZONE) -> Game:
    """Read and check a game file. Raises GameFileError with one sentence on any mistake.
    ``default_timezone`` is the forum's clock when the file names none (the config's)."""
    p = Path(path)
    text = tomlfile.read_text(p, "game file", GameFileError)
    game = _parsed(text, p, default_timezone, current(), home_expanded("~"))
    found, own = Journal(journal_path(p)).posted(game.id)
    return dataclasses.replace(game, announced=found, own_posts=own) if found or own else game


@functools.lru_cache(maxsize=16)
def _parsed(text: str, path: Path, zone: str, language: Language, home: Path | None) -> Game:
    """``parse_game`` of a file's text, once a process while its text, its path and what the
    parse reads besides stay the same: the forum's clock where the file names none, the
    language of the sentences, the home folder ``~`` names. The file is read at every load:
    a file edited between two runs of a watch or a desk is new text, parsed again, and a
    mistake is no Game, said again at each. The Game is frozen: its runs share it, and what
    it works out once (its roster, its accounts). A run's parse is ~200 µs for a small file
    (tomllib ~110 µs of it); a desk or a watch loads the file at every poll."""
    del language, home  # read by the parse where it needs them: here, its key alone
    return parse_game(text, source=str(path), path=path, default_timezone=zone)


def parse_game(
    text: str,
    *,
    source: str = "game file",
    path: Path | None = None,
    default_timezone: str = settings.DEFAULT_ZONE,
) -> Game:
    """Parse game-file text; ``source`` names it in error messages."""
    data = tomlfile.parse(text, source, GameFileError)
    return _Checker(source).game(data, path, default_timezone)


class _Checker(Checker):
    """The game file's tables: the top level, its [[rulings]]; its [[days]] are dayblocks'."""

    def game(self, data: dict[str, Any], path: Path | None, default_timezone: str) -> Game:
        self.unknown_keys(data, _TOP_KEYS, "")
        if "players" not in data:
            raise self.fail("players", tr("is required (the list of every game account)"))
        players = self.listed(data, "players", "player")
        if not players:
            raise self.fail("players", tr("lists nobody"))
        tz = self.timezone(data.get("timezone", default_timezone))
        base = path.parent if path is not None else Path.cwd()
        own = settings.check(data, self.source, base)
        ruleset = self.ruleset(data)
        roster = set(players)
        aliases = self.aliases(data.get("aliases", {}), roster)
        directors = self.listed(data, "directors", "director")
        outsiders = self.listed(data, "outsiders", "outsider")
        days = read_days(self, data.get("days", []), roster, tz)
        rulings = self.rulings(data.get("rulings", []), {d.day for d in days}, roster)
        rules = data.get("rules", {})
        if not isinstance(rules, dict):
            raise self.fail("rules", tr("must be a table"))
        ruleset_obj = ruleset_for(ruleset, rules, source=self.source)
        camps = self.by_player(data, "camps", "camp", roster)
        roles = self.by_player(data, "roles", "role", roster)
        self.election_voters(ruleset_obj, days, roles)
        name = self.name(data, path)
        game_id = self.string(data["id"], "id") if "id" in data else ""
        return Game(
            name=name,
            given_id=game_id,
            players=players,
            timezone=tz,
            ruleset=ruleset,
            directors=directors,
            aliases=aliases,
            days=days,
            rulings=rulings,
            rules=ruleset_obj,
            camps=camps,
            outsiders=outsiders,
            roles=roles,
            path=path,
            settings=own,
            ids=self.ids,
        )

    def listed(self, data: Mapping[str, Any], key: str, what: str) -> tuple[str, ...]:
        """The accounts a top-level list names (players, directors, outsiders), each name
        claimed as ``what``."""
        accounts = self.accounts(data.get(key, []), key)
        for account in accounts:
            self.claim(account, key, what, account)
        return accounts

    def ruleset(self, data: Mapping[str, Any]) -> str:
        ruleset = data.get("ruleset", "default")
        if isinstance(ruleset, str) and ruleset.strip().upper().startswith(PLACEHOLDER):
            choices = ", ".join(f'"{r}"' for r in RULESETS if r != "default")
            raise self.fail("ruleset", tr("is still the placeholder `tally init` wrote; choose the "
                                          "game's rules: {choices}", choices=choices))  # fmt: skip
        if ruleset not in RULESETS:
            raise self.fail("ruleset", tr("{value} is not one of {choices}", value=repr(ruleset),
                                          choices=", ".join(RULESETS)))  # fmt: skip
        return str(ruleset)

    def by_player(
        self, data: Mapping[str, Any], key: str, what: str, roster: set[str]
    ) -> dict[str, str]:
        """A top-level table of player = ``what`` (camps, roles)."""
        raw = data.get(key, {})
        if not isinstance(raw, dict):
            said = (tr("must be a table of player = camp") if what == "camp"
                    else tr("must be a table of player = role"))  # fmt: skip
            raise self.fail(key, said)
        return {
            self.player(p, f"{key}.{p}", roster): self.string(v, f"{key}.{p}")
            for p, v in raw.items()
        }

    def election_voters(
        self, rules: Ruleset, days: tuple[Day, ...], roles: Mapping[str, str]
    ) -> None:
        """A ruleset that lets only some roles vote on the election day (V12) needs a player
        holding one, where the file has that day."""
        voters = rules.election_voters
        election = rules.sheriff_election_day
        if (
            voters
            and any(d.day == election for d in days)
            and not any(r in voters for r in roles.values())
        ):
            raise self.fail("roles", tr(
                "ruleset {ruleset} lets only {roles} vote and be elected on day {day} (V12), and "
                "no player has that role; give [roles], or [rules] election_voters = [] to let "
                "everyone", ruleset=rules.name, roles="、".join(voters), day=election))  # fmt: skip

    def name(self, data: Mapping[str, Any], path: Path | None) -> str:
        """The game's name as the announcements print it (the file's stem where none)."""
        name = data.get("name", path.stem if path else "game")
        if isinstance(name, str) and name.strip().upper().startswith(PLACEHOLDER):
            proposed = name.strip()[len(PLACEHOLDER) :].strip(" :：")
            said = (tr("is still the placeholder `tally init` wrote; write the game's name as the "
                       "announcements print it (tally proposed {proposed})",
                       proposed=repr(proposed))
                    if proposed else
                    tr("is still the placeholder `tally init` wrote; write the game's name as the "
                       "announcements print it"))  # fmt: skip
            raise self.fail("name", said)
        return self.string(name, "name")

    def aliases(self, value: Any, roster: set[str]) -> dict[str, tuple[str, ...]]:
        if not isinstance(value, dict):
            raise self.fail("aliases", tr("must be a table of player = [spellings]"))
        out: dict[str, tuple[str, ...]] = {}
        for written, spellings in value.items():
            key = f"aliases.{written}"
            player = self.player(written, key, roster)
            if isinstance(spellings, str | dict):
                spellings = [spellings]
            out[player] = (*out.get(player, ()), *self.accounts(spellings, key, player))
            for s in out[player]:
                self.claim(s, key, "alias", player)
        return out

    def rulings(self, value: Any, day_numbers: set[int], roster: set[str]) -> tuple[Ruling, ...]:
        if not isinstance(value, list):
            raise self.fail("rulings", tr("must be an array of tables ([[rulings]])"))
        out = []
        for i, t in enumerate(value, start=1):
            where = f"rulings #{i}"
            if not isinstance(t, dict):
                raise self.fail(where, tr("must be a table"))
            self.unknown_keys(t, _RULING_KEYS, f"{where}.")
            for required in ("day", "floor", "action"):
                if required not in t:
                    raise self.fail(f"{where}.{required}", tr("is required"))
            day, floor, action = t["day"], t["floor"], t["action"]
            if not isinstance(day, int) or day not in day_numbers:
                said = tr("{day} is not one of the game's days", day=repr(day))
                raise self.fail(f"{where}.day", said)
            if not isinstance(floor, int) or isinstance(floor, bool) or not 1 <= floor <= 10**8:
                raise self.fail(f"{where}.floor", tr("must be a floor number (from 1)"))
            if action not in tuple(RulingAction):
                raise self.fail(f"{where}.action", tr('must be "void" or "accept"'))
            note = t.get("note", "")
            if not isinstance(note, str):
                raise self.fail(f"{where}.note", tr("must be a string"))
            comment = t.get("comment")
            if comment is not None and (
                not isinstance(comment, int)
                or isinstance(comment, bool)
                or not 1 <= comment <= 10**6
            ):
                raise self.fail(f"{where}.comment",
                                tr("must be the comment's number, 1 = the oldest"))  # fmt: skip
            target = t.get("target")
            if target is not None:
                target = self.player(target, f"{where}.target", roster)
            post = t.get("post")
            if post is not None and (
                isinstance(post, bool)
                or not isinstance(post, int | str)
                or not (str(post).strip().isascii() and str(post).strip().isdecimal())
            ):
                raise self.fail(f"{where}.post", tr("must be the post's id (its pid), a number"))
            out.append(
                Ruling(
                    day=day,
                    floor=floor,
                    action=RulingAction(action),
                    note=note,
                    comment=comment,
                    target=target,
                    post=str(post).strip() if post is not None else None,
                )
            )
        return tuple(out)
