"""tally speaks the director's language on Discuz! and Tieba (issue 52): what it says of a
forum's answers (a thread closed to the cookies or gone, the mobile interface switched off, a
reply refused, Baidu's error numbers, a page saved from Tieba's new front end) is one Chinese
sentence under TALLY_LANG=zh, with what the forum wrote (its keys, its messages) quoted as it
came; in English the same sentence as always."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from tally.cli import app
from tally.errors import ApiUnavailable, NotAThreadError, ThreadGoneError
from tally.forums.discuz.api import probe
from tally.forums.discuz.fields import own_floor_comments
from tally.forums.tieba.saved import SavedPages, new_front_end
from tally.i18n import Language, speaking

from .conftest import CHINA, FakeClock, Runner
from .discuzboard import Board
from .test_discuz_api import answer, thread
from .test_posting import NOT_POSTED, after_close, env, setup
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


def test_a_thread_closed_to_the_cookies_is_one_chinese_sentence_the_key_as_it_came():
    with speaking(Language.ZH), pytest.raises(NotAThreadError) as caught:
        thread("answers/vt_t4_membersonly_guest")
    said = chinese(str(caught.value))
    assert said == (
        "answers/vt_t4_membersonly_guest：论坛不让用这些 Cookie 读这个帖子（它说 "
        "viewperm_login_nopermission）；如果你的账号能看这个帖子，请加 `--cookies FILE`，"
        "用从登录了论坛的浏览器导出的 Cookie。"
    )
    with pytest.raises(NotAThreadError) as english:
        thread("answers/vt_t4_membersonly_guest")
    assert str(english.value) == (
        "answers/vt_t4_membersonly_guest: the forum does not let these cookies read this "
        "thread (it says viewperm_login_nopermission); if your account may read it, pass "
        "--cookies FILE, exported from a browser that is logged in to the forum."
    )


def test_a_thread_gone_and_the_interface_switched_off_in_chinese():
    with speaking(Language.ZH):
        with pytest.raises(ThreadGoneError) as gone:
            thread("captured/missing-guest.json", ppp=100)
        with pytest.raises(ApiUnavailable) as off:
            thread("answers/off_allowmobile0_viewthread")
        check = answer("answers/off_plugin_disabled_check")
        clause = probe(check.body, check.content_type)
    assert chinese(str(gone.value)) == (
        "captured/missing-guest.json：帖子不存在、已被删除或被隐藏（论坛说 thread_nonexistence）；"
        "请检查 URL 里的 tid。"
    )
    assert str(off.value) == (
        "answers/off_allowmobile0_viewthread：手机版接口已关闭（开启手机版：mobile_is_closed）"
    )
    assert clause == "手机版接口没有写版本（掌上论坛插件已停用）"
    english = answer("answers/off_plugin_disabled_check")
    assert probe(english.body, english.content_type) == (
        "its mobile interface names no version (the 掌上论坛 plugin is disabled)"
    )


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


# -- a reply Discuz! refused, through the command line -----------------------------------------


@pytest.fixture
def board(forum) -> Board:
    return Board(forum)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("zh", "论坛的敏感词过滤拒绝了这一帖（word_banned）；里面某个名字或理由在论坛的词表里："
               "请改好文字后手动发帖。"),
        ("en", "the forum's word filter refused the post (word_banned); a name or reason in it "
               "is on the board's list: edit the text and post by hand."),
    ],
)  # fmt: skip
def test_a_reply_discuz_refused_is_one_sentence_in_the_directors_language(
    board, tmp_path, language, said
):
    _, game, cookies = setup(board, tmp_path)
    board.banned = ("白桃",)
    clock = after_close(board)
    args = ["announce", "--game", game, "--day", "2", "--post", "--cookies", str(cookies), "--yes"]
    result = runner.invoke(app, args, obj=env(clock), env={"TALLY_LANG": language})
    assert result.exit_code == NOT_POSTED
    last = result.stderr.strip().splitlines()[-1]
    assert last.endswith(said)
    if language == "zh":
        chinese(last.removeprefix("tally: "))


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
        "请检查 URL 里的帖子号。"
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
        "p1.html 是从贴吧2026年的新版网页保存的，它的 HTML 里没有楼层；请改给 tally 帖子的 URL"
        "（https://tieba.baidu.com/p/8800123456）。"
    )
    assert chinese(str(security)).startswith("p2.html：百度返回了安全验证，而不是帖子；")
    assert str(new_front_end(new, "p1.html")) == (
        "p1.html was saved from Tieba's 2026 web front end, whose HTML holds no floors; give "
        "tally the thread's URL (https://tieba.baidu.com/p/8800123456) instead."
    )
