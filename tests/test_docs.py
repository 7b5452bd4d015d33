"""The README and the guide in docs/: docs/game-file.md documents every key the loader
accepts and its example loads; the README is a newcomer's page that reaches every page of the
guide, and every link of the guide leads somewhere; the rules, the void reasons' words, the
exit statuses and the layout of the code are listed where a reader finds them, each checked
against what the code holds."""

from __future__ import annotations

import dataclasses
import fnmatch
import importlib
import re
import subprocess
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

from tally.rules.game import dayblocks
from tally.rules.game import gamefile as loader
from tally.rules.game.gamefile import parse_game
from tally.rules.game.rulesets import Ruleset

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DOC = DOCS / "game-file.md"
README = ROOT / "README.md"
RULES = DOCS / "rules.md"
CONTRIBUTING = DOCS / "contributing.md"
# The pages of the guide: the README, every page of docs/, the benchmarks' page.
PAGES = (README, *sorted(DOCS.glob("*.md")), ROOT / "bench" / "README.md")


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
    assert sections["A day: `[[days]]`"] == dayblocks._DAY_KEYS
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
    """No page of the guide sends a reader outside the repository, and the README links
    the game-file page."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert "../shared" not in text and "CONTRACT.md" not in text and "RULES.md" not in text, (
            page
        )
    assert "(docs/game-file.md)" in README.read_text(encoding="utf-8")


def test_the_readme_is_a_newcomers_page():
    """What tally is, its install and demo, a first game, the commands, the library and the
    guide, in at most 200 lines: everything else is a page of docs/."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings == [
        "Install",
        "A first game in five commands",
        "Commands",
        "The guide, by task",
        "The library",
    ]


def headings(text: str) -> list[str]:
    """The headings of a markdown page, outside its code blocks."""
    return re.findall(r"^#{1,6} (.+)$", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S), re.M)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, no punctuation but - and _,
    a hyphen for each space, -1, -2 … after a repeated one."""
    seen: dict[str, int] = {}
    found = set()
    for heading in headings(page.read_text(encoding="utf-8")):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return found


def links(page: Path) -> list[tuple[Path, str]]:
    """Each link of a page into the repository (its file, and its anchor or ""), outside code."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    found = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # https://, mailto: a page elsewhere
        path, _, anchor = target.partition("#")
        found.append(((page.parent / path).resolve() if path else page, anchor))
    return found


def test_every_link_of_the_guide_leads_somewhere():
    """A page moved or a heading renamed breaks no link: each file a page links exists, and
    each anchor is a heading of its page."""
    for page in PAGES:
        for target, anchor in links(page):
            assert target.exists(), f"{page.name} links {target}, which is not there"
            if anchor:
                assert anchor in anchors(target), f"{page.name} links {target.name}#{anchor}"


def test_every_page_of_docs_is_reachable_from_the_readme():
    """From the README, following links, a reader reaches every page and picture of docs/."""
    reached, todo = {README.resolve()}, [README.resolve()]
    while todo:
        for target, _ in links(todo.pop()):
            if target not in reached:
                reached.add(target)
                if target.suffix == ".md":
                    todo.append(target)
    pages = {p.resolve() for p in DOCS.rglob("*") if p.suffix in (".md", ".png")}  # docs/zh/ too
    assert pages - reached == set()
    assert (ROOT / "bench" / "README.md").resolve() in reached


def test_the_readme_library_example_imports():
    """The README's few lines of the library name modules and functions that exist."""
    text = README.read_text(encoding="utf-8")
    example = text[text.index("```python") : text.index("```", text.index("```python") + 3)]
    imports = re.findall(r"^from ([\w.]+) import (\w+)$", example, re.M)
    assert len(imports) >= 5
    for module, name in imports:
        assert hasattr(importlib.import_module(module), name), (module, name)
    compile(example.removeprefix("```python"), "README.md", "exec")


def test_ci_runs_the_set_up_commands_of_the_contributors_page():
    """CI runs, verbatim, the two commands the contributor's page says set up a clone."""
    text = CONTRIBUTING.read_text(encoding="utf-8")
    block = text[text.index("```sh\n", text.index("## Set up")) + 6 :]
    commands = block[: block.index("```")].splitlines()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert len(commands) == 2 and all(c in ci for c in commands), commands


def test_the_exit_statuses_are_listed():
    """The table of exit statuses names every status tally exits with but 0, in order."""
    from tally.errors import ExitStatus

    text = (DOCS / "trust.md").read_text(encoding="utf-8")
    listed = [int(code) for code in re.findall(r"^\| (\d+) \| .+ \|$", text, re.M)]
    assert listed == [s.value for s in ExitStatus if s is not ExitStatus.OK]


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


