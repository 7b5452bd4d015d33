"""A vote thread read closed (关闭) before the day opened (from the third and fourth cold
reads): read open again by the open, nothing is said; read open only after the close, when
it was opened between cannot be told, and the flag and the L3 cards say what tally read."""

from __future__ import annotations

import json
from pathlib import Path

from tally.cli import app

from .test_reading_discuz_comments import ALLOWED, CHANGES, _at, files, runner, serve


def _game(forum, tmp_path: Path) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    url = serve(forum)
    forum.add_discuz_page("4", 1, (CHANGES / "closed-guest.html").read_bytes())
    args = files(tmp_path, url, ALLOWED)
    game = tmp_path / "game.toml"
    text = game.read_text(encoding="utf-8").replace('"eve"]', '"eve", "frank"]')
    game.write_text(text + f'discussion = "{url}"\n', encoding="utf-8")
    assert runner.invoke(app, ["votes", url, *args, "--json"], obj=_at(5, 50)).exit_code == 0
    forum.add_discuz_page("4", 1, (CHANGES / "comments-guest.html").read_bytes())
    return url, args


def _closed(result) -> list[str]:  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, result.output
    return [f["note"] for f in json.loads(result.stdout)["flags"] if f["rule"] == "closed"]


def test_read_closed_before_the_open_and_open_by_the_open_says_nothing(forum, tmp_path):
    url, args = _game(forum, tmp_path)
    assert _closed(runner.invoke(app, ["votes", url, *args, "--json"], obj=_at(6, 0))) == []
    assert _closed(runner.invoke(app, ["votes", url, *args, "--json"], obj=_at(8, 5))) == []
    after = runner.invoke(app, ["lurkers", *args, "--day", "2", "--no-write"], obj=_at(8, 6))
    assert "关闭" not in after.stdout


def test_read_closed_before_the_open_and_open_only_after_the_close_is_said(forum, tmp_path):
    url, args = _game(forum, tmp_path)
    [note] = _closed(runner.invoke(app, ["votes", url, *args, "--json"], obj=_at(8, 5)))
    assert note.startswith("the vote thread was closed (关闭) when tally read it 12-02 05:50, and "
                           "open when it read it 12-02 08:05 (when it was opened between, no read tells)")
    after = runner.invoke(app, ["lurkers", *args, "--day", "2", "--no-write"], obj=_at(8, 6))
    assert "第2天未投票（投票帖12-02 05:50读到已关闭，12-02 08:05读到已开放）" in after.stdout


def test_a_closed_file_of_the_earlier_form_is_one_run(forum, tmp_path):
    """closed.json as this stop's first form wrote it (one time): kept, not thrown away."""
    url, args = _game(forum, tmp_path)
    [kept] = list((tmp_path / "cache").glob("*-4/closed.json"))
    kept.write_text(json.dumps("2026-12-02T07:40:00+08:00"), encoding="utf-8")
    [note] = _closed(runner.invoke(app, ["votes", url, *args, "--json"], obj=_at(8, 5)))
    assert note.startswith("the vote thread was closed (关闭) when tally read it 12-02 07:40, and open")
