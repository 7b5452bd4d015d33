"""docs/rulesets.md, and the ``[rules]`` table of docs/game-file.md, written from the rulesets
themselves (``Ruleset``'s fields and what each says it means, ``PRESETS``, the words of the
tie steps), so that what a director reads cannot drift from what tally applies.

    python -m tally.outputs.written.rulesets_doc docs/rulesets.md
    python -m tally.outputs.written.rulesets_doc --zh docs/zh/rulesets.md
    python -m tally.outputs.written.rulesets_doc --rules-table docs/game-file.md

tests/test_rulesets_doc.py writes both again and compares: a field or a tie step changed in
``tally.rules`` without the pages made again fails the suite.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from collections.abc import Mapping
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

from tally.i18n import N_, Language, ntr, speaking, tr
from tally.rules.game.rulesets import ABOUT, PRESETS, ChangeMethod, RequestsIn, Ruleset, Share
from tally.rules.verdicts import BallotKind

# What a board must allow for a change posted as a 点评 under one's own floor (V3, seed 000):
# the words of Discuz! X3.5's admin centre, where the director finds the switch.
COMMENT_ON_OWN_FLOOR = N_(
    "Discuz! X3.5 shows no 点评 button on one's own floor unless the admin turns on "
    "允许点评自己的帖子 (`commentpostself`, off as installed) in "
    "管理中心 → 全局 → 站点功能 → 帖子点评, with 点评方式 直接点评 ticked and 点评 allowed to "
    "the players' user group; `tally doctor` on a page of the vote thread says whether the "
    "board allows it"
)

# How a change is posted, by the button a player presses (RULES V3): on Discuz! and on Tieba.
# (N_: translated where the page is written; a way that is "no way" is told by its English.)
_DISCUZ = {
    ChangeMethod.COMMENT: N_("the vote floor's 点评 button (a 点评 under one's own vote floor; "
                             "the board must allow it: {switch})"),
    ChangeMethod.REPLY: N_("the vote floor's 回复 button: on X3.5 it quotes the floor with its "
                           "link, on X3.4 and before it heads the post 回复 N# with the link (引用 "
                           "links it too); a post from the reply box at the foot of the page "
                           "links no floor: void as `change_not_reply`"),
    ChangeMethod.QUOTE: N_("the vote floor's 引用 button (X3.5 shows only 回复, which quotes the "
                           "floor: that does too); X3.4's 回复 (a 回复 N# header, no quote) and a "
                           "post from the reply box are void as `change_not_reply`"),
    ChangeMethod.POST: N_("any new post (回复, 引用, 点评 or the reply box)"),
}  # fmt: skip
_TIEBA = {
    ChangeMethod.COMMENT: N_("a 楼中楼 under one's own vote floor (its 回复 link)"),
    ChangeMethod.REPLY: N_("no way: a Tieba floor links no floor it answers"),
    ChangeMethod.QUOTE: N_("no way: Tieba has no 引用"),
    ChangeMethod.POST: N_("any new floor or 楼中楼"),
}


def _n(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _either(words: Mapping[ChangeMethod, str], rules: Ruleset) -> str:
    if set(rules.change_via) == set(ChangeMethod):
        return _said(words[ChangeMethod.POST])
    said = [words[m] for m in rules.change_via]
    possible = [w for w in said if not w.startswith("no way")]
    return tr("; or ").join(_said(w) for w in possible or said[:1])


def _said(words: str) -> str:
    """A way of changing, in the page's language (the 点评's with the board's switch)."""
    return tr(words, switch=tr(COMMENT_ON_OWN_FLOOR))


