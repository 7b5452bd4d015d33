"""Game files as a director writes them, from arguments: the one helper the tests write a
game file's TOML with (``game_toml``, ``write_game``), a ``[[days]]`` block each ``day``.

    text = game_toml(day(2, vote=url, dead=["长夜"]), ruleset="023", roles={"青山": "侦探"})
    path = write_game(tmp_path / "game.toml", day(2, vote=url), players=["甲", "乙"])

A test about the TOML text itself (a comment kept, a key misspelt, hostile TOML) keeps its
literal text instead, and says so."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path

PLAYERS = ["甲", "乙", "丙", "丁", "戊"]
VOTE = "https://bbs.example.com/thread-102-1-1.html"
OPENS = "2024-05-08T09:30:00"
CLOSES = "2024-05-09T21:30:00"
# The tables a game file may hold, written after its top-level keys and before its days.
TABLES = ("aliases", "camps", "roles", "rules")

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def toml_value(value: object) -> str:
    """``value`` as TOML writes it: a string quoted, a time unquoted (a local one when it has
    no offset), a list or a table inline."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def _key(key: str) -> str:
    return key if _BARE.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _time(when: str | datetime) -> str:
    """A time as the tests give it, in TOML: as written when it is TOML already
    ("2024-05-08T09:30:00", "2024-03-10T01:30:00-05:00"), else read ("2024-05-08 09:30")."""
    if isinstance(when, str):
        return when if "T" in when else datetime.fromisoformat(when).isoformat()
    return when.isoformat()


def _keys(keys: Mapping[str, object]) -> str:
    return "".join(f"{_key(k)} = {toml_value(v)}\n" for k, v in keys.items() if v is not None)


def day(
    number: int,
    vote: str | None = VOTE,
    opens: str | datetime = OPENS,
    closes: str | datetime = CLOSES,
    **keys: object,
) -> str:
    """One ``[[days]]`` block: its number, opening and closing times, vote thread (None: no
    vote key) and any other key of a day (discussion, dead, sheriff, accelerated ...)."""
    head = {"day": number}
    times = f"opens = {_time(opens)}\ncloses = {_time(closes)}\n"
    return "[[days]]\n" + _keys(head) + times + _keys({"vote": vote, **keys})


def game_toml(
    *days: str,
    players: Sequence[object] = PLAYERS,
    ruleset: str | None = "000",
    rulings: Sequence[Mapping[str, object]] = (),
    **keys: object,
) -> str:
    """A game file's text: its top-level keys (ruleset, name, directors, players, ...), its
    tables (``TABLES``: a mapping each), its days (``day``'s blocks) and the director's
    rulings (a mapping each: day, floor, action, note ...)."""
    top = {"ruleset": ruleset, **{k: v for k, v in keys.items() if k not in TABLES}}
    text = _keys(top) + f"players = {toml_value(list(players))}\n"
    for table in TABLES:
        if keys.get(table) is not None:
            text += f"[{table}]\n" + _keys(keys[table])  # type: ignore[arg-type]
    return text + "".join(days) + "".join(ruling_toml(r) for r in rulings)


def ruling_toml(ruling: Mapping[str, object]) -> str:
    """One ``[[rulings]]`` block (day, floor, action, note ...), as a director adds it to the
    end of a game file."""
    return "[[rulings]]\n" + _keys(ruling)


def write_game(path: Path, *days: str, **keys: object) -> Path:
    """``game_toml(*days, **keys)`` written to ``path`` (a folder: its game.toml)."""
    if path.is_dir():
        path = path / "game.toml"
    path.write_text(game_toml(*days, **keys), encoding="utf-8")
    return path
