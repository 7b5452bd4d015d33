"""Rulesets: every choice the four seed games make differently, as plain data.

Each field cites the rule it holds (README, *The rules*) and says what it means (``said``:
docs/game-file.md's ``[rules]`` table is written from it). A game picks a preset with
``ruleset = "…"`` and may override any field under ``[rules]`` in its game file
(``tally.rules.game.overrides`` reads them).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum

from tally.i18n import N_
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
# what the sentence of a change void as change_not_reply says to do (marked for the catalog:
# translated where that sentence is made).
CHANGE_BUTTONS = {
    "discuz": {
        ChangeMethod.COMMENT: N_("the vote floor's 点评 button"),
        ChangeMethod.REPLY: N_("the vote floor's 回复 button"),
        ChangeMethod.QUOTE: N_("the vote floor's 引用 button (X3.5: 回复, which quotes it)"),
        ChangeMethod.POST: N_("a new post"),
    },
    "tieba": {
        ChangeMethod.COMMENT: N_("a 楼中楼 under the vote floor"),
        ChangeMethod.REPLY: N_("no Tieba post links the floor it answers"),
        ChangeMethod.QUOTE: N_("Tieba has no 引用"),
        ChangeMethod.POST: N_("a new floor"),
    },
}
# Each preset in a line, as `tally init` lists them for the director to choose.
ABOUT = {
    "000": N_("冷焰's compendium (Tieba 塔达林, 天灾, 苏联): changes as 楼中楼, sheriff 2.5, "
    "deputy 1.5, a tie goes to the 侍僧"),
    "245": N_("[245] 酒: changes reply to the vote floor, a 独裁 sheriff, counts hidden, "
    "at least half accelerate"),
    "023": N_("[023] 明星大侦探: changes quote the vote post, sheriff 2, only 嫌疑人 elect "
    "the sheriff"),
    "M126": N_("[M126] 暴风雪山庄: the target alone, changes without limit, out only with more "
    "than half of all votes"),
}
def said(rule: str, means: str, kind: str = "") -> dict[str, str]:
    """What docs/game-file.md's ``[rules]`` table says of a field beside its key and its type:
    the rules it applies and what it means (the presets' values follow from ``PRESETS``);
    ``kind`` where the type says less than the field holds (a list of roles)."""
    return {"rule": rule, "means": means, "kind": kind}


@dataclass(frozen=True)
class Ruleset:
    # What the game calls its rules; [rules] may rename them ("我的变体").
    name: str = field(
        metadata=said("—", "what the game calls its rules (default: the preset's name)")
    )
    # The preset these rules start from (the game file's ``ruleset``).
    based_on: str = "default"
    # V1: a vote names its target; most games also want a reason line (投票理由).
    require_reason: bool = field(default=True, metadata=said("V1", "a vote needs a 投票理由 line"))
    # V2: a change (改票对象) wants its 改票理由 too: seeds 001 and 002 give both lines; seed 000
    # asks the reason of the vote ("明确说明投票对象和投票理由") and of a change only that it
    # is made as a 楼中楼, so a change written 改票对象：名字 alone counts there.
    change_requires_reason: bool = field(
        default=False,
        metadata=said(
            "V2", "a change needs a 改票理由 line: seed 000 asks a reason of the vote alone"
        ),
    )
    abstain_word: str = field(default="弃权", metadata=said("V6", "the target that abstains"))
    # V3: how a change must be posted: a comment (楼中楼/点评) under one's own vote floor,
    # a reply to it (Discuz! 回复, which links the floor), a quote of it, or any new post.
    change_via: tuple[ChangeMethod, ...] = field(
        default=(ChangeMethod.COMMENT,), metadata=said("V3", "how a change must be posted")
    )
    max_changes: int | None = field(
        default=1, metadata=said("V4", 'how many changes a player has (`"none"`: no limit)')
    )
    change_window_minutes: int = field(
        default=60, metadata=said("V5", "no change in the last N minutes before the close")
    )
    # V7: a fix of a void ballot, posted the way a change must be, is no change and keeps
    # the original ballot's time (seeds 000, 002); seed 001 fixes by posting anew.
    fix_keeps_time: bool = field(
        default=True, metadata=said("V7", "a fixed void ballot keeps the original's time")
    )
    # V9 (seed 001): when one's target is eliminated during the day, one more change is
    # allowed, even inside the final hour.
    change_after_target_death: bool = field(
        default=False, metadata=said("V9", "one more change when one's target dies during the day")
    )
    # V8: proxy ballots posted by the director are due N minutes before the close; (seed 002)
    # a proxy change must be asked for N minutes before it.
    proxy_deadline_minutes: int | None = field(
        default=30, metadata=said("V8", "proxy ballots due N minutes before the close")
    )
    proxy_change_deadline_minutes: int | None = field(
        default=30, metadata=said("V8", "proxy changes due N minutes before the close")
    )
    # V11 (seed 002 主管): a valid vote within N hours of the open, no change after M hours
    # (accelerated: the second pair).
    bar_owner_hours: tuple[int, int] = field(
        default=(12, 11),
        metadata=said("V11", "the 主管: a valid vote within N hours, no change after M"),
    )
    bar_owner_hours_accelerated: tuple[int, int] = field(
        default=(6, 5), metadata=said("V11", "the same on an accelerated day")
    )
    sheriff_weight: Decimal = field(
        default=Decimal("2.5"), metadata=said("C1", "the sheriff's weight")
    )
    deputy_weight: Decimal = field(
        default=Decimal("1.5"), metadata=said("C1", "the deputy's weight")
    )
    # C1 (seed 001): a sheriff who declared 独裁 votes with dictator_weight, +1 more for
    # every dictator_every living players from dictator_from on ("从10人开始，当前存活人数每增加
    # 5人，警长票权额外+1").
    dictator_bonus: bool = field(
        default=False, metadata=said("C1", "a sheriff who declared 独裁 votes with more weight")
    )
    dictator_weight: Decimal = field(
        default=Decimal(2), metadata=said("C1", "the 独裁 sheriff's weight")
    )
    dictator_from: int = field(default=10, metadata=said("C1", "from this many living players on…"))
    dictator_every: int = field(default=5, metadata=said("C1", "…every this many more add 1"))
    # C1 (seed 001): the deputy is immune to [迷魂] (weight 0).
    deputy_immune_to_zero: bool = field(
        default=False, metadata=said("C1", "the deputy keeps their weight under 迷魂")
    )
    slander_bonus: Decimal = field(
        default=Decimal("2"), metadata=said("C2", "the votes a slandered player receives on top")
    )
    # C3 (seed 003 众志成城): +N for each 受困者 when more than half of the living ones vote alike.
    unity_bonus: Decimal = field(
        default=Decimal("0"),
        metadata=said("C3", "众志成城: +N per 受困者 when more than half vote alike"),
    )
    sheriff_election_day: int | None = field(
        default=1,
        metadata=said("C4", 'the day whose vote elects the sheriff (`"none"`: no election)'),
    )
    # C5: how a tie at the top is broken, step by step (each step's words are TieStep's).
    tie_chain: tuple[TieStep, ...] = field(
        default=(TieStep.ACOLYTE, TieStep.SHERIFF_TARGET, TieStep.NONE),
        metadata=said("C5", "how a tie at the top is broken, step by step"),
    )
    # C6 (seed 003): out only with more than half of all votes, abstentions included.
    majority_of_all: bool = field(
        default=False,
        metadata=said("C6", "out only with more than half of all votes cast, abstentions included"),
    )
    publish_counts: bool = field(
        default=True, metadata=said("C7", "the announcement shows the counts")
    )
    publish_voters: bool = field(
        default=True, metadata=said("C7", "the announcement shows who voted whom")
    )
    # A1: the morning post lists the day's out and the night's apart (seeds 000, 002:
    # "前一天因投票出局角色名单、夜晚出局角色名单"); seeds 001, 003 give one list.
    night_apart: bool = field(
        default=True,
        metadata=said("A1", "the morning post lists the day's out and the night's on two lines"),
    )
    # A1, K2: the day's red card sends off before the vote-out (seeds 000, 002: "白天红牌罚下
    # 在被投票出局之前"), or after it (seeds 001, 003: "在投票结算之后执行").
    red_card_before_vote: bool = field(
        default=True,
        metadata=said(
            "A1", "in the morning post's order, the day's red card comes before the vote-out"
        ),
    )
    min_posts: int = field(
        default=5, metadata=said("L1", "fewer posts than this on a day: a yellow card")
    )
    streak_posts: int = field(
        default=10,
        metadata=said(
            "L2", "fewer than this on each of `streak_days` days in a row: a yellow card"
        ),
    )
    streak_days: int = field(
        default=3, metadata=said("L2", "how many days in a row `streak_posts` counts")
    )
    card_no_vote: bool = field(default=True, metadata=said("L3", "no vote on a day: a yellow card"))
    no_vote_is_no_reply: bool = field(
        default=False,
        metadata=said(
            "L3",
            'the L3 card is for not replying in the vote thread (245: "讨论结束时，未回复投票帖者'
            '将被判罚黄牌"): a reply holding no ballot, or a void one, earns none',
        ),
    )
    count_comments_as_posts: bool = field(
        default=False, metadata=said("L1, L2", "点评/楼中楼 count as posts")
    )
    dead_post_allowance: str | None = field(
        default="抵制斯大林", metadata=said("L5", "what a dead player may post once a natural day")
    )
    flag_comment_discussion: bool = field(
        default=True, metadata=said("L6", "flag discussion posted as 楼中楼")
    )
    comment_chat_chars: int = field(
        default=10, metadata=said("L6", "a 楼中楼 longer than this is flagged as discussion")
    )
    camp_loss_reds: int | None = field(
        default=None, metadata=said("K2", "this many red cards in one camp make it lose")
    )
    election_voters: tuple[str, ...] = field(
        default=(),
        metadata=said(
            "V12",
            "only players with these roles (`[roles]`) vote and may be elected in the "
            "sheriff election; `[]`: everyone",
            "list of roles",
        ),
    )
    may_post_when_dead: tuple[str, ...] = field(
        default=(),
        metadata=said(
            "L5", "players with these roles may post after they are out", "list of roles"
        ),
    )
    acceleration: bool = field(
        default=True,
        metadata=said(
            "S3", "whether the game knows 加速 at all; false: no request is counted, no S3 line"
        ),
    )
    acceleration_share: Share = field(
        default=Share.MORE_THAN_HALF,
        metadata=said("S3", "how many of the living (at the open) must ask for 加速"),
    )
    acceleration_cutoff_hours: int = field(
        default=0, metadata=said("S3", "requests count until N hours before the accelerated close")
    )
    # S3: seeds 001 and 002 ask in the 进程帖 ("在进程帖中申请加速"); seed 000 privately
    # ("通过QQ私聊法官申请加速"): nothing to count.
    acceleration_threads: tuple[RequestsIn, ...] | None = field(
        default=(RequestsIn.PROGRESS, RequestsIn.DISCUSSION),
        metadata=said("S3", "the threads requests for 加速 are read in (245, 023: "
                      "\"在进程帖中申请加速\"); `\"none\"` where they go to the director by QQ "
                      "(000), so nothing is counted: a 000 game that takes them in its threads "
                      "says so here"),
    )  # fmt: skip
    # V7 (seeds 000 and 002: "投票格式有误的投票将算作废票").
    non_ballots: NonBallots = field(
        default=NonBallots.VOID,
        metadata=said(
            "V7",
            "a non-voter's post in the vote thread that holds no ballot, in the closing post: "
            "under 废票, or under 未计入",
        ),
    )
    flood_posts: int = field(default=5, metadata=said("L8", "this many near-empty posts…"))
    flood_minutes: int = field(
        default=10, metadata=said("L8", "…within this many minutes are flagged")
    )
    flood_chars: int = field(
        default=3, metadata=said("L8", "a post of at most this many characters is near-empty")
    )


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
