"""tally speaks the director's language on Discuz! and Tieba (issue 52): what it says of a
forum's answers (a thread closed to the cookies or gone, the mobile interface switched off, a
reply refused, Baidu's error numbers, a page saved from Tieba's new front end) is one Chinese
sentence under TALLY_LANG=zh, with what the forum wrote (its keys, its messages) quoted as it
came; in English the same sentence as always."""

from __future__ import annotations

import json
import re
from datetime import datetime

import pytest

from tally.cli import app
from tally.errors import ApiUnavailable, HeldPost, NotAThreadError, PostError
from tally.forums.discuz.api import parse_thread, probe
from tally.forums.discuz.fields import own_floor_comments
from tally.forums.discuz.mobile_reply import read_sent
from tally.forums.tieba.saved import SavedPages, new_front_end
from tally.i18n import Language, speaking
from tally.model import ThreadRef

from .conftest import CHINA, FIXTURES, FakeClock, Runner
from .discuzboard import Board
from .tiebaapi import Fault, TiebaApi
from .tiebagen import sample

runner = Runner()
HAN = re.compile(r"[\u4e00-\u9fff]")
# Words of tally's English sentences (never of a forum's keys, messages or names): none of
# them may be left in a Chinese one.
ENGLISH = re.compile(
    r"\b(?:the|forum|thread|does|not|answered|refused|interface|cookies|read|page|post|"
    r"please|again|Baidu|saved|floor)\b"
)


def chinese(said: str) -> str:
    """``said``, checked to be one sentence of tally's in Chinese."""
    assert "\n" not in said.strip() and HAN.search(said), said
    assert not ENGLISH.search(re.sub(r"`[^`]*`", "", said)), said  # code as it is
    return said


# -- Discuz!'s mobile interface -------------------------------------------------------------


def _thread(message: str | None = None, *, body: bytes = b"") -> None:
    """A viewthread answer of the interface holding only the forum's ``message``, read."""
    if message is not None:
        body = json.dumps({"Version": "4", "Variables": {},
                           "Message": {"messageval": message}}).encode()  # fmt: skip
    parse_thread(body, "application/json", source="vt.json",
                 ref=ThreadRef("discuz", "101", "http://bbs.example.com/"), tz=CHINA,
                 asked_page=1, ppp=100, at=datetime(2026, 12, 6, tzinfo=CHINA))  # fmt: skip


def test_a_thread_closed_to_the_cookies_is_one_chinese_sentence_the_key_as_it_came():
    with speaking(Language.ZH), pytest.raises(NotAThreadError) as caught:
        _thread("viewperm_login_nopermission//1")
    assert chinese(str(caught.value)) == (
        "vt.json：论坛不让用这些 Cookie 读这个帖子（它说 viewperm_login_nopermission）；如果你的"
        "账号能看这个帖子，请加 `--cookies FILE`，用从登录了论坛的浏览器导出的 Cookie。"
    )
    with pytest.raises(NotAThreadError) as english:
        _thread("viewperm_login_nopermission//1")
    assert str(english.value) == (
        "vt.json: the forum does not let these cookies read this thread (it says "
        "viewperm_login_nopermission); if your account may read it, pass --cookies FILE, "
        "exported from a browser that is logged in to the forum."
    )


def test_the_interface_switched_off_in_chinese():
    off = b'{"error":"mobile_is_closed"}'
    with speaking(Language.ZH):
        with pytest.raises(ApiUnavailable) as caught:
            _thread(body=off)
        clause = probe(b'{"testcookie":null}', "application/json")
    assert str(caught.value) == "vt.json：手机版接口已关闭（开启手机版：mobile_is_closed）"
    assert clause == "手机版接口返回的 JSON 没有写版本"
    assert probe(b'{"testcookie":null}', "application/json") == (
        "its mobile interface answered JSON that names no version"
    )


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("zh", "tally: {url}：帖子不存在、已被删除或被隐藏（论坛说 thread_nonexistence）；"
               "请检查网址里的 tid。"),
        ("en", "tally: {url}: the thread does not exist or was deleted, or it is hidden (the forum "
               "says thread_nonexistence); check the tid in the URL."),
    ],
)  # fmt: skip
def test_a_thread_the_board_does_not_have_through_the_command_line(forum, tmp_path, language, said):
    Board(forum)
    url = forum.url("forum.php?mod=viewthread&tid=999")
    args = ["archive", url, "-o", str(tmp_path / "x.csv")]
    result = runner.invoke(app, args, env={"TALLY_LANG": language})
    assert result.exit_code == 4
    asked = forum.url("api/mobile/index.php?version=4&module=viewthread&tid=999&page=1&ppp=100"
                      "&ordertype=2")  # fmt: skip
    assert result.stderr == said.format(url=asked) + "\n"
    if language == "zh":
        chinese(result.stderr.removeprefix("tally: ").replace(asked, ""))


def test_doctor_says_in_chinese_why_a_guests_page_cannot_tell_about_点评_on_ones_own_floor():
    from tally.forums.base import PageText
    from tally.forums.htmltext import html_tree

    text = "<html><script>discuz_uid = '0'</script></html>"
    page = PageText(text, html_tree(text), "saved.html", CHINA)
    with speaking(Language.ZH):
        found = own_floor_comments(page, [], None)  # type: ignore[arg-type]
    [said] = found.missing
    assert chinese(said).startswith("从游客看到的页面看不出来（游客看不到点评按钮）")
    assert "`--cookies FILE`" in said
    assert own_floor_comments(page, [], None).missing[0].startswith(  # type: ignore[arg-type]
        "cannot tell from a guest's page (a guest sees no 点评 button)"
    )


