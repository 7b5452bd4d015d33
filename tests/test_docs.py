"""docs/game-file.md documents every key the loader accepts, and its example loads."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

from tally.rules.game import gamefile as loader
from tally.rules.game.gamefile import parse_game
from tally.rules.game.rulesets import Ruleset

DOC = Path(__file__).resolve().parent.parent / "docs" / "game-file.md"
README = Path(__file__).resolve().parent.parent / "README.md"


def documented() -> dict[str, set[str]]:
    """The keys in the first column of each section's table, by section heading."""
    sections: dict[str, set[str]] = {}
    heading = ""
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            heading = line[3:]
            continue
        m = re.match(r"^\| `(\w+)` \|", line)
        if m:
            sections.setdefault(heading, set()).add(m.group(1))
    return sections


def test_every_key_the_loader_accepts_is_documented():
    sections = documented()
    assert sections["Top-level keys"] == loader._TOP_KEYS
    assert sections["A day: `[[days]]`"] == loader._DAY_KEYS
    assert sections["Rulings: `[[rulings]]`"] == loader._RULING_KEYS
    overridable = {f.name for f in dataclasses.fields(Ruleset)} - {"based_on"}
    assert sections["Rules: `[rules]`"] == overridable


def test_the_example_loads():
    text = DOC.read_text(encoding="utf-8")
    example = re.search(r"```toml\n(.*?)```", text, re.S)
    assert example is not None
    game = parse_game(example.group(1), source="docs/game-file.md")
    assert game.name == "[023] 明星大侦探" and game.rules.sheriff_weight == 2
    assert [d.day for d in game.days] == [1, 2] and game.day(2).died
    assert game.rulings[1].comment == 2 and game.rulings[1].target == "冷月"
    assert game.roles["阿澈"] == "侦探" and game.rules.election_voters == ("嫌疑人",)
    assert game.ids["冷月"] == "101" and "阿澈" not in game.ids and game.ids["导演A"] == "1"


def test_the_readme_stands_alone():
    """README never sends a reader outside the repository, and links the game-file page."""
    text = README.read_text(encoding="utf-8")
    assert "../shared" not in text and "CONTRACT.md" not in text
    assert "(docs/game-file.md)" in text


def test_the_readme_lists_every_command():
    """README's command list names every command `tally --help` offers, and no other."""
    from typer.main import get_command

    from tally.cli import app

    group = get_command(app)
    text = README.read_text(encoding="utf-8")
    block = text[text.index("## Commands") :]
    block = block[: block.index("```", block.index("```") + 3)]
    listed = set(re.findall(r"^tally (\w+)", block, re.M))
    assert listed == set(group.commands)  # type: ignore[attr-defined]
    assert "tally --version" in block


def cited_rules() -> set[str]:
    """The rule ids the tests cite: in a test's name, its docstring, or a ``rules`` marker
    (a mention in a comment or an assertion's text is no citation)."""
    import ast

    def tests(body: list[ast.stmt]) -> Iterator[ast.FunctionDef]:
        """The tests pytest collects: a module's functions and its classes' (walking every
        node of every test module to find them took a fifth of a second)."""
        for node in body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                yield node
            elif isinstance(node, ast.ClassDef):
                yield from tests(node.body)

    cited: set[str] = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        for node in tests(ast.parse(path.read_text(encoding="utf-8")).body):
            said = [node.name.replace("_", " "), ast.get_docstring(node) or ""]
            for mark in node.decorator_list:
                if isinstance(mark, ast.Call) and ast.unparse(mark.func) == "pytest.mark.rules":
                    said += [a.value for a in mark.args if isinstance(a, ast.Constant)]
            cited.update(re.findall(r"\b([SVCLKA]\d+)\b", " ".join(map(str, said))))
    return cited


def test_every_rule_tally_applies_is_cited_by_a_test():
    """README's table of rules: each one tally applies is cited by at least one test, in
    its name, its docstring or a rules marker."""
    text = README.read_text(encoding="utf-8")
    rows = re.findall(r"^\| ([SVCLKA]\d+) \| [^|]+ \| ([^|]+) \|$", text, re.M)
    assert len(rows) == 36
    cited = cited_rules()
    for rule, tally in rows:
        if tally.strip().startswith("the director's"):
            continue
        assert rule in cited, f"no test cites {rule} in its name, docstring or marker"
