"""A director's run from its start: the common commands, each a fresh process, on the sample
game, one commit's code against the work tree's, round after round.

    .venv/bin/python bench/start.py [REV] [ROUNDS]   # e.g. main 7 (default: HEAD, 5)

A director runs tally as a new process each time (``tally votes …`` again and again near
the close), so what a run imports is paid every time. ``REV``'s tally/ is unpacked beside
the work tree (as ``bench/parse_ab.py`` does), and each round runs every command once with
each side's code, one right after the other, so that a burst of the machine's other work
falls on both sides. The baseline, measured in the same rounds, is the bare interpreter
(``python -c pass``); ``import tally`` is shown beside it.

The sample game (``tally demo``'s) is served from 127.0.0.1 and read once into a page cache
of the bench's own, so that the commands after it read no forum (``--offline``) but the
last, a count that reads the vote thread's pages from the loopback forum each time. Each
figure is the best of the rounds, as process time (user + system, the child's own) and as
wall time; ``over python`` is the process time less the bare interpreter's. The last column
says which of httpx, its command-line tool (click, pygments), pandas and numpy the work
tree's run imported.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# A child runs tally from one side's code as the ``tally`` script does (tally.cli:main); at
# its exit it writes to the file ``TALLY_BENCH_SEEN`` names which heavy modules it imported.
CHILD = """
import atexit, os, sys
sys.path.insert(0, sys.argv.pop(1))
def seen():
    heavy = ("httpx", "httpx._main", "click", "pygments", "pandas", "numpy")
    with open(os.environ["TALLY_BENCH_SEEN"], "w") as f:
        f.write(" ".join(m for m in heavy if m in sys.modules))
if os.environ.get("TALLY_BENCH_SEEN"):
    atexit.register(seen)
sys.argv[0] = "tally"
what = sys.argv.pop(1)
if what == "import":
    import tally
else:
    from tally.cli import main
    main()
"""
# Each side's catalogs compiled by its own code; without a .mo a checkout compiles its .po
# in memory at every run (tally.i18n.catalog).
COMPILE = """
import sys
sys.path.insert(0, sys.argv[1])
from tally.catalogs import compile_all
compile_all()
"""


@dataclass
class Times:
    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """One fresh process: its process time (user + system) and its wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"bench/start.py: {' '.join(cmd[3:])} failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


@contextmanager
def serving(folder: Path, env: dict[str, str]) -> Iterator[str]:
    """The sample game's threads served on 127.0.0.1 while the bench runs, its game file in
    ``folder`` and its threads read once into the bench's cache; the vote thread's URL."""
    from tally.demo import SAMPLE_THREADS, sample_game_text, sample_page
    from tally.demo.localforum import LocalForum

    tally = [sys.executable, "-c", CHILD, str(ROOT), "cli"]
    with LocalForum() as forum:
        for tid, (stem, pages) in SAMPLE_THREADS.items():
            for page in range(1, pages + 1):
                forum.add_discuz_page(tid, page, sample_page(stem, page))
        (folder / "game.toml").write_text(sample_game_text(forum.base), encoding="utf-8")
        vote = f"{forum.base}thread-23-1-1.html"
        run([*tally, "votes", vote, "--game", "game.toml", "-q"], folder, env)
        run([*tally, "lurkers", "--game", "game.toml", "--day", "2", "-q"], folder, env)
        yield vote


def commands(vote: str) -> list[tuple[str, list[str]]]:
    """What each row runs: "python" (the bare interpreter), "import" or tally's arguments."""
    game = ["--game", "game.toml"]
    return [
        ("python -c pass (baseline)", ["python"]),
        ("python -c 'import tally'", ["import"]),
        ("tally --version", ["--version"]),
        ("tally votes --offline", ["votes", vote, *game, "--offline"]),
        ("tally votes --json --offline", ["votes", vote, *game, "--json", "--offline"]),
        ("tally lurkers --offline", ["lurkers", *game, "--day", "2", "--offline"]),
        ("tally archive --db --offline", ["archive", *game, "-o", "posts.csv", "--db",
                                          "games.sqlite", "--offline", "-q"]),
        ("tally announce --offline", ["announce", *game, "--day", "2", "--offline"]),
        # The count again, its threads read back from the database the row above wrote.
        ("tally votes --archive games.sqlite", ["votes", vote, *game, "--archive",
                                                "games.sqlite"]),
        # The one row that reads a forum: its two pages from the loopback forum, every run.
        ("tally votes (the forum, 127.0.0.1)", ["votes", vote, *game, "-q"]),
    ]  # fmt: skip