@cache
def cited_rules() -> frozenset[str]:
    """The rule ids the tests cite: in a test's name, its docstring, or a ``rules`` marker
    (a mention in a comment or an assertion's text is no citation). Read once for the two
    tests that ask, from the test modules as pytest imported them to collect them (a module
    this run left out is imported here): parsing every module's source again for its tests
    took 0.4-0.7 s of a run."""

    def tests(owner: object, module: str) -> Iterator[Callable[..., object]]:
        """The tests pytest collects: a module's functions and its classes', those the module
        defines (not those it imports)."""
        for name, thing in vars(owner).items():
            if getattr(thing, "__module__", None) != module:
                continue
            if name.startswith("test_") and callable(thing):
                yield thing
            elif isinstance(thing, type):
                yield from tests(thing, module)

    said: list[str] = []
    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        module = importlib.import_module(f"{__package__}.{path.stem}")
        for test in tests(module, module.__name__):
            said += [test.__name__.replace("_", " "), test.__doc__ or ""]
            marks = getattr(test, "pytestmark", [])
            said += [a for mark in marks if mark.name == "rules" for a in mark.args]
    return frozenset(re.findall(r"\b([SVCLKA]\d+)\b", " ".join(map(str, said))))


def rule_rows() -> list[tuple[str, str]]:
    """docs/rules.md's table: each rule's id and what tally does with it."""
    text = RULES.read_text(encoding="utf-8")
    return re.findall(r"^\| ([SVCLKA]\d+) \| [^|]+ \| ([^|]+) \|$", text, re.M)


def test_every_rule_tally_applies_is_cited_by_a_test():
    """The table of rules: each one tally applies is cited by at least one test, in its
    name, its docstring or a rules marker."""
    rows = rule_rows()
    assert len(rows) == 36
    cited = cited_rules()
    for rule, tally in rows:
        if tally.strip().startswith("the director's"):
            continue
        assert rule in cited, f"no test cites {rule} in its name, docstring or marker"


def test_every_rule_a_test_cites_is_documented():
    """A rule id a test cites is one of the table's: a reader finds what it says."""
    assert cited_rules() - {rule for rule, _ in rule_rows()} == set()


@cache
def repository() -> tuple[str, ...]:
    """The repository's files: git's list in a clone (untracked files too, ignored ones
    not), else the files on disk that .gitignore leaves."""
    try:
        found = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout.split("\0")  # fmt: skip
    except (OSError, subprocess.CalledProcessError):  # no git, or not a clone: the disk
        lines = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
        ignored = [line.strip().rstrip("/") for line in lines if line.strip()] + [".git"]
        found = []
        for path in ROOT.rglob("*"):
            parts = path.relative_to(ROOT).parts
            if path.is_file() and not any(fnmatch.fnmatch(p, i) for p in parts for i in ignored):
                found.append("/".join(parts))
    return tuple(sorted(f for f in found if f and (ROOT / f).exists()))  # deleted: not there


def layout() -> dict[str, str]:
    """The paths the contributor's page's layout names (a folder ends in /), each with its
    line: an entry is indented two spaces a level under its folder; a line indented further
    goes on with the description above it."""
    text = CONTRIBUTING.read_text(encoding="utf-8")
    block = text[text.index("```\n", text.index("## Layout")) + 4 :]
    named: dict[str, str] = {}
    folders: list[str] = []  # the folder open at each level
    for line in block[: block.index("```")].splitlines():
        indent = len(line) - len(line.lstrip())
        if indent >= 16:
            continue
        assert indent % 2 == 0 and indent // 2 <= len(folders), line
        del folders[indent // 2 :]
        path = "".join(folders) + line.split()[0]
        named[path] = line
        if path.endswith("/"):
            folders.append(line.split()[0])
    return named


def test_every_name_of_the_layout_is_in_the_tree():
    for path in layout():
        where = ROOT / path
        assert where.is_dir() if path.endswith("/") else where.is_file(), (
            f"the layout names {path}: no such {'folder' if path.endswith('/') else 'file'}"
        )


def test_the_layout_names_every_folder_and_module():
    """docs/contributing.md's layout misses no folder of the repository's top, of tally/
    (however deep), of fixtures/, tests/ or docs/, and no module of tally/, file of docs/, tools/,
    bench/ or .ci/, helper of the tests, or file at the top."""
    named = set(layout())
    files = set(repository()) | {str(p.relative_to(ROOT)) for p in (ROOT / "tally").rglob("*.py")}
    wanted: set[str] = set()
    for f in files:
        parts = f.split("/")
        folders = ["/".join(parts[: i + 1]) + "/" for i in range(len(parts) - 1)]
        wanted.update(folders[:1])  # a folder at the top
        if parts[0] == "tally":
            wanted.update(folders)
            if f.endswith(".py"):
                wanted.add(f)
        elif parts[0] in ("fixtures", "tests"):
            wanted.update(folders[1:2])
        if len(parts) == 1 and not f.startswith("."):
            wanted.add(f)  # README.md, pyproject.toml
        if len(parts) == 2 and parts[0] in ("docs", "tools", "bench", ".ci"):
            wanted.add(f)
        if len(parts) > 2 and parts[0] == "docs":
            wanted.add(folders[1])  # docs/zh/, the guide in Chinese
        if len(parts) == 2 and parts[0] == "tests" and not parts[1].startswith("test_"):
            wanted.add(f)
    assert wanted - named == set(), "the layout in docs/contributing.md misses these"