def rows(rules: Ruleset) -> list[tuple[str, str, str]]:
    """The ruleset's table: (what, how this ruleset does it, the rules it applies)."""
    return [
        (tr("day 1"), _day1(rules), "C4, V12"),
        (tr("ballot"), _ballot(rules), "V1, V2, V6"),
        (tr("a change on Discuz!"), _either(_DISCUZ, rules), "V3"),
        (tr("a change on Tieba"), _either(_TIEBA, rules), "V3"),
        (tr("changes"), _changes(rules), "V4, V5, V9"),
        (tr("proxy ballots (代投)"), _proxy(rules), "V8"),
        (tr("weights"), _weights(rules), "C1, C2, C3"),
        (tr("who is out"), _out(rules), "C5, C6"),
        (tr("carded"), tr("; ").join(_cards(rules)), "L1–L8"),
        (tr("acceleration (加速)"), _acceleration(rules), "S3"),
        (tr("the announcement shows"), tr(_SHOWN[rules.publish_counts, rules.publish_voters]),
         "C7"),
        (tr("the morning post"), _morning(rules), "A1"),
    ]  # fmt: skip


# What the closing announcement shows, by (publish_counts, publish_voters) (C7).
_SHOWN = {
    (True, True): N_("counts and who voted whom"),
    (False, True): N_("who voted whom, no counts"),
    (True, False): N_("counts, not who voted whom"),
    (False, False): N_("only who is out"),
}


def _day1(rules: Ruleset) -> str:
    if rules.sheriff_election_day is not None:
        day1 = tr("a sheriff election (警长竞选) on day {day}, the first to reach the most votes "
                  "wins", day=rules.sheriff_election_day)  # fmt: skip
    else:
        day1 = tr("a vote like every day's (no sheriff election)")
    if rules.election_voters:
        day1 += tr("; only {roles} vote and stand (`[roles]`)",
                   roles="、".join(rules.election_voters))  # fmt: skip
    return day1


def _ballot(rules: Ruleset) -> str:
    ballot = tr("`投票对象：名字` alone")
    if rules.require_reason:
        ballot = tr("`投票对象：名字` and `投票理由：…`")
    ballot += tr("; `{word}` abstains; a change `改票对象：名字`", word=rules.abstain_word)
    if rules.change_requires_reason:
        ballot += tr(" and `改票理由：…`")
    else:
        ballot += tr(", its reason optional")
    return ballot + tr(" (every form below)")


def _most_changes(rules: Ruleset) -> str:
    if rules.max_changes is None:
        return tr("no limit")
    # TRANSLATORS: how many changes a player may make, the count alone in English ("1;
    # none in the last …"); Chinese says 限改1次.
    return ntr("{n}", "{n}", rules.max_changes)


def _changes(rules: Ruleset) -> str:
    changes = _most_changes(rules)
    if rules.change_window_minutes:
        window = tr("none in the last {minutes} minutes before the close",
                    minutes=rules.change_window_minutes)  # fmt: skip
    else:
        window = tr("until the close")
    said = [changes, window]
    if rules.change_after_target_death:
        said.append(tr("one more, even then, when one's target is out during the day"))
    return tr("; ").join(said)


def _proxy(rules: Ruleset) -> str:
    if rules.proxy_deadline_minutes is not None:
        proxy = tr("due {minutes} minutes before the close",
                   minutes=rules.proxy_deadline_minutes)  # fmt: skip
    else:
        proxy = tr("no deadline")
    if rules.proxy_change_deadline_minutes is not None:
        proxy += tr("; a proxy change {minutes} minutes before",
                    minutes=rules.proxy_change_deadline_minutes)  # fmt: skip
    return proxy


def _weights(rules: Ruleset) -> str:
    said = [tr("sheriff {sheriff}, deputy {deputy}", sheriff=_n(rules.sheriff_weight),
               deputy=_n(rules.deputy_weight))]  # fmt: skip
    if rules.dictator_bonus:
        said.append(tr("a 独裁 sheriff {weight}, +1 for every {every} living from {since}",
                       weight=_n(rules.dictator_weight), every=rules.dictator_every,
                       since=rules.dictator_from))  # fmt: skip
    if rules.deputy_immune_to_zero:
        said.append(tr("the deputy keeps their weight under 迷魂"))
    said.append(tr("the slandered +{bonus}", bonus=_n(rules.slander_bonus)))
    if rules.unity_bonus:
        said.append(tr("众志成城 +{bonus} each", bonus=_n(rules.unity_bonus)))
    return tr("; ").join(said)


