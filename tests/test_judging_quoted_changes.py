"""From the third cold read: a change whose poster typed a quote box around his OWN earlier vote (his floor
14, word for word) is now void as 'two ballots in one post'; before 07f39ed the change
counted (the box is the words of his own earlier floor, not a second ballot)."""
from __future__ import annotations

import json

from tally.cli import app
from tally.demo.localforum import Reply

from .test_reading_discuz_comments import ALLOWED, CHANGES, MORE, XML, _at, files, runner


def test_change_quoting_own_vote_by_hand(forum, tmp_path):
    text = (CHANGES / "quote-box-guest.html").read_text(encoding="utf-8")
    i, j = text.index('<div id="post_31"'), text.index('postmessage_31')
    block = text[i:j].replace("uid=6", "uid=3").replace(">eve</a>", ">bob</a>")
    text = text[:i] + block + text[j:]
    old = ('<div class="quote"><blockquote>投票对象：bob<br />\n投票理由：手写的引用框</blockquote></div>'
           '以上是我的票，法官查收')
    new = ('<div class="quote"><blockquote>投票对象：carol<br />\n投票理由：站边奇怪</blockquote></div>'
           '改票对象：alice<br />\n改票理由：改主意')
    assert old in text
    forum.add_discuz_page("4", 1, text.replace(old, new, 1).encode("utf-8"))
    for number in (1, 2):
        body = (CHANGES / f"comments-more-{number}-guest.xml").read_bytes()
        forum.add(MORE.format(number), Reply(200, body, XML))
    url = forum.url("forum.php?mod=viewthread&tid=4")
    args = files(tmp_path, url, ALLOWED)
    game = tmp_path / "game.toml"
    game.write_text(game.read_text(encoding="utf-8").replace('ruleset = "default"', 'ruleset = "M126"'),
                    encoding="utf-8")
    result = runner.invoke(app, ["votes", url, *args, "--json"], obj=_at(8, 5))
    data = json.loads(result.stdout)
    rows = [(b["post_id"], b["voter"], b["target"], b["status"], b.get("reason")) for b in data["ballots"]]
    [change] = [b for b in data["ballots"] if b["post_id"] == "31"]
    assert (change["voter"], change["target"], change["status"]) == ("bob", "alice", "counted"), rows