def argv(source: Path, args: list[str]) -> list[str]:
    if args == ["python"]:
        return [sys.executable, "-c", "pass"]
    if args == ["import"]:
        return [sys.executable, "-c", CHILD, str(source), "import"]
    return [sys.executable, "-c", CHILD, str(source), "cli", *args]


def seen(source: Path, args: list[str], folder: Path, env: dict[str, str]) -> str:
    """Which heavy modules one run of ``args`` with ``source``'s code imported."""
    if args == ["python"]:
        return ""
    mark = folder / "seen.txt"
    run(argv(source, args), folder, env | {"TALLY_BENCH_SEEN": str(mark)})
    return ", ".join(mark.read_text().split()) or "-"


def main() -> None:
    rev = sys.argv[1] if sys.argv[1:] else "HEAD"
    rounds = int(sys.argv[2]) if sys.argv[2:] else 5
    archive = subprocess.run(
        ["git", "archive", rev, "tally"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tempfile.TemporaryDirectory() as tmp:
        base, folder = Path(tmp) / "rev", Path(tmp) / "game"
        folder.mkdir()
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(base, filter="data")
        # An installed tally runs from its compiled modules: the first round writes them.
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("TALLY_") and k != "PYTHONDONTWRITEBYTECODE"}  # fmt: skip
        env |= {"XDG_CACHE_HOME": str(folder / "cache"), "XDG_CONFIG_HOME": str(folder / "config"),
                "NO_COLOR": "1", "TALLY_LANG": "en"}  # fmt: skip
        for source in (base, ROOT):  # the catalogs as a build compiles them (no .mo is committed)
            subprocess.run([sys.executable, "-c", COMPILE, str(source)], cwd=folder, check=True,
                           capture_output=True)  # fmt: skip
        with serving(folder, env) as vote:
            rows = commands(vote)
            sides = {"rev": base, "tree": ROOT}
            times = {(name, side): Times() for name, _ in rows for side in sides}
            for n in range(rounds + 1):  # the first round warms the disk cache and is dropped
                for name, args in rows:
                    for side, source in sides.items():
                        cpu, wall = run(argv(source, args), folder, env)
                        if n:
                            times[name, side].cpu.append(cpu)
                            times[name, side].wall.append(wall)
            imports = {name: seen(ROOT, args, folder, env) for name, args in rows}
    report(rev, rounds, rows, times, imports)


def report(
    rev: str,
    rounds: int,
    rows: list[tuple[str, list[str]]],
    times: dict[tuple[str, str], Times],
    imports: dict[str, str],
) -> None:
    bare = {side: min(times["python -c pass (baseline)", side].cpu) for side in ("rev", "tree")}
    print(f"best of {rounds} fresh processes each, {rev} against the work tree; load average "
          f"{os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"| command | {rev} CPU | tree CPU | tree/{rev} | over python, {rev} → tree "
          f"| wall, {rev} → tree | tree imports |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name, _ in rows:
        a, b = times[name, "rev"], times[name, "tree"]
        ca, cb = min(a.cpu), min(b.cpu)
        over = f"{(ca - bare['rev']) * 1000:.0f} → {(cb - bare['tree']) * 1000:.0f} ms"
        wall = f"{min(a.wall) * 1000:.0f} → {min(b.wall) * 1000:.0f} ms"
        print(f"| {name} | {ca * 1000:.0f} ms | {cb * 1000:.0f} ms | {cb / ca:.2f} | {over} "
              f"| {wall} | {imports[name]} |")  # fmt: skip


if __name__ == "__main__":
    main()
