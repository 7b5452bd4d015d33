"""The fields of a Discuz! post read by what a reader sees and by Discuz!'s own structure
(issue 33): hidden labels, floor labels in a board's own words, edit marks and reply counts
in other language packs, a theme's marks in the head, doctor on the touch template's URL,
the partial-file warning. Each page is a real X3.5 page (fixtures/discuz/) changed the way
the board in question renders it; read as a saved file and over HTTP."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tally.cli import app
from tally.demo.localforum import Reply
from tally.errors import FetchError, ParseError
from tally.forums.boards import load_boards
from tally.forums.discuz import Discuz

from .conftest import CHINA, DISCUZ, FIXTURES, Runner, read, read_csv, read_one

VOTE = DISCUZ / "vote-p1.html"  # thread 23, one page of 10 floors, rendered by the real X3.5
TOUCH = FIXTURES / "discuz-touch"


def page(tmp_path: Path, text: str, name: str = "p1.html") -> Path:
    out = tmp_path / name
    out.write_text(text, encoding="utf-8")
    return out


def both(tmp_path: Path, forum, text: str, boards: Path | None = None):
    """Page 1 (``text``) and page 2 of thread 23 read as saved files and over HTTP: the
    same thread each way."""
    second = (DISCUZ / "vote-p2.html").read_bytes()
    (tmp_path / "p2.html").write_bytes(second)
    [saved] = read([str(page(tmp_path, text)), str(tmp_path / "p2.html")], boards=boards)
    forum.add_discuz_page("23", 1, text.encode("utf-8"))
    forum.add_discuz_page("23", 2, second)
    served = boards
    if boards is not None:
        served = page(tmp_path, boards.read_text("utf-8").replace("bbs.example.com", "127.0.0.1"),
                      "served.toml")  # fmt: skip
    live = read_one(forum.url("forum.php?mod=viewthread&tid=23"), boards=served)
    return saved, live


def vote() -> str:
    return VOTE.read_text(encoding="utf-8")


# -- what a reader does not see --------------------------------------------------------


def test_a_label_the_page_hides_inside_the_author_link_is_not_in_the_name(tmp_path, forum):
    """The viewbox theme: <a …><em class="display_none">作者：</em>admin</a>, and 时间：
    hidden inside the time. Read as '作者：admin' before, silently."""
    text = re.sub(r'(class="xw1">)', r'\1<em class="display_none">作者：</em>', vote())
    text = re.sub(
        r'(<em id="authorposton\d+">)', r'\1<span style="display: none">时间：</span>', text
    )
    for thread in both(tmp_path, forum, text):
        assert [p.author for p in thread.posts][:3] == ["导演B", "月影", "青山"]
        assert not any("作者" in p.author for p in thread.posts)


def test_hidden_text_in_a_floor_label_and_a_post_is_left_out(tmp_path, forum):
    """Discuz!'s jammer (<span style="display:none">) in a ballot and a hidden word in a
    floor label: neither is what the reader sees."""
    text = vote().replace(
        "\n<em>5</em><sup>#</sup>", "\n<em hidden>楼层</em><em>5</em><sup>#</sup>"
    )
    text = text.replace(
        'id="postmessage_953">',
        'id="postmessage_953"><span style="display:none">投票：白桃</span>',
        1,
    )
    for thread in both(tmp_path, forum, text):
        assert thread.posts[4].floor == 5
        assert "白桃" not in thread.posts[1].text and thread.posts[1].text.startswith(
            "投票对象：长夜"
        )


def test_the_jammer_text_a_board_paints_in_its_background_is_not_in_a_post(tmp_path, forum):
    """Discuz!'s other jammer form, <font class="jammer"> (module.css paints it in the page's
    background colour; the real X2 page of fixtures/discuz-wild/x2 holds it): random
    characters, digits among them, a reader does not see. Read into the ballot before."""
    text = vote().replace(
        'id="postmessage_953">',
        'id="postmessage_953"><font class="jammer">7 @/ N3 |, 白桃 f/ C\' j</font>\r\n',
        1,
    )
    for thread in both(tmp_path, forum, text):
        assert "白桃" not in thread.posts[1].text and "N3" not in thread.posts[1].text
        assert thread.posts[1].text.startswith("投票对象：长夜")


# -- floor labels ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "floor"),
    [
        ("\n沙发#", 2),  # the viewbox theme
        ("\n<em>2</em>#分享本帖地址", 2),  # a large X2 board's own words after the number
        ("\n<em>2</em><sup>#</sup>", 2),
        ("\n2楼", 2),
    ],
)
def test_a_floor_label_is_its_number_when_it_holds_one(tmp_path, forum, label, floor):
    text = vote().replace("\n沙发</a>", f"{label}</a>", 1)
    assert label in text
    for thread in both(tmp_path, forum, text):
        assert [p.floor for p in thread.posts][:10] == list(range(1, 11))
        assert thread.posts[1].floor == floor


def _named(text: str) -> str:
    """The board's postno setting names its first four floors in its own words."""
    for old, new in (("楼主", "Host"), ("沙发", "Sofa"), ("板凳", "Bench"), ("地板", "Floor")):
        text = text.replace(f"\n{old}</a>", f"\n{new}</a>", 1)
    return text


