"""Rulesets: every choice the four seed games make differently, as plain data.

Each field cites the rule it holds (README, *The rules*). A game picks a preset with
``ruleset = "…"`` and may override any field under ``[rules]`` in its game file.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

from tally.errors import GameFileError
from tally.rules.verdicts import TieStep


class ChangeMethod(StrEnum):
    """How a change may be posted (RULES V3)."""

    COMMENT = "comment"  # a 楼中楼/点评 under one's own vote floor
    REPLY = "reply"  # a reply linking one's own vote floor (Discuz! 回复)
    QUOTE = "quote"  # a post quoting one's own vote
    POST = "post"  # any new post


class RequestsIn(StrEnum):
    """Where players ask for acceleration (RULES S3): the threads a request is read in."""

    PROGRESS = "progress"  # the 进程帖
    DISCUSSION = "discussion"


class Share(StrEnum):
    """How many of the living must ask for acceleration (RULES S3)."""

    MORE_THAN_HALF = "more_than_half"
    AT_LEAST_HALF = "at_least_half"  # seed 001


class NonBallots(StrEnum):
    """How the closing announcement lists a non-voter's posts in the vote thread that hold
    no ballot ("同上，跟一票"): as void ballots (V7: "投票格式有误的投票将算作废票"), or in a
    short list of their own."""

    VOID = "void"  # under 废票
    UNCOUNTED = "uncounted"  # under 未计入


CHANGE_METHODS = tuple(ChangeMethod)
# How a player posts a change each way, by the button pressed (RULES V3), on each platform:
# what the sentence of a change void as change_not_reply says to do.
CHANGE_BUTTONS = {
    "discuz": {
        ChangeMethod.COMMENT: "the vote floor's 点评 button",
        ChangeMethod.REPLY: "the vote floor's 回复 button",
        ChangeMethod.QUOTE: "the vote floor's 引用 button (X3.5: 回复, which quotes it)",
        ChangeMethod.POST: "a new post",
    },
    "tieba": {
        ChangeMethod.COMMENT: "a 楼中楼 under the vote floor",
        ChangeMethod.REPLY: "no Tieba post links the floor it answers",
        ChangeMethod.QUOTE: "Tieba has no 引用",
        ChangeMethod.POST: "a new floor",
    },
}
# Each preset in a line, as `tally init` lists them for the director to choose.
ABOUT = {
    "000": "冷焰's compendium (Tieba 塔达林, 天灾, 苏联): changes as 楼中楼, sheriff 2.5, "
    "deputy 1.5, a tie goes to the 侍僧",
    "245": "[245] 酒: changes reply to the vote floor, a 独裁 sheriff, counts hidden, "
    "at least half accelerate",
    "023": "[023] 明星大侦探: changes quote the vote post, sheriff 2, only 嫌疑人 elect "
    "the sheriff",
    "M126": "[M126] 暴风雪山庄: the target alone, changes without limit, out only with more "
    "than half of all votes",
}
# What a game file writes for "no value" (a field that is X | None): not the tie step "none".
NO_VALUE = ("", "none")


@dataclass(frozen=True)
class Ruleset:
    # What the game calls its rules; [rules] may rename them ("我的变体").
    name: str
    # The preset these rules start from (the game file's ``ruleset``).
    based_on: str = "default"
    # V1: a vote names its target; most games also want a reason line (投票理由).
    require_reason: bool = True
    # V2: a change (改票对象) wants its 改票理由 too: seeds 001 and 002 give both lines; seed 000
    # asks the reason of the vote ("明确说明投票对象和投票理由") and of a change only that it
    # is made as a 楼中楼, so a change written 改票对象：名字 alone counts there.
    change_requires_reason: bool = False
    # V6: the target word that abstains.
    abstain_word: str = "弃权"
    # V3: how a change must be posted: a comment (楼中楼/点评) under one's own vote floor,
    # a reply to it (Discuz! 回复, which links the floor), a quote of it, or any new post.
    change_via: tuple[ChangeMethod, ...] = (ChangeMethod.COMMENT,)
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
    # C1 (seed 001): a sheriff who declared 独裁 votes with dictator_weight, +1 more for
    # every dictator_every living players from dictator_from on ("从10人开始，当前存活人数每增加
    # 5人，警长票权额外+1").
    dictator_bonus: bool = False
    dictator_weight: Decimal = Decimal(2)
    dictator_from: int = 10
    dictator_every: int = 5
    # C1 (seed 001): the deputy is immune to [迷魂] (weight 0).
    deputy_immune_to_zero: bool = False
    # C2: the slandered player receives this many extra votes.
    slander_bonus: Decimal = Decimal("2")
    # C3 (seed 003 众志成城): +N for each 受困者 when more than half of the living ones vote alike.
    unity_bonus: Decimal = Decimal("0")
    # C4: the day whose vote elects the sheriff (None: no election).
    sheriff_election_day: int | None = 1
    # C5: how a tie at the top is broken, step by step.
    tie_chain: tuple[TieStep, ...] = (TieStep.ACOLYTE, TieStep.SHERIFF_TARGET, TieStep.NONE)
    # C6 (seed 003): out only with more than half of all votes, abstentions included.
    majority_of_all: bool = False
    # C7: what the announcement publishes.
    publish_counts: bool = True
    publish_voters: bool = True
    # A1: the morning post lists the day's out and the night's apart (seeds 000, 002:
    # "前一天因投票出局角色名单、夜晚出局角色名单"); seeds 001, 003 give one list.
    night_apart: bool = True
    # A1, K2: the day's red card sends off before the vote-out (seeds 000, 002: "白天红牌罚下
    # 在被投票出局之前"), or after it (seeds 001, 003: "在投票结算之后执行").
    red_card_before_vote: bool = True
    # L1: fewer posts than this on a day is a yellow card.
    min_posts: int = 5
    # L2: fewer than streak_posts on each of streak_days consecutive days is a yellow card.
    streak_posts: int = 10
    streak_days: int = 3
    # L3: no vote on a day is a yellow card (not in seed 003).
    card_no_vote: bool = True
    # L3 (seed 001): "讨论结束时，未回复投票帖者将被判罚黄牌": the card is for not replying in
    # the vote thread; a reply that holds no ballot, or a void one, is a reply.
    no_vote_is_no_reply: bool = False
    # Whether 楼中楼/点评 count as posts for L1/L2.
    count_comments_as_posts: bool = False
    # L5 (seed 000): a dead player may post this, exactly, once a natural day.
    dead_post_allowance: str | None = "抵制斯大林"
    # L6 (seed 000): discussion in 楼中楼 is carded; comments longer than this are flagged.
    flag_comment_discussion: bool = True
    comment_chat_chars: int = 10
    # K2 (seed 001): this many players of one camp with red cards make the camp lose; None:
    # no such rule.
    camp_loss_reds: int | None = None
    # V12 (seed 002): the roles ([roles]) whose players may vote, and be elected, in the
    # sheriff election; empty: everyone.
    election_voters: tuple[str, ...] = ()
    # L5 (seed 003): the roles whose players may post after they are out (侦探).
    may_post_when_dead: tuple[str, ...] = ()
    # S3: whether the game knows acceleration (加速) at all (every seed does)...
    acceleration: bool = True
    # ... and the share of the living (at the open) who must ask for it.
    acceleration_share: Share = Share.MORE_THAN_HALF
    # S3 (seed 001): requests count until this many hours before the accelerated close.
    acceleration_cutoff_hours: int = 0
    # S3: the threads requests are read in (seeds 001, 002: "在进程帖中申请加速"); None where
    # they go to the director privately (seed 000: "通过QQ私聊法官申请加速"): nothing to count.
    acceleration_threads: tuple[RequestsIn, ...] | None = (
        RequestsIn.PROGRESS,
        RequestsIn.DISCUSSION,
    )
    # V7: a non-voter's post in the vote thread that holds no ballot, in the announcement:
    # a void ballot (seeds 000 and 002: "投票格式有误的投票将算作废票"), or uncounted.
    non_ballots: NonBallots = NonBallots.VOID
    # L8: this many near-empty posts (at most flood_chars characters) within flood_minutes.
    flood_posts: int = 5
    flood_minutes: int = 10
    flood_chars: int = 3


# Seed 000's requests go to the director by QQ: none is in a thread.
_000 = Ruleset(name="000", based_on="000", acceleration_threads=None)
_FORUM_REQUESTS = (RequestsIn.PROGRESS, RequestsIn.DISCUSSION)
PRESETS: dict[str, Ruleset] = {
    "default": dataclasses.replace(
        _000, name="default", based_on="default", acceleration_threads=_FORUM_REQUESTS
    ),
    "000": _000,
    # Seed 001, [245] 酒: changes reply to the vote floor; no proxy in the final hour;
    # counts hidden; 独裁 sheriff; tie: unique maximum, else the sheriff's target.
    "245": dataclasses.replace(
        _000,
        name="245",
        based_on="245",
        change_via=(ChangeMethod.REPLY,),
        change_requires_reason=True,  # 【改票格式】改票对象：/改票理由：
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
        tie_chain=(TieStep.SHERIFF_TARGET, TieStep.NONE),
        publish_counts=False,
        camp_loss_reds=2,
        night_apart=False,
        red_card_before_vote=False,
        acceleration_share=Share.AT_LEAST_HALF,
        acceleration_cutoff_hours=3,
        acceleration_threads=(RequestsIn.PROGRESS,),
        non_ballots=NonBallots.UNCOUNTED,
        no_vote_is_no_reply=True,
    ),
    # Seed 002, [023] 明星大侦探: changes quote the vote post; sheriff 2; proxy change 1 h.
    "023": dataclasses.replace(
        _000,
        name="023",
        based_on="023",
        change_via=(ChangeMethod.QUOTE,),
        change_requires_reason=True,  # "明确说明改票对象和改票理由"
        proxy_change_deadline_minutes=60,
        dead_post_allowance=None,
        flag_comment_discussion=False,
        sheriff_weight=Decimal("2"),
        deputy_weight=Decimal("1"),
        tie_chain=(TieStep.SHERIFF_TARGET, TieStep.NONE),
        election_voters=("嫌疑人",),
        acceleration_threads=(RequestsIn.PROGRESS,),
    ),
    # Seed 003, [M126] 暴风雪山庄: target only; changes without limit or window; 众志成城;
    # more than half of all votes; counts published, voters hidden; no vote is no card.
    "M126": dataclasses.replace(
        _000,
        name="M126",
        based_on="M126",
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
        tie_chain=(TieStep.NONE,),
        majority_of_all=True,
        publish_voters=False,
        night_apart=False,
        red_card_before_vote=False,
        card_no_vote=False,
        dead_post_allowance=None,
        flag_comment_discussion=False,
        may_post_when_dead=("侦探",),
        acceleration_threads=_FORUM_REQUESTS,  # the seed does not say where
        non_ballots=NonBallots.UNCOUNTED,
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
    """The preset with the game file's ``[rules]`` applied; a wrong key or value is one sentence.

    Each value is read by the type its field is declared with (bool, a whole number, a
    number, a text, a list of a StrEnum's values…), so a new field needs no new reader.
    """
    base = PRESETS[preset]
    hints, fields = _fields()
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        if key not in fields:
            close = difflib.get_close_matches(key, sorted(fields), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise GameFileError(f"{source}, key 'rules.{key}': is not a rule tally knows{hint}.")
        try:
            changes[key] = _coerce(value, hints[key])
        except ValueError as exc:
            raise GameFileError(f"{source}, key 'rules.{key}': {exc}.") from None
    return dataclasses.replace(base, **changes)


@functools.cache
def _fields() -> tuple[dict[str, Any], frozenset[str]]:
    """Each rule's declared type, and the rules a game file may set: read from the class
    once (``get_type_hints`` evaluates every annotation again on each call)."""
    hints = typing.get_type_hints(Ruleset)
    return hints, frozenset(f.name for f in dataclasses.fields(Ruleset) if f.name != "based_on")


def _coerce(value: Any, hint: Any) -> Any:
    """``value`` read as the type ``hint``; ValueError says what it must be."""
    args = typing.get_args(hint)
    if type(None) in args:  # X | None: "none", "" or false is None
        (inner,) = (a for a in args if a is not type(None))
        if value is False or value in NO_VALUE:
            return None
        try:
            return _coerce(value, inner)
        except ValueError as exc:
            suffix = ' or "" for none' if inner is str else ' or "none"'
            raise ValueError(f"{exc}{suffix}") from None
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError("must be true or false")
        return value
    if hint is int:
        if not _whole(value):
            raise ValueError(f"must be a whole number from 0 to {MAX_WHOLE:,}")
        return value
    if hint is Decimal:
        return parse_number(value, low=Decimal(0), high=Decimal(100))
    if hint is str:
        if not isinstance(value, str) or not value.strip():
            raise ValueError("must be a non-empty string")
        return value.strip()
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        allowed = tuple(hint)
        if value not in allowed:
            raise ValueError(f"must be one of {', '.join(repr(str(a)) for a in allowed)}")
        return hint(value)
    if typing.get_origin(hint) is tuple and args == (str, Ellipsis):
        # Names (roles): a list of texts, empty allowed.
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise ValueError("must be a list of names")
        return tuple(v.strip() for v in value)
    if typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis:
        allowed = tuple(args[0])  # a StrEnum: the values it allows
        if not isinstance(value, list) or not value or any(v not in allowed for v in value):
            raise ValueError(f"must be a list of {', '.join(repr(str(a)) for a in allowed)}")
        return tuple(args[0](v) for v in value)
    if typing.get_origin(hint) is tuple and all(a is int for a in args):
        if not (isinstance(value, list) and len(value) == len(args) and all(map(_whole, value))):
            count = "two" if len(args) == 2 else str(len(args))
            raise ValueError(f"must be {count} whole numbers, [vote within, no change after]")
        return tuple(value)
    raise ValueError("must be a value of the right kind")  # pragma: no cover - all fields read
