"""`tally doctor` on a default-template page, a themed page and a page that is no thread;
board profile files read strictly; docs/boards.md names every key and field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tally.cli import app
from tally.demo.localforum import Reply
from tally.errors import InputError
from tally.forums.boards import _KEYS, FIELDS, Boards, built_in, load_boards, parse_boards
from tally.forums.diagnosis import diagnose

from .conftest import CHINA, DISCUZ, FIXTURES, Runner

WILD = FIXTURES / "discuz-wild"
DOCS = Path(__file__).resolve().parent.parent / "docs" / "boards.md"


def doctor(*args: str) -> tuple[int, str]:
    result = Runner().invoke(app, ["doctor", *args])
    return result.exit_code, result.output


def doctor_json(*args: str) -> tuple[int, dict]:
    code, out = doctor(*args, "--json")
    return code, json.loads(out)


def fields(report: dict) -> dict[str, dict]:
    return {f["name"]: f for f in report["fields"]}


def test_a_default_template_page_reads_from_discuzs_own_ids():
    code, report = doctor_json(str(DISCUZ / "vote-p1.html"))
    assert code == 0 and report["readable"] and report["problem"] is None
    found = fields(report)
    assert report["board"]["name"] == "default"
    assert found["thread id"]["example"] == "23"
    assert found["floor"]["where"] == [{"place": "#postnum{pid}", "posts": report["posts"]}]
    assert found["time"]["where"][0]["place"] == "#authorposton{pid}"
    assert found["author"]["where"][0]["place"] == "a.xw1 (the poster's link)"
    assert all(f["found"] == f["of"] for f in report["fields"] if f["essential"])


def test_a_themed_page_names_its_theme_and_what_is_missing():
    """The comiis theme prints no floors: doctor says so, names the built-in profile, and
    fails (5); with the board's profile (posts_per_page) it reads, by place."""
    page = str(WILD / "comiis" / "p1.html")
    code, report = doctor_json(page)
    assert code == 5 and not report["readable"]
    assert report["board"]["name"] == "comiis" and report["board"]["origin"] == "built in"
    floor = fields(report)["floor"]
    assert (floor["found"], floor["of"]) == (1, 5)
    assert "posts_per_page" in floor["missing"][0]
    code, report = doctor_json(page, "--boards", str(WILD / "comiis" / "boards.toml"))
    assert code == 0
    floor = fields(report)["floor"]
    assert [w["place"] for w in floor["where"]] == [
        "its place on page 1 (5 posts a page, board qingcheng + comiis)"
    ]


def test_the_opening_post_read_from_the_thread_header():
    """The 唯美设计 theme shows the opening post's author and time above the thread, outside
    the post: found beside the time Discuz! ids for that post."""
    page, boards = str(WILD / "weimei" / "p1.html"), str(WILD / "weimei" / "boards.toml")
    code, report = doctor_json(page, "--boards", boards)
    assert code == 0
    found = fields(report)
    assert ("the profile link beside #authorposton{pid}", 1) in [
        (w["place"], w["posts"]) for w in found["author"]["where"]
    ]
    assert "#authorposton{pid} (outside the post, in the header)" in [
        w["place"] for w in found["time"]["where"]
    ]
    code, out = doctor(page, "--boards", boards)
    assert "tally can read this page." in out and "weiyu + weimei" in out


@pytest.mark.parametrize(
    ("page", "said"),
    [
        (DISCUZ / "missing-p1.html", "does not exist or was deleted"),
        (FIXTURES / "discuz-other" / "archiver-tid-24.htm", "archiver view"),
        (FIXTURES / "tieba-saved" / "new-front-end.html", "2026"),
    ],
)
def test_a_page_that_is_no_thread_says_what_it_is(page, said):
    code, report = doctor_json(str(page))
    assert code == 4
    assert report["problem"] and said in report["problem"]
    assert report["fields"] == []


def test_a_page_of_no_forum_tally_knows(tmp_path):
    other = tmp_path / "blog.html"
    other.write_text("<html><body><p>hello</p></body></html>", encoding="utf-8")
    code, out = doctor(str(other))
    assert code == 4 and "no forum tally knows" in out


def test_doctor_over_http_shows_the_status_and_the_url(forum):
    forum.add_discuz_page("3", 1, (WILD / "viewbox" / "p1.html").read_bytes())
    code, report = doctor_json(forum.url("forum.php?mod=viewthread&tid=3"))
    assert code == 0, report
    assert report["status"] == 200 and report["url_known"] is True
    assert fields(report)["floor"]["where"][0]["place"] == "#postnum{pid}"
    # The opening post has no floor link in this theme: it leads page 1.
    assert {w["place"] for w in fields(report)["floor"]["where"]} == {
        "#postnum{pid}",
        "the first post of page 1",
    }


def test_doctor_says_when_a_url_is_of_no_shape_tally_knows(forum):
    forum.add("/read.php?id=3", Reply(200, (WILD / "viewbox" / "p1.html").read_bytes()))
    code, out = doctor(forum.url("read.php?id=3"))
    assert code == 0
    assert "not a thread URL tally knows" in out
    # The shapes said are the platforms' own (their example URLs), not a list kept by hand.
    assert "thread-N-P-1.html" in out and "Tieba: /p/N" in out


