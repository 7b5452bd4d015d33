"""The words of a verdict, each once: status, kind, why a ballot is void, tie step, outcome,
card colour.

Every member is its JSON value (a ``StrEnum``), and carries the rule of RULES it applies
(``rule``) and the Chinese word an announcement prints (``label``); a tie step what it does
and whom it puts out, an outcome its sentence when the counts are hidden. The judge, the
count, the announcement, the ledger, the console, docs/rulesets.md, docs/game-file.md's
[rules] table and README's list of void reasons all take them from here; a problem found in
a ballot is a (code, text) pair, never recognised by its text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, Self

from tally.i18n import N_, tr


class _Labelled(StrEnum):
    """A value with the rule it applies and its Chinese label."""

    rule: str
    label: str

    def __new__(cls, value: str, rule: str = "", label: str = "") -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.rule = rule
        member.label = label
        return member


class Status(_Labelled):
    COUNTED = "counted", "", "有效"  # the ballot in force (at the close, or now)
    SUPERSEDED = "superseded", "V2", "已改票"  # replaced by a valid change
    VOID = "void", "V7", "废票"  # never counts
    # A post in the vote thread that holds no ballot: never counted, always listed.
    NOT_A_BALLOT = "not_a_ballot", "V6", "不是选票"
    # A post the forum shows 屏蔽ed (a moderator's banpost, or its author banned): never
    # counted, whoever's cookies read it (a moderator's are shown its words).
    BANNED = "banned", "V7", "被屏蔽"
    # A post tally read earlier that the forum no longer shows: never counted.
    DELETED = "deleted", "V7", "已删除"
    # A post tally read in another thread before, moved or merged into the vote thread by a
    # moderator since (移动, 合并): not posted in the vote thread, never counted.
    MOVED_IN = "moved_in", "S2", "他帖移入"
    # A post tally read in the day's discussion thread, which the vote thread was merged
    # into since (合并), the game file naming it the vote thread now: never counted.
    DISCUSSION = "discussion", "S2", "讨论帖发言"


class BallotKind(_Labelled):
    VOTE = "vote", "V1", "投票"
    CHANGE = "change", "V2", "改票"
    ABSTAIN = "abstain", "V6", "弃权"
    PROXY = "proxy", "V8", "代投"


class VoidReason(_Labelled):
    FORMAT = "format", "V1", "格式错误"
    SEVERAL_BALLOTS = "several_ballots", "V6", "一帖多票"
    UNKNOWN_TARGET = "unknown_target", "V7", "投票对象有误"
    DEAD_VOTER = "dead_voter", "V9", "已出局者投票"
    DEAD_TARGET = "dead_target", "V9", "投给已出局者"
    BANNED_VOTER = "banned_voter", "V10", "当日不能投票"
    BANNED_TARGET = "banned_target", "V10", "该角色当日不能被投票"
    BEFORE_OPEN = "before_open", "S2", "开门前投票"
    AFTER_CLOSE = "after_close", "S2", "关门后投票"
    NOT_A_PLAYER = "not_a_player", "V6", "非玩家"
    DIRECTOR = "director", "V8", "导演帖"
    PROXY_NOT_DIRECTOR = "proxy_not_director", "V8", "非导演代投"
    UNKNOWN_VOTER = "unknown_voter", "V8", "代投对象不是玩家"
    PROXY_LATE = "proxy_late", "V8", "代投超时"
    CHANGE_WITHOUT_VOTE = "change_without_vote", "V2", "无票可改"
    CHANGE_NOT_REPLY = "change_not_reply", "V3", "改票方式不符"
    SECOND_CHANGE = "second_change", "V4", "第二次改票"
    CHANGE_IN_FINAL_HOUR = "change_in_final_hour", "V5", "关门前一小时内改票"
    CHANGE_UNDER_ACCELERATION = "change_under_acceleration", "S3", "加速日改票"
    NO_CHANGE = "no_change", "V7", "改票对象未变"
    BAR_OWNER_LATE_CHANGE = "bar_owner_late_change", "V11", "主管超时改票"
    # V12: the words never name the role (roles stay out of public posts).
    NOT_ELECTOR = "not_elector", "V12", "无警长竞选投票权"
    NOT_ELECTABLE = "not_electable", "V12", "不可当选警长"
    RULING = "ruling", "", "导演裁定作废"  # the director's [[rulings]]


# When a ballot breaks several rules, the one its row names (issue 48): what it was posted
# too early, too late or by whom, then where and how it was posted (a change under the wrong
# floor), then how it was written. A player told 格式错误 about a change posted the wrong way
# mends the words and the change is void again; every reason is kept (``Ballot.reasons``).
# A change that names the same target is that first (改票对象未变): it changed nothing.
NAMED_FIRST = (
    VoidReason.RULING,
    VoidReason.BEFORE_OPEN,
    VoidReason.AFTER_CLOSE,
    VoidReason.NOT_A_PLAYER,
    VoidReason.DIRECTOR,
    VoidReason.PROXY_NOT_DIRECTOR,
    VoidReason.UNKNOWN_VOTER,
    VoidReason.DEAD_VOTER,
    VoidReason.BANNED_VOTER,
    VoidReason.NOT_ELECTOR,
    VoidReason.PROXY_LATE,
    VoidReason.CHANGE_UNDER_ACCELERATION,
    VoidReason.CHANGE_IN_FINAL_HOUR,
    VoidReason.BAR_OWNER_LATE_CHANGE,
    VoidReason.SECOND_CHANGE,
    VoidReason.CHANGE_WITHOUT_VOTE,
    VoidReason.NO_CHANGE,
    VoidReason.CHANGE_NOT_REPLY,
    VoidReason.FORMAT,
    VoidReason.SEVERAL_BALLOTS,
    VoidReason.UNKNOWN_TARGET,
    VoidReason.DEAD_TARGET,
    VoidReason.BANNED_TARGET,
    VoidReason.NOT_ELECTABLE,
)


def named_first(reasons: Iterable[VoidReason]) -> VoidReason | None:
    """Of the reasons a ballot is void for, the one its row names (``NAMED_FIRST``)."""
    return min(reasons, key=NAMED_FIRST.index, default=None)


def span_words(minutes: int) -> str:
    """A span as a rule post says it: 一小时, 两小时, 90分钟, 10分钟."""
    hours, rest = divmod(minutes, 60)
    if minutes and not rest:
        return {1: "一", 2: "两"}.get(hours, str(hours)) + "小时"
    return f"{minutes}分钟"


class Windowed(Protocol):
    """What ``void_words`` reads of a ruleset: how long its final hour is (V5)."""

    @property
    def change_window_minutes(self) -> int: ...


def void_words(reason: VoidReason, rules: Windowed | None) -> str:
    """Why a ballot is void, as the announcement prints it, with the numbers of the ruleset
    in force (a 10-minute window is not 关门前一小时); ``label`` is the preset's wording."""
    if reason is VoidReason.CHANGE_IN_FINAL_HOUR and rules is not None:
        return f"关门前{span_words(rules.change_window_minutes)}内改票"
    return reason.label


