"""Announcements: what each says (the values its template gets), in BBCode for Discuz! and
plain text for Tieba (RULES A1, A2, C7).

Each kind is a template ``<kind>.<markup>.j2``, rendered in tally's Jinja machinery
(``tally.outputs.written.templating``: the director's folder, the sandbox, the bounds).
Every value a template prints passes through ``inert()``: a name or a reason that holds
``[color=red]`` or ``[url=…]`` shows as text, never as markup, because red font is the
director's alone (RULES L7).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from tally.errors import InputError
from tally.forums import markup_for, platform_of
from tally.model import Thread
from tally.outputs.written.templating import compile_templates, template_text
from tally.rules.cards.ledger import Card
from tally.rules.counting.count import votes_text
from tally.rules.counting.votes import DayResult
from tally.rules.game.game import Day, Game
from tally.rules.game.names import ANONYMOUS, normalise
from tally.rules.game.rulesets import ChangeMethod, NonBallots, Ruleset
from tally.rules.judging.ballots import Remark
from tally.rules.verdicts import (
    BallotKind,
    Status,
    ThreadRole,
    span_words,
    void_words,
)
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
        raise InputError(f"--format must be one of {', '.join(Markup)}, not {markup!r}.")
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
        raise InputError(
            f"day {result.day.day} closes at {closes}, after the "
            f"count's time ({read}): the result is not final; run again "
            "after the close, or pass --provisional for a mid-day standing."
        )
    rules = game.rules
    ref = result.day.vote_ref
    platform = platform_of(ref)
    weights = result.count.weights
    o = result.outcome
    totals = result.totals
    words = _words(result)
    tied = _top(result)
    sentence = outcome_sentence(result, game)
    leaders = "、".join(result.leaders)
    if not leaders:
        standing = "目前无人得票。"
    elif rules.publish_counts:
        standing = f"暂时领先：{leaders}（{words['top']} 票）。"
    else:
        standing = f"暂时领先：{leaders}。"
    standing += f"以 {short(result.day.closes)} 关门后的结果为准。"

    def link(b: Any) -> str:
        return platform.post_url(ref, b.parent_post_id or b.post_id)

    # An anonymous ballot (匿名) is counted as its account's, which the forum shows only to
    # moderators: the players' post names it as the forum does, 匿名 (found on a real X3.5).
    unnamed = {b.voter for b in result.ballots
               if b.author == ANONYMOUS and b.voter and b.status == Status.COUNTED}  # fmt: skip

    def named(voter: str) -> str:
        return ANONYMOUS if voter in unnamed else voter

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

    ballots = [
        {
            "floor": b.floor,
            "comment": b.comment,
            "link": link(b),
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
    # A non-voter's posts that hold no ballot, one entry a player (the first such post, and
    # how many more), so they see why they are not counted as having voted.
    firsts: dict[str, Any] = {}
    for r in result.remarks:
        if r.status != Status.NOT_A_BALLOT:
            continue  # banned and deleted posts: each listed below
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
                "link": platform.post_url(ref, r.parent_post_id or r.post_id),
                "voter": player,
                "words": r.words + (f"（另{more}帖）" if more else ""),
                "void_reason": label,
            }
        )
    # A post the forum 屏蔽s or no longer shows is listed whoever wrote it: its author sees
    # why it was not counted (its words stay unsaid: the forum hides them). A deleted post's
    # floor is the one it had when tally read it, said so: a Discuz! board numbers the floors
    # after it again, so that number may now be another post's.
    remarks += [
        {
            "floor": r.floor,
            "comment": r.comment,
            "link": platform.post_url(ref, r.parent_post_id or r.post_id),
            "voter": r.player or r.author,
            "words": gone_label(r),
            "void_reason": gone_label(r),
        }
        for r in result.remarks
        # The discussion's posts in the thread the vote thread was merged into (合并) are
        # the discussion's, no post of the vote: not listed.
        if r.status not in (Status.NOT_A_BALLOT, Status.DISCUSSION)
    ]
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
        "totals": [
            {
                "player": t.player,
                "votes": votes_text(t.votes),
                "voters": [
                    {"name": named(v), "weight": _weight(weights, v)} for v in t.voters
                ],
                "bonuses": [
                    {"votes": votes_text(a), "label": _BONUS.get(rule, why), "rule": rule}
                    for a, why, rule in t.bonuses
                ],
            }
            for t in totals
        ],
        "top": tied,
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
        "standing": standing,
        **rule_numbers(rules),
        "outcome": {
            "result": o.result,
            "player": o.player or "",
            "rule": o.code.rule,
            "code": o.code,
            "text": sentence,
        },
    }



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
        raise InputError(
            f"day {day.day} closed at {short(day.closes)}: a reminder is for before the "
            "close; the day's post now is tally announce --kind close."
        )
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


# -- the morning announcement (A1) ---------------------------------------------------------


def morning_context(
    game: Game,
    day: Day,
    earlier: Mapping[int, Day],
    cards: Sequence[Card],
    *,
    show_rules: bool = False,
    voted_out: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The opening of ``day`` (as it stands after the days before it: ``earlier``, each as
    it stood): who went out since the day before, in the order they went out (A1), sheriff,
    deputy, the slandered, the living, and the cards given for the day before.

    ``voted_out``: who the day before's vote put out ([] for nobody), None when its result
    is not known here (not counted, not posted): then the out are one list in the order of
    the game file, since which of them the vote put out would be a guess.
    """
    rules = game.rules
    before = earlier[max(earlier)] if earlier else None
    was_dead = set(before.dead) if before else set()
    # Who went out since the day before, also one revived at this open (seed 001): they
    # went out all the same, and the post says they came back.
    out = [p for p in (*day.dead, *day.revived) if p not in was_dead]
    known = before is not None and voted_out is not None
    by_day: list[str] = []
    by_night = out
    if before is not None and voted_out is not None:
        by_day, by_night = _out_in_order(game, before, out, voted_out)
    given = [c for c in cards if before is not None and c.day == before.day]
    bonus = rules.slander_bonus
    return {
        "game": game.name,
        "day": day.day,
        "previous": before.day if before else None,
        "eliminated": [*by_day, *by_night],
        # The order they went out is known only with the day before's result (A1); without
        # it the list is the game file's, and the post does not say it is in order.
        "ordered": known,
        # Seeds 000 and 002 list the day's out (voted out, red-carded) and the night's apart.
        "apart": known and rules.night_apart,
        "revived": [p for p in day.revived if p not in day.dead],
        "day_out": by_day,
        "night_out": by_night,
        # A ruleset without a sheriff (M126) has no sheriff line, unless the file names one.
        "has_sheriff": rules.sheriff_election_day is not None or bool(day.sheriff or day.deputy),
        "sheriff": day.sheriff or "",
        "deputy": day.deputy or "",
        "slandered": list(day.slandered),
        "slander_votes": _NUMBERS.get(bonus, votes_text(bonus)) + "票" if bonus else "",
        "alive": [p for p in game.players if p not in day.dead],
        "show_rules": show_rules,
        **rule_numbers(rules),
        "cards": [
            {
                "player": c.player,
                "colour": c.colour.label,
                "rule": c.rule,
                # The ledger's K1 reason ends with its id ("3张黄牌折算为红牌（K1）"), part of
                # what keeps the card one card: the players see the id only with show_rules,
                # in the template's own place for it.
                "reason": c.reason.removesuffix(f"（{c.rule}）"),
            }
            for c in given
        ],
    }


