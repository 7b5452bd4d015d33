"""The shape of the code: what keeps the next features cheap, checked so that it stays.

One vocabulary of verdicts (the guide's list is the enum's), platforms that claim disjoint
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
from tally.rules.game.gamefile import parse_game
from tally.rules.game.overrides import ruleset_for
from tally.rules.game.rulesets import PRESETS, Ruleset
from tally.rules.verdicts import BallotKind, Colour, OutcomeCode, Status, VoidReason

from . import gamefiles

ROOT = Path(__file__).resolve().parent.parent
TALLY = ROOT / "tally"


@functools.cache
def modules() -> tuple[tuple[Path, ast.Module], ...]:
    """Every module of tally, parsed once for the tests that read the code."""
    return tuple((p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(TALLY.rglob("*.py")))


@functools.cache
def nodes(tree: ast.AST) -> tuple[ast.AST, ...]:
    """Every node of a module of ``modules()``, in ``ast.walk``'s order, walked once for the
    tests that look at them all (a walk of the whole of tally takes a tenth of a second)."""
    return tuple(ast.walk(tree))


def test_the_guide_lists_every_void_reason_with_its_rule_and_label():
    page = (ROOT / "docs" / "counting.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(\w+)` \| ([\w—]+) \| (\S+) \|$", page, re.M)
    assert listed == [(r.value, r.rule or "—", r.label) for r in VoidReason]


def test_every_verdict_word_has_a_label():
    for enum in (Status, BallotKind, VoidReason, OutcomeCode, Colour):
        for member in enum:
            assert member.label, member
    for code in OutcomeCode:
        assert code.rule in ("C4", "C5", "C6", "C8"), code


def test_each_word_carries_its_own_sentences():
    """Issue 51: a tie step was described in four places and an outcome worded in two. Each
    tie step says what it does and whom it puts out, each outcome its sentence with the counts
    hidden (naming no count where it has one of its own); no module keeps a table of words
    keyed by a member of these enums beside them."""
    from tally.rules.verdicts import TieStep

    for step in TieStep:
        assert step.who and step.says and step.says[0].islower(), step
    for code in OutcomeCode:
        if code.hidden != code.label:
            assert "{top}" not in code.hidden and "{cast}" not in code.hidden, code
    assert OutcomeCode.TIE_NONE.hidden == "最高票有多人，无人出局。"
    keyed = {"TieStep", "OutcomeCode"}
    for path, tree in modules():
        for node in nodes(tree):
            if isinstance(node, ast.Dict):
                names = {k.value.id for k in node.keys if isinstance(k, ast.Attribute)
                         and isinstance(k.value, ast.Name)}  # fmt: skip
                assert not names & keyed, f"{path.relative_to(ROOT)}:{node.lineno}"


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
    # Beside the command line: the desk calls the commands as the command line does.
    "desk": 4,
}

# The one import that runs up a stage: `tally desk`, a command, starts the desk.
STARTS = {("tally.commands.desk", "tally.desk.serve")}


def stage(module: str) -> int | None:
    parts = module.split(".")
    return STAGES.get(parts[1]) if len(parts) > 1 and parts[0] == "tally" else None


def test_no_module_imports_a_later_stage():
    """forums → rules → outputs → commands/demo → cli and desk: nothing imports backwards,
    not even for type hints or inside a function, but the command that starts the desk."""
    backwards = set()
    for path, tree in modules():
        module = module_name(path)
        mine = stage(module)
        if mine is None:
            continue
        for theirs in imported(tree, module):
            later = stage(theirs)
            if later is not None and later > mine:
                backwards.add((module, theirs))
    assert backwards == STARTS


def test_every_package_of_tally_has_its_stage():
    """A new package of tally is placed among the stages, or the house test says so."""
    packages = {p.parent.name for p in TALLY.glob("*/__init__.py")}
    assert packages <= set(STAGES), packages - set(STAGES)
    assert STAGES["desk"] > STAGES["commands"]


def test_the_desk_stands_above_the_commands():
    """The desk calls the commands (the same reads, counts, cards and posts as `tally
    watch`, `tally lurkers` and `tally announce`); of the commands only `tally desk` imports
    the desk, and only the module that serves it."""
    desk = {m: i for m, i in imports_of("tally").items() if m.startswith("tally.desk")}
    assert {i for found in desk.values() for i in found if i.startswith("tally.commands.")} >= {
        "tally.commands.watch", "tally.commands.lurkers", "tally.commands.announce"}
    into_desk = {(m, i) for m, found in imports_of("tally").items() for i in found
                 if i.startswith("tally.desk") and not m.startswith("tally.desk")}
    assert into_desk == STARTS


def imports_of(package: str) -> dict[str, frozenset[str]]:
    """Each module of ``package`` (dotted) and every module of tally it imports."""
    trees = {module_name(p): tree for p, tree in modules()}
    return {m: imported(t, m) for m, t in trees.items()
            if m == package or m.startswith(f"{package}.")}  # fmt: skip


def imports_within(package: str) -> dict[str, set[str]]:
    """Each module of ``package`` (dotted) and the modules of the package it imports, read
    from every import statement (``imported``): at the top, inside a function, under
    TYPE_CHECKING."""
    inside = {module_name(p): tree for p, tree in modules()}
    inside = {m: t for m, t in inside.items() if m == package or m.startswith(f"{package}.")}
    return {m: {i for i in imported(t, m) if i in inside} for m, t in inside.items()}


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


GAME = gamefiles.game_toml(gamefiles.day(2, "{url}"), ruleset=None, players=["甲", "乙"])


# The questions tally/rules/ answers, each folder standing on the ones before it.
QUESTIONS = ("game", "judging", "counting", "cards")
# Beside them: the package's face, and the words every answer is given in.
WORDS = ("tally.rules", "tally.rules.verdicts")


def question(module: str) -> int | None:
    parts = module.split(".")
    return QUESTIONS.index(parts[2]) if len(parts) > 2 and parts[2] in QUESTIONS else None


def test_each_question_of_the_rules_stands_on_the_ones_before_it():
    """Issue 51: tally/rules/ by the question each module answers: what game is this, does
    this ballot count, what did the day decide, who is carded. Every module is one question's
    (but the words, which import none of them); none imports a later question's, not inside a
    function, not for a type hint; each folder's __init__.py opens with its question."""
    graph = imports_within("tally.rules")
    assert {question(m) for m in graph} == {None, *range(len(QUESTIONS))}
    for module, imported in graph.items():
        mine = question(module)
        if mine is None:
            assert module in WORDS, f"{module} answers none of the questions"
            assert not imported - set(WORDS), f"{module} imports {sorted(imported)}"
            continue
        for other in imported:
            theirs = question(other)
            assert theirs is None or theirs <= mine, f"{module} imports {other}"
    for name in QUESTIONS:
        said = ast.get_docstring(ast.parse((TALLY / "rules" / name / "__init__.py").read_text()))
        assert said and re.match(r"[^.?]+\?", said), name
    assert question("tally.rules.cards.lurkers") == 3 and question("tally.rules.verdicts") is None


