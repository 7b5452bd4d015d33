"""The text of `--json` (``tally.outputs.shown.indented_json.dumps``) is the bytes
``json.dumps(data, ensure_ascii=False, indent=2)`` writes, for any value JSON holds and for
what the commands print; and what json.dumps refuses, it refuses with json.dumps's error."""

from __future__ import annotations

import enum
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tally.cli import app
from tally.demo import sample_game_text
from tally.outputs.shown.indented_json import dumps
from tally.sanitise import json_text

from .conftest import DISCUZ, Runner
from .strategies import UNICODE, fuzz


def dumped(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


class Rank(enum.IntEnum):
    SHERIFF = 2


class Colour(enum.StrEnum):
    RED = "红"


class Weight(float):
    def __repr__(self) -> str:  # json.dumps writes float.__repr__, not this
        return "heavy"


PLAIN = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats()  # NaN and the infinities among them
    | st.text(UNICODE)  # controls, surrogate-free non-BMP, quotes and backslashes
    | st.sampled_from(["", "\x00\x1f\x7f\x85\u2028", "🐺投票对象：乙", '"\\/', Rank.SHERIFF, Colour.RED, Weight(2.5)])
)  # fmt: skip
KEYS = st.text(UNICODE) | st.integers() | st.floats() | st.booleans() | st.none()
VALUES = st.recursive(
    PLAIN,
    lambda inner: st.lists(inner, max_size=6)
    | st.lists(inner, max_size=4).map(tuple)
    | st.dictionaries(KEYS, inner, max_size=6),
    max_leaves=40,
)


@fuzz()
@given(VALUES)
def test_any_json_value_is_written_as_json_dumps_writes_it(value):
    assert dumps(value) == dumped(value)


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        [{}, [], [[]], {"a": {}}],
        {"a": [], "b": {"c": [{}]}},
        {"x": math.nan, "y": math.inf, "z": -math.inf, "w": -0.0, "v": 1e16, "u": 0.1 + 0.2},
        {1: "one", "1": "the text one", None: "no", 2.5: "f", False: 0, "true": True},
        ("a", ("b", ()), {"t": (1,)}),
        {"玩家🐺": {"reason": "投票理由：\n\t\"quoted\" \\ \x1b[31m\u202e"}},
        {Colour.RED: Rank.SHERIFF, "w": Weight(1.5), "big": 10**30},
    ],
)
def test_the_edges_are_written_as_json_dumps_writes_them(value):
    assert dumps(value) == dumped(value)


def test_a_key_of_true_is_written_as_json_dumps_writes_it():
    assert dumps({True: 1, "x": {False: [None]}}) == dumped({True: 1, "x": {False: [None]}})


def test_a_key_depth_holds_many_names_and_each_is_written_right():
    """The keys written once a depth are forgotten when they grow many: players' names."""
    many = {f"玩家{i}": {f"k{i}": i} for i in range(2500)}
    assert dumps(many) == dumped(many)
    assert dumps({"玩家7": 1, "k7": [2]}) == dumped({"玩家7": 1, "k7": [2]})


def test_a_value_nested_as_deep_as_json_dumps_writes_is_written_as_it_writes_it():
    """json.dumps's writer takes one frame a depth, dumps's two (a container, then its
    value): 600 lists or dicts deep, within the interpreter's 1,000 frames for one and not
    for the other, are still json.dumps's text."""
    deep: Any = []
    for depth in range(600):
        deep = [deep] if depth % 2 else {"k": deep}
    assert dumps(deep) == dumped(deep)


def test_what_json_dumps_refuses_is_refused_with_its_error():
    circle: list[Any] = [1]
    circle.append(circle)
    inside: dict[str, Any] = {}
    inside["me"] = {"again": inside}
    for value in (circle, inside, {"when": object()}, [1, {2}], {("a", "b"): 1}, {"x": b"bytes"}):
        with pytest.raises((TypeError, ValueError)) as theirs:
            dumped(value)
        with pytest.raises(theirs.type) as ours:
            dumps(value)
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "args",
    [
        ["votes", "{vote}", "--game", "{game}", "--json", "-q"],
        ["lurkers", "--game", "{game}", "--day", "2", "--json", "-q", "--no-write"],
    ],
)
def test_a_command_s_json_is_json_dumps_s_text(forum, tmp_path, args):
    """The sample game's real pages (Discuz! X3.5): what a command prints with --json is,
    byte for byte, what json.dumps with indent=2 writes of the same data."""
    forum.add_discuz_thread("23", DISCUZ, "vote")
    forum.add_discuz_thread("24", DISCUZ, "talk")
    game = Path(tmp_path / "game.toml")
    game.write_text(sample_game_text(forum.base), encoding="utf-8")
    args = [a.format(vote=forum.base + "thread-23-1-1.html", game=game) for a in args]
    result = Runner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert len(data) > 5
    assert result.stdout == json_text(dumped(data)) + "\n"
