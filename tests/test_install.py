"""tally installed from its wheel, not from this checkout: every command finds what it needs.

The sdist is built here by the build backend pyproject.toml names, and the wheel from the
unpacked sdist, as `python -m build` makes them (offline: no build isolation); each holds
the files of tally/ and templates/ (the sdist, what a build needs; the wheel, what tally
runs with), and the distribution is bansha-tally ("tally" on PyPI is another project's) that
installs the package tally and the command tally. The wheel is installed by pip into a fresh
virtual environment that borrows this one's dependencies but not its editable tally, and run
from a folder outside the checkout: `python -m tally --version`, `tally demo`, and every
other command on the sample game (templates and the sample from the package), each command
in a process of its own forked from one interpreter of the installed tally (ten interpreters
importing the same libraries took ten seconds).
"""

from __future__ import annotations

import json
import re
import shutil
import site
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from .conftest import FIXTURES, child_env, own_folders

# A wheel built and installed into a fresh environment: seconds each (CI runs them).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
FORKING = Path(__file__).resolve().with_name("forking.py")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
DISTRIBUTION = PYPROJECT["project"]["name"]
# How the sdist's and the wheel's file names spell it (PEP 625, PEP 427).
FILE_NAME = re.sub(r"[-_.]+", "_", DISTRIBUTION).lower()

# Built by the backend in a process of its own, as `python -m build` calls it: the sdist from
# the source, then the wheel from the sdist unpacked (a file the sdist lacks fails the wheel's
# build, or leaves it out of the wheel).
_BUILD = """
import os, sys, tarfile
import {backend} as backend
dist, unpacked = sys.argv[1:3]
sdist = backend.build_sdist(dist)
with tarfile.open(os.path.join(dist, sdist)) as archive:
    archive.extractall(unpacked, filter="data")
os.chdir(os.path.join(unpacked, sdist.removesuffix(".tar.gz")))
backend.build_wheel(dist)
"""


def _files(top: Path, under: str) -> set[str]:
    """The files below ``top`` (but bytecode), named as below ``under``."""
    return {f"{under}/{p.relative_to(top).as_posix()}" for p in top.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}  # fmt: skip


# The files of tally the checkout holds (but the compiled catalogs an install of the checkout
# wrote: the build compiles them, tally/building.py), and of its templates (the package
# tally.templates).
TALLY = {f for f in _files(ROOT / "tally", "tally") if not f.endswith(".mo")}
TEMPLATES = _files(ROOT / "templates", "templates")
# What the build adds: each catalog compiled.
COMPILED = {f.removesuffix(".po") + ".mo" for f in TALLY if f.endswith("/tally.po")}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """The sdist and the wheel, freshly built (``_BUILD``)."""
    work = tmp_path_factory.mktemp("wheel")
    # From a copy of the checkout without what earlier builds left: setuptools packs all of
    # build/lib, so a module a checkout once had (tally/watch.py) came back into the wheel.
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        "build", "dist", "*.egg-info", "__pycache__", ".*"))  # fmt: skip
    built = subprocess.run(
        [sys.executable, "-c", _BUILD.format(backend=PYPROJECT["build-system"]["build-backend"]),
         str(work / "dist"), str(work / "unpacked")],
        capture_output=True, text=True, timeout=300, cwd=source,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    [sdist] = (work / "dist").glob(f"{FILE_NAME}-*.tar.gz")
    [wheel] = (work / "dist").glob(f"{FILE_NAME}-*.whl")
    return sdist, wheel


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory) -> Path:
    """The python of a fresh environment with tally installed from a freshly built wheel."""
    env_dir = tmp_path_factory.mktemp("env")
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    # This environment's packages on the path, appended after the wheel's tally; the
    # editable tally of the checkout comes with a .pth of its own, which this skips.
    (Path(purelib) / "borrowed.pth").write_text(
        "\n".join(p for p in site.getsitepackages() if "site-packages" in p) + "\n"
    )
    installed = subprocess.run(
        # --no-compile: the installed tally writes its bytecode as it is first imported.
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-compile", "--target",
         purelib, str(built[1])],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return python


def test_the_sdist_holds_what_a_build_needs(built):
    with tarfile.open(built[0]) as sdist:
        top = sdist.getnames()[0].split("/")[0]
        files = {m.name.removeprefix(f"{top}/") for m in sdist.getmembers() if m.isfile()}
        info = sdist.extractfile(f"{top}/PKG-INFO")
        assert info is not None
        metadata = info.read().decode()
    # What setuptools writes itself (the metadata, egg-info, setup.cfg) aside, the sources, and
    # the tests/test*.py files setuptools adds of its own accord (the repository's top level
    # is fixed, so there is no MANIFEST.in to prune them: they are never run from an sdist,
    # whose conftest, fixtures and helpers stay in the repository); no fixtures, no docs.
    egg_info = {f for f in files if f.startswith(f"{FILE_NAME}.egg-info/")}
    written = {"PKG-INFO", "setup.cfg", *egg_info}
    suite = {f"tests/{p.name}" for p in (ROOT / "tests").glob("test*.py")}
    licence = {p.name for p in ROOT.iterdir() if re.match(r"LICEN[CS]E|COPYING|NOTICE", p.name)}
    assert files - written - suite == TALLY | TEMPLATES | licence | {"README.md", "pyproject.toml"}
    assert f"\nName: {DISTRIBUTION}\n" in metadata
    # PyPI renders the page from README.md, as markdown (twine check, .ci/run).
    assert "\nDescription-Content-Type: text/markdown\n" in metadata


