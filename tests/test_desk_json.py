"""The desk's pages as data: each page's JSON twin at its path with ``.json`` (as datasette's
pages have theirs), behind the same guard as the page (the key, the Host), holding what the
page shows: the day's is the count `tally votes --json` gives."""

from __future__ import annotations

import html
import json
import re

from tally.cli import app as cli
from tally.desk.guard import cookie_name

from .test_desk import (  # noqa: F401 (setup, desk, _served: fixtures)
    TOKEN,
    _served,
    client,
    desk,
    port,
    runner,
    settled,
    setup,
)

TWINS = ("/.json", "/day/2.json", "/day/2/cards.json", "/day/2/posts.json",
         "/day/2/pictures.json", "/day/2/post.json", "/day/1.json")  # fmt: skip


def test_every_twin_takes_the_key_its_page_takes(setup, desk):  # noqa: F811
    stranger = client(desk, logged_in=False)
    for path in TWINS:
        refused = stranger.get(path)
        assert refused.status_code == 403, path
        assert refused.text.startswith("refused: no desk key: open the address"), path
    stranger.cookies.set(cookie_name(port(stranger)), "guessed")
    assert all(stranger.get(p).status_code == 403 for p in TWINS)
    assert "refused: wrong desk key" in stranger.get("/day/2.json").text
    assert desk.pollers == {}  # nothing was read for a stranger
    c = client(desk)
    for path in TWINS:  # a page of another host (DNS rebinding), with the desk's cookie
        assert c.get(path, headers={"Host": f"evil.example:{port(c)}"}).status_code == 403
    # The key in the address, as the desk prints it: moved to the cookie, the twin kept.
    fresh = client(desk, logged_in=False)
    first = fresh.get(f"/day/2.json?token={TOKEN}", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/day/2.json"
    assert first.headers["set-cookie"].startswith(f"{cookie_name(port(fresh))}={TOKEN};")
    settled(desk, 1)
    settled(desk, 2)
    for path in TWINS:
        answer = fresh.get(f"{path}?token={TOKEN}")
        assert answer.status_code == 200, (path, answer.text[:300])
        assert answer.headers["content-type"] == "application/json"
        assert answer.headers["cache-control"] == "no-store"
        assert isinstance(answer.json(), dict)
        # A twin leaks nothing a page does not show: the key, the director's cookies, where
        # the game file and the cookies lie on this computer.
        auth = setup.cookies.read_text(encoding="utf-8").split("\t")[-2]
        for secret in (TOKEN, auth, str(setup.cookies), str(setup.game_path.parent)):
            assert secret not in answer.text, (path, secret)
    # Each page names its twin, to a browser and to a reader.
    page = c.get("/day/2/cards").text
    assert '<link rel="alternate" type="application/json" href="/day/2/cards.json">' in page
    assert '<a class="twin" href="/day/2/cards.json">this page as JSON</a>' in page
    assert '<a class="twin" href="/.json">' in c.get("/").text
    missing = c.get("/day/9.json")
    assert missing.status_code == 404 and missing.json() == {"error": "no such page of the desk"}


def test_a_day_not_counted_yet_answers_503_until_it_is(setup, desk):  # noqa: F811
    """The day's twin is the count: while the first read is under way there is none, and
    the twin says so (503, ask again in a second) rather than an empty count."""
    c = client(desk)
    with desk.lock:  # the reader held: the poller cannot read the thread yet
        waiting = c.get("/day/2.json")
        assert waiting.status_code == 503 and waiting.headers["retry-after"] == "1"
        assert waiting.json() == {"day": 2, "counted": False, "error": None}
        assert "reading the vote thread…" in c.get("/day/2").text  # the page, meanwhile
    settled(desk, 2)
    assert c.get("/day/2.json").json()["provisional"] is True


def test_the_days_twin_is_the_count_tally_votes_gives(setup, desk):  # noqa: F811
    """/day/N.json after the close is `tally votes --json` for day N on the same game, with
    `tally watch --json`'s ``changes`` and ``poll`` and the page's sentences over the count.
    The acceleration requests (S3) aside: like `tally watch`, the desk's count reads the vote
    thread only (the discussion thread's requests are on the cards page); day 1 has no
    discussion thread, and its twin is the command's JSON whole."""
    setup.close()
    c = client(desk)
    c.get("/")
    settled(desk, 1)
    settled(desk, 2)
    for day in (1, 2):
        mine = c.get(f"/day/{day}.json").json()
        votes = runner.invoke(cli, ["votes", setup.urls[day], "--game", str(setup.game_path),
                                    "--day", str(day), "--json", "-q", "--cookies",
                                    str(setup.cookies)], obj=setup.env())  # fmt: skip
        assert votes.exit_code == 0, votes.output
        theirs = json.loads(votes.stdout)
        assert set(mine) - set(theirs) == {"changes", "poll", "recounting", "stopped"}
        aside = {"acceleration"} if day == 2 else set()
        assert {k: mine[k] for k in theirs if k not in aside} == {
            k: v for k, v in theirs.items() if k not in aside}
        assert mine["poll"]["final"] is True and mine["recounting"] is mine["stopped"] is None
    assert theirs["acceleration"]["living"] == 6 and mine["acceleration"] is None
    # What the page shows of it: every ballot's row, the totals.
    live = c.get("/day/2/live").text
    assert re.findall(r'data-floor="(\d+)"', live) == [str(b["floor"]) for b in mine["ballots"]]
    totals = re.findall(r'<td class="name">([^<]*)</td><td>([^<]*)</td>', live)
    assert totals == [(html.escape(t["player"]), str(t["votes"])) for t in mine["totals"]]


def test_each_twin_holds_what_its_page_shows(setup, desk):  # noqa: F811
    """The game, the cards, the announcements, the pictures and the Post page: the twin is
    the page's own data (times in ISO 8601, where the page shows them short)."""
    setup.close()
    c = client(desk)
    c.get("/")
    settled(desk, 1)
    settled(desk, 2)

    def shown(path: str) -> str:
        return html.unescape(c.get(path).text)

    game, page = c.get("/.json").json(), shown("/")
    assert (game["name"], game["ruleset"], game["file"]) == ("桌面局", "000", "game.toml")
    for day in game["days"]:
        link = f'<td><a href="/day/{day["day"]}">第{day["day"]}天</a></td>'
        row = page.split(link)[1].split("</tr>")[0]
        assert day["opens"][5:16].replace("T", " ") in row and day["state"] in row
        assert all(fact in row for fact in day["facts"]) and day["outcome"] in row
    assert game["days"][1]["facts"] == ["sheriff 长夜 ×2.5 (derived: day 1's election)"]

    cards, page = c.get("/day/2/cards.json").json(), shown("/day/2/cards")
    offered = re.findall(r'name="player" value="([^"]*)">\s*<input type="hidden" '
                         r'name="colour" value="([^"]*)">\s*<input type="hidden" name="rule" '
                         r'value="([^"]*)">\s*<input type="hidden" name="reason" '
                         r'value="([^"]*)">', page)  # fmt: skip
    assert offered == [(k["player"], k["colour"], k["rule"], k["reason"]) for k in cards["cards"]]
    assert ("糖糖", "yellow", "L1", "第2天发言1条（少于5条）") in offered
    rows = re.findall(r'<tr><td class="name">([^<]*)</td><td>(\d+)</td><td>(yes|no)</td>', page)
    assert rows == [(p["player"], str(p["posts"]), "yes" if p["voted"] else "no")
                    for p in cards["players"]]  # fmt: skip

    posts, page = c.get("/day/2/posts.json").json(), shown("/day/2/posts")
    kinds = [a["kind"] for a in posts["announcements"]]
    assert kinds == ["close", "reminder", "morning", "elevator"]
    for a in posts["announcements"]:
        if a["text"]:
            assert f'id="text-{a["kind"]}">{a["text"]}</textarea>' in page
    assert posts["announcements"][1]["note"] in page  # the closed day's reminder pane

    pictures, page = c.get("/day/2/pictures.json").json(), c.get("/day/2/pictures").text
    assert [p["title"] for p in pictures["charts"]] == ["totals", "who voted whom", "over time"]
    assert all(p["svg"].startswith("<svg") and p["svg"] in page for p in pictures["charts"])

    post, page = c.get("/day/2/post.json").json(), shown("/day/2/post")
    assert f'<textarea readonly rows="20" id="post-text">{post["text"]}</textarea>' in page
    assert f'name="digest" value="{post["digest"]}"' in page
    assert post["text"].startswith("[b]桌面局 第2天投票结果[/b]") and post["error"] is None
    assert post["posted_before"] is None and post["posted"] is None
    assert setup.board.replies == []  # GET posts nothing, the twin no more than the page
