"""A game's ``[rules]``: its preset with the game file's overrides applied, each value read by
the type its field declares in ``Ruleset`` (a bool, a whole number, a number, a text, a list
of a StrEnum's values…), so that a new rule needs no reader of its own.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import typing
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

from tally.errors import GameFileError
from tally.i18n import tr
from tally.rules.game.rulesets import PRESETS, Ruleset

# What a game file writes for "no value" (a field that is X | None): not the tie step "none".
NO_VALUE = ("", "none")


def parse_number(value: Any, *, low: Decimal, high: Decimal) -> Decimal:
    """A number from the game file, exactly (Decimal), finite and within [low, high].

    TOML reads nan, inf and 1e999999999 (as inf) as numbers; a weight of nan would make
    every comparison false, so each is refused with the reason. ValueError says why.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(tr("must be a number"))
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(tr("{value} is not a number", value=repr(str(value)[:40]))) from None
    if not number.is_finite():
        raise ValueError(tr("must be a finite number, not {value}", value=repr(value)))
    if not low <= number <= high:
        raise ValueError(tr("must be between {low} and {high}, not {value}", low=low, high=high,
                            value=_short(number)))  # fmt: skip
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
            said = (tr("is not a rule tally knows (did you mean {close}?)", close=repr(close[0]))
                    if close else tr("is not a rule tally knows"))  # fmt: skip
            raise _wrong(source, key, said)
        try:
            changes[key] = _coerce(value, hints[key])
        except ValueError as exc:
            raise _wrong(source, key, str(exc)) from None
    return dataclasses.replace(base, **changes)


def _wrong(source: str, key: str, problem: str) -> GameFileError:
    """One sentence for a wrong key or value of ``[rules]``, as ``Checker.fail`` says it."""
    return GameFileError(tr("{source}, key {key}: {problem}.", source=source,
                            key=repr(f"rules.{key}"), problem=problem))  # fmt: skip


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
            said = (tr('{problem} or "" for none', problem=exc) if inner is str
                    else tr('{problem} or "none"', problem=exc))  # fmt: skip
            raise ValueError(said) from None
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(tr("must be true or false"))
        return value
    if hint is int:
        if not _whole(value):
            high = format(MAX_WHOLE, ",")
            raise ValueError(tr("must be a whole number from 0 to {high}", high=high))
        return value
    if hint is Decimal:
        return parse_number(value, low=Decimal(0), high=Decimal(100))
    if hint is str:
        if not isinstance(value, str) or not value.strip():
            raise ValueError(tr("must be a non-empty string"))
        return value.strip()
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        allowed = tuple(hint)
        if value not in allowed:
            raise ValueError(tr("must be one of {choices}",
                                choices=", ".join(repr(str(a)) for a in allowed)))  # fmt: skip
        return hint(value)
    if typing.get_origin(hint) is tuple and args == (str, Ellipsis):
        # Names (roles): a list of texts, empty allowed.
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise ValueError(tr("must be a list of names"))
        return tuple(v.strip() for v in value)
    if typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis:
        allowed = tuple(args[0])  # a StrEnum: the values it allows
        if not isinstance(value, list) or not value or any(v not in allowed for v in value):
            raise ValueError(tr("must be a list of {choices}",
                                choices=", ".join(repr(str(a)) for a in allowed)))  # fmt: skip
        return tuple(args[0](v) for v in value)
    if typing.get_origin(hint) is tuple and all(a is int for a in args):
        if not (isinstance(value, list) and len(value) == len(args) and all(map(_whole, value))):
            said = (tr("must be two whole numbers, [vote within, no change after]")
                    if len(args) == 2 else
                    tr("must be {count} whole numbers, [vote within, no change after]",
                       count=len(args)))  # fmt: skip
            raise ValueError(said)
        return tuple(value)
    raise ValueError("must be a value of the right kind")  # pragma: no cover - all fields read