# A void first ballot with one of these may be fixed, and the fix is no change (V7): a
# wrong format or a wrong target ("修改投票格式或投票对象错误不算改票", seed 000), which is
# one that names no player, or one who is out, may not be voted for that day or may not be
# elected (V12).
FIXABLE = frozenset(
    {
        VoidReason.FORMAT,
        VoidReason.UNKNOWN_TARGET,
        VoidReason.SEVERAL_BALLOTS,
        VoidReason.DEAD_TARGET,
        VoidReason.BANNED_TARGET,
        VoidReason.NOT_ELECTABLE,  # seed 002: "修改错别字不算做改票"
    }
)


class DayKind(_Labelled):
    SHERIFF = "sheriff", "C4", "警长竞选"
    ELIMINATION = "elimination", "C5", "投票"


class ThreadRole(_Labelled):
    """Which of a day's threads a thread is (the vote thread first: it is what is counted)."""

    VOTE = "vote", "", "投票帖"
    DISCUSSION = "discussion", "", "讨论帖"
    PROGRESS = "progress", "", "进程帖"
    # Ruleset 245's 自由 sheriff speaks here, and it counts with the day's discussion (L1).
    SHERIFF = "sheriff", "", "自由警长发言贴"  # the game file's sheriff_thread


class OutcomeResult(_Labelled):
    ELIMINATED = "eliminated", "C5", "出局"
    SHERIFF = "sheriff", "C4", "当选警长"
    NONE = "none", "", "无人"