def test_the_game_resolves_its_threads_at_load():
    game = parse_game(GAME.format(url="https://bbs.example.com/thread-102-3-1.html"), source="g")
    ref = game.day(2).vote_ref
    assert (ref.platform, ref.thread_id, ref.base) == ("discuz", "102", "https://bbs.example.com/")
    with pytest.raises(GameFileError, match="is not a thread URL tally knows") as info:
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
    from tally.rules.cards.ledger import Card
    from tally.rules.verdicts import Colour

    path = tmp_path / "g.cards.csv"
    card = Card(3, "-减号", Colour.YELLOW, "L1", "=1+1", "director")
    ledger.save(path, [card])
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    assert "'-减号" in raw.decode("utf-8") and "'=1+1" in raw.decode("utf-8")
    assert ledger.load(path) == [card]  # read back as written
    assert excel_csv([{"a": "=x"}], ["a"]) == "\ufeffa\r\n'=x\r\n".encode()


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
    page = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
    layout = page[page.index("## Layout") :]  # every folder it names: tests/test_docs.py
    assert re.search(r"^templates/\s", layout, re.M)


def test_reading_goes_through_the_reader():
    """One Reader per run: outside tally/forums nothing builds its own HTTP client or reads a
    thread around the Reader (FetchOptions is the forums' own)."""
    private = {"FetchOptions", "fetch_thread", "read_saved_thread_files", "Http"}
    for path, tree in modules():
        if "forums" in path.parts:
            continue
        for node in nodes(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tally.forums"):
                used = {a.name for a in node.names} & private
                assert not used, f"{path.relative_to(ROOT)} imports {used}"


# The enums whose words are compared: each word is compared as its enum, never as a string.
def enum_words() -> set[str]:
    from tally.records import RowKind
    from tally.rules.counting.polls import ChangeKind
    from tally.rules.counting.state import FactKind
    from tally.rules.game.rulesets import ChangeMethod
    from tally.rules.verdicts import DayKind, ThreadRole, TieStep
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
    words = enum_words()
    for path, tree in modules():
        if module_name(path) in platform_modules():
            continue
        for node in nodes(tree):
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
        for node in nodes(tree):
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

# -- the platform as the only door ---------------------------------------------------------------


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def imported(tree: ast.Module, module: str) -> frozenset[str]:
    """Every module of tally an import anywhere in ``tree`` names (at the top, inside a
    function, under TYPE_CHECKING): ``from P import N`` names P, and P.N when that is a module.
    Read once a module for the five tests that ask."""
    known = _known()
    package = module if module in _packages() else module.rpartition(".")[0]
    found: set[str] = set()
    for node in nodes(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package up
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *filter(None, [base])])
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known)
    return frozenset(m for m in found if m in known and m != module)


