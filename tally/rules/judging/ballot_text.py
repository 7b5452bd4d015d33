"""Ballot text: what a post says it votes for (RULES V1, V2, V6, V8), read from text alone.

Pure functions: the poster's own words in (quotes are already left out by the parsers,
so a quoted ballot is never read as one), a ``Reading`` out. Whether the ballot counts
is decided later, in ``tally.rules.judging.judge``.

Accepted spellings: full-width and half-width punctuation alike (NFKC first), a Chinese or
ASCII colon, stray spaces, 【】 or [] around the labels, target and reason on one line or two.
The reason is kept in the player's own characters (an announcement quotes it).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from tally.i18n import N_
from tally.rules.game.names import TRAILING, normalise
from tally.rules.verdicts import BallotKind, Problem, VoidReason

FORMAT = VoidReason.FORMAT

# After NFKC: "：" is ":", "（" is "(", the full-width space is a space; 【】 stay.
_LABEL = re.compile(
    r"[【\[(]?[ \t]*(?P<kind>投票|改票)[ \t]*(?P<field>对象|目标|理由)"
    r"[ \t]*[】\])]?[ \t]*(?P<colon>:)?"
)
# A proxy line says whom the ballot is for, as a label: 代投：南瓜, 【代投】南瓜, 导演代投: 南瓜.
# The word alone is no label: "法官代投时限：关门前30分钟" (tally's own 催票) names nobody.
_PROXY = re.compile(
    r"^[ \t]*(?:[【\[][ \t]*(?:导演|法官)?代投[ \t]*[】\]][ \t]*:?"
    r"|(?:导演|法官)?代投[ \t]*:)[ \t]*(?P<name>\S.*?)[ \t]*$"
)
_ATTEMPT_LINE = re.compile(r"^[ \t]*[【\[]?[ \t]*(?:投票|改票|弃权|代投)")
# What people wrap a name in, and what trails it.
_WRAPPERS = "「」『』“”\"'《》<>【】[]()"
_TRAILING = TRAILING + " \t"
# Tieba's emoticons, as the client types them and tally writes them: #(滑稽). Never part of
# a name, so a target "白桃#(滑稽)" is 白桃.
_EMOTICON = re.compile(r"#\([^()\n]{1,12}\)")


@dataclass(frozen=True)
class ParsedBallot:
    label: BallotKind  # VOTE (投票对象) or CHANGE (改票对象)
    target: str  # as written, trimmed
    reason: str | None
    # The target is the ruleset's abstain word (弃权), however spelled: no player's name.
    abstains: bool = False


@dataclass(frozen=True)
class Reading:
    """What one post or comment says, as a ballot."""

    # What could be read, also when the format is broken (a director's ruling may accept it).
    ballots: tuple[ParsedBallot, ...] = ()
    # Set when the text tries to be a ballot but breaks the format (RULES V1, V7): a short
    # sentence for the director.
    problem: Problem | None = None
    # The player a director's proxy post names ("代投：南瓜", RULES V8).
    proxy_for: str | None = None

    @property
    def is_ballot(self) -> bool:
        return bool(self.ballots) or self.problem is not None


def _normalized(text: str) -> tuple[str, Callable[[list[int]], str] | None]:
    """NFKC of ``text``, and a way back from positions in it to the characters as written
    (None when NFKC of the parts is not NFKC of the whole, as with Hangul jamo: the reason
    is then given normalised). A character and the marks that combine with it go together."""
    clusters: list[str] = []
    for ch in text:
        if clusters and unicodedata.combining(ch):
            clusters[-1] += ch
        else:
            clusters.append(ch)
    parts = [unicodedata.normalize("NFKC", c) for c in clusters]
    norm = unicodedata.normalize("NFKC", text)
    if "".join(parts) != norm:
        return norm, None
    origin = [k for k, part in enumerate(parts) for _ in part]

    def written(positions: list[int]) -> str:
        keys = dict.fromkeys(origin[i] for i in positions)
        return "".join(clusters[k] for k in keys).strip()

    return norm, written


def _clean_target(raw: str) -> str:
    target = _EMOTICON.sub("", raw).strip().rstrip(_TRAILING).strip()
    while len(target) >= 2 and target[0] in _WRAPPERS and target[-1] in _WRAPPERS:
        target = target[1:-1].strip()
    return target


def read_boxed(
    text: str,
    boxed: str,
    *,
    require_reason: bool = True,
    abstain_word: str | None = None,
    change_reason: bool | None = None,
) -> tuple[Reading, str]:
    """The ballot in ``text``, or, where it holds none, in the words of a quote box the
    poster typed (``boxed``: quoting no post) with it: the reading and the words read."""
    forms = {
        "require_reason": require_reason,
        "abstain_word": abstain_word,
        "change_reason": change_reason,
    }
    reading = read_ballot(text, **forms)
    if not boxed:
        return reading, text
    both = f"{boxed}\n{text}".strip()
    inside = read_ballot(both, **forms)
    # The box's ballot with the post's: one more ballot than the post alone holds is two
    # ballots in one post (V6), as without the box.
    boxed_alone = read_ballot(boxed, **forms)
    again = reading.is_ballot and {b.target for b in boxed_alone.ballots} <= {
        b.target for b in reading.ballots
    }  # the box repeats the post's own ballot: one ballot
    more = inside.is_ballot and len(inside.ballots) > len(reading.ballots) and not again
    if more or (inside.is_ballot and not reading.is_ballot):
        return inside, both
    return reading, text


# A count reads the same posts again for each day it counts after them, a lurker check for
# each guard (a pure function, its readings frozen: the last ones kept).
@functools.lru_cache(maxsize=1024)
def read_ballot(
    text: str,
    *,
    require_reason: bool = True,
    abstain_word: str | None = None,
    change_reason: bool | None = None,
) -> Reading:
    """Read the ballot in ``text``; chatter without any ballot label is no ballot at all.
    With ``abstain_word`` (the ruleset's), a ballot naming it says it ``abstains``.
    ``require_reason``: a vote needs its 投票理由 (V1); ``change_reason``: a change its 改票理由
    (V2; the same as ``require_reason`` unless given: seed 000 asks a reason of the vote
    alone, seeds 001 and 002 of the change too)."""
    if change_reason is None:
        change_reason = require_reason
    norm, written = _normalized(text)
    body = _Body.of(norm)
    proxy_for = body.proxy_for
    labels = _labels(body.text)
    if not labels:
        if any(_ATTEMPT_LINE.match(line) for line in body.lines) or proxy_for:
            return Reading(problem=Problem(FORMAT, N_("no 投票对象 label")), proxy_for=proxy_for)
        return Reading()
    ballots, problem = _ballots(labels, body, written)
    # Two targets under one reason are two ballots, not one ballot short of its reason.
    needs = {BallotKind.VOTE: require_reason, BallotKind.CHANGE: change_reason}
    if problem is None and len(ballots) < 2:
        missing = [b for b in ballots if not b.reason and needs[b.label]]
        if missing:
            word = "投票理由" if missing[0].label == BallotKind.VOTE else "改票理由"
            problem = Problem(FORMAT, N_("no {label} (the format needs target and reason)"),
                              (("label", word),))  # fmt: skip
    if abstain_word is not None:
        word = normalise(abstain_word)
        ballots = [
            ParsedBallot(b.label, b.target, b.reason, abstains=normalise(b.target) == word)
            for b in ballots
        ]
    found = problem
    if found is None and len(ballots) > 1:
        found = Problem(VoidReason.SEVERAL_BALLOTS,
                        N_("{n} ballots in one post (one vote per post)"),
                        (("n", len(ballots)),))  # fmt: skip
    return Reading(ballots=tuple(ballots), problem=found, proxy_for=proxy_for)


@dataclass(frozen=True)
class _Body:
    """A post's text (NFKC) with its proxy line (代投：NAME) taken out: the lines a ballot is
    read from, and for each character of them where it stands in the text (the reason is
    given back in the player's own characters)."""

    proxy_for: str | None
    lines: tuple[str, ...]
    at: tuple[int, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @classmethod
    def of(cls, norm: str) -> _Body:
        proxy_for = None
        lines: list[str] = []
        at: list[int] = []
        start = 0
        for line in norm.split("\n"):
            m = _PROXY.match(line)
            if m and "对象" not in line:
                proxy_for = _clean_target(m.group("name")) or None
            else:
                if lines:
                    at.append(start - 1)  # the line break before this line
                lines.append(line)
                at.extend(range(start, start + len(line)))
            start += len(line) + 1
        return cls(proxy_for, tuple(lines), tuple(at))


def _labels(body: str) -> list[re.Match[str]]:
    """The ballot labels of ``body``: a label word without a colon in the middle of a line
    is just a word ("他的投票对象很怪"); at the start of a line it is a label written wrong."""
    return [
        m
        for m in _LABEL.finditer(body)
        if m.group("colon") or not body[body.rfind("\n", 0, m.start()) + 1 : m.start()].strip()
    ]


def _ballots(
    labels: list[re.Match[str]], body: _Body, written: Callable[[list[int]], str] | None
) -> tuple[list[ParsedBallot], Problem | None]:
    """The ballots the labels give (a target, then its reason), and what breaks the format."""
    text = body.text
    # Each label's value runs to the next label or to the end of its line.
    values = []
    for i, m in enumerate(labels):
        end = labels[i + 1].start() if i + 1 < len(labels) else len(text)
        newline = text.find("\n", m.end())
        if m.group("field") != "理由" and newline != -1:
            end = min(end, newline)
        values.append((m, text[m.end() : end]))
    ballots: list[ParsedBallot] = []
    problem: Problem | None = None
    pending: tuple[BallotKind, str] | None = None  # (label, target) awaiting a reason
    for m, value in values:
        kind = BallotKind.VOTE if m.group("kind") == "投票" else BallotKind.CHANGE
        if m.group("colon") is None:
            problem = Problem(FORMAT, N_("no colon after {label}"),
                              (("label", m.group("kind") + m.group("field")),))  # fmt: skip
            continue
        if m.group("field") in ("对象", "目标"):
            if pending is not None:
                ballots.append(ParsedBallot(pending[0], pending[1], None))
            target = _clean_target(value)
            if not target:
                problem = Problem(FORMAT, N_("{kind}对象 is empty"),
                                  (("kind", m.group("kind")),))  # fmt: skip
                pending = None
                continue
            pending = (kind, target)
        else:
            reason = value.strip()
            if reason and written is not None:
                # The player's own characters: "，" stays "，" in the announcement.
                reason = written([body.at[i] for i in range(m.end(), m.end() + len(value))])
            if pending is None:
                problem = problem or Problem(FORMAT, N_("{kind}理由 without {kind}对象"),
                                             (("kind", m.group("kind")),))  # fmt: skip
                continue
            ballots.append(ParsedBallot(pending[0], pending[1], reason or None))
            pending = None
    if pending is not None:
        ballots.append(ParsedBallot(pending[0], pending[1], None))
    return ballots, problem