class TieStep(StrEnum):
    """One step of a tie-break (RULES C5): whom it puts out (``who``, as the rules table
    names it) and what it does (``says``, as docs/rulesets.md and docs/game-file.md say it).
    ``tally.rules.counting.count`` takes the steps of ``Ruleset.tie_chain`` in order."""

    who: str
    says: str

    def __new__(cls, value: str, who: str, says: str) -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.who = who
        member.says = says
        return member

    # Marked for the catalog (N_): kept in English here (docs/rulesets.md is written in
    # English), translated where a page in the director's language shows them.
    ACOLYTE = "acolyte", "侍僧", N_("the 侍僧 (the day's `acolyte`) dies instead")
    SHERIFF_TARGET = (
        "sheriff_target",
        N_("the sheriff's target"),
        N_("the sheriff's target is out"),
    )
    NONE = "none", N_("nobody"), N_("nobody is out")


class OutcomeCode(_Labelled):
    """How the day was decided; ``label`` is the announcement's sentence for it, ``hidden``
    the sentence where the ruleset hides the counts (C7, ruleset 245): it names only the top
    (the label where it has no other)."""

    hidden: str

    def __new__(cls, value: str, rule: str, label: str, hidden: str = "") -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.rule = rule
        member.label = label
        member.hidden = hidden or label
        return member

    PLURALITY = (
        "plurality",
        "C5",
        "{player} 以 {top} 票被投票出局。",
        "最高票：{player}，被投票出局。",
    )
    TIE_SHERIFF_TARGET = (
        "tie_sheriff_target",
        "C5",
        "{tied} 平票（{top} 票），按警长投票对象，{player} 被投票出局。",
        "最高票有多人，按警长投票对象，{player} 被投票出局。",
    )
    TIE_ACOLYTE = (
        "tie_acolyte",
        "C5",
        "{tied} 平票（{top} 票），侍僧 {player} 发动牺牲深渊，代替出局。",
        "最高票有多人，侍僧 {player} 发动牺牲深渊，代替出局。",
    )
    NO_VOTES_ACOLYTE = "no_votes_acolyte", "C5", "无人得票，侍僧 {player} 发动牺牲深渊出局。"
    TIE_NONE = (
        "tie_none",
        "C5",
        "{tied} 平票（{top} 票），无人出局。",
        "最高票有多人，无人出局。",
    )
    NO_VOTES = "no_votes", "C5", "无人得票，无人出局。"
    IMMUNE = (
        "immune",
        "C8",
        "{tied} 得票最高，但不会被投票出局，今日为平安日。",
        "最高票：{tied}，但不会被投票出局，今日为平安日。",
    )
    MAJORITY_OF_ALL = (
        "majority_of_all",
        "C6",
        "{player} 得 {top} 票，超过总票数 {cast} 的一半，被投票出局。",
    )
    NO_MAJORITY = "no_majority", "C6", "最高票 {top} 票未超过总票数 {cast} 的一半，无人出局。"
    MOST_VOTES = (
        "most_votes",
        "C4",
        "{player} 以 {top} 票当选警长。",
        "最高票：{player}，当选警长。",
    )
    FIRST_TO_REACH = (
        "first_to_reach",
        "C4",
        "{tied} 同为 {top} 票，{player} 最先达到，当选警长。",
        "最高票有多人，{player} 最先达到，当选警长。",
    )
    FIRST_TO_REACH_TIED = (
        "first_to_reach_tied",
        "C4",
        "{tied} 同为 {top} 票且同时达到，由导演裁定警长。",
    )


class Colour(_Labelled):
    BLUE = "blue", "K1", "蓝牌"
    YELLOW = "yellow", "K1", "黄牌"
    RED = "red", "K2", "红牌"


class RulingAction(_Labelled):
    VOID = "void", "", "作废"
    ACCEPT = "accept", "V7", "认可"


@dataclass(frozen=True)
class Problem:
    """What is wrong with a ballot: the reason (a code) and a sentence for the director,
    kept as written (marked ``N_``) with its fields, and translated when it is read: a
    reading is cached (``read_ballot``) and outlives the language it was read in."""

    code: VoidReason
    said: str
    fields: tuple[tuple[str, object], ...] = ()

    @property
    def text(self) -> str:
        return tr(self.said, **dict(self.fields))
