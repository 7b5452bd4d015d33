"""`tally report` on a four-day game served on loopback, and `tally votes --chart`: the page is
one self-contained file, small, with every closed day's pictures and ballots; headless
Chromium renders it with the players' names in a font that draws Chinese."""

from __future__ import annotations

import io
import re
import subprocess
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tally.cli import app
from tally.environment import Environment

from . import gamefiles
from . import test_counting_whole_day as votes_game
from .conftest import FakeClock, Runner, own_folders
from .discuzgen import Comment, P, Thread
from .localforums import local_forum

runner = Runner()
CHINA = ZoneInfo("Asia/Shanghai")
PLAYERS = list(votes_game.PLAYERS[:12])  # 冷月 … 青山
# day: (opens, closes, the dead, sheriff, each living player's vote in roster order)
PLAN = {
    1: ("2024-05-06 09:30", "2024-05-07 21:30", [], None,
        ["冷月", "冷月", "白桃", "冷月", "白桃", "冷月", "弃权", "白桃", "冷月", "白桃", "冷月", "长夜"]),
    2: ("2024-05-08 09:30", "2024-05-08 21:30", [], "冷月",
        ["长夜", "长夜", "白桃", "长夜", "白桃", "长夜", "白桃", "长夜", "南瓜", "长夜", "白桃", "长夜"]),
    3: ("2024-05-09 09:30", "2024-05-10 21:30", ["长夜"], "冷月",
        ["白桃", "糖糖", "白桃", "白桃", "糖糖", "白桃", "白桃", "糖糖", "白桃", "糖糖", "白桃"]),
    4: ("2024-05-11 09:30", "2024-05-12 21:30", ["长夜", "白桃"], "冷月",
        ["糖糖", "糖糖", "雪见", "糖糖", "雪见", "糖糖", "雪见", "糖糖", "雪见", "糖糖"]),
}  # fmt: skip


def at(stamp: str, minutes: int = 0) -> str:
    t = datetime.fromisoformat(stamp) + timedelta(minutes=minutes)
    return t.strftime("%Y-%m-%d %H:%M:%S")


def build(forum, tmp_path: Path, plan: dict | None = None) -> Path:
    days = []
    for day, (opens, closes, dead, sheriff, votes) in (plan or PLAN).items():
        alive = [p for p in PLAYERS if p not in dead]
        talk = Thread(str(400 + day), f"[复盘局] 第{day}天讨论帖", {}, first_pid=40000 * day)
        talk.add(P("导演A", at(opens), "讨论帖开门"))
        for i, player in enumerate(alive * 2):
            if (i + day) % 5:  # some players post less
                talk.add(P(player, at(opens, 5 + 7 * i), f"{player}：第{day}天的发言{i}"))
        vote = Thread(str(500 + day), f"[复盘局] 第{day}天投票帖", {}, first_pid=50000 * day)
        vote.add(P("导演A", at(opens), "投票格式：\n投票对象：\n投票理由："))
        for i, (player, target) in enumerate(zip(alive, votes, strict=True)):
            first = target if i % 4 else alive[(i + 3) % len(alive)]  # a quarter change later
            post = P(player, at(opens, 60 + 13 * i), f"投票对象：{first}\n投票理由：第{day}天")
            if first != target:
                post.comments.append(
                    Comment(
                        player, at(opens, 300 + 11 * i)[:16], f"改票对象：{target} 改票理由：改"
                    )
                )
            vote.add(post)
        vote.add(P("青宁", at(opens, 500), "投票对象：冷月\n投票理由：路过"))  # no player
        t_url, v_url = talk.serve(forum), vote.serve(forum)
        days.append(gamefiles.day(
            day, v_url, f"{opens}:00", f"{closes}:00", discussion=t_url, dead=list(dead),
            sheriff=sheriff or None,
            slandered=["糖糖"] if day == 3 else None,  # C2: a bonus in the pictures, in words
        ))  # fmt: skip
    game = gamefiles.write_game(tmp_path / "game.toml", *days, name="[复盘局] 月下古堡",
                                ruleset="000", directors=["导演A"], outsiders=["青宁"],
                                players=PLAYERS)  # fmt: skip
    (tmp_path / "game.cards.csv").write_text(
        "\ufeffday,player,colour,rule,reason,source\r\n2,糖糖,yellow,L1,第2天发言少于5条,tally\r\n"
        "3,南瓜,red,K1,3张黄牌折算为红牌,tally\r\n",
        encoding="utf-8",
    )
    return game