def _out(rules: Ruleset) -> str:
    if rules.majority_of_all:
        return tr("out only with more than half of all votes cast, abstentions included")
    return tr("the most votes is out; a tie: {steps}",
              steps=tr(", else ").join(tr(s.says) for s in rules.tie_chain))  # fmt: skip


def _cards(rules: Ruleset) -> list[str]:
    cards = [
        tr("fewer than {posts} posts on a day (L1)", posts=rules.min_posts),
        tr("fewer than {posts} on each of {days} days in a row (L2)", posts=rules.streak_posts,
           days=rules.streak_days),
    ]  # fmt: skip
    if rules.card_no_vote and rules.no_vote_is_no_reply:
        cards.append(tr("no reply in the vote thread (L3)"))
    elif rules.card_no_vote:
        cards.append(tr("no vote (L3)"))
    dead = [tr("the dead posting (L5")]
    if rules.dead_post_allowance:
        dead.append(tr("“{words}” once a day is allowed", words=rules.dead_post_allowance))
    if rules.may_post_when_dead:
        dead.append(tr("{roles} may post", roles="、".join(rules.may_post_when_dead)))
    cards.append(tr("; ").join(dead) + tr(", flagged)"))
    if rules.flag_comment_discussion:
        cards.append(tr("discussion as 楼中楼 (L6, flagged beyond {chars} characters)",
                        chars=rules.comment_chat_chars))  # fmt: skip
    cards.append(tr("floods: {posts} posts of at most {chars} characters in {minutes} minutes "
                    "(L8, flagged)", posts=rules.flood_posts, chars=rules.flood_chars,
                    minutes=rules.flood_minutes))  # fmt: skip
    return cards


def _acceleration(rules: Ruleset) -> str:
    if not rules.acceleration:
        return tr("none")
    if rules.acceleration_share is Share.AT_LEAST_HALF:
        fast = tr("when at least half of the living ask")
    else:
        fast = tr("when more than half of the living ask")
    if rules.acceleration_cutoff_hours:
        fast += tr(", counted {hours} h before the accelerated close",
                   hours=rules.acceleration_cutoff_hours)  # fmt: skip
    threads = [tr(_THREADS[r]) for r in rules.acceleration_threads or ()]
    if threads:
        return fast + tr("; asked in {threads}", threads=tr(" and ").join(threads))
    return fast + tr("; asked of the director, not counted")


_THREADS = {RequestsIn.PROGRESS: N_("the progress thread"),
            RequestsIn.DISCUSSION: N_("the discussion thread")}  # fmt: skip


def _morning(rules: Ruleset) -> str:
    if rules.red_card_before_vote:
        said = tr("who went out, in order (the day's red card before the vote-out), ")
    else:
        said = tr("who went out, in order (the day's red card after the vote-out), ")
    if rules.night_apart:
        return said + tr("the day's and the night's on two lines")
    return said + tr("in one list")


class Form(NamedTuple):
    """One way a ballot is written, as tally reads it (tests/test_rulesets_doc.py reads each
    with the ruleset's own reader): what it is, who posts it where, and its text."""

    what: str
    kind: BallotKind
    where: str
    text: str
    proxy_for: str | None = None


def _lines(rules: Ruleset, label: str, target: str, reason: bool) -> str:
    lines = f"{label}对象：{target}"
    why = _REASON["弃权" if target == rules.abstain_word else label]
    return lines + (f"\n{label}理由：{why}" if reason else "")


_REASON = {"投票": "他昨天的发言前后矛盾", "改票": "被说服了，改投他", "弃权": "还没想好"}