def test_diagnose_as_a_library_call():
    text = (WILD / "x35-12h" / "p1.html").read_text(encoding="utf-8")
    found = diagnose(text, CHINA, "p1.html")
    assert found.readable and found.posts == 10
    time = next(f for f in found.fields if f.name == "time")
    assert time.example == "2026-03-05 00:30 (minutes only)"


# -- the profile file --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[board.a]\nhosts = ['x']\ncolour = 'red'\n", "'colour' is not a key"),
        ("[board.a]\nposts_per_page = 5\n", "names no hosts and no marks"),
        ("[board.a]\nhosts = ['x']\nposts_per_page = 0\n", "from 1 to 1000"),
        ("[board.a]\nhosts = ['x']\nposts_per_page = true\n", "from 1 to 1000"),
        ("[board.a]\nhosts = ['x']\ntimezone = 'Mars/Olympus'\n", "is not a time zone"),
        ("[board.a]\nhosts = ['x']\nmarkup = 'html'\n", "markup must be one of"),
        ("[board.a]\nhosts = ['x']\n[board.a.selectors]\nauthor = ['div[[']\n", "not a CSS selector"),
        ("[board.a]\nhosts = ['x']\n[board.a.selectors]\nvoter = ['a']\n", "'voter' is not a field"),
        ("[board.a]\nhosts = []\nmarks = ['']\n", "non-empty strings"),
        ("[boards.a]\nhosts = ['x']\n", "'boards' is not a section"),
        ("[board.a\n", "not valid TOML"),
    ],
)
def test_a_profile_file_is_read_strictly(text, said):
    with pytest.raises(InputError, match=re.escape(said)):
        parse_boards(text, "boards.toml")


def test_a_missing_boards_file_is_one_sentence(tmp_path):
    code, out = doctor(str(DISCUZ / "vote-p1.html"), "--boards", str(tmp_path / "none.toml"))
    assert code == 2 and "no such board profile file" in out


def test_the_users_own_file_is_read_when_there(tmp_path):
    folder = tmp_path / "tally"
    folder.mkdir()
    (folder / "boards.toml").write_text("[board.mine]\nhosts = ['bbs.mine.example']\n", "utf-8")
    boards = load_boards(folder=folder)
    assert next(iter(boards)).name == "mine"
    assert boards.choose("bbs.mine.example", "").name == "mine"
    comiis = "<div class='comiis_vrx'>"
    assert boards.choose("other.example", comiis, naming=True).name == "comiis"
    # A theme's profile that only names the theme is not looked for when reading.
    assert boards.choose("other.example", comiis).name == "default"
    assert boards.choose("other.example", "", naming=True).name == "default"


def test_a_host_pattern_covers_its_sub_domains():
    [board] = parse_boards("[board.a]\nhosts = ['*.example.com']\n", "t")
    assert board.serves("bbs.example.com") and board.serves("example.com")
    assert not board.serves("badexample.com")
    assert Boards([board]).for_host("BBS.EXAMPLE.COM:8080") is board


def test_the_built_in_profiles_load():
    assert {b.name for b in built_in()} >= {"comiis", "weimei", "viewbox"}


def test_docs_name_every_key_and_field():
    text = DOCS.read_text(encoding="utf-8")
    for key in _KEYS:
        assert f"`{key}`" in text, key
    for name in FIELDS:
        assert re.search(rf"^{name} = \[", text, re.M), name
    for board in built_in():
        assert f"`{board.name}`" in text


def test_the_docs_example_profile_loads():
    text = DOCS.read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
    assert len(blocks) >= 3
    for block in blocks:
        assert parse_boards(block, "docs/boards.md")


X35 = FIXTURES / "discuz-x35-changes"


@pytest.mark.rules("V3")
@pytest.mark.parametrize(
    "page,found,example,said",
    [
        ("own-floor-off-alice.html", 1, "not allowed (允许点评自己的帖子 off)",
         "管理中心 → 全局 → 站点功能 → 帖子点评"),
        ("own-floor-on-alice.html", 1, "allowed (允许点评自己的帖子 on)", None),
        ("own-floor-guest.html", 0, "", "cannot tell from a guest's page"),
        # Only her own floor beside the director's first: the setting or 点评 itself, not
        # known yet (a real replay's doctor named the wrong causes here).
        ("own-floor-alone-alice.html", 0, "", "so the board either lets no member 点评 their "
         "own floor (允许点评自己的帖子) or has 点评 off"),
    ],
)  # fmt: skip
def test_doctor_says_whether_a_member_may_comment_on_their_own_floor(page, found, example, said):
    """Issue 48: ruleset 000's change is a 点评 under one's own vote, which a real X3.5 allows
    only with 允许点评自己的帖子 (commentpostself) on, off as installed: nothing told the
    director. Read off real pages: the 点评 button on the reader's own floor, beside others'."""
    code, report = doctor_json(str(X35 / page))
    assert code == 0 and report["readable"]  # a setting, not a field tally needs
    own = fields(report)["点评 on one's own floor"]
    assert (own["essential"], own["found"], own["example"]) == (False, found, example)
    if said is None:
        assert own["missing"] == []
    else:
        assert said in own["missing"][0]
    _, text = doctor(str(X35 / page))
    assert ("点评 on one's own floor: " in text) == (said is not None)
