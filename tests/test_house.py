"""The shape of the code: what keeps the next features cheap, checked so that it stays.

One vocabulary of verdicts (README's list is the enum's), platforms that claim disjoint
URL shapes, no forum branches outside tally/forums, layers that never import a later one,
the game resolved once at load, rulesets read by their field types, one CSV writer.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
import sys
import typing
from decimal import Decimal
from pathlib import Path

import pytest

from tally.errors import GameFileError
from tally.forums import PLATFORMS, resolve_url
from tally.rules.gamefile import parse_game
from tally.rules.rulesets import PRESETS, Ruleset, ruleset_for
from tally.rules.verdicts import BallotKind, Colour, OutcomeCode, Status, VoidReason

ROOT = Path(__file__).resolve().parent.parent
TALLY = ROOT / "tally"


@functools.cache
def modules() -> tuple[tuple[Path, ast.Module], ...]:
    """Every module of tally, parsed once for the tests that read the code."""
    return tuple((p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(TALLY.rglob("*.py")))


def test_readme_lists_every_void_reason_with_its_rule_and_label():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(\w+)` \| ([\w—]+) \| (\S+) \|$", readme, re.M)
    assert listed == [(r.value, r.rule or "—", r.label) for r in VoidReason]


def test_every_verdict_word_has_a_label():
    for enum in (Status, BallotKind, VoidReason, OutcomeCode, Colour):
        for member in enum:
            assert member.label, member
    for code in OutcomeCode:
        assert code.rule in ("C4", "C5", "C6", "C8"), code


@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: p.name)
def test_every_example_url_is_claimed_by_its_own_platform_only(platform):
    assert platform.example_urls
    for url in platform.example_urls:
        claims = [p.name for p in PLATFORMS if p.match_url(url) is not None]
        assert claims == [platform.name], url
        assert resolve_url(url)[0] is platform


def test_no_forum_branches_outside_the_forums_package():
    for path in TALLY.rglob("*.py"):
        if "forums" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\.name\s*==\s*[\"'](tieba|discuz)", text), path
        assert not re.search(r"platform\.name", text), path


STAGES = {
    "forums": 0,
    "rules": 1,
    "outputs": 2,
    "demo": 3,
    "commands": 3,
    "cli": 4,
    "cli_run": 4,
    "cli_doc": 4,
}


def stage(module: str) -> int | None:
    parts = module.split(".")
    return STAGES.get(parts[1]) if len(parts) > 1 and parts[0] == "tally" else None


def test_no_module_imports_a_later_stage():
    """forums → rules → outputs → commands/demo → cli: nothing imports backwards,
    not even for type hints."""
    for path, tree in modules():
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        mine = stage(module)
        if mine is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                theirs = stage(node.module)
                if theirs is not None:
                    assert theirs <= mine, f"{module} imports {node.module}"


def imports_within(package: str) -> dict[str, set[str]]:
    """Each module of ``package`` (dotted) and the modules of the package it imports, read
    from every import statement: at the top, inside a function, under TYPE_CHECKING."""
    folder = ROOT.joinpath(*package.split("."))
    named = {".".join(p.relative_to(ROOT).with_suffix("").parts): p for p in folder.rglob("*.py")}
    named = {m.removesuffix(".__init__"): p for m, p in named.items()}
    graph: dict[str, set[str]] = {m: set() for m in named}
    for module, path in named.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                wanted = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                # "from tally.outputs.shown import display" imports the module display
                wanted = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in named
                          else node.module for a in node.names]  # fmt: skip
            else:
                continue
            graph[module] |= {w for w in wanted if w in named and w != module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_outputs_import_no_circle_even_inside_functions():
    """What the director sees and what a run writes are layers, not a knot: no module of
    tally/outputs/ imports one that imports it back, even from inside a function or for a
    type hint (console, live and terminal once did, closed only by in-function imports)."""
    graph = imports_within("tally.outputs")
    assert "tally.outputs.shown.terminal" in graph and "tally.outputs.written.templating" in graph
    assert circles(graph) == []
    # What the director sees and what a run writes stand side by side, neither on the other.
    for module, imported in graph.items():
        for part, other in (("shown", "written"), ("written", "shown")):
            if module.startswith(f"tally.outputs.{part}"):
                assert not {m for m in imported if m.startswith(f"tally.outputs.{other}")}, module
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


GAME = """
players = ["甲", "乙"]
[[days]]
day = 2
opens = 2024-05-08T09:30:00
closes = 2024-05-09T21:30:00
vote = "{url}"
"""


def test_the_game_resolves_its_threads_at_load():
    game = parse_game(GAME.format(url="https://bbs.example.com/thread-102-3-1.html"), source="g")
    ref = game.day(2).vote_ref
    assert (ref.platform, ref.thread_id, ref.base) == ("discuz", "102", "https://bbs.example.com/")
    with pytest.raises(GameFileError) as info:
        parse_game(
            GAME.format(url="https://bbs.example.com/forum.php?mod=forumdisplay"), source="g"
        )
    assert str(info.value).startswith("g, key 'day 2.vote': ")
    assert "is not a thread URL tally knows" in str(info.value)


def test_every_ruleset_field_is_read_by_its_type():
    """Each field of every preset, written back as a game file would, reads as it was."""
    hints = typing.get_type_hints(Ruleset)
    for preset in PRESETS.values():
        for f in dataclasses.fields(Ruleset):
            if f.name == "based_on":
                continue
            value = getattr(preset, f.name)
            written = (
                None
                if value is None
                else list(value)
                if isinstance(value, tuple)
                else float(value)
                if isinstance(value, Decimal)
                else value
            )
            if written is None:
                written = "none" if hints[f.name] != (str | None) else ""
            read = ruleset_for(preset.based_on, {f.name: written})
            assert getattr(read, f.name) == value, (preset.name, f.name)


def test_what_was_hard_coded_is_a_rule_now():
    rules = ruleset_for(
        "245",
        {"name": "我的变体", "camp_loss_reds": 3, "dictator_weight": 3, "dictator_every": 4},
    )
    assert (rules.name, rules.based_on, rules.camp_loss_reds) == ("我的变体", "245", 3)
    assert (rules.dictator_weight, rules.dictator_from, rules.dictator_every) == (3, 10, 4)
    assert PRESETS["000"].camp_loss_reds is None and PRESETS["245"].camp_loss_reds == 2


def test_one_csv_writer_for_the_archive_and_the_ledger(tmp_path):
    from tally.csvfile import excel_csv
    from tally.outputs.written import cardfile as ledger
    from tally.rules.ledger import Card
    from tally.rules.verdicts import Colour

    path = tmp_path / "g.cards.csv"
    card = Card(3, "-减号", Colour.YELLOW, "L1", "=1+1", "director")
    ledger.save(path, [card])
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    assert "'-减号" in raw.decode("utf-8") and "'=1+1" in raw.decode("utf-8")
    assert ledger.load(path) == [card]  # read back as written
    assert excel_csv([{"a": "=x"}], ["a"]) == "\ufeffa\r\n'=x\r\n".encode()


def test_readme_layout_names_every_module():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout") :]
    layout = layout[: layout.index("```", layout.index("```") + 3)]
    folder = ""
    for path in sorted(TALLY.rglob("*.py")):
        parts = path.relative_to(TALLY).parts
        if len(parts) > 1:
            folder = parts[0] + "/"
            assert f"  {folder}" in layout, folder
        assert re.search(rf"^\s+{re.escape(parts[-1])}\s", layout, re.M), path


def test_every_announcement_has_a_template_in_each_markup():
    """The templates sit at the top of the repository (the design card's layout), and the
    installed package reads the same files as tally.templates."""
    from importlib import resources

    from tally.vocabulary import Announcement, Markup

    shipped = resources.files("tally.templates")
    for kind in Announcement:
        for markup in Markup:
            name = f"{kind}.{markup}.j2"
            assert (ROOT / "templates" / name).is_file()
            assert shipped.joinpath(name).read_bytes() == (ROOT / "templates" / name).read_bytes()
    assert not (TALLY / "outputs" / "templates").exists()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout") :]
    assert re.search(r"^templates/\s", layout, re.M)


def test_reading_goes_through_the_reader():
    """One Reader per run: outside tally/forums nothing builds its own HTTP client or reads a
    thread around the Reader (FetchOptions is the forums' own)."""
    private = {"FetchOptions", "fetch_thread", "read_saved_thread_files", "Http"}
    for path, tree in modules():
        if "forums" in path.parts:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tally.forums"):
                used = {a.name for a in node.names} & private
                assert not used, f"{path.relative_to(ROOT)} imports {used}"


# The enums whose words are compared: each word is compared as its enum, never as a string.
def enum_words() -> set[str]:
    from tally.records import RowKind
    from tally.rules.polls import ChangeKind
    from tally.rules.rulesets import ChangeMethod, TieStep
    from tally.rules.state import FactKind
    from tally.rules.verdicts import DayKind, ThreadRole
    from tally.vocabulary import Announcement, Markup, Origin

    enums = (DayKind, RowKind, ChangeMethod, ChangeKind, ThreadRole, Origin, Markup,
             Announcement, TieStep, FactKind)  # fmt: skip
    return {str(m) for e in enums for m in e} | {p.name for p in PLATFORMS}


def test_the_word_list_is_the_enums():
    """The words once listed by hand, and the tie steps they missed, all come from enums."""
    words = enum_words()
    assert {"sheriff", "elimination", "comment", "reply", "quote", "post", "discuz", "tieba",
            "vote", "discussion", "progress", "network", "revalidated", "cache", "memory",
            "file", "archive", "bbcode", "text", "close", "morning", "elevator",
            "reminder"} <= words  # fmt: skip
    assert {"acolyte", "sheriff_target", "none"} <= words


def test_no_word_with_an_enum_is_compared_as_a_string():
    """Outside the enums and the platforms, whose markup has words of its own ("quote" is a
    Discuz! class name)."""
    platforms = {"discuz.py", "discuz_post.py", "tieba.py", "tieba_html.py"}
    words = enum_words()
    for path, tree in modules():
        if path.parent.name == "forums" and path.name in platforms:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            for side in (node.left, *node.comparators):
                values = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
                for v in values:
                    said = v.value if isinstance(v, ast.Constant) else None
                    assert said not in words, f"{path.relative_to(ROOT)}:{node.lineno}: {said!r}"


def test_every_command_fills_its_functions_parameters():
    """A row of the command line names options by the parameter they fill: each must be a
    parameter of the function the row calls (or how the run reads, or what it prints)."""
    import importlib
    import inspect

    from tally.cli import CARDS, COMMANDS, OPTIONS, TEMPLATES
    from tally.cli_run import READING

    for row in (*COMMANDS, *CARDS, *TEMPLATES):
        module, name = row.call.split(":")
        wants = set(inspect.signature(getattr(importlib.import_module(module), name)).parameters)
        for key in row.takes:
            if key in READING or key in ("as_json", "game"):
                continue
            assert (OPTIONS[key].to or key) in wants, (row.name, key)


def test_the_process_variables_are_read_by_the_environment_only(tmp_path):
    """os.environ is read in tally/environment.py alone; a run's folders are its
    environment's, so a test hands in its own instead of patching the variables."""
    from tally.environment import Environment

    for path, tree in modules():
        if path.name == "environment.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv"):
                assert not (isinstance(node.value, ast.Name) and node.value.id == "os"), path
    env = Environment(config_dir=tmp_path / "c", cache_dir=tmp_path / "k", environ={})
    assert env.config_file() == tmp_path / "c" / "config.toml"
    assert env.cache_folder() == tmp_path / "k"
    named = Environment(config_dir=tmp_path / "c", environ={"TALLY_CONFIG": str(tmp_path / "t")})
    assert named.config_file() == tmp_path / "t"
    if sys.platform == "linux":  # the platform's own folder, from the variables handed in
        cached = Environment(environ={"XDG_CACHE_HOME": str(tmp_path)}).cache_folder()
        assert cached == tmp_path / "tally"


def test_no_import_circle_in_the_house_even_through_function_level_imports():
    """Issue 30: the whole of tally has no circle of imports, not at the top of a file, not
    in a function, not for a type hint (an import put in a function to dodge a circle is
    still one). History lives beside the Thread that holds it; the journal's record of a
    count takes the count's parts, not votes' DayResult."""
    graph = imports_within("tally")
    assert "tally.model" in graph and "tally.forums.history" in graph["tally.forums.fetch"]
    assert circles(graph) == []