def forms(rules: Ruleset) -> list[Form]:
    """Every form a ballot of ``rules`` takes: the vote, the abstention, the change (with its
    reason and, where the ruleset forgives it, without), the proxy ballot and the proxy change
    the director posts."""
    vote, change = rules.require_reason, rules.change_requires_reason
    changed = tr("posted as the table says, under *a change on Discuz!* and *on Tieba*")
    new = tr("a new post in the vote thread")
    made = [
        Form(tr("a vote"), BallotKind.VOTE, new, _lines(rules, "投票", "名字", vote)),
        Form(tr("an abstention"), BallotKind.ABSTAIN, tr("a new post in the vote thread (V6: it "
             "is the vote, or the change)"), _lines(rules, "投票", rules.abstain_word, vote)),
        Form(tr("a change"), BallotKind.CHANGE, changed, _lines(rules, "改票", "名字", True)),
    ]  # fmt: skip
    if not change:
        made.append(Form(tr("a change, its reason left out"), BallotKind.CHANGE, changed,
                         _lines(rules, "改票", "名字", False)))  # fmt: skip
    if not vote:
        made.append(Form(tr("a vote with its reason"), BallotKind.VOTE, new,
                         _lines(rules, "投票", "名字", True)))  # fmt: skip
    made += [
        Form(tr("a proxy ballot (代投)"), BallotKind.PROXY, tr("the director's post in the vote "
             "thread: the player it is cast for on a line of its own"), "代投：玩家\n"
             + _lines(rules, "投票", "名字", vote), "玩家"),
        Form(tr("a proxy change"), BallotKind.PROXY, tr("the director's post, as a new post or "
             "any other way (how a change is posted binds the players)"), "代投：玩家\n"
             + _lines(rules, "改票", "名字", change), "玩家"),
    ]  # fmt: skip
    return made


_SPELLINGS = N_(
    "Full-width and half-width punctuation are the same (`：` or `:`), 【】 or [] may go round "
    "a label, target and reason may share a line, and spaces around them do not matter. A "
    "director's post is never a ballot of the director's own: it is one only as a proxy "
    "ballot, whose first line says whom it is for (`代投：玩家`, `【代投】玩家`); a 催票 or a "
    "result that holds the word 代投 is no ballot, and neither is any post tally made."
)


def _forms_markdown(rules: Ruleset) -> list[str]:
    lines = ["", tr("How a ballot is written (V1, V2, V6, V8):"), ""]
    for form in forms(rules):
        lines += ["- " + tr("{what}: {where}", what=form.what, where=form.where), "", "  ```", *(
            f"  {ln}" for ln in form.text.splitlines()), "  ```", ""]  # fmt: skip
    return lines[:-1]


# The page in each language, and the command that writes it.
PAGES = {Language.EN: "docs/rulesets.md", Language.ZH: "docs/zh/rulesets.md"}


def markdown(presets: Mapping[str, Ruleset] = PRESETS, language: Language = Language.EN) -> str:
    """The page in ``language``: one short table for each built-in ruleset (``default`` is
    ``000``)."""
    with speaking(language):
        return _page(presets, language)


def _page(presets: Mapping[str, Ruleset], language: Language) -> str:
    flag = " --zh" if language is Language.ZH else ""
    command = f"python -m tally.outputs.written.rulesets_doc{flag} {PAGES[language]}"
    lines = [
        tr("# The built-in rulesets"),
        "",
        tr("中文：[内置规则集](zh/rulesets.md)"),
        "",
        tr("<!-- Written by `{command}` from", command=command),
        tr("tally/rules/game/rulesets.py and tally/rules/verdicts.py; tests/test_rulesets_doc.py "
           "checks it. Do not edit by hand. -->"),
        "",
        tr("A game file picks one with `ruleset = \"…\"` (or `tally init --ruleset …`); any line "
           "may be changed for one game under `[rules]` ([game-file.md](game-file.md), *Rules*). "
           "The ids (V3, C5, L1…) are the rules' in [rules.md](rules.md)."),
        "",
        tr(_SPELLINGS),
    ]  # fmt: skip
    for key, rules in presets.items():
        if key == "default":
            continue
        about = tr("{about}.", about=tr(ABOUT.get(key, rules.name)))
        lines += ["", f"## `{key}`", "", about, "", tr("| | | rule |"), "|---|---|---|"]
        lines += [f"| {what} | {how} | {rule} |" for what, how, rule in rows(rules)]
        lines += _forms_markdown(rules)
    return "\n".join(lines) + "\n"


# -- docs/game-file.md's [rules] table ---------------------------------------------------------

# The line above the table in docs/game-file.md: what writes it, and from what.
TABLE_MARK = (
    "<!-- The table below is written by `python -m tally.outputs.written.rulesets_doc "
    "--rules-table docs/game-file.md` from tally/rules/game/rulesets.py and "
    "tally/rules/verdicts.py; tests/test_rulesets_doc.py checks it. -->"
)