def test_the_wheel_holds_what_tally_runs_with(built):
    with zipfile.ZipFile(built[1]) as wheel:
        names = set(wheel.namelist())
    dist_info = {n for n in names if n.split("/")[0].endswith(".dist-info")}
    # The catalogs compiled, without their sources (tally.building): a wheel reads its .mo.
    sources = {f for f in TALLY if f.endswith(".po")}
    assert names - dist_info == (TALLY - sources) | COMPILED | {f"tally/{f}" for f in TEMPLATES}
    assert {"tally/locale/en/LC_MESSAGES/tally.mo",
                        "tally/locale/zh_CN/LC_MESSAGES/tally.mo"} == COMPILED  # fmt: skip


def _env() -> dict[str, str]:
    env = {k: v for k, v in child_env().items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "COLUMNS": "200"}


def tally(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "tally", *args],
        capture_output=True, text=True, timeout=120, cwd=cwd, env=_env(),
    )  # fmt: skip


# Run by the installed python: tally imported once (every module, and the libraries its
# commands import as they run), then each command in a child forked from it as a shell starts
# it (tests/forking.py, which the installed python loads from its file: it imports the
# standard library alone, nothing of this checkout's tally), its own process with its own exit
# status, stdout and stderr (files), as `python -m tally NAME …` runs it. The runs come in
# waves: those of a wave at once (a command waits on the forum and its politeness most of its
# run; one after another they took three seconds, at once one), each with a cache folder of
# its own; a wave after the one before has ended.
_FORKED = """
import importlib, importlib.util, json, os, pkgutil, sys
from pathlib import Path
sys.modules["pandas"] = None  # no import of pandas succeeds: tally needs it not (a dev one)
import tally, httpx, jinja2, matplotlib.pyplot
import typer._adapters  # what typer imports to read the arguments: pydantic, 0.3 s a run
# Every module of the installed tally (each must import), but the one that runs the CLI.
for module in pkgutil.walk_packages(tally.__path__, "tally."):
    if not module.name.endswith("__main__"):
        importlib.import_module(module.name)
import tally.cli

spec = importlib.util.spec_from_file_location("forking", sys.argv[3])
forking = importlib.util.module_from_spec(spec)
spec.loader.exec_module(forking)

waves, out = json.loads(sys.argv[1]), Path(sys.argv[2])
codes = {}
for wave in waves:
    pids = {name: forking.as_the_shell_runs_it(
                args, {**os.environ, "XDG_CACHE_HOME": str(out / f"{name}.cache")}, out / name)
            for name, args in wave.items()}
    for name, pid in pids.items():
        codes[name] = forking.ended(pid, out / name).returncode
print(json.dumps(codes))
"""


Ran = subprocess.CompletedProcess[str]


def forked(
    python: Path, waves: list[dict[str, list[str]]], cwd: Path
) -> dict[str, subprocess.CompletedProcess[str]]:
    """Each run of ``waves`` (a name: its arguments) as the installed tally runs it, in a
    process forked from one interpreter of the installed tally (``_FORKED``): the runs of a
    wave at once, each wave after the one before."""
    out = Path(tempfile.mkdtemp(prefix="forked-", dir=cwd))
    runs = {name: args for wave in waves for name, args in wave.items()}
    parent = subprocess.run(
        [str(python), "-c", _FORKED, json.dumps(waves), str(out), str(FORKING)],
        capture_output=True, text=True, timeout=300, cwd=cwd, env=_env(),
    )  # fmt: skip
    assert parent.returncode == 0, parent.stdout + parent.stderr
    codes = json.loads(parent.stdout)

    def said(name: str, ext: str) -> str:
        return (out / f"{name}.{ext}").read_text(encoding="utf-8")

    return {
        name: subprocess.CompletedProcess(args, codes[name], said(name, "out"), said(name, "err"))
        for name, args in runs.items()
    }


def test_the_readme_installs_this_wheel(built):
    """README's Install names the wheel a build writes (its version, its name's spelling),
    and the distribution's name on PyPI."""
    install = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Install\n")[1]
    install = install[: install.index("\n## ")]
    assert f"pipx install ./dist/{built[1].name} " in install
    assert f"pipx install {DISTRIBUTION} " in install