def _weight(weights: Mapping[str, Any], voter: str | None) -> str:
    return votes_text(weights[voter][0]) if voter is not None and voter in weights else "1"


_NUMBERS = {Decimal(1): "一", Decimal(2): "两", Decimal(3): "三"}


def _out_in_order(
    game: Game, before: Day, out: Sequence[str], voted_out: Sequence[str]
) -> tuple[list[str], list[str]]:
    """``out`` (who went out since ``before``) in the order they went out (A1), the day's and
    the night's: on the day, those out during it (by the time the file gives), the red card
    and the vote-out in the ruleset's order (K2); then those out after the close, by the
    time the file gives (黄昏, or a death in the night: the night's list where the ruleset
    lists it apart); the rest went out in the night, in the order of the game file."""
    died = sorted((p for p in out if p in before.died), key=lambda p: before.died[p])
    during = [p for p in died if before.died[p] <= before.closes]
    after = [p for p in died if before.died[p] > before.closes]
    carded = [p for p in out if game.sent_off.get(p) == before.day]
    voted = [p for p in voted_out if p in out]
    first, second = (carded, voted) if game.rules.red_card_before_vote else (voted, carded)
    by_day = list(dict.fromkeys([*during, *first, *second]))
    if not game.rules.night_apart:
        by_day = list(dict.fromkeys([*by_day, *after]))
    by_night = [p for p in after if p not in by_day]
    return by_day, [*by_night, *(p for p in out if p not in by_day and p not in by_night)]


# -- the elevator thread (A2) ---------------------------------------------------------------


def elevator_seed(game: Game) -> int:
    """The elevator's order when --seed does not say another: the game's own, the same at
    every run and on every day, since the order is part of the game (seed 002: the nearest in
    the elevator; 001, 003: its neighbours). It comes from what names the game in tally's
    mark on its posts (the file's ``id``, else its first vote thread), which a renamed or
    corrected game file keeps."""
    digest = hashlib.sha256(f"tally elevator\n{game.post_key}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def elevator_context(
    game: Game, day: Day, discussion: Thread | None, seed: int | None
) -> dict[str, Any]:
    """Every player in the game's order (``elevator_seed``, or ``seed``), with a link to
    their posts alone in the day's thread (A2): from their posts there, else, on Discuz!,
    from the account id the game file gives (a real X3.5 answers that 只看该作者 link with
    未定义操作 until the player's first post in the thread, then with their posts)."""
    accounts: dict[str, tuple[str, str | None]] = {}
    if discussion is not None:
        cast = game.cast()
        for post in discussion.posts:
            player = cast.of(post).player
            if player and player not in accounts:
                accounts[player] = (post.author, post.author_id)
    ref = day.ref(ThreadRole.DISCUSSION) or day.vote_ref
    platform = platform_of(ref)
    if seed is None:
        seed = elevator_seed(game)
    order = list(game.players)
    random.Random(seed).shuffle(order)
    floors = []
    for player in order:
        account = accounts.get(player)
        uid = game.ids.get(player)
        if account is not None:
            link = platform.author_url(ref, account[0], account[1])
        else:  # Tieba's link is a home page by the account's name, which the file may not say
            link = platform.author_id_url(ref, uid) if uid else None
        floors.append({"player": player, "link": link or ""})
    return {
        "game": game.name,
        "day": day.day,
        "seed": seed,
        "floors": floors,
        "thread_url": platform.page_url(ref, 1),
    }