def env(tmp_path: Path) -> Environment:
    return FakeClock(datetime(2024, 5, 20, 12, 0, tzinfo=CHINA)).env()


BALLOTS: dict[int, list[dict]] = {}


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Iterator[tuple[Path, str]]:
    """The report of the four-day game, made once for the tests that read it (read-only)."""
    import json

    tmp_path = tmp_path_factory.mktemp("report")
    own_folders(tmp_path)
    cache = ["--cache-dir", str(tmp_path / "cache")]  # module-wide: not the autouse cache
    with local_forum() as forum:
        game = build(forum, tmp_path)
        out = tmp_path / "report.html"
        made = runner.invoke(app, ["report", "--game", str(game), "-o", str(out), *cache],
                             obj=env(tmp_path))  # fmt: skip
        assert made.exit_code == 0, made.output
        for day in PLAN:  # the same count, as tally votes gives it
            url = game.read_text(encoding="utf-8").split('vote = "')[day].split('"')[0]
            got = runner.invoke(
                app, ["votes", url, "--game", str(game), "--json", "-q", *cache], obj=env(tmp_path)
            )
            BALLOTS[day] = json.loads(got.stdout)["ballots"]
        yield out, made.stderr


@pytest.mark.slow
def test_the_report_is_one_small_page_with_every_day(report):
    out, said = report
    html = out.read_text(encoding="utf-8")
    size = out.stat().st_size
    assert size < 2_000_000, size  # the ceiling for a 16-player, 5-day game
    assert re.search(r"wrote .*report\.html \(\d+ KB\): day\(s\) 1, 2, 3, 4", said)
    # Self-contained: nothing is loaded from elsewhere.
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=|@import|<img[^>]+src=\"http", html)
    assert html.count("<svg") == 4 * 3 + 1  # totals, flow, timeline per day; the heat map
    for day in (1, 2, 3, 4):
        assert f'<section id="day-{day}">' in html
    # Day 1 elects 冷月 (5 + a late change); day 2 puts out 长夜 (the sheriff's 2.5 counts).
    assert "冷月 以" in html and "当选警长" in html
    # Every ballot links to its floor (a 点评 change links the floor it is under).
    links = re.findall(r'<td><a href="http://127\.0\.0\.1:\d+/forum\.php\?mod=redirect', html)
    assert len(links) == sum(len(ballots) for ballots in BALLOTS.values())
    # The names are text in the pictures (searchable), and escaped in the tables.
    svg_text = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", html))
    for name in ("冷月", "白桃", "长夜", "糖糖"):
        assert name in svg_text
    assert "第2天" in html and "发言少于5条" in html and "红牌" in html  # the ledger


@pytest.mark.slow
def test_chromium_renders_the_report(report, tmp_path, browser):
    out, _ = report
    with browser.fresh(width=1200, height=1000) as browser:
        page = browser.open(out)
        assert page.errors == []
        # No page of Chromium's own beside it (tests/browser.py, FLAGS: half its CPU).
        opened = [t["url"] for t in browser.call("Target.getTargets")["targetInfos"]]
        assert not [url for url in opened if url.startswith("chrome")], opened
        assert page.evaluate("document.querySelectorAll('figure.chart svg').length") == 13
        names = page.evaluate(
            "Array.from(document.querySelectorAll('figure.flow svg text')).map(t => t.textContent)"
        )
        assert {"冷月", "白桃", "kiwi"} <= {n.strip() for n in names}
        # The script works: clicking a name marks that player's rows on every day.
        page.evaluate("document.querySelector('td[data-player=\"白桃\"]').click()")
        assert page.evaluate("document.querySelectorAll('.picked').length") >= 4
        # Chinese names are drawn with a font that has Chinese glyphs, not as boxes.
        fonts = page.fonts_of('td[data-player="冷月"]')
        chinese = subprocess.run(
            ["fc-list", ":lang=zh", "family"], capture_output=True, text=True
        ).stdout
        assert fonts and all(f["familyName"] in chinese for f in fonts), fonts
        shot = page.screenshot()
    from PIL import Image

    image = Image.open(io.BytesIO(shot)).convert("RGB")
    assert image.size == (1200, 1000)
    colours = image.getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 50  # text and pictures, not a blank page
    white = max(count for count, colour in colours if colour == (255, 255, 255))
    assert white < 0.95 * 1200 * 1000


