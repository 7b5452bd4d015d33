"""The text of `--json` (tally/outputs/shown/indented_json.py) against json.dumps(data,
ensure_ascii=False, indent=2), on what `tally votes --json` prints for the sample game and
for a day of 200 ballots, each run as a director runs it (the loopback forum).

    .venv/bin/python bench/json_indent.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.speed import best_pair  # noqa: E402
from tally.demo import sample_game, sample_game_text  # noqa: E402
from tally.demo.localforum import LocalForum  # noqa: E402
from tally.outputs.shown.indented_json import dumps  # noqa: E402
from tests.discuzgen import P, Thread  # noqa: E402


def votes_json(vote: str, game: Path, env: dict[str, str]) -> object:
    args = [sys.executable, "-m", "tally", "votes", vote, "--game", str(game), "--json", "-q"]
    run = subprocess.run(args, capture_output=True, text=True, env=env, check=True)
    return json.loads(run.stdout)


def outputs(tmp: Path) -> dict[str, object]:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp / "cache"), "XDG_CONFIG_HOME": str(tmp)}
    made = {}
    with sample_game() as (_, forum):
        (tmp / "sample.toml").write_text(sample_game_text(forum.base), encoding="utf-8")
        vote = forum.base + "thread-23-1-1.html"
        made["the sample game"] = votes_json(vote, tmp / "sample.toml", env)
    players = [f"玩家{i:02d}" for i in range(20)]
    thread = Thread("500", "投票帖", {})
    thread.add(P("导演A", "2024-05-08 09:30:00", "投票格式：\n投票对象：\n投票理由："))
    for i in range(200):
        verb = "投票" if i < 20 else "改票"
        minute = 10 + i
        when = f"2024-05-08 {10 + minute // 60:02d}:{minute % 60:02d}:00"
        words = f"{verb}对象：{players[(i * 7 + 3) % 20]}\n{verb}理由：第{i}楼"
        thread.add(P(players[i % 20], when, words))
    names = ", ".join(f'"{p}"' for p in players)
    with LocalForum() as forum:
        url = thread.serve(forum)
        game = tmp / "big.toml"
        game.write_text(
            f'ruleset = "000"\ndirectors = ["导演A"]\nplayers = [{names}]\n\n[[days]]\nday = 2\n'
            f'opens = 2024-05-08T09:30:00\ncloses = 2024-05-09T21:30:00\nvote = "{url}"\n',
            encoding="utf-8",
        )
        made["200 ballots"] = votes_json(url, game, env)
    return made


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        made = outputs(Path(tmp))
    for name, data in made.items():
        theirs = json.dumps(data, ensure_ascii=False, indent=2)
        assert dumps(data) == theirs, name
        ours, before = best_pair(partial(dumps, data), partial(_json_dumps, data), repeat=50)
        print(f"{name} ({len(theirs.encode()):,} bytes): json.dumps {before * 1e6:.0f} µs, "
              f"indented_json {ours * 1e6:.0f} µs ({before / ours:.1f}×), the same text")


def _json_dumps(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)


if __name__ == "__main__":
    main()
