"""Who is who: ballot targets and post authors matched to the roster, never guessed.

A name matches when it is the same after NFKC, removal of invisible characters, case
folding and white-space collapsing, or when it is one of the game file's aliases. Anything
else is unknown; the closest roster names are offered to the director, and a name that
only *looks* like a player's (a Cyrillic "а" among Latin letters) is reported as such.
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# Characters that render as nothing: zero-width spaces and joiners, bidi marks, the
# word joiner, the BOM, and the Hangul fillers forum users paste to make "blank" names.
_INVISIBLE_EXTRA = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u180e"}
_SPACES = re.compile(r"\s+")
# What trails a name in a sentence and is not part of it (after NFKC: "；" is ";", "…" is
# "..."). The ballot reader strips the same.
TRAILING = "。.,，;；!！~～、…"
# The name Discuz! shows for an anonymous post (匿名), to everyone (a moderator also sees the
# account's uid on it): nobody's name.
ANONYMOUS = "匿名"

# Letters from other scripts that look like Latin ones (a small part of Unicode's
# confusables table: the ones seen in forum names).
_LOOKALIKE = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "ѕ": "s",
        "і": "i",
        "ј": "j",
        "ԁ": "d",
        "ɡ": "g",
        "ο": "o",
        "α": "a",
        "ν": "v",
        "ι": "i",
        "κ": "k",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ℓ": "l",
        "ı": "i",
        "0": "o",
        "1": "l",
    }
)


@functools.lru_cache(maxsize=4096)  # the same few dozen names, compared thousands of times a count
def normalise(name: str) -> str:
    """The form names are compared in, by the roster and the ballot reader alike: NFKC,
    invisible characters out, white space collapsed, case folded, and punctuation at the
    end dropped (a ballot's "投票对象：Mika。" ends its sentence, it does not name "Mika。";
    so "Mika;" and "Mika" are one name, and a roster holding both is refused at load)."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf" and c not in _INVISIBLE_EXTRA)
    folded = _SPACES.sub(" ", text).strip().casefold()
    return folded.rstrip(TRAILING).rstrip() or folded


def author_key(name: str) -> str:
    """The form an account name is compared in: NFKC alone (and the ends trimmed). A forum
    takes "bob。" and "bob!" as accounts of their own beside "bob", so the folding of
    ``normalise`` (case, trailing punctuation, invisible characters) would make one account
    of several; a ballot's target is another matter (``normalise``)."""
    return unicodedata.normalize("NFKC", name).strip()


def skeleton(name: str) -> str:
    """What a name looks like: letters from other scripts folded to the Latin ones."""
    return normalise(name).translate(_LOOKALIKE)


def _score(a: str, b: str) -> float:
    ratio = difflib.SequenceMatcher(None, a, b).ratio()
    same_place = sum(x == y for x, y in zip(a, b, strict=False)) / max(len(a), len(b), 1)
    return ratio + 0.25 * same_place


@dataclass(frozen=True)
class Match:
    player: str | None
    # Closest roster names when there is no match, best first.
    suggestions: tuple[str, ...] = ()
    # Set when the name looks like a player's but is spelled with other characters.
    lookalike: str | None = None


class Roster:
    """The players and their aliases, ready for matching."""

    def __init__(self, players: Iterable[str], aliases: Mapping[str, Iterable[str]] | None = None):
        self.players = tuple(players)
        self._exact: dict[str, str] = {}
        for player in self.players:
            self._exact[normalise(player)] = player
        for player, spellings in (aliases or {}).items():
            for spelling in spellings:
                self._exact.setdefault(normalise(spelling), player)
        self._skeletons: dict[str, str] = {}
        for key, player in self._exact.items():
            self._skeletons.setdefault(skeleton(key), player)

    def match(self, name: str) -> Match:
        key = normalise(name)
        if key in self._exact:
            return Match(self._exact[key])
        return Match(None, self.suggest(name), self._skeletons.get(skeleton(name)))

    def suggest(self, name: str, n: int = 3) -> tuple[str, ...]:
        key = normalise(name)
        found: list[str] = []
        look = self._skeletons.get(skeleton(name))
        if look:
            found.append(look)
        # "月 影" for "月影": a stray space is the commonest slip.
        found.extend(
            p for k, p in self._exact.items() if k.replace(" ", "") == key.replace(" ", "")
        )
        # Similar spellings, best first; characters in the same place weigh more, so
        # that "月彰" suggests "月影" and not also "冷月".
        scored = sorted(((_score(key, c), c) for c in self._exact), reverse=True)
        if scored and scored[0][0] >= 0.5:
            best = scored[0][0]
            found.extend(self._exact[c] for s, c in scored if s >= 0.5 and s >= best - 0.1)
        for candidate, player in self._exact.items():
            if key and (key in candidate or candidate in key):
                found.append(player)
        unique = list(dict.fromkeys(found))
        return tuple(unique[:n])


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance: insertions, deletions and substitutions of one character."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def likely_same(a: str, b: str) -> bool:
    """Whether two different account names are probably one name mistyped.

    The same after normalisation, after folding lookalike letters, or after removing
    spaces; or one slip apart (two for names of eight characters or more): 小咪 and 小眯,
    Mika and Mlka. Two-character Chinese names that share one character in another place
    (冷月, 月影) are not.
    """
    x, y = normalise(a), normalise(b)
    if not x or not y:
        return False
    if x == y or skeleton(a) == skeleton(b) or x.replace(" ", "") == y.replace(" ", ""):
        return True
    allowed = 2 if min(len(x), len(y)) >= 8 else 1
    distance = edit_distance(x, y)
    # At most half the name may differ: 甲 and 乙 are one edit apart and nothing alike.
    return distance <= allowed and 2 * distance <= max(len(x), len(y))
