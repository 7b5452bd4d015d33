"""From the third cold read: a vote thread the director kept closed (关闭) until the day opened, read by tally
then (05:50, the day opens 06:00), open all day: now flagged closed and the L3 cards say
'投票帖12-02 05:50起已关闭' (07f39ed: note_closed never forgets a close)."""
from __future__ import annotations

import json

from tally.cli import app

from .test_discuz_comments import ALLOWED, CHANGES, _at, files, runner, serve


def test_closed_before_the_open_then_open_all_day(forum, tmp_path):
    url = serve(forum)
    forum.add_discuz_page("4", 1, (CHANGES / "closed-guest.html").read_bytes())
    args = files(tmp_path, url, ALLOWED)
    game = tmp_path / "game.toml"
    text = game.read_text(encoding="utf-8").replace('"eve"]', '"eve", "frank"]')
    game.write_text(text + f'discussion = "{url}"\n', encoding="utf-8")
    runner.invoke(app, ["votes", url, *args, "--json"], obj=_at(5, 50))  # read closed, before the open
    forum.add_discuz_page("4", 1, (CHANGES / "comments-guest.html").read_bytes())
    again = runner.invoke(app, ["votes", url, *args, "--json"], obj=_at(8, 5))
    assert again.exit_code == 0, again.output
    flags = [f for f in json.loads(again.stdout)["flags"] if f["rule"] == "closed"]
    after = runner.invoke(app, ["lurkers", *args, "--day", "2", "--no-write"], obj=_at(8, 6))
    assert not flags
    assert "已关闭" not in after.stdout
