"""What the forum readers say to the director (tally/forums/), in Chinese and in English
(issue 52): a missing page, a page cut short, a page of another thread, a forum time tally
cannot read, a cookie file, a board profile, the read summary. Each is one Chinese sentence
that keeps the URL, the page and the file name as they are; in English, word for word what
it always said."""

from __future__ import annotations

import os
import re
from datetime import timedelta

import pytest

from tally.cli import app
from tally.demo.localforum import LocalForum, Reply
from tally.environment import HttpOptions
from tally.errors import FetchError, InputError, ParseError, TruncatedPageError
from tally.forums.boards import parse_boards
from tally.forums.built import summary
from tally.forums.clocks import skew_sentence
from tally.forums.cookies import load_cookies
from tally.forums.timeparse import parse_forum_time
from tally.i18n import Language, speaking

from .conftest import CHINA, DISCUZ, FakeClock, Runner, read_one

runner = Runner()
HAN = re.compile(r"[\u4e00-\u9fff]")


def serve_talk(forum: LocalForum) -> str:
    assert forum.add_discuz_thread("24", DISCUZ, "talk") == 7
    return forum.url("thread-24-1-1.html")


def page_url(forum: LocalForum, tid: str, page: int) -> str:
    return forum.url(f"forum.php?mod=viewthread&tid={tid}&page={page}")


def said(error: type[Exception], read: object, language: Language) -> str:
    """The one sentence ``read()`` fails with, in ``language``."""
    with speaking(language), pytest.raises(error) as info:
        read()  # type: ignore[operator]
    return str(info.value)


def test_a_missing_page_in_chinese_keeps_its_url(forum):
    url = serve_talk(forum)
    del forum.routes["discuz:24:4"]
    missing = page_url(forum, "24", 4)
    zh = said(FetchError, lambda: read_one(url), Language.ZH)
    assert zh == f"{missing} 返回 HTTP 404。"
    en = said(FetchError, lambda: read_one(url), Language.EN)
    assert en == f"{missing} answered HTTP 404."