@pytest.mark.slow
def test_votes_chart_writes_a_png(forum, tmp_path, monkeypatch):
    game = build(forum, tmp_path)
    url = game.read_text(encoding="utf-8").split('vote = "')[2].split('"')[0]  # day 2
    out = tmp_path / "day2.png"
    result = runner.invoke(
        app, ["votes", url, "--game", str(game), "--chart", str(out), "-q"], obj=env(tmp_path)
    )
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 20_000
    from tally.outputs.written import charts

    if charts.cjk_font() is not None:
        assert "warning" not in result.stderr
    # Without a font that draws Chinese, the picture is still written, and a sentence says so.
    monkeypatch.setattr(charts, "cjk_font", lambda: None)
    again = runner.invoke(
        app, ["votes", url, "--game", str(game), "--chart", str(out), "-q"], obj=env(tmp_path)
    )
    assert again.exit_code == 0
    assert again.stderr == (
        "tally: warning: no font with Chinese characters is installed, so names in the picture "
        "show as boxes; install one (Debian: fonts-noto-cjk or fonts-wqy-microhei) and run again.\n"
    )


def test_a_chart_into_a_missing_folder_stops_before_any_download(forum, tmp_path):
    game = build(forum, tmp_path)
    url = game.read_text(encoding="utf-8").split('vote = "')[2].split('"')[0]
    forum.requests.clear()
    result = runner.invoke(
        app, ["votes", url, "--game", str(game), "--chart", str(tmp_path / "no" / "d.png")],
        obj=env(tmp_path),
    )  # fmt: skip
    assert result.exit_code == 2 and "does not exist" in result.stderr
    assert forum.requests == []


# Every <text> of every picture inside its picture's frame, every picture inside the window,
# and the page as wide as the window (a wide table scrolls in its own box): [problems].
CLIPPED = """(() => {
  const found = [], width = window.innerWidth;
  document.querySelectorAll('figure.chart svg').forEach(svg => {
    const frame = svg.getBoundingClientRect(), where = svg.closest('figure').className;
    if (frame.left < -1 || frame.right > width + 1)
      found.push([where, 'the picture', Math.round(frame.left), Math.round(frame.right)]);
    svg.querySelectorAll('text').forEach(t => {
      const box = t.getBoundingClientRect();
      if (!box.width) return;
      const out = [frame.left - box.left, box.right - frame.right,
                   frame.top - box.top, box.bottom - frame.bottom].map(Math.round);
      if (out.some(x => x > 1)) found.push([where, t.textContent, ...out]);
    });
  });
  if (document.documentElement.scrollWidth > width)
    found.push(['page', 'wider than the window', document.documentElement.scrollWidth]);
  return found;
})()"""


@pytest.fixture(scope="module")
def one_day_report(tmp_path_factory) -> Path:
    """A game of one closed day: the narrowest heat map, a title that must still fit."""
    tmp_path = tmp_path_factory.mktemp("one-day")
    own_folders(tmp_path)
    with local_forum() as forum:
        game = build(forum, tmp_path, {3: PLAN[3]})
        out = tmp_path / "report.html"
        made = runner.invoke(app, ["report", "--game", str(game), "-o", str(out),
                                   "--cache-dir", str(tmp_path / "cache")], obj=env(tmp_path))  # fmt: skip
        assert made.exit_code == 0, made.output
    return out


