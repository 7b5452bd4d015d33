"""Whom a ballot names (RULES V1, V6): the target written, read as one of the day's
players; a name that another account shows, or showed, is no guess but a question for the
director (a renamed account, a look-alike), asked once for the day."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from tally.i18n import ntr, tr
from tally.rules.game.game import Day, Ruling
from tally.rules.game.names import TRAILING, Roster, author_key, normalise
from tally.rules.game.rulesets import Ruleset
from tally.rules.judging.work import Work
from tally.rules.verdicts import RulingAction

# How a post mentions a member: "@name" (Discuz! links it, Tieba writes it as text).
_MENTION = "@＠"


def read_target(
    w: Work,
    roster: Roster,
    day: Day,
    rules: Ruleset,
    renamed: Roster | None = None,
    ids: Mapping[str, str] | None = None,
) -> None:
    """Whom the ballot names: a player (by the roster, or an @mention; or by the name a
    renamed player's account shows now, ``renamed``), the abstain word, or nobody
    (``unknown_target``, with the closest names)."""
    assert w.parsed is not None and w.voter is not None
    written = w.parsed.target
    if w.parsed.abstains:
        w.target, w.abstain = rules.abstain_word, True
        if day.bar_owner == w.voter:
            w.flags.append(("V11", tr("the 主管 may not abstain")))
        return
    match = roster.match(written)
    if match.player is None and written[:1] in _MENTION:
        # "@dave" (the forum's mention, typed or linked) names dave (V1, V7); a name that
        # itself begins with @ was matched whole above.
        mentioned = roster.match(written[1:].strip())
        if mentioned.player is not None:
            match = mentioned
    if match.player is None and renamed is not None:
        now = renamed.match(written.lstrip(_MENTION).strip())
        if now.player is not None:
            w.notes.append(tr("{written} is the name {player}'s account shows now (renamed)",
                              written=repr(written), player=now.player))  # fmt: skip
            if match.lookalike and match.lookalike != now.player:
                # "еve" (a Cyrillic е) as heidi's account shows now, beside the player eve:
                # as written it is heidi's name; it looks like eve's.
                w.flags.append(("lookalike", tr(
                    "{written} is counted for {player}{uid}, whose account shows that name now, "
                    "and it looks like {other}{other_uid}, another player: check whom the voter "
                    "meant", written=repr(written), player=now.player,
                    uid=_uid(now.player, ids), other=repr(match.lookalike),
                    other_uid=_uid(match.lookalike, ids),
                )))  # fmt: skip
            match = now
    if match.player is None:
        w.suggestions = match.suggestions
        if match.lookalike:
            w.flags.append(
                (
                    "lookalike",
                    tr(
                        "{written} looks like {other} but is spelled differently",
                        written=repr(written),
                        other=repr(match.lookalike),
                    ),
                )
            )
        w.unknown_target = (
            tr("{written} is not a player; closest: {names} (V7)", written=repr(written),
               names=tr(", ").join(match.suggestions))
            if match.suggestions
            else tr("{written} is not a player (V7)", written=repr(written))
        )  # fmt: skip
        return
    w.target = match.player


def _uid(player: str | None, ids: Mapping[str, str] | None) -> str:
    """ " (uid 3)": a player's account, when the game file gives it."""
    uid = (ids or {}).get(player or "")
    return tr(" (uid {uid})", uid=uid) if uid else ""


def _as_typed(w: Work, written: str, target: str) -> str:
    """The target as the voter typed it, compared as an account's name is (``author_key``):
    the ballot reader drops what ends a sentence ("eve." is read as eve), so here the
    target runs on to the punctuation after it; an @ before it is no part of it."""
    if written[:1] in _MENTION and target not in (written, written[1:].strip()):
        written = written[1:].strip()
    text = unicodedata.normalize("NFKC", w.text)
    after = re.search(rf"对象\s*:\s*@?\s*{re.escape(written)}([{re.escape(TRAILING)}]*)", text)
    return author_key(written + (after.group(1) if after else ""))


def shown_by_another(
    w: Work,
    shown: Mapping[str, list[str]],
    ids: Mapping[str, str],
    before: Mapping[str, set[str]] | None = None,
    thread_id: str = "",
) -> str | None:
    """A target counted for one player that the page makes another player's: the name
    another player's account shows now (the forum renamed it). Written exactly so (heidi
    renamed ``eve.`` beside eve; frank's and grace's names swapped), whom it names cannot be
    told: the file gives the name to one account, the page to another (the account is the
    person): the sentence that says so, for a stop. Written only like it (``eve。`` beside
    heidi's ``eve.``), it is counted for the player the file names, flagged ``lookalike``.
    ``before``: the names players' accounts showed in tally's earlier reads; a target that
    was another player's name then cannot be told either (bob renamed "bobby", ballots for
    "bobby", then bob renamed again and eve "bobby": they went to eve, on a real X3.5)."""
    if w.target is None or w.abstain or w.parsed is None or not (shown or before):
        return None
    raw = _as_typed(w, w.parsed.target, w.target)

    def as_written(name: str) -> bool:
        return author_key(name) == raw

    for other, earlier in (before or {}).items():
        if other != w.target and any(as_written(n) for n in earlier):
            still = any(as_written(n) for n in shown.get(other, []))
            fields = {
                "written": repr(raw),
                "player": w.target,
                "uid": _uid(w.target, ids),
                "other": other,
                "other_uid": _uid(other, ids),
                "thread": thread_id,
            }
            if still:
                return tr(
                    "{written} is counted for {player}{uid}, and it was the name "
                    "{other}'s account{other_uid} showed when tally read thread {thread} "
                    "before (and shows now)",
                    **fields,
                )
            return tr("{written} is counted for {player}{uid}, and it was the name {other}'s "
                      "account{other_uid} showed when tally read thread {thread} before "
                      "(renamed since)", **fields)  # fmt: skip

    # As the target's own account shows now: that account, whatever else reads alike.
    if any(as_written(n) for n in shown.get(w.target, [w.target])):
        return None
    for other, names in shown.items():
        if other == w.target:
            continue
        for name in names:
            if as_written(name):
                return tr(
                    "{written} reads as {player}'s name{uid} in the game file and is the name "
                    "{other}'s account{other_uid} shows now",
                    written=repr(raw),
                    player=w.target,
                    uid=_uid(w.target, ids),
                    other=other,
                    other_uid=_uid(other, ids),
                )
            # Punctuation, case, an invisible character: what a copy may lose or gain. (A
            # Latin "eve" is no copy of a Cyrillic "еve": its voter typed eve's name.)
            if normalise(name) == normalise(raw):
                w.flags.append(("lookalike", tr(
                    "{written} is counted for {player}{uid}, and it reads as {name}, the name "
                    "{other}'s account{other_uid} shows now (renamed): check whom the voter "
                    "meant", written=repr(raw), player=w.target, uid=_uid(w.target, ids),
                    name=repr(name), other=other, other_uid=_uid(other, ids),
                )))  # fmt: skip
                return None
    return None


def resolved(ruling: Ruling | None) -> bool:
    """The director ruled whom the ballot names (or voided it)."""
    return ruling is not None and (ruling.action == RulingAction.VOID or bool(ruling.target))


def unclear_sentence(unclear: list[tuple[Work, str]], day: Day) -> str:
    """One sentence for the stop: each floor, why, and the ruling that settles it."""
    where = [
        tr("floor {floor} (comment {comment}): {why}", floor=w.post.floor,
           comment=w.comment_index, why=why)
        if w.comment_index
        else tr("floor {floor}: {why}", floor=w.post.floor, why=why)
        for w, why in unclear
    ]  # fmt: skip
    first = unclear[0][0]
    ruling = (
        f"[[rulings]] day = {day.day}, floor = {first.post.floor}"
        + (f", comment = {first.comment_index}" if first.comment_index else "")
        + ', action = "accept", target = "PLAYER"'
    )
    return ntr(
        "day {day}: tally cannot tell whom {n} ballot names ({where}): a voter who copies the "
        "name from the page means the account that shows it, one who knows the game file's "
        "name means the other. Ask the voter, then add a ruling for each floor, like {ruling} "
        '(or action = "void").',
        "day {day}: tally cannot tell whom {n} ballots name ({where}): a voter who copies the "
        "name from the page means the account that shows it, one who knows the game file's "
        "name means the other. Ask the voter, then add a ruling for each floor, like {ruling} "
        '(or action = "void").',
        len(unclear),
        day=day.day,
        where=tr("; ").join(where),
        ruling=ruling,
    )


def name_of_another(
    w: Work,
    strangers: Roster | None,
    others: dict[str, str | None],
    ids: Mapping[str, str] | None = None,
) -> None:
    """Flag a ballot counted for a player whose target reads as the name of another account
    posting in the thread, no player (``bob。`` beside bob; ``bob`` on another uid than
    bob's, after the forum renamed both): the voter may mean it."""
    if strangers is None or w.target is None or w.abstain or w.parsed is None:
        return
    other = strangers.match(w.parsed.target).player
    if other is None:
        return
    uid = others[other]
    mine = (ids or {}).get(w.target)
    # Another account: another name, or the same name on another uid.
    another = other != w.target or (uid is not None and mine is not None and uid != mine)
    # As written: "bob。" is read as bob (a full stop ends a sentence), "bob" is bob.
    if another and other in w.text:
        theirs = tr(" (uid {uid})", uid=uid) if uid else ""
        w.flags.append(("lookalike", tr(
            "{written} is counted for {player}{uid}, and it reads as {other}, another account "
            "posting here{other_uid}, no player: check whom the voter meant",
            written=repr(w.parsed.target), player=w.target, uid=_uid(w.target, ids),
            other=repr(other), other_uid=theirs,
        )))  # fmt: skip