# What the installed python finds: the distribution by its name, and the tally it imports.
_INSTALLED = """
import importlib.metadata, json, sys, tally
found = importlib.metadata.distribution(sys.argv[1])
print(json.dumps({
    "name": found.metadata["Name"], "version": found.version,
    "commands": [[e.name, e.value] for e in found.entry_points if e.group == "console_scripts"],
    "holds": str(found.locate_file("tally/__init__.py")), "tally": tally.__file__,
}))
"""


def test_the_wheel_is_the_tally_that_runs(installed, tmp_path):
    found = json.loads(subprocess.run(
        [str(installed), "-c", _INSTALLED, DISTRIBUTION],
        capture_output=True, text=True, cwd=tmp_path, env=_env(), check=True,
    ).stdout)  # fmt: skip
    # The tally imported is the wheel's, and the distribution that holds it is bansha-tally,
    # which installs one command, tally.
    assert str(installed.parent.parent) in found["tally"] and str(ROOT) not in found["tally"]
    assert found["holds"] == found["tally"] and found["name"] == DISTRIBUTION == "bansha-tally"
    assert found["commands"] == [["tally", "tally.cli:main"]]
    result = tally(installed, "--version", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, f"tally {found['version']}\n")


@pytest.fixture(scope="module")
def commands(installed, tmp_path_factory) -> tuple[Path, dict[str, Ran]]:
    """Every command of the installed tally run once on the sample game (``forked``), the
    demo with them (an interpreter of its own took 1.5-3 s more): the folder they wrote
    in, and what each said."""
    from tally.demo import sample_game_text
    from tally.demo.localforum import LocalForum

    tmp_path = tmp_path_factory.mktemp("commands")
    own_folders(tmp_path)
    with LocalForum() as forum:
        forum.add_discuz_thread("23", FIXTURES / "discuz", "vote")
        forum.add_discuz_thread("24", FIXTURES / "discuz", "talk")
        game = tmp_path / "game.toml"
        game.write_text(sample_game_text(forum.base), encoding="utf-8")
        vote, talk = (f"{forum.base}/forum.php?mod=viewthread&tid={t}" for t in ("23", "24"))
        runs = {
            "announce": ["--game", str(game), "--day", "2"],
            "votes": [vote, "--game", str(game), "--json"],
            "lurkers": ["--game", str(game), "--day", "2", "--no-write", "--json"],
            "archive": ["--game", str(game), "-o", str(tmp_path / "posts.csv")],
            "init": [talk, vote, "-o", str(tmp_path / "new.toml")],
            "report": ["--game", str(game), "-o", str(tmp_path / "report.html")],
            "watch": [vote, "--game", str(game), "--polls", "1", "--json"],
        }
        done = forked(installed, [  # the templates exported, then the rest (one uses them)
            {"export": ["templates", "export", str(tmp_path / "mine")]},
            {**{name: [name, *args, "-q"] for name, args in runs.items()},
             "own": ["announce", "--game", str(game), "--day", "2", "-q",
                     "--template-dir", str(tmp_path / "mine")],
             "cards": ["cards", "list", "--game", str(game)],
             "demo": ["demo"]},
        ], cwd=tmp_path)  # fmt: skip
    return tmp_path, done


def test_demo_from_the_wheel(commands):
    result = commands[1]["demo"]
    assert result.returncode == 0, result.stderr
    assert "[color=#FF0000][b]最高票有多人，无人出局。[/b][/color]" in result.stdout


def test_every_command_from_the_wheel(commands):
    tmp_path, done = commands[0], dict(commands[1])
    done.pop("demo")
    exported, own, cards = done.pop("export"), done.pop("own"), done.pop("cards")
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "mine" / "close.bbcode.j2").read_bytes() == (
        ROOT / "templates" / "close.bbcode.j2"
    ).read_bytes()
    assert own.returncode == 0 and own.stdout == done["announce"].stdout, own.stderr
    for name, result in done.items():
        assert result.returncode == 0, (name, result.stderr)
    assert done["announce"].stdout.startswith("[b][D01] 月下古堡（示例） 第2天投票结果[/b]")
    assert json.loads(done["votes"].stdout)["day"] == 2
    assert json.loads(done["lurkers"].stdout)["day"] == 2
    assert (tmp_path / "posts.csv").read_bytes().startswith(b"\xef\xbb\xbf")  # Excel's BOM
    assert "[[days]]" in (tmp_path / "new.toml").read_text(encoding="utf-8")
    assert (tmp_path / "report.html").read_text(encoding="utf-8").count("<svg") >= 3
    assert json.loads(done["watch"].stdout)["poll"]["final"]  # the sample day closed in 2024
    assert cards.returncode == 0 and cards.stdout == "No card.\n", cards.stderr