def _kind(hint: Any) -> str:
    """A field's type as the table says it: what a game file may write for it."""
    args = typing.get_args(hint)
    if type(None) in args:
        (inner,) = (a for a in args if a is not type(None))
        none = ', or `""` for none' if inner is str else ' or `"none"`'
        return _kind(inner) + none
    words = {bool: "true or false", int: "whole number", Decimal: "number", str: "text"}
    if hint in words:
        return words[hint]
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return " or ".join(f"`{m}`" for m in hint)
    if args and args[-1] is Ellipsis:
        return "list of " + ("texts" if args[0] is str else ", ".join(f"`{m}`" for m in args[0]))
    return "two whole numbers" if len(args) == 2 else f"{len(args)} whole numbers"


def _value(value: object) -> str:
    """A preset's value as the table shows it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, Decimal):
        return _n(value)
    if isinstance(value, tuple):
        return ", ".join(map(_value, value)) if value else "—"
    if isinstance(value, str) and not isinstance(value, StrEnum):
        return f"`{value}`"
    return str(value)


def _steps(hint: Any) -> str:
    """What each value of an enum that says so does (a tie step), after the field's meaning."""
    inside = (hint, *typing.get_args(hint))  # the enum, or a list of its values
    enums = [a for a in inside if isinstance(a, type) and issubclass(a, StrEnum)]
    said = [f"`{m}`: {m.says}" for e in enums for m in e if hasattr(m, "says")]
    return f" — {'; '.join(said)}" if said else ""


def rules_table(presets: Mapping[str, Ruleset] = PRESETS) -> list[str]:
    """Every rule a game file may set under ``[rules]``: its key, its type, the rules it
    applies, what it means (``said`` on the field) and each built-in preset's value."""
    keys = [k for k in presets if k != "default"]
    default = presets.get("default")
    hints = typing.get_type_hints(Ruleset)
    lines = [f"| key | type | rule | meaning ({' / '.join(keys)}) |", "|---|---|---|---|"]
    for f in dataclasses.fields(Ruleset):
        if f.name == "based_on":  # the game file's `ruleset`, not a rule
            continue
        values = [_value(getattr(presets[k], f.name)) for k in keys]
        shown = values[0] if len(set(values)) == 1 else " / ".join(values)
        if default is not None and getattr(default, f.name) != getattr(presets[keys[0]], f.name):
            shown += f"; default: {_value(getattr(default, f.name))}"
        means = f.metadata["means"] + _steps(hints[f.name])
        if f.name != "name":  # each preset is named for itself
            means += f" ({shown})"
        kind = f.metadata["kind"] or _kind(hints[f.name])
        lines.append(f"| `{f.name}` | {kind} | {f.metadata['rule']} | {means} |")
    return lines


def with_rules_table(text: str, presets: Mapping[str, Ruleset] = PRESETS) -> str:
    """docs/game-file.md with its ``[rules]`` table, the one under ``TABLE_MARK``, written
    again; the rest of the page as it is."""
    lines = text.split("\n")
    if TABLE_MARK not in lines:
        raise ValueError("the page has no line that marks the [rules] table")
    start = lines.index(TABLE_MARK) + 1
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "\n".join([*lines[:start], *rules_table(presets), *lines[end:]])


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--rules-table"] and len(args) == 2:
        path = Path(args[1])
        path.write_text(with_rules_table(path.read_text(encoding="utf-8")), encoding="utf-8")
        return 0
    language = Language.EN
    if args[:1] == ["--zh"]:
        language, args = Language.ZH, args[1:]
    if len(args) > 1 or (args and args[0].startswith("-")):
        # A developer's tool: an option it does not know is not a file to write over.
        sys.stderr.write("usage: python -m tally.outputs.written.rulesets_doc [--zh] [FILE] | "
                         "--rules-table FILE\n")
        return 2
    text = markdown(language=language)
    if args:
        Path(args[0]).parent.mkdir(parents=True, exist_ok=True)
        Path(args[0]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