def test_a_boards_own_floor_names_are_refused_without_a_profile_and_doctor_names_the_key(tmp_path):
    path = page(tmp_path, _named(vote()))
    with pytest.raises(ParseError, match="floor_names") as caught:
        Discuz().pages.parse_saved(path.read_text("utf-8"), CHINA, source=str(path))
    assert "'Host'" in str(caught.value)
    result = Runner().invoke(app, ["doctor", str(path)])
    assert result.exit_code == 5
    assert "A board profile's floor_names can say it" in result.output


def test_a_profiles_floor_names_number_the_first_floors(tmp_path, forum):
    boards = page(tmp_path, '[board.en]\nhosts = ["bbs.example.com"]\n'
                  'floor_names = ["Host", "Sofa", "Bench", "Floor"]\n', "boards.toml")  # fmt: skip
    text = _named(vote()).replace(
        "<head>", '<head><link href="http://bbs.example.com/forum.php?mod=viewthread&amp;tid=23" '
        'rel="canonical" />', 1)  # fmt: skip
    for thread in both(tmp_path, forum, text, boards):
        assert [p.floor for p in thread.posts][:10] == list(range(1, 11))


def test_floor_names_are_checked_when_the_profile_is_read(tmp_path):
    from tally.errors import InputError

    for bad, said in (
        ('["Host", "Host"]', "floor_names names a floor twice"),
        ('["2楼"]', "floor_names are words; a label with a number is read as it"),
        ('"Host"x', "not valid TOML"),
    ):
        boards = page(tmp_path, f'[board.b]\nhosts = ["h"]\nfloor_names = {bad}\n', "b.toml")
        with pytest.raises(InputError, match=said):
            load_boards(boards)


# -- Discuz!'s own structure in other language packs ------------------------------------


def test_an_edit_mark_in_another_language_pack_is_read_and_left_out_of_the_text(tmp_path, forum):
    """<i class="pstatus"> with the English pack's words: before, edited_at was empty and
    the mark stayed at the start of the ballot."""
    text = vote().replace(
        '<i class="pstatus"> 本帖最后由 阿澈 于 2023-3-15 21:05 编辑 </i>',
        '<i class="pstatus"> This post was last edited by 阿澈 at 2023-3-15 21:05 </i>',
    )
    assert "This post was last edited" in text
    for thread in both(tmp_path, forum, text):
        post = next(p for p in thread.posts if p.post_id == "959")
        assert post.edited is not None and post.edited.by == "阿澈"
        assert post.edited.at.replace(tzinfo=None).isoformat() == "2023-03-15T21:05:00"
        assert "edited" not in post.text and post.text.startswith("投票对象")


def test_the_reply_count_is_read_by_its_elements_under_any_label(tmp_path, forum):
    text = vote().replace('<span class="xg1">查看:</span>', '<span class="xg1">Views:</span>')
    text = text.replace('<span class="xg1">回复:</span>', '<span class="xg1">Replies:</span>')
    assert "回复:" not in text
    for thread in both(tmp_path, forum, text):
        assert thread.reply_count == 17


