"""Announcements: what each says (the values its template gets), in BBCode for Discuz! and
plain text for Tieba (RULES C7); the posts that open a day are ``opening``'s (A1, A2).

Each kind is a template ``<kind>.<markup>.j2``, rendered in tally's Jinja machinery
(``tally.outputs.written.templating``: the director's folder, the sandbox, the bounds).
Every value a template prints passes through ``inert()``: a name or a reason that holds
``[color=red]`` or ``[url=…]`` shows as text, never as markup, because red font is the
director's alone (RULES L7).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from tally.errors import InputError
from tally.forums import markup_for, platform_of
from tally.i18n import tr
from tally.outputs.written.templating import compile_templates, template_text
from tally.rules.counting.count import votes_text
from tally.rules.counting.votes import DayResult
from tally.rules.game.game import Day, Game
from tally.rules.game.names import ANONYMOUS, normalise
from tally.rules.game.rulesets import ChangeMethod, NonBallots, Ruleset
from tally.rules.judging.ballots import Ballot, Remark
from tally.rules.verdicts import BallotKind, Status, span_words, void_words
from tally.sanitise import one_line
from tally.times import compared, short
from tally.vocabulary import BBCODE_OPENING as _BBCODE
from tally.vocabulary import Announcement, Markup

_ZWSP = "\u200b"


def inert(value: Any) -> Any:
    """A value a template prints, made safe: one sanitised line, its BBCode tags broken.

    Every value is a one-line field, so a 投票理由 with line breaks cannot forge a line of
    the post (a fake result, a fake director's line). Discuz! matches tags such as
    ``[color=…]`` literally; a zero-width space after the bracket of a tag it knows stops
    the match and shows the same characters.
    """
    if isinstance(value, str):
        return _BBCODE.sub("[" + _ZWSP, one_line(value))
    return value


def render(
    kind: Announcement, markup: Markup, context: Mapping[str, Any], template_dir: Path | None = None
) -> str:
    if markup not in tuple(Markup):
        raise InputError(tr("--format must be one of {formats}, not {markup!r}.",
                            formats=", ".join(Markup), markup=markup))  # fmt: skip
    name = f"{Announcement(kind)}.{Markup(markup)}.j2"
    return template_text(name, context, template_dir, finalize=inert)


def check_templates(kind: Announcement, template_dir: Path | None) -> None:
    """Compile the templates of ``kind`` now (each markup's), so that a broken one in the
    director's folder stops the command before any page is read."""
    names = [f"{kind}.{markup}.j2" for markup in Markup]
    compile_templates(names, template_dir, finalize=inert)


# -- the closing announcement --------------------------------------------------------------

_BONUS = {"C2": "诽谤", "C3": "众志成城"}


def _top(result: DayResult) -> list[str]:
    totals = result.totals
    top = totals[0].votes if totals else None
    return [t.player for t in totals if top is not None and t.votes == top and top > 0]


def _words(result: DayResult) -> dict[str, str]:
    totals = result.totals
    top = totals[0].votes if totals else None
    tied = _top(result)
    return {
        "player": result.outcome.player or "",
        "tied": "、".join(tied),
        "top": votes_text(top) if top else "0",
        "cast": votes_text(result.count.cast),
    }


def outcome_sentence(result: DayResult, game: Game) -> str:
    """The day's result as the announcement says it (naming only the top when the ruleset
    hides the counts, C7)."""
    code = result.outcome.code
    return (code.label if game.rules.publish_counts else code.hidden).format(**_words(result))


def close_context(
    result: DayResult, game: Game, *, provisional: bool = False, show_rules: bool = False
) -> dict[str, Any]:
    """What the closing announcement of a day may say, as the ruleset's visibility allows.

    A day not yet closed is refused unless ``provisional`` is asked for: then the post is a
    mid-day standing (截至 … 暂计), with who leads and no elimination line.
    """
    if result.provisional and not provisional:
        closes, read = compared(result.day.closes, result.as_of)
        raise InputError(tr(
            "day {day} closes at {closes}, after the count's time ({read}): the result is not "
            "final; run again after the close, or pass --provisional for a mid-day standing.",
            day=result.day.day, closes=closes, read=read))  # fmt: skip
    rules = game.rules
    ref = result.day.vote_ref
    platform = platform_of(ref)
    o = result.outcome
    ballots = _ballot_rows(result, game)
    remarks = [*_unballoted_rows(result), *_gone_rows(result)]
    return {
        "game": game.name,
        "day": result.day.day,
        "kind": result.kind,
        "ruleset": rules.name,
        "publish_counts": rules.publish_counts,
        "publish_voters": rules.publish_voters,
        "thread_url": platform.page_url(ref, 1),
        # What the forum calls a comment under a floor: a Discuz! 点评, a Tieba 楼中楼.
        "comment_word": platform.comment_word,
        "totals": _total_rows(result),
        "top": _top(result),
        "counted": [b for b in ballots if b["status"] == Status.COUNTED and not b["abstain"]],
        "abstained": [b for b in ballots if b["status"] == Status.COUNTED and b["abstain"]],
        "superseded": [b for b in ballots if b["status"] == Status.SUPERSEDED],
        "void": sorted(
            [b for b in ballots if b["status"] == Status.VOID]
            + (remarks if rules.non_ballots is NonBallots.VOID else []),
            key=lambda b: b["floor"],
        ),
        # A non-voter's posts that hold no ballot ("同上"), so they see why they count as
        # not voted (the rules may call them void instead: non_ballots).
        "uncounted": remarks if rules.non_ballots is NonBallots.UNCOUNTED else [],
        "not_voted": list(result.not_voted),
        "provisional": result.provisional,
        "show_rules": show_rules,
        "as_of": f"{short(result.as_of)}",
        "closes": f"{short(result.day.closes)}",
        "standing": _standing(result, rules),
        **rule_numbers(rules),
        "outcome": {
            "result": o.result,
            "player": o.player or "",
            "rule": o.code.rule,
            "code": o.code,
            "text": outcome_sentence(result, game),
        },
    }


def _standing(result: DayResult, rules: Ruleset) -> str:
    """A provisional post's line on who leads, and that the close decides."""
    leaders = "、".join(result.leaders)
    if not leaders:
        standing = "目前无人得票。"
    elif rules.publish_counts:
        standing = f"暂时领先：{leaders}（{_words(result)['top']} 票）。"
    else:
        standing = f"暂时领先：{leaders}。"
    return standing + f"以 {short(result.day.closes)} 关门后的结果为准。"


def post_link(result: DayResult, row: Ballot | Remark) -> str:
    """The address of a ballot's or a remark's post (a comment's: the floor it is under)."""
    ref = result.day.vote_ref
    return platform_of(ref).post_url(ref, row.parent_post_id or row.post_id)


def _total_rows(result: DayResult) -> list[dict[str, Any]]:
    """Each player's votes, who gave them (with weights) and the bonuses (C2, C3)."""
    weights = result.count.weights
    # An anonymous ballot (匿名) is counted as its account's, which the forum shows only to
    # moderators: the players' post names it as the forum does, 匿名 (found on a real X3.5).
    unnamed = {b.voter for b in result.ballots
               if b.author == ANONYMOUS and b.voter and b.status == Status.COUNTED}  # fmt: skip

    def named(voter: str) -> str:
        return ANONYMOUS if voter in unnamed else voter

    return [
        {
            "player": t.player,
            "votes": votes_text(t.votes),
            "voters": [{"name": named(v), "weight": _weight(weights, v)} for v in t.voters],
            "bonuses": [
                {"votes": votes_text(a), "label": _BONUS.get(rule, why), "rule": rule}
                for a, why, rule in t.bonuses
            ],
        }
        for t in result.totals
    ]


def _ballot_rows(result: DayResult, game: Game) -> list[dict[str, Any]]:
    """Every ballot of the day as the post lists it, whatever its status."""
    rules = game.rules
    weights = result.count.weights
    # An account no player that posts under a player's name now (the forum renamed it, or
    # the player): named with its uid, so the post does not read as the player voided.
    players = {normalise(p) for p in game.players}

    def who(b: Any) -> str:
        if b.author == ANONYMOUS:
            return ANONYMOUS
        if b.voter:
            return str(b.voter)
        if b.author_id and normalise(b.author) in players:
            return f"{b.author}（uid {b.author_id}）"
        return str(b.author)

    return [
        {
            "floor": b.floor,
            "comment": b.comment,
            "link": post_link(result, b),
            "voter": who(b),
            "kind": b.kind.label,
            "target": b.target or b.written,
            "reason": b.written_reason or "",
            "status": b.status,
            "abstain": b.kind == BallotKind.ABSTAIN,
            "void_reason": void_words(b.reason, rules) if b.reason else "",
            "weight": _weight(weights, b.voter),
        }
        for b in result.ballots
    ]


def _unballoted_rows(result: DayResult) -> list[dict[str, Any]]:
    """A non-voter's posts that hold no ballot, one entry a player (the first such post, and
    how many more), so they see why they are not counted as having voted."""
    firsts: dict[str, Any] = {}
    for r in result.remarks:
        if r.status != Status.NOT_A_BALLOT:
            continue  # banned and deleted posts: each listed by _gone_rows
        if r.player in result.not_voted:
            first = firsts.setdefault(r.player, {"remark": r, "more": -1})
            first["more"] += 1
    remarks = []
    for player, first in firsts.items():
        r, more = first["remark"], first["more"]
        label = Status.NOT_A_BALLOT.label + (f"（另{more}帖）" if more else "")
        remarks.append(
            {
                "floor": r.floor,
                "comment": r.comment,
                "link": post_link(result, r),
                "voter": player,
                "words": r.words + (f"（另{more}帖）" if more else ""),
                "void_reason": label,
            }
        )
    return remarks


def _gone_rows(result: DayResult) -> list[dict[str, Any]]:
    """A post the forum 屏蔽s or no longer shows is listed whoever wrote it: its author sees
    why it was not counted (its words stay unsaid: the forum hides them). A deleted post's
    floor is the one it had when tally read it, said so: a Discuz! board numbers the floors
    after it again, so that number may now be another post's."""
    return [
        {
            "floor": r.floor,
            "comment": r.comment,
            "link": post_link(result, r),
            "voter": r.player or r.author,
            "words": gone_label(r),
            "void_reason": gone_label(r),
        }
        for r in result.remarks
        # The discussion's posts in the thread the vote thread was merged into (合并) are
        # the discussion's, no post of the vote: not listed.
        if r.status not in (Status.NOT_A_BALLOT, Status.DISCUSSION)
    ]


def _weight(weights: Mapping[str, Any], voter: str | None) -> str:
    return votes_text(weights[voter][0]) if voter is not None and voter in weights else "1"


def gone_label(r: Remark) -> str:
    """A row the forum took from the players (屏蔽, deleted, moved in) as they are told it:
    its Chinese label, a deleted post's with the floor it had."""
    if r.status is Status.DELETED:
        return f"{r.status.label}（删除前在{r.floor}楼）"
    return r.status.label


def closing_post(
    result: DayResult,
    game: Game,
    markup: Markup | None = None,
    *,
    provisional: bool = False,
    show_rules: bool = False,
    template_dir: Path | None = None,
) -> str:
    """The closing announcement of a counted day, in the forum's markup unless ``markup``."""
    context = close_context(result, game, provisional=provisional, show_rules=show_rules)
    markup = markup or markup_for(result.day.vote_ref)  # the platform's, a library call's
    return render(Announcement.CLOSE, markup, context, template_dir)


# -- the reminder (催票) ------------------------------------------------------------------------


def rule_numbers(rules: Ruleset) -> dict[str, Any]:
    """The numbers of the ruleset in force, for a template's own sentences: every template
    gets them, so that none types "一小时" where the game's window is 10 minutes."""
    return {
        "change_window_minutes": rules.change_window_minutes,
        "change_window": span_words(rules.change_window_minutes),  # 一小时, 10分钟
        "max_changes": rules.max_changes,
        "proxy_deadline_minutes": rules.proxy_deadline_minutes,
        "proxy_change_deadline_minutes": rules.proxy_change_deadline_minutes,
        "min_posts": rules.min_posts,
        "streak_posts": rules.streak_posts,
        "streak_days": rules.streak_days,
    }


def change_rule_line(game: Game, day: Day, *, show_rules: bool = False) -> str:
    """How a change is posted, how many, and until when (RULES V3, V4, V5), in one line; on
    an accelerated day, that no change is allowed (S3: the count voids every change)."""
    rules = game.rules
    if day.accelerated:
        return "今日已加速，不得改票" + ("（S3）" if show_rules else "") + "。"
    word = platform_of(day.vote_ref).comment_word
    via = {
        ChangeMethod.COMMENT: f"在自己的投票楼层下{word}",
        ChangeMethod.REPLY: "回复自己的投票楼层",
        ChangeMethod.QUOTE: "引用自己的投票楼层",
        ChangeMethod.POST: "另发一帖",
    }
    parts = ["改票请" + "或".join(via[m] for m in rules.change_via)]
    if rules.max_changes is None:
        parts.append("改票次数不限")
    else:
        parts.append(f"限改票{'一' if rules.max_changes == 1 else rules.max_changes}次")
    line = "，".join(parts)
    if rules.change_window_minutes:
        # As the rule posts say it (关门前一小时), and as the void reason says it.
        line += f"；关门前{span_words(rules.change_window_minutes)}内不得改票"
    return line + ("（V3、V4、V5）" if show_rules else "") + "。"


def proxy_rule_line(game: Game, day: Day, *, show_rules: bool = False) -> str:
    """Until when the director posts a ballot for a player (代投, RULES V8), in one line; empty
    where the ruleset has no such deadline. Seed 000 pairs it with the reminder: "提醒玩家投票
    （注意法官代投时限是关门前30分钟）"."""
    minutes = game.rules.proxy_deadline_minutes
    if minutes is None:
        return ""
    until = short(day.closes - timedelta(minutes=minutes))
    rule = "（V8）" if show_rules else ""
    if not minutes:
        return f"法官代投截止于关门（{until}）{rule}。"
    return f"法官代投时限：关门前{span_words(minutes)}（{until}）{rule}。"


def reminder_context(result: DayResult, game: Game, *, show_rules: bool = False) -> dict[str, Any]:
    """The 催票 post: who has not voted yet, the close, and the change rules in a line.

    Refused after the close: then the day's post is the closing announcement.
    """
    day = result.day
    if not result.provisional:
        raise InputError(tr(
            "day {day} closed at {closes}: a reminder is for before the close; the day's post "
            "now is tally announce --kind close.",
            day=day.day, closes=short(day.closes)))  # fmt: skip
    platform = platform_of(day.vote_ref)
    accounts: dict[str, str] = {}
    cast = game.cast()
    for post in result.thread.posts:
        player = cast.of(post).player
        if player is not None:  # the name it posts under now (a renamed account's new name)
            accounts[player] = post.author
    return {
        "game": game.name,
        "day": day.day,
        "kind": result.kind,
        "thread_url": platform.page_url(day.vote_ref, 1),
        "closes": f"{short(day.closes)}",
        "as_of": f"{short(result.as_of)}",
        "mentions": platform.mentions,
        "not_voted": [{"player": p, "mention": accounts.get(p, p)} for p in result.not_voted],
        "change_rule": change_rule_line(game, day, show_rules=show_rules),
        "proxy_rule": proxy_rule_line(game, day, show_rules=show_rules),
        "show_rules": show_rules,
        **rule_numbers(game.rules),
    }