@pytest.mark.slow
@pytest.mark.parametrize("width", [1280, 390])
def test_no_text_is_clipped_on_a_desktop_or_a_phone(report, one_day_report, width, browser):
    """The report at 1280 px and at 390 px (a phone): no word of a picture outside its frame
    (matplotlib lays them out, the browser draws them), no picture outside the window."""
    for page_file in (report[0], one_day_report):
        with browser.fresh(width=width, height=900, mobile=width < 600) as fresh:
            page = fresh.open(page_file)
            assert page.errors == []
            assert page.evaluate("document.querySelectorAll('figure.chart svg text').length") > 50
            assert page.evaluate(CLIPPED) == [], (page_file.parent.name, width)


@pytest.mark.slow
def test_the_pictures_speak_chinese_and_count_whole_votes(report):
    """Labels in Chinese (no '(totals)', no 'votes'), the slander bonus in words (诽谤 +2,
    not +2 C2), ticks at whole votes only, the close in the legend, the band explained."""
    html = report[0].read_text(encoding="utf-8")
    texts = [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", html)]
    assert "诽谤 +2" in texts and not any("C2" in t for t in texts)
    assert not [t for t in texts if re.search(r"[A-Za-z]{4,}", t) and t not in PLAYERS]
    labels = re.findall(r'<g id="[xy]tick_\d+">.*?<text[^>]*>([^<]*)</text>', html, re.S)
    numbers = [t for t in labels if re.fullmatch(r"[\d.]+", t.strip())]
    assert len(numbers) > 30 and all(t.strip().isdigit() for t in numbers), numbers
    assert "关门 21:30" in texts and "顶部色带：当时领先者" in texts
    assert "冷月 ×2.5" in texts  # the sheriff's weight beside the name, not on the lines
    assert "每天发言数" in texts


@pytest.mark.slow  # the day's pictures drawn
@pytest.mark.rules("V7")
def test_a_banned_floor_reads_in_chinese_on_the_report(forum, tmp_path):
    """Issue 48: the report is the players' page, in Chinese; its 原因 of dave's 屏蔽ed floor
    read "屏蔽ed by a moderator: never counted, whoever's cookies read it", the director's
    note. It reads 被屏蔽 now, the label the closing post gives it, and no word of the
    built-in page but the names is English; the note stays among the template's values
    (``note``), for a director's own page that shows it."""
    from .test_reading_forum_changes import at, game_file, page
    from .test_reading_forum_changes import env as forum_env

    forum.add_discuz_page("1", 1, page("vote-2-banned-guest"))
    game = game_file(tmp_path, forum.url("forum.php?mod=viewthread&tid=1"))

    def report(*args: str) -> str:
        out = tmp_path / "report.html"
        made = runner.invoke(app, ["report", "--game", game, "-o", str(out), *args],
                             obj=forum_env(at("17:10:00")))  # fmt: skip
        assert made.exit_code == 0, made.output
        return out.read_text(encoding="utf-8")

    html = report()
    row = html.split(">5楼</a>")[1].split("</tr>")[0]
    assert row == ('</td><td data-player="dave">dave</td><td></td><td data-player=""></td>'
                   '<td></td><td>12-01 17:04</td><td>被屏蔽</td><td class="why">被屏蔽</td>'), row
    # What a player reads: the page without its pictures, script, style and tags.
    words = re.sub(r"<(svg|script|style)\b.*?</\1>|<[^>]+>", " ", html, flags=re.S)
    english = set(re.findall(r"[A-Za-z]{2,}", words)) - {"alice", "bob", "carol", "dave", "eve"}
    assert english == {"issue", "tally", "report"}, english  # the game's name (issue31), the tool
    own = tmp_path / "mine"
    own.mkdir()
    (own / "report.html.j2").write_text(
        "{% for d in days %}{% for b in d.ballots %}{{ b.floor }}|{{ b.reason }}|{{ b.note }}\n"
        "{% endfor %}{% endfor %}", encoding="utf-8")  # fmt: skip
    mine = report("--template-dir", str(own))
    assert ("5|被屏蔽|屏蔽ed by a moderator: never counted, whoever&#39;s cookies read it\n"
            in mine), mine
