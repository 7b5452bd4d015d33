"""Rulesets: every choice the four seed games make differently, as plain data.

Each field cites the rule of shared RULES.md it holds. A game picks a preset with
``ruleset = "…"`` and may override any field under ``[rules]`` in its game file.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from tally.errors import GameFileError

CHANGE_METHODS = ("comment", "reply", "quote", "post")
TIE_STEPS = ("acolyte", "sheriff_target", "none")


@dataclass(frozen=True)
class Ruleset:
    name: str
    # V1 / V2: a ballot names its target; most games also want a reason line.
    require_reason: bool = True
    # V6: the target word that abstains.
    abstain_word: str = "弃权"
    # V3: how a change must be posted: a comment (楼中楼/点评) under one's own vote floor,
    # a reply to it (Discuz! 回复, which links the floor), a quote of it, or any new post.
    change_via: tuple[str, ...] = ("comment",)
    # V4: how many changes a player has; None is no limit (seed 003).
    max_changes: int | None = 1
    # V5: no change in the last N minutes before the close (0: no such window).
    change_window_minutes: int = 60
    # V7: a fix of a void ballot, posted the way a change must be, is no change and keeps
    # the original ballot's time (seeds 000, 002); seed 001 fixes by posting anew.
    fix_keeps_time: bool = True
    # V9 (seed 001): when one's target is eliminated during the day, one more change is
    # allowed, even inside the final hour.
    change_after_target_death: bool = False
    # V8: proxy ballots posted by the director are due N minutes before the close.
    proxy_deadline_minutes: int | None = 30
    # V8 (seed 002): a proxy change must be asked for N minutes before the close.
    proxy_change_deadline_minutes: int | None = 30
    # V11 (seed 002 主管): a valid vote within N hours of the open, no change after M hours
    # (accelerated: the second pair).
    bar_owner_hours: tuple[int, int] = (12, 11)
    bar_owner_hours_accelerated: tuple[int, int] = (6, 5)
    # C1: weights.
    sheriff_weight: Decimal = Decimal("2.5")
    deputy_weight: Decimal = Decimal("1.5")
    # C1 (seed 001): a sheriff who declared 独裁 gets +1, and +1 more for every 5 living
    # players above 10.
    dictator_bonus: bool = False
    # C1 (seed 001): the deputy is immune to [迷魂] (weight 0).
    deputy_immune_to_zero: bool = False
    # C2: the slandered player receives this many extra votes.
    slander_bonus: Decimal = Decimal("2")
    # C3 (seed 003 众志成城): +N for each 受困者 when more than half of the living ones vote alike.
    unity_bonus: Decimal = Decimal("0")
    # C4: the day whose vote elects the sheriff (None: no election).
    sheriff_election_day: int | None = 1
    # C5: how a tie at the top is broken, step by step.
    tie_chain: tuple[str, ...] = ("acolyte", "sheriff_target", "none")
    # C6 (seed 003): out only with more than half of all votes, abstentions included.
    majority_of_all: bool = False
    # C7: what the announcement publishes.
    publish_counts: bool = True
    publish_voters: bool = True
    # L1: fewer posts than this on a day is a yellow card.
    min_posts: int = 5
    # L2: fewer than streak_posts on each of streak_days consecutive days is a yellow card.
    streak_posts: int = 10
    streak_days: int = 3
    # L3: no vote on a day is a yellow card (not in seed 003).
    card_no_vote: bool = True
    # Whether 楼中楼/点评 count as posts for L1/L2.
    count_comments_as_posts: bool = False
    # L5 (seed 000): a dead player may post this, exactly, once a natural day.
    dead_post_allowance: str | None = "抵制斯大林"
    # L6 (seed 000): discussion in 楼中楼 is carded; comments longer than this are flagged.
    flag_comment_discussion: bool = True
    comment_chat_chars: int = 10
    # L8: this many near-empty posts (at most flood_chars characters) within flood_minutes.
    flood_posts: int = 5
    flood_minutes: int = 10
    flood_chars: int = 3


_000 = Ruleset(name="000")
PRESETS: dict[str, Ruleset] = {
    "default": dataclasses.replace(_000, name="default"),
    "000": _000,
    # Seed 001, [245] 酒: changes reply to the vote floor; no proxy in the final hour;
    # counts hidden; 独裁 sheriff; tie: unique maximum, else the sheriff's target.
    "245": dataclasses.replace(
        _000,
        name="245",
        change_via=("reply",),
        fix_keeps_time=False,
        dead_post_allowance=None,
        flag_comment_discussion=False,
        change_after_target_death=True,
        proxy_deadline_minutes=60,
        proxy_change_deadline_minutes=60,
        sheriff_weight=Decimal("1"),
        deputy_weight=Decimal("1"),
        dictator_bonus=True,
        deputy_immune_to_zero=True,
        tie_chain=("sheriff_target", "none"),
        publish_counts=False,
    ),
    # Seed 002, [023] 明星大侦探: changes quote the vote post; sheriff 2; proxy change 1 h.
    "023": dataclasses.replace(
        _000,
        name="023",
        change_via=("quote",),
        proxy_change_deadline_minutes=60,
        dead_post_allowance=None,
        flag_comment_discussion=False,
        sheriff_weight=Decimal("2"),
        deputy_weight=Decimal("1"),
        tie_chain=("sheriff_target", "none"),
    ),
    # Seed 003, [M126] 暴风雪山庄: target only; changes without limit or window; 众志成城;
    # more than half of all votes; counts published, voters hidden; no vote is no card.
    "M126": dataclasses.replace(
        _000,
        name="M126",
        require_reason=False,
        change_via=CHANGE_METHODS,
        max_changes=None,
        change_window_minutes=0,
        proxy_deadline_minutes=None,
        proxy_change_deadline_minutes=None,
        sheriff_weight=Decimal("1"),
        deputy_weight=Decimal("1"),
        unity_bonus=Decimal("1"),
        sheriff_election_day=None,
        tie_chain=("none",),
        majority_of_all=True,
        publish_voters=False,
        card_no_vote=False,
        dead_post_allowance=None,
        flag_comment_discussion=False,
    ),
}


def parse_number(value: Any, *, low: Decimal, high: Decimal) -> Decimal:
    """A number from the game file, exactly (Decimal), finite and within [low, high].

    TOML reads nan, inf and 1e999999999 (as inf) as numbers; a weight of nan would make
    every comparison false, so each is refused with the reason. ValueError says why.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError("must be a number")
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"{str(value)[:40]!r} is not a number") from None
    if not number.is_finite():
        raise ValueError(f"must be a finite number, not {value!r}")
    if not low <= number <= high:
        raise ValueError(f"must be between {low} and {high}, not {_short(number)}")
    return number