def test_a_page_cut_short_in_chinese_keeps_its_url_and_size(forum):
    forum.add_discuz_thread("23", DISCUZ, "vote")
    body = (DISCUZ / "vote-p2.html").read_bytes()
    cut = body[: len(body) // 2]
    replies: list[Reply] = []

    def hook(path: str) -> Reply | None:
        return replies.pop(0) if "page=2" in path and replies else None

    forum.hook = hook
    url, second = forum.url("thread-23-1-1.html"), page_url(forum, "23", 2)
    replies[:] = [Reply(200, cut, fault="no-length")] * 3
    zh = said(TruncatedPageError, lambda: read_one(url), Language.ZH)
    assert zh == f"{second} 不完整：论坛还没输出完这一页就断了（收到{len(cut):,}字节后）。"
    replies[:] = [Reply(200, cut, fault="no-length")] * 3
    en = said(TruncatedPageError, lambda: read_one(url), Language.EN)
    assert en == f"{second} ends before the forum finished the page (after {len(cut):,} bytes)."


def test_a_page_of_another_thread_in_chinese(forum):
    forum.add_discuz_page("25", 1, (DISCUZ / "vote-p1.html").read_bytes())
    url, first = forum.url("thread-25-1-1.html"), page_url(forum, "25", 1)
    zh = said(ParseError, lambda: read_one(url), Language.ZH)
    assert zh == f"{first} 是帖子 23 的页面，不是帖子 25 的。"
    en = said(ParseError, lambda: read_one(url), Language.EN)
    assert en == f"{first} is a page of thread 23, not of thread 25."


def test_a_missing_thread_on_the_command_line_in_chinese(forum, tmp_path):
    url = forum.url("thread-424242-1-1.html")
    first = page_url(forum, "424242", 1)
    args = ["archive", url, "-o", str(tmp_path / "x.csv")]
    zh = runner.invoke(app, args, env={"TALLY_LANG": "zh"})
    assert zh.exit_code == 4
    assert zh.stderr == (
        f"tally: {first} 返回 HTTP 404：帖子不存在、已被删除或被隐藏；请检查网址里的 tid。\n"
    )
    en = runner.invoke(app, args, env={"TALLY_LANG": "en"})
    assert en.exit_code == 4
    assert en.stderr == (
        f"tally: {first} answered HTTP 404: the thread does not exist or was deleted, or it is "
        "hidden; check the tid in the URL.\n"
    )
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize(
    ("text", "zh", "en"),
    [
        ("3 分钟前", "时间只显示了相对时间（'3 分钟前'），没有确切时间；tally 不去猜。",
         "time is shown only as a relative time ('3 分钟前') without the exact time; "
         "refusing to guess it."),
        ("2024-2-30 10:00", "时间 '2024-2-30 10:00' 不是真实存在的日期和时间。",
         "time '2024-2-30 10:00' is not a real date and time."),
        ("发表于 上午 下午 9:30", "时间 '发表于 上午 下午 9:30' 不是 tally 能读的日期和时间。",
         "time '发表于 上午 下午 9:30' is not a date and time tally can read."),
    ],
)  # fmt: skip
def test_a_forum_time_tally_cannot_read_in_chinese(text, zh, en):
    assert said(ParseError, lambda: parse_forum_time(text, CHINA), Language.ZH) == zh
    assert said(ParseError, lambda: parse_forum_time(text, CHINA), Language.EN) == en


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's")
def test_cookie_files_in_chinese(tmp_path):
    folder = tmp_path / "cookies"
    folder.mkdir()
    zh = said(InputError, lambda: load_cookies(folder), Language.ZH)
    assert zh == (
        f"{folder} 是文件夹；请给出 Cookie 文件本身（cookies.txt，从登录了论坛的浏览器按 Netscape "
        "格式导出）。"
    )
    shared = tmp_path / "cookies.txt"
    shared.write_text("# Netscape HTTP Cookie File\n", encoding="utf-8")
    shared.chmod(0o644)
    zh = said(InputError, lambda: load_cookies(shared), Language.ZH)
    assert zh == f"{shared} 存着你的登录信息，却能被其他用户读取；请运行：chmod 600 {shared}"
    en = said(InputError, lambda: load_cookies(shared), Language.EN)
    assert (
        en == f"{shared} can be read by other users and holds your login; run: chmod 600 {shared}"
    )


def test_a_board_profile_mistake_in_chinese():
    text = '[board.mine]\nhosts = ["bbs.example.com"]\nposts_per_page = 0\n'
    zh = said(InputError, lambda: parse_boards(text, "boards.toml"), Language.ZH)
    assert zh == "boards.toml, [board.mine]：posts_per_page 必须是1到1000之间的整数。"
    en = said(InputError, lambda: parse_boards(text, "boards.toml"), Language.EN)
    assert en == "boards.toml, [board.mine]: posts_per_page must be a whole number from 1 to 1000."


def test_the_read_summary_and_the_clock_warning_in_chinese(forum):
    thread = read_one(serve_talk(forum))
    with speaking(Language.ZH):
        assert summary(thread) == "帖子 24：共7页，7页从网络读取"
        ahead = skew_sentence("bbs.example.com", timedelta(minutes=5))
    assert summary(thread) == "thread 24: 7 page(s), 7 from the network"
    assert (
        ahead.startswith("bbs.example.com 的时钟比这台电脑快")
        and "（依据它应答里的 Date）" in ahead
    )
    # One sentence, no English word of it left (the host and the duration are not its words).
    english = re.sub(r"bbs\.example\.com|\d+|min|s\b|Date|tally", "", ahead)
    assert HAN.search(ahead) and not re.search(r"[A-Za-z]{2,}", english)


def test_the_summary_lists_its_parts_as_each_language_does():
    from tally.forums.built import _listed

    parts = ["1 from the network", "6 from the cache"]
    assert _listed(parts) == "1 from the network, 6 from the cache" and _listed([]) == ""
    with speaking(Language.ZH):
        assert _listed(["1页从网络读取", "6页来自缓存", "x"]) == "1页从网络读取，6页来自缓存，x"


def test_a_thread_gone_after_a_merge_in_chinese(forum, tmp_path):
    """The vote thread tally read answers 404 after a merge: the sentence that says tally read
    it before, and where to point the day's vote, in Chinese."""
    from .test_reading_merged_into_discussion import LATER, _game, _read_then_merge, _said

    cache = _read_then_merge(forum, tmp_path)
    game = _game(tmp_path, forum, "4")
    url = forum.url("forum.php?mod=viewthread&tid=4")
    env = FakeClock(LATER).env(http=HttpOptions(host_delay=0))
    result = runner.invoke(app, ["votes", url, "--game", game, *cache], obj=env,
                           env={"TALLY_LANG": "zh"})  # fmt: skip
    assert result.exit_code == 4, result.output
    [said] = _said(result)
    assert "主题不存在" in said  # the forum's own words
    assert (
        "；tally 以前读过它（5帖，作为第2天的投票帖）：版主删了它，或者把它合并进了别的帖子" in said
    )
    assert said.endswith("tally 会按发言 ID 认出先在这里读到的发言。")
    assert "tally read it before" not in said and "check the tid" not in said


def test_an_unreachable_forum_and_retries_given_up_in_chinese(forum):
    fast = FakeClock().env(http=HttpOptions(attempts=2))
    down = "http://127.0.0.1:9/thread-1-1-1.html"
    zh = said(FetchError, lambda: read_one(down, env=fast), Language.ZH)
    assert zh == "连不上 127.0.0.1:9（连接被拒绝）；请检查地址，并确认论坛没有宕机（试了2次）。"
    forum.add_discuz_thread("23", DISCUZ, "vote")
    replies = [Reply(fault="reset")] * 6
    forum.hook = lambda path: replies.pop(0) if "page=2" in path and replies else None
    url, second = forum.url("thread-23-1-1.html"), page_url(forum, "23", 2)
    zh = said(FetchError, lambda: read_one(url, http=HttpOptions(attempts=3)), Language.ZH)
    assert re.fullmatch(rf"读不了 {re.escape(second)}：试了3次后放弃（最后一次：\w+: .*）。", zh)
    en = said(FetchError, lambda: read_one(url, http=HttpOptions(attempts=3)), Language.EN)
    assert re.fullmatch(rf"could not read {re.escape(second)}: gave up after 3 attempts "
                        r"\(last: \w+: .*\)\.", en)  # fmt: skip