@functools.cache
def _known() -> frozenset[str]:
    return frozenset(module_name(p) for p, _ in modules())


@functools.cache
def _packages() -> frozenset[str]:
    return frozenset(module_name(p) for p, _ in modules() if p.name == "__init__.py")


def names_a_platform(tree: ast.Module) -> bool:
    """Whether a module's code (not its docstrings, nor a board profile's ``about``) names a
    forum software: its name or title in an identifier or a string."""
    words = {w.lower() for p in PLATFORMS for w in (p.name, p.title)}
    spoken = set()
    for node in nodes(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            spoken.add(id(body[0].value))  # a docstring
        if isinstance(node, ast.keyword) and node.arg == "about":
            spoken.add(id(node.value))
    for node in nodes(tree):
        said = (
            node.value if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in spoken
            else node.id if isinstance(node, ast.Name)
            else node.attr if isinstance(node, ast.Attribute)
            else None
        )  # fmt: skip
        if said is not None and any(w in said.lower() for w in words):
            return True
    return False


@functools.cache
def platform_modules() -> frozenset[str]:
    """The modules of one forum software: those in its own folder of tally/forums/ (discuz/,
    tieba/), and any generic one whose code names one (the list of platforms,
    tally/forums/__init__.py, apart)."""
    names = tuple(p.name for p in PLATFORMS)
    return frozenset(
        module_name(path)
        for path, tree in modules()
        if (path.parent.parent == TALLY / "forums" and path.parent.name in names)
        or (path.parent == TALLY / "forums" and path.name != "__init__.py"
            and names_a_platform(tree))
    )


def test_the_platform_modules_are_in_their_platforms_folder():
    """A module whose code names a forum software is in that platform's folder (issue 50: the
    platforms' modules were flat among the generic ones): what is the platform's stays with
    the platform (a generic module such as fetch, base or diagnosis names none), and a new
    platform is a folder of its own and one line of the list."""
    names = tuple(p.name for p in PLATFORMS)
    for module in platform_modules():
        assert module.split(".")[2] in names, module
    assert {p.name for p in PLATFORMS} == {
        d.name for d in (TALLY / "forums").iterdir() if (d / "__init__.py").is_file()}


def test_what_a_forum_software_holds_is_in_its_platform_modules():
    """A class of a platform or of its pages is defined in a module named for its platform,
    and nowhere else: the house tests below know the platform modules by their names."""
    from tally.forums.base import Pages, Platform

    homes = {type(p).__module__ for p in PLATFORMS} | {type(p.pages).__module__ for p in PLATFORMS}
    assert homes <= platform_modules()
    assert {"tally.forums.discuz.reply", "tally.forums.discuz.fields"} <= platform_modules()
    for path, tree in modules():
        for node in nodes(tree):
            if isinstance(node, ast.ClassDef):
                bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
                if bases & {Platform.__name__, Pages.__name__}:
                    assert module_name(path) in platform_modules(), (path, node.name)


def test_no_module_outside_the_forums_imports_a_platform_module():
    """Outside tally/forums/ a forum is reached through the Platform interface only (reading,
    doctor's diagnosis, posting): no module imports one forum software's module, not even
    inside a function or for type hints."""
    platform = platform_modules()
    for path, tree in modules():
        module = module_name(path)
        if module == "tally.forums" or module.startswith("tally.forums."):
            continue
        reached = imported(tree, module) & platform
        assert not reached, f"{module} imports {sorted(reached)}"


def test_the_generic_forums_modules_reach_a_platform_through_the_list_of_platforms():
    """Inside tally/forums/ too, only the list of platforms (tally/forums/__init__.py) and the
    platform modules themselves import a platform module: the generic ones (fetch, reader,
    diagnosis, base, …) know a platform by its interface."""
    platform = platform_modules()
    for path, tree in modules():
        module = module_name(path)
        if path.parent != TALLY / "forums" or module in platform or module == "tally.forums":
            continue
        reached = imported(tree, module) & platform
        assert not reached, f"{module} imports {sorted(reached)}"


def test_no_import_circle_within_the_forums():
    """Within tally/forums/ no module reaches itself through imports, counting those inside
    functions and under TYPE_CHECKING (``from tally.forums import x`` runs the package's
    __init__, and counts as an import of it: tieba once did so, and __init__ imports tieba)."""
    graph = imports_within("tally.forums")
    assert "tally.forums.tieba" in graph["tally.forums"] or "tally.forums.tieba.platform" in graph["tally.forums"]
    assert circles(graph) == []


def test_the_url_shapes_said_are_built_from_the_platforms_examples():
    """The sentence for a URL of no known shape names every shape the platforms' example
    URLs have (a shape with more parameters than another said once), each platform by its
    title."""
    from tally.errors import InputError
    from tally.forums import url_shapes

    with pytest.raises(InputError, match="is not a thread URL tally knows") as info:
        resolve_url("https://bbs.example.com/forum.php?mod=forumdisplay&fid=2")
    said = str(info.value)
    assert url_shapes() in said
    assert "Discuz!: /forum.php?mod=viewthread&tid=N, /thread-N-P-1.html" in said
    assert "/archiver/tid-N.html" in said and "Tieba: /p/N)" in said
    assert "&page=P" not in said and "see_lz" not in said  # more parameters: read as well
    for platform in PLATFORMS:
        assert platform.title in said


def test_each_platform_posts_or_says_in_one_sentence_why_not():
    """A platform that posts reads its reply form and sends through it (and may offer its
    client interface's form first); one that does not says why in one sentence, which is
    what --post stops with (exit 7), and offers no form of any kind."""
    from tally.errors import ExitStatus, PostError
    from tally.forums.base import Platform
    from tally.forums.replies import ReplyForm

    form = ReplyForm("http://x/post", (), "utf-8", "1", "导演", "http://x/t")
    for platform in PLATFORMS:
        overrides = {
            name for name in ("reply_form", "send_reply", "interface_form")
            if getattr(type(platform), name) is not getattr(Platform, name)
        }  # fmt: skip
        if platform.no_posting:
            assert not overrides, platform.name
            assert platform.no_posting.endswith(".") and platform.no_posting.count(". ") == 0
            ref = resolve_url(platform.example_urls[0])[1]
            with pytest.raises(PostError, match=re.escape(platform.no_posting)) as info:
                platform.reply_form("<html></html>", "http://x/t", "utf-8")
            assert str(info.value) == platform.no_posting
            assert info.value.exit_code == ExitStatus.NOT_POSTED
            with pytest.raises(PostError, match=re.escape(platform.no_posting)) as info:
                platform.send_reply(form, "text", ref, submit=None)
            assert str(info.value) == platform.no_posting
            assert platform.interface_form(ref, ask=None) is None
        else:
            assert overrides >= {"reply_form", "send_reply"}, platform.name


def test_post_keeps_the_safety_rules_and_names_no_platform():
    """tally/commands/post.py asks the platform for the form and the sending: it names no
    forum software, in its code or its words."""
    text = (TALLY / "commands" / "post.py").read_text(encoding="utf-8")
    for platform in PLATFORMS:
        assert platform.title not in text and platform.name not in text.lower()
    # The safety rules stayed with the command: inside the one lock, the thread is read live
    # and searched for the post (never twice), the journal records it, then it is sent.
    tree = ast.parse(text)
    [lock] = [n for n in ast.walk(tree) if isinstance(n, ast.With)
              and "post_lock" in ast.unparse(n.items[0].context_expr)]  # fmt: skip
    calls = sorted((n for n in ast.walk(lock) if isinstance(n, ast.Call)),
                   key=lambda n: (n.lineno, n.col_offset))  # fmt: skip
    inside = [ast.unparse(n) for n in calls]
    order = [next(i for i, c in enumerate(inside) if c.startswith(name))
             for name in ("_live(", "_never_twice(", "journal.begin(", "platform.send_reply(")]  # fmt: skip
    assert order == sorted(order), inside


def test_the_bbcode_tags_are_the_markups():
    """The tags made inert in a template's values and taken away when a post is read back are
    one list, beside the markup they belong to."""
    from tally.outputs.written import announce
    from tally.vocabulary import BBCODE_TAG, BBCODE_TAGS

    for tag in BBCODE_TAGS:
        assert BBCODE_TAG.fullmatch(f"[{tag}]") and BBCODE_TAG.fullmatch(f"[/{tag}]")
        assert announce.inert(f"[{tag}]") != f"[{tag}]"
    assert announce.inert("[A01]") == "[A01]" and not BBCODE_TAG.search("[A01]")
    for path, tree in modules():
        if path.name == "vocabulary.py":
            continue
        for node in nodes(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert "attachimg|" not in node.value and "|attachimg" not in node.value, path


@pytest.mark.parametrize(
    ("value", "fatal", "said"),
    [("甲", True, None), ("  ", True, "p.html, post 7 has no author."), (None, False, None)],
)
def test_one_helper_says_a_required_field_missing(value, fatal, said):
    """yt-dlp's fatal=: a required field found nowhere is one sentence naming the field and
    where it was looked for; an optional one is None."""
    from tally.errors import InputError, ParseError
    from tally.forums.base import field_value

    if said is None:
        assert field_value(value, "p.html, post 7", "author", fatal=fatal) == value
    else:
        with pytest.raises(ParseError, match=f"^{re.escape(said)}$") as info:
            field_value(value, "p.html, post 7", "author", fatal=fatal)
        assert str(info.value) == said
    with pytest.raises(InputError, match=r"^posts.csv, row 3: author is empty\.$"):
        field_value("", "posts.csv, row 3", "author", error=InputError,
                    said="{where}: {name} is empty.")  # fmt: skip


def test_the_required_field_sentence_is_written_once():
    """The parsers and the archive say a missing field through the helper, not by hand."""
    # (The archive's own wording, marked for the catalog with N_, is the helper's ``said``.)
    by_hand = re.compile(r"raise \w+\(f\"\{[\w.]+\} (has no|lacks its) "
                         r"|(?<!N_\()\"[^\"\n]*is empty\.\"\)")
    parsers = {*platform_modules(), "tally.forums.archived"}
    for path, _ in modules():
        if module_name(path) in parsers:
            assert not by_hand.search(path.read_text(encoding="utf-8")), path


def test_no_room_grew_past_reading():
    """Issue 51's measures of size, kept from growing back: no function of tally over 80
    lines and at most 15 over 60; no module over 600 lines, and at most 10 over 400 outside
    tally/forums (which reads two platforms' pages and interfaces, and is excepted)."""
    long: list[tuple[int, str]] = []
    big: list[tuple[int, str]] = []
    for path, tree in modules():
        where = path.relative_to(ROOT).as_posix()
        size = len(path.read_text(encoding="utf-8").splitlines())
        assert size <= 600, f"{where} has {size} lines: split it by what its parts hold"
        if size > 400 and not where.startswith("tally/forums/"):
            big.append((size, where))
        for node in nodes(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                assert lines <= 80, f"{where}: {node.name} has {lines} lines"
                if lines > 60:
                    long.append((lines, f"{where}: {node.name}"))
    assert len(long) <= 15, sorted(long, reverse=True)
    assert len(big) <= 10, sorted(big, reverse=True)
