"""The game file (TOML, see docs/game-file.md): read, checked, and frozen into a ``Game``.

Every mistake is reported as one sentence naming the file and the key, because the
director edits this file by hand at closing time. The threads' URLs are resolved here,
once: a URL that names no thread is a game-file error at load, not at closing time.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tally import settings, tomlfile
from tally.errors import GameFileError, InputError
from tally.forums import resolve_url
from tally.journal import Journal, journal_path
from tally.model import ThreadKey, ThreadRef
from tally.rules.game.game import Day, Game, Ruling
from tally.rules.game.names import normalise
from tally.rules.game.overrides import parse_number, ruleset_for
from tally.rules.game.rulesets import PRESETS
from tally.rules.verdicts import RulingAction, ThreadRole
from tally.times import instant, long, wall_time

RULESETS = tuple(PRESETS)
# What `tally init` writes where only the director knows the value (a day's close).
PLACEHOLDER = "TODO"
# What a game file writes for "nobody" where a key names a player (sheriff = "none").
NO_ONE = ("none", "无")

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
# A role's key in a [[days]] block, where it is not the role's own name.
_KEY = {ThreadRole.SHERIFF: "sheriff_thread"}
_DAY_KEYS = {
    "day",
    "opens",
    "closes",
    "discussion",
    "vote",
    "accelerated",
    "dead",
    "sheriff",
    "sheriff_change",
    "deputy",
    "slandered",
    "cannot_vote",
    "silenced",
    "revived",
    "sheriff_thread",
    "cannot_be_voted",
    "weights",
    "immune",
    "acolyte",
    "sheriff_declaration",
    "bar_owner",
    "trapped",
    "died",
    "progress",
    "late_ok",
    "close_changed",
    "result_changed",
}
_RULING_KEYS = {"day", "floor", "comment", "action", "target", "note", "post"}
_DECLARATIONS = ("独裁", "自由", "秩序")


def load_game(path: str | Path, *, default_timezone: str = settings.DEFAULT_ZONE) -> Game:
    """Read and check a game file. Raises GameFileError with one sentence on any mistake.
    ``default_timezone`` is the forum's clock when the file names none (the config's)."""
    p = Path(path)
    text = tomlfile.read_text(p, "game file", GameFileError)
    game = parse_game(text, source=str(p), path=p, default_timezone=default_timezone)
    found, own = Journal(journal_path(p)).posted(game.id)
    return dataclasses.replace(game, announced=found, own_posts=own) if found or own else game


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


class _Checker:
    def __init__(self, source: str) -> None:
        self.source = source
        # Each account's forum id, by the name the file gives it; and whose each id is.
        self.ids: dict[str, str] = {}
        self.id_owner: dict[str, tuple[str, str]] = {}
        # Every name the file gives, under the one folding tally compares names in
        # (tally.rules.game.names.normalise): folded -> (what it is, whose it is, as written).
        self.claimed: dict[str, tuple[str, str, str]] = {}

    def fail(self, key: str, problem: str) -> GameFileError:
        return GameFileError(f"{self.source}, key {key!r}: {problem}.")

    def unknown_keys(self, table: Mapping[str, Any], allowed: set[str], prefix: str) -> None:
        for key in table:
            if key not in allowed:
                close = difflib.get_close_matches(key, sorted(allowed), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise self.fail(f"{prefix}{key}", f"is not a key tally knows{hint}")

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "must be a non-empty string")
        return value.strip()

    def names(self, value: Any, key: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.fail(key, "must be a list of names")
        return tuple(self.string(v, key) for v in value)

    def accounts(self, value: Any, key: str, owner: str | None = None) -> tuple[str, ...]:
        """A list of accounts: each a name, or ``{ name = "bob", id = 3 }`` with the
        account's forum id (Discuz! uid, Tieba user id) beside it. ``owner``: the player
        whose aliases they are (an alias may be the player's account under its old name)."""
        if not isinstance(value, list):
            raise self.fail(key, "must be a list of names")
        out = []
        for v in value:
            if not isinstance(v, dict):
                out.append(self.string(v, key))
                continue
            self.unknown_keys(v, {"name", "id"}, f"{key}.")
            if "name" not in v:
                raise self.fail(key, f"{dict(v)!r} has no name")
            name = self.string(v["name"], f"{key}.name")
            if "id" in v:
                self.account_id(name, v["id"], key, owner or name)
            out.append(name)
        return tuple(out)

    def account_id(self, name: str, value: Any, key: str, owner: str) -> None:
        raw = str(value).strip() if isinstance(value, int | str) else ""
        if isinstance(value, bool) or not raw.isascii() or not raw.isdigit():
            raise self.fail(f"{key}.id", f"the id of {name!r} must be a number, like 3 (its uid)")
        uid = str(int(raw))
        held = self.id_owner.get(uid)
        if held is not None and held[1] != owner:
            raise self.fail(
                f"{key}.id", f"{name!r} and {held[0]!r} are given one id, {uid}: one account"
            )
        self.id_owner.setdefault(uid, (name, owner))
        self.ids[name] = uid

    def claim(self, name: str, key: str, what: str, owner: str) -> None:
        """Register a name; two names that read the same to tally are an error naming both.

        Names are compared after NFKC, invisible characters and case (Mika, mika, Ｍｉｋａ
        and Mi<U+200B>ka are one name), so two such names would silently be one player.
        """
        folded = normalise(name)
        if not folded:
            raise self.fail(key, f"{name!r} has no visible character")
        held = self.claimed.get(folded)
        if held is None:
            self.claimed[folded] = (what, owner, name)
            return
        other_what, other_owner, other_name = held
        if what == "alias" and other_owner == owner and other_what in ("player", "alias"):
            return  # a player's own name again: harmless
        role = {
            "player": "a player",
            "alias": f"an alias of {other_owner}",
            "director": "a director",
            "outsider": "an outsider",
        }[other_what]
        if name == other_name:
            raise self.fail(key, f"{name!r} is already {role}")
        raise self.fail(
            key,
            f"{name!r} and {other_name!r} ({role}) are one name to tally "
            f"(both read {folded!r}); rename one",
        )

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
            raise self.fail(
                key,
                "is still the placeholder `tally init` wrote; write the time, like "
                "2024-05-09T21:30:00",
            )
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value.strip())
            except ValueError:
                raise self.fail(
                    key, f"{value!r} is not a date and time like 2024-05-08T09:30:00"
                ) from None
        if isinstance(value, datetime):
            # A game is played in a forum's lifetime: a year Python cannot move a day or a
            # zone from (0001, 9999) would be an OverflowError wherever it is used.
            if not 1990 <= value.year <= 2200:
                raise self.fail(key, f"{value.isoformat()} is not a date of a forum game")
            # A local time is in the game's zone (one its clock skips or shows twice, as
            # summer time begins or ends, is refused); an explicit offset is converted to it.
            # Kept at its own offset: a day's windows and waits are elapsed time across a
            # change of summer time (tally.times.instant).
            if value.tzinfo is None:
                return instant(wall_time(value, tz, lambda why: self.fail(key, why)))
            return instant(value.astimezone(tz))
        if isinstance(value, date):
            raise self.fail(key, f"{value} has no time of day; write it like {value}T21:30:00")
        raise self.fail(key, "must be a date and time like 2024-05-08T09:30:00")

    def game(self, data: dict[str, Any], path: Path | None, default_timezone: str) -> Game:
        self.unknown_keys(data, _TOP_KEYS, "")
        if "players" not in data:
            raise self.fail("players", "is required (the list of every game account)")
        players = self.accounts(data["players"], "players")
        if not players:
            raise self.fail("players", "lists nobody")
        for p in players:
            self.claim(p, "players", "player", p)
        tz = self.timezone(data.get("timezone", default_timezone))
        base = path.parent if path is not None else Path.cwd()
        own = settings.check(data, self.source, base)
        ruleset = data.get("ruleset", "default")
        if isinstance(ruleset, str) and ruleset.strip().upper().startswith(PLACEHOLDER):
            raise self.fail(
                "ruleset",
                "is still the placeholder `tally init` wrote; choose the game's rules: "
                + ", ".join(f'"{r}"' for r in RULESETS if r != "default"),
            )
        if ruleset not in RULESETS:
            raise self.fail("ruleset", f"{ruleset!r} is not one of {', '.join(RULESETS)}")
        roster = set(players)
        aliases = self.aliases(data.get("aliases", {}), roster)
        directors = self.accounts(data.get("directors", []), "directors")
        for d in directors:
            self.claim(d, "directors", "director", d)
        outsiders = self.accounts(data.get("outsiders", []), "outsiders")
        for o in outsiders:
            self.claim(o, "outsiders", "outsider", o)
        days = self.days(data.get("days", []), roster, tz)
        rulings = self.rulings(data.get("rulings", []), {d.day for d in days}, roster)
        rules = data.get("rules", {})
        if not isinstance(rules, dict):
            raise self.fail("rules", "must be a table")
        ruleset_obj = ruleset_for(ruleset, rules, source=self.source)
        camps_raw = data.get("camps", {})
        if not isinstance(camps_raw, dict):
            raise self.fail("camps", "must be a table of player = camp")
        camps = {
            self.player(p, f"camps.{p}", roster): self.string(c, f"camps.{p}")
            for p, c in camps_raw.items()
        }
        roles_raw = data.get("roles", {})
        if not isinstance(roles_raw, dict):
            raise self.fail("roles", "must be a table of player = role")
        roles = {
            self.player(p, f"roles.{p}", roster): self.string(r, f"roles.{p}")
            for p, r in roles_raw.items()
        }
        voters = ruleset_obj.election_voters
        election = ruleset_obj.sheriff_election_day
        if (
            voters
            and any(d.day == election for d in days)
            and not any(r in voters for r in roles.values())
        ):
            raise self.fail(
                "roles",
                f"ruleset {ruleset_obj.name} lets only {'、'.join(voters)} vote and be "
                f"elected on day {election} (V12), and no player has that role; give "
                "[roles], or [rules] election_voters = [] to let everyone",
            )
        default_name = path.stem if path else "game"
        name = data.get("name", default_name)
        if isinstance(name, str) and name.strip().upper().startswith(PLACEHOLDER):
            proposed = name.strip()[len(PLACEHOLDER) :].strip(" :：")
            hint = f" (tally proposed {proposed!r})" if proposed else ""
            raise self.fail(
                "name",
                "is still the placeholder `tally init` wrote; write the game's name as the "
                f"announcements print it{hint}",
            )
        game_id = self.string(data["id"], "id") if "id" in data else ""
        return Game(
            name=self.string(name, "name"),
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

    def timezone(self, value: Any) -> ZoneInfo:
        name = self.string(value, "timezone")
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            shown = name if len(name) <= 40 else name[:40] + "…"
            raise self.fail(
                "timezone", f"{shown!r} is not a time zone name like Asia/Shanghai"
            ) from None

    def player(self, name: Any, key: str, roster: set[str]) -> str:
        """A player named in a day's list, a ruling or a table: as the roster spells it."""
        value = self.string(name, key)
        held = self.claimed.get(normalise(value))
        if held is not None and held[0] in ("player", "alias"):
            return held[1]
        close = difflib.get_close_matches(value, sorted(roster), n=1, cutoff=0.5)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise self.fail(key, f"{value!r} is not one of the players{hint}")

    def aliases(self, value: Any, roster: set[str]) -> dict[str, tuple[str, ...]]:
        if not isinstance(value, dict):
            raise self.fail("aliases", "must be a table of player = [spellings]")
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

    def days(self, value: Any, roster: set[str], tz: ZoneInfo) -> tuple[Day, ...]:
        if not isinstance(value, list):
            raise self.fail("days", "must be an array of tables ([[days]])")
        days: list[Day] = []
        for i, table in enumerate(value, start=1):
            if not isinstance(table, dict):
                raise self.fail(f"days #{i}", "must be a table")
            days.append(self.day(table, i, roster, tz))
        numbers = [d.day for d in days]
        for n in numbers:
            if numbers.count(n) > 1:
                raise self.fail("days", f"day {n} is given twice")
        days.sort(key=lambda d: d.day)
        self.own_vote_threads(days)
        return tuple(days)

    def own_vote_threads(self, days: list[Day]) -> None:
        """Each day votes in a thread of its own: the same vote thread on two days (a
        [[days]] block copied and not edited) would count one thread twice."""
        votes: dict[ThreadKey, Day] = {}
        for d in days:
            first = votes.setdefault(d.vote_ref.key, d)
            if first is not d:
                raise self.fail(
                    f"day {d.day}.vote",
                    f"{d.vote} is day {first.day}'s vote thread too; each day votes in a "
                    "thread of its own (a [[days]] block copied and not edited?)",
                )
        for d in days:
            for role in (ThreadRole.DISCUSSION, ThreadRole.PROGRESS, ThreadRole.SHERIFF):
                ref = d.ref(role)
                owner = votes.get(ref.key) if ref is not None else None
                key = _KEY.get(role, str(role))
                # The sheriff's thread is never a vote thread, the day's own included: its
                # ballots and chat would count as the sheriff's discussion (L1).
                ours = owner is d and role is not ThreadRole.SHERIFF
                if owner is not None and not ours:
                    raise self.fail(
                        f"day {d.day}.{key}",
                        f"{d.url(role)} is day {owner.day}'s vote thread, not a {role} thread",
                    )

    def day(self, t: dict[str, Any], index: int, roster: set[str], tz: ZoneInfo) -> Day:
        where = f"days #{index}"
        number = t.get("day")
        if isinstance(number, int) and not isinstance(number, bool):
            where = f"day {number}"
        self.unknown_keys(t, _DAY_KEYS, f"{where}.")
        for required in ("day", "opens", "closes", "vote"):
            if required not in t:
                raise self.fail(f"{where}.{required}", "is required")
        if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= 10_000:
            raise self.fail(f"{where}.day", "must be a whole number from 1 to 10,000")
        opens = self.when(t["opens"], f"{where}.opens", tz)
        closes = self.when(t["closes"], f"{where}.closes", tz)
        if closes <= opens:
            raise self.fail(
                f"{where}.closes",
                f"{long(closes)} is not after opens {long(opens)}",
            )

        def players(k: str) -> tuple[str, ...]:
            key = f"{where}.{k}"
            return tuple(self.player(p, key, roster) for p in self.names(t.get(k, []), key))

        def one(k: str) -> str | None:
            raw = t.get(k, "")
            return self.player(raw, f"{where}.{k}", roster) if raw != "" else None

        # sheriff = "none" (deputy = "none") says there is none (unless a player is called that).
        called_none = any(normalise(p) in NO_ONE for p in roster)
        no_sheriff, no_deputy = (
            not called_none and str(t.get(k, "")).strip().lower() in NO_ONE
            for k in ("sheriff", "deputy")
        )
        change = t.get("sheriff_change")
        accelerated = t.get("accelerated", False)
        if not isinstance(accelerated, bool):
            raise self.fail(f"{where}.accelerated", "must be true or false")
        late_ok = t.get("late_ok", False)
        if not isinstance(late_ok, bool):
            raise self.fail(f"{where}.late_ok", "must be true or false")
        close_changed = t.get("close_changed")
        declaration = t.get("sheriff_declaration", "") or None
        if declaration is not None and declaration not in _DECLARATIONS:
            raise self.fail(
                f"{where}.sheriff_declaration", f"must be one of {', '.join(_DECLARATIONS)}"
            )
        weights_raw = t.get("weights", {})
        if not isinstance(weights_raw, dict):
            raise self.fail(f"{where}.weights", "must be a table of player = weight")
        weights = {}
        for p, w in weights_raw.items():
            key = f"{where}.weights.{p}"
            weights[self.player(p, key, roster)] = self.number(w, key)
        died_raw = t.get("died", {})
        if not isinstance(died_raw, dict):
            raise self.fail(f"{where}.died", "must be a table of player = time of death")
        died = {}
        dead = players("dead")
        for p, w in died_raw.items():
            key = f"{where}.died.{p}"
            player = self.player(p, key, roster)
            died[player] = self.when(w, key, tz)
            # Out during the day, at that time (V9): one out before it is in `dead`.
            if player in dead:
                raise self.fail(key, f"{player} is in {where}.dead too: out before the day, "
                                "or during it, not both")  # fmt: skip
            if died[player] < opens:
                raise self.fail(
                    key,
                    f"{long(died[player])} is before the day opens {long(opens)}: "
                    "a player out before the day is in dead",
                )
        revived = players("revived")
        for p in revived:
            # Back at the open and out again at noon is `died` beside it; `dead` is not.
            if p in dead:
                raise self.fail(f"{where}.revived", f"{p} is in {where}.dead too: back in "
                                "the game this day, or out before it, not both")  # fmt: skip
        sheriff = None if no_sheriff else one("sheriff")
        deputy = None if no_deputy else one("deputy")
        if sheriff is not None and sheriff in dead:
            raise self.fail(f"{where}.sheriff", f"{sheriff} is in {where}.dead: one who is out "
                            'holds no badge (name who holds it, or sheriff = "none")')  # fmt: skip
        if deputy is not None and deputy == sheriff:
            raise self.fail(f"{where}.deputy", f"{deputy} is the day's sheriff: one badge each")
        # silenced = true: nobody may speak this day; a list: those players.
        silent = t.get("silenced") is True
        silenced = () if isinstance(t.get("silenced", []), bool) else players("silenced")
        discussion = t.get("discussion")
        progress = t.get("progress")
        vote = self.string(t["vote"], f"{where}.vote")
        discussion = self.string(discussion, f"{where}.discussion") if discussion else None
        progress = self.string(progress, f"{where}.progress") if progress else None
        sheriff_thread = t.get("sheriff_thread")
        if sheriff_thread:
            sheriff_thread = self.string(sheriff_thread, f"{where}.sheriff_thread")
        return Day(
            day=number,
            opens=opens,
            closes=closes,
            vote=vote,
            discussion=discussion,
            accelerated=accelerated,
            weights=weights,
            sheriff_declaration=declaration,
            dead=dead,
            slandered=players("slandered"),
            cannot_vote=players("cannot_vote"),
            cannot_be_voted=players("cannot_be_voted"),
            silenced=silenced,
            silent=silent,
            revived=revived,
            immune=players("immune"),
            trapped=players("trapped"),
            late_ok=late_ok,
            close_changed=(
                self.string(close_changed, f"{where}.close_changed") if close_changed else None
            ),
            result_changed=(
                self.string(t["result_changed"], f"{where}.result_changed")
                if t.get("result_changed")
                else None
            ),
            sheriff=sheriff,
            no_sheriff=no_sheriff,
            sheriff_change=self.string(change, f"{where}.sheriff_change") if change else None,
            deputy=deputy,
            no_deputy=no_deputy,
            acolyte=one("acolyte"),
            bar_owner=one("bar_owner"),
            died=died,
            progress=progress,
            sheriff_thread=sheriff_thread or None,
            threads={
                role: self.thread(url, f"{where}.{_KEY.get(role, role)}")
                for role, url in (
                    (ThreadRole.VOTE, vote),
                    (ThreadRole.DISCUSSION, discussion),
                    (ThreadRole.PROGRESS, progress),
                    (ThreadRole.SHERIFF, sheriff_thread),
                )
                if url
            },
        )

    def thread(self, url: str, key: str) -> ThreadRef:
        if url.upper().startswith(PLACEHOLDER):
            raise self.fail(
                key, "is still the placeholder `tally init` wrote; paste the thread's URL"
            )
        try:
            _, ref = resolve_url(url)
        except InputError as exc:
            raise self.fail(key, str(exc).rstrip(".")) from None
        return ref

    def rulings(self, value: Any, day_numbers: set[int], roster: set[str]) -> tuple[Ruling, ...]:
        if not isinstance(value, list):
            raise self.fail("rulings", "must be an array of tables ([[rulings]])")
        out = []
        for i, t in enumerate(value, start=1):
            where = f"rulings #{i}"
            if not isinstance(t, dict):
                raise self.fail(where, "must be a table")
            self.unknown_keys(t, _RULING_KEYS, f"{where}.")
            for required in ("day", "floor", "action"):
                if required not in t:
                    raise self.fail(f"{where}.{required}", "is required")
            day, floor, action = t["day"], t["floor"], t["action"]
            if not isinstance(day, int) or day not in day_numbers:
                raise self.fail(f"{where}.day", f"{day!r} is not one of the game's days")
            if not isinstance(floor, int) or isinstance(floor, bool) or not 1 <= floor <= 10**8:
                raise self.fail(f"{where}.floor", "must be a floor number (from 1)")
            if action not in tuple(RulingAction):
                raise self.fail(f"{where}.action", 'must be "void" or "accept"')
            note = t.get("note", "")
            if not isinstance(note, str):
                raise self.fail(f"{where}.note", "must be a string")
            comment = t.get("comment")
            if comment is not None and (
                not isinstance(comment, int)
                or isinstance(comment, bool)
                or not 1 <= comment <= 10**6
            ):
                raise self.fail(f"{where}.comment", "must be the comment's number, 1 = the oldest")
            target = t.get("target")
            if target is not None:
                target = self.player(target, f"{where}.target", roster)
            post = t.get("post")
            if post is not None and (
                isinstance(post, bool)
                or not isinstance(post, int | str)
                or not (str(post).strip().isascii() and str(post).strip().isdecimal())
            ):
                raise self.fail(f"{where}.post", "must be the post's id (its pid), a number")
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
