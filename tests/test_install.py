"""tally installed from its wheel, not from this checkout: every command finds what it needs.

The wheel is built here (offline: no build isolation), installed into a fresh virtual
environment that borrows this one's dependencies but not its editable tally, and run from a
folder outside the checkout: `tally --version`, `tally demo`, and every other command on the
sample game (templates and the sample from the package).
"""

from __future__ import annotations

import json
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from .conftest import FIXTURES, child_env

# A wheel built and installed into a fresh environment: seconds each (CI runs them).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The python of a fresh environment with tally installed from a freshly built wheel."""
    work = tmp_path_factory.mktemp("wheel")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(work / "dist"), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = (work / "dist").glob("tally-*.whl")
    env_dir = work / "env"
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
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", purelib, str(wheel)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return python


def tally(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in child_env().items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(python), "-m", "tally", *args],
        capture_output=True, text=True, timeout=120, cwd=cwd, env={**env, "COLUMNS": "200"},
    )  # fmt: skip


def test_the_wheel_is_the_tally_that_runs(installed, tmp_path):
    where = subprocess.run(
        [str(installed), "-c", "import tally; print(tally.__file__)"],
        capture_output=True, text=True, cwd=tmp_path, check=True,
    ).stdout  # fmt: skip
    assert str(installed.parent.parent) in where and str(ROOT) not in where
    result = tally(installed, "--version", cwd=tmp_path)
    assert result.stdout.startswith("tally ") and result.returncode == 0


def test_demo_from_the_wheel(installed, tmp_path):
    result = tally(installed, "demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "[color=#FF0000][b]最高票有多人，无人出局。[/b][/color]" in result.stdout


def test_every_command_from_the_wheel(installed, tmp_path):
    from tally.demo import sample_game_text
    from tally.demo.localforum import LocalForum

    exported = tally(installed, "templates", "export", str(tmp_path / "mine"), cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "mine" / "close.bbcode.j2").read_bytes() == (
        ROOT / "templates" / "close.bbcode.j2"
    ).read_bytes()
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
        done = {
            name: tally(installed, name, *args, "-q", cwd=tmp_path) for name, args in runs.items()
        }
        own = tally(installed, "announce", "--game", str(game), "--day", "2", "-q",
                    "--template-dir", str(tmp_path / "mine"), cwd=tmp_path)  # fmt: skip
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
    cards = tally(installed, "cards", "list", "--game", str(game), cwd=tmp_path)
    assert cards.returncode == 0 and cards.stdout == "No card.\n", cards.stderr