def test_a_reply_count_the_floors_do_not_reach_is_caught_in_any_language(tmp_path):
    """The check that floors account for the replies has something to check, and a saved
    file is told to be saved again (--fresh means nothing for a file)."""
    text = vote().replace('<span class="xg1">回复:</span> <span class="xi1">17</span>',
                          '<span class="xg1">Replies:</span> <span class="xi1">30</span>')  # fmt: skip
    (tmp_path / "p2.html").write_bytes((DISCUZ / "vote-p2.html").read_bytes())
    with pytest.raises(FetchError, match="says it has 30 replies but tally read 15") as caught:
        read([str(page(tmp_path, text)), str(tmp_path / "p2.html")])
    said = str(caught.value)
    assert "says it has 30 replies" in said and "Save it again" in said and "--fresh" not in said


# -- a theme's marks -------------------------------------------------------------------


def test_a_profiles_mark_that_stands_only_in_the_head_is_found(tmp_path):
    # A board on UTC prints GMT in its footer (the zone is held against it).
    utc = vote().replace("GMT+8", "GMT")
    text = utc.replace("IMGDIR = 'static/image/common'", "IMGDIR = 'template/qc_theme/img'")
    assert text.count("qc_theme") == 1 and text.find("qc_theme") < text.find("</head>")
    assert text.find('id="post_') - 4000 > text.find("</head>")  # far above the posts
    boards = page(tmp_path, '[board.qc]\nmarks = ["template/qc_theme/"]\ntimezone = "UTC"\n',
                  "boards.toml")  # fmt: skip
    chosen = Discuz().pages.parse_saved(text, CHINA, source="p1.html", boards=load_boards(boards))
    plain = Discuz().pages.parse_saved(vote(), CHINA, source="p1.html")
    # The profile's zone applied: the same wall-clock times, eight hours later.
    assert (chosen.posts[0].time - plain.posts[0].time).total_seconds() == 8 * 3600
    # And one that stands only in the footer.
    footer = utc.replace("</body>", '<div class="qc_theme_footer"></div></body>')
    boards.write_text('[board.qc]\nmarks = ["qc_theme_footer"]\ntimezone = "UTC"\n', "utf-8")
    chosen = Discuz().pages.parse_saved(footer, CHINA, source="p1.html", boards=load_boards(boards))
    assert (chosen.posts[0].time - plain.posts[0].time).total_seconds() == 8 * 3600


# -- doctor on the touch template -------------------------------------------------------


def test_doctor_on_the_touch_templates_url_reads_the_desktop_page(forum):
    """The URL a phone shows (&mobile=2): the real X3.5 answers it with the touch template,
    which doctor called no thread; now it reads the desktop page, as votes does."""
    desktop, touch = (TOUCH / "desktop.html").read_bytes(), (TOUCH / "touch.html").read_bytes()
    forum.add_discuz_page("5", 1, desktop)

    def phone(path: str, headers: dict[str, str], body: bytes | None) -> Reply | None:
        return Reply(200, touch) if "mobile=2" in path else None

    forum.request_hook = phone
    result = Runner().invoke(
        app, ["doctor", forum.url("forum.php?mod=viewthread&tid=5&mobile=2"), "--json"]
    )
    report = json.loads(result.output)
    assert result.exit_code == 0, report
    assert (
        report["read_instead"] and "forum.php?mod=viewthread&tid=5&page=1" in report["read_instead"]
    )
    assert report["posts"] == 4
    assert not any("mobile=2" in r for r in forum.page_requests)


def test_a_saved_touch_page_is_named_for_what_it_is():
    result = Runner().invoke(app, ["doctor", str(TOUCH / "touch.html")])
    assert result.exit_code == 4
    assert "mobile view" in result.output and "desktop" in result.output


# -- a partial read ----------------------------------------------------------------------


def test_one_saved_page_of_six_with_partial_says_what_is_true(tmp_path):
    """Pages 2…6 missing is the whole story: no reply-count note advising --fresh for a
    file, and the CSV's thread_pages is the thread's page count."""
    out = tmp_path / "partial.csv"
    result = Runner().invoke(
        app, ["archive", "--partial", str(DISCUZ / "recent-p1.html"), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "pages 2, 3, 4, 5, 6 of 6 missing" in result.stderr
    assert "--fresh" not in result.stderr and "replies" not in result.stderr
    rows = read_csv(out)
    assert {r["thread_pages"] for r in rows} == {"6"}