# Minutes, hours, counts: a bound far above any game, below what a timedelta can hold.
MAX_WHOLE = 1_000_000


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_WHOLE


def _short(number: Decimal) -> str:
    text = str(number)
    return text if len(text) <= 20 else f"{number:.3e}"


def ruleset_for(preset: str, overrides: Mapping[str, Any], *, source: str = "game file") -> Ruleset:
    """The preset with the game file's ``[rules]`` applied; a wrong key or value is one sentence."""
    base = PRESETS[preset]
    fields = {f.name: f for f in dataclasses.fields(Ruleset) if f.name != "name"}
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        if key not in fields:
            close = difflib.get_close_matches(key, sorted(fields), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise GameFileError(f"{source}, key 'rules.{key}': is not a rule tally knows{hint}.")
        changes[key] = _coerce(key, value, getattr(base, key), source)
    return dataclasses.replace(base, **changes)


def _coerce(key: str, value: Any, current: Any, source: str) -> Any:
    def bad(expected: str) -> GameFileError:
        return GameFileError(f"{source}, key 'rules.{key}': must be {expected}.")

    if isinstance(current, bool):
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if isinstance(current, Decimal):
        try:
            return parse_number(value, low=Decimal(0), high=Decimal(100))
        except ValueError as exc:
            raise GameFileError(f"{source}, key 'rules.{key}': {exc}.") from None
    if key == "dead_post_allowance":
        if value is False or value == "":
            return None
        if not isinstance(value, str):
            raise bad('a text, or "" for none')
        return value
    if key in (
        "max_changes",
        "proxy_deadline_minutes",
        "proxy_change_deadline_minutes",
        "sheriff_election_day",
    ):
        if value is False or value == "none":
            return None
        if not _whole(value):
            raise bad(f'a whole number from 0 to {MAX_WHOLE:,}, or "none"')
        return value
    if isinstance(current, int):
        if not _whole(value):
            raise bad(f"a whole number from 0 to {MAX_WHOLE:,}")
        return value
    if key in ("bar_owner_hours", "bar_owner_hours_accelerated"):
        if not (isinstance(value, list) and len(value) == 2 and all(_whole(v) for v in value)):
            raise bad("two whole numbers, [vote within, no change after]")
        return (value[0], value[1])
    if key in ("change_via", "tie_chain"):
        allowed = CHANGE_METHODS if key == "change_via" else TIE_STEPS
        if not isinstance(value, list) or not value or any(v not in allowed for v in value):
            raise bad(f"a list of {', '.join(repr(a) for a in allowed)}")
        return tuple(value)
    if isinstance(current, str):
        if not isinstance(value, str) or not value.strip():
            raise bad("a non-empty string")
        return value.strip()
    raise bad("a value of the right kind")  # pragma: no cover - every field is handled above