# -- a reply Discuz! refused or held -----------------------------------------------------------


def _sent(key: str) -> None:
    body = {"Version": "4", "Variables": {"pid": "0"}, "Message": {"messageval": key}}
    read_sent(200, json.dumps(body).encode(), lambda pid: f"http://bbs.example.com/?pid={pid}")


def test_a_reply_discuz_refused_or_held_is_one_sentence_in_the_directors_language():
    with speaking(Language.ZH):
        with pytest.raises(PostError) as refused:
            _sent("word_banned")
        with pytest.raises(HeldPost) as held:
            _sent("post_reply_mod_succeed")
    assert chinese(str(refused.value)) == (
        "论坛的敏感词过滤拒绝了这一帖（word_banned）；里面某个名字或理由在论坛的词表里："
        "请改好文字后手动发帖。"
    )
    assert chinese(str(held.value)).startswith("论坛把这一帖交给版主审核（回复需要审核）")
    with pytest.raises(PostError) as english:
        _sent("word_banned")
    assert str(english.value) == (
        "the forum's word filter refused the post (word_banned); a name or reason in it is on "
        "the board's list: edit the text and post by hand."
    )


# -- Tieba -----------------------------------------------------------------------------------


def test_doctor_on_a_tieba_thread_gone_says_so_in_chinese(forum):
    api = TiebaApi(sample())
    api.errors = [Fault(errorno=4, errmsg="贴子可能已被删除")]
    url = api.serve(forum)
    after = FakeClock(datetime(2024, 5, 10, 12, 0, tzinfo=CHINA)).env()
    result = runner.invoke(app, ["doctor", url], obj=after, env={"TALLY_LANG": "zh"})
    assert result.exit_code == 4
    assert (
        "帖子 8800123456 第1页：百度说帖子不存在或已被删除（错误 4，“贴子可能已被删除”）；"
        "请检查网址里的帖子号。"
    ) in result.stdout
    assert "Baidu says" not in result.stdout
    api.errors = [Fault(errorno=4, errmsg="贴子可能已被删除")]
    english = runner.invoke(app, ["doctor", url], obj=after, env={"TALLY_LANG": "en"})
    assert (
        "page 1 of thread 8800123456: Baidu says the thread does not exist or was deleted "
        "(error 4, “贴子可能已被删除”); check the thread's number in the URL."
    ) in english.stdout


def test_a_saved_tieba_page_tally_cannot_read_is_one_chinese_sentence():
    new = "<html><body><div id='app'></div><a href='https://tieba.baidu.com/p/8800123456'></a>"
    check = "<html><title>百度安全验证</title><body>wappass.baidu.com</body></html>"
    with speaking(Language.ZH):
        front_end = new_front_end(new, "p1.html")
        security = SavedPages().error_page(check, "p2.html")
    assert front_end is not None and security is not None
    assert chinese(str(front_end)) == (
        "p1.html 是从贴吧2026年的新版网页保存的，它的 HTML 里没有楼层；请改给 tally 帖子的网址"
        "（https://tieba.baidu.com/p/8800123456）。"
    )
    assert chinese(str(security)).startswith("p2.html：百度返回了安全验证，而不是帖子；")
    assert str(new_front_end(new, "p1.html")) == (
        "p1.html was saved from Tieba's 2026 web front end, whose HTML holds no floors; give "
        "tally the thread's URL (https://tieba.baidu.com/p/8800123456) instead."
    )


# -- a Discuz! page, saved: what it is and where each field was found -------------------------


def test_doctor_on_a_saved_page_that_is_no_thread_says_what_it_is_in_chinese():
    page = str(FIXTURES / "discuz" / "missing-p1.html")
    result = runner.invoke(app, ["doctor", page], env={"TALLY_LANG": "zh"})
    assert result.exit_code == 4
    assert (
        f"{page}：帖子不存在、已被删除或被隐藏（论坛说“抱歉，指定的主题不存在或已被删除或正在被审核”）；"
        "请检查网址里的 tid。"
    ) in result.stdout
    english = runner.invoke(app, ["doctor", page], env={"TALLY_LANG": "en"})
    assert (
        f"{page}: the thread does not exist or was deleted, or it is hidden (the forum says "
        "“抱歉，指定的主题不存在或已被删除或正在被审核”); check the tid in the URL."
    ) in english.stdout


def test_doctor_says_where_each_field_was_found_in_chinese_and_json_keeps_its_keys():
    page = str(FIXTURES / "discuz" / "vote-p1.html")
    said = runner.invoke(app, ["doctor", page, "--json"], env={"TALLY_LANG": "zh"})
    assert said.exit_code == 0, said.output
    found = {f["name"]: f for f in json.loads(said.stdout)["fields"]}
    places = {name: [w["place"] for w in f["where"]] for name, f in found.items()}
    assert places["post id"] == ["发言自己的 ID（post_{pid}）"]
    assert places["author"] == places["uid"] == ["a.xw1（发帖人的链接）"]
    assert places["page count"] == ["翻页栏的“共 N 页”"]
    assert places["floor"] == ["#postnum{pid}"]  # a selector is said as it is
    assert found["page"]["example"] == "第1页，共2页"
    english = runner.invoke(app, ["doctor", page, "--json"], env={"TALLY_LANG": "en"})
    again = {f["name"]: f for f in json.loads(english.stdout)["fields"]}
    assert [w["place"] for w in again["author"]["where"]] == ["a.xw1 (the poster's link)"]
    assert again["page"]["example"] == "1 of 2"
