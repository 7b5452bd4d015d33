"""Hostile and unlucky input: each case an adversarial run found, numbered as in the issue.

No silent merge, nothing raw on the terminal, no traceback, no hang. Faults are served by a
loopback forum; every test asserts the specific error or the correct result.
"""

from __future__ import annotations

import json
import os
import stat
import zlib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tally.cli import app
from tally.demo import sample_game_text
from tally.demo.localforum import Reply
from tally.environment import Environment, HttpOptions
from tally.errors import FetchError, GameFileError, ParseError, TruncatedPageError
from tally.forums.cookies import load_cookies
from tally.forums.discuz import Discuz
from tally.forums.politeness import retry_after
from tally.rules.game.gamefile import parse_game

from .conftest import CHINA, DISCUZ, FOLDERS, Runner, read_one
from .discuzgen import P
from .discuzgen import Thread as Pages
from .localforums import local_forum
from .test_reading_busy_forum import PAGE_1, cookie_file, faults, serve_vote

runner = Runner()

DEMO = sample_game_text("https://x/")


def invoke(*args: str):
    return runner.invoke(app, [*args], env={"COLUMNS": "250"})


def one_sentence(result, code: int) -> str:
    assert result.exit_code == code, result.output
    assert result.stderr.startswith("tally: ") and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.output
    return result.stderr


# -- 1. names equal after folding are never merged ------------------------------------------


@pytest.mark.parametrize(
    "second,folded",
    [("月\u200b影", "月影"), ("mika", "mika"), ("Ｍｉｋａ", "mika"), ("Mi\u00adka", "mika")],
)
def test_names_that_fold_alike_are_a_game_file_error(second, folded):
    first = "月影" if folded == "月影" else "Mika"
    text = DEMO.replace('"南瓜"]', f'"南瓜", "{second}"]')
    with pytest.raises(GameFileError, match=r"\(a player\) are one name to tally") as info:
        parse_game(text, source="game.toml")
    assert str(info.value) == (
        f"game.toml, key 'players': {second!r} and {first!r} (a player) are one name to tally "
        f"(both read {folded!r}); rename one."
    )


def test_an_alias_that_folds_to_another_player_is_refused():
    text = DEMO.replace('"月影" = ["月 影"]', '"月影" = ["ｍｉｋａ"]')
    with pytest.raises(GameFileError, match=r"'ｍｉｋａ' and 'Mika' \(a player\) are one name"):
        parse_game(text, source="game.toml")


def test_a_name_of_invisible_characters_only_is_refused():
    text = DEMO.replace('"南瓜"]', '"南瓜", "\u200b\u3164"]')
    with pytest.raises(GameFileError, match="has no visible character"):
        parse_game(text, source="game.toml")


def test_a_director_named_like_a_player_is_refused():
    text = DEMO.replace('directors = ["导演B"]', 'directors = ["mika"]')
    with pytest.raises(GameFileError, match=r"'mika' and 'Mika' \(a player\) are one name"):
        parse_game(text, source="game.toml")


def test_day_lists_take_the_rosters_spelling():
    text = DEMO + 'dead = ["ｍｉｋａ", "月 影"]\n'
    game = parse_game(text, source="game.toml")
    assert game.day(2).dead == ("Mika", "月影")


# -- 2. a multi-line reason cannot forge lines of the announcement ---------------------------

FORGED = "随便\n\n[b]月影 以 9 票被投票出局。[/b]\n导演B：本日结果以此为准"


@pytest.mark.parametrize("markup", ["bbcode", "text"])
def test_a_multi_line_reason_stays_on_its_line(forum, tmp_path, markup):
    from .test_counting_whole_day import game_file, vote_thread

    t = vote_thread()
    t.posts[1] = P("冷月", "2024-05-08 10:01:00", f"投票对象：白桃\n投票理由：{FORGED}")
    url = t.serve(forum)
    result = invoke("announce", "--game", game_file(tmp_path, url), "--day", "2", "--format", markup)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert not any(line.startswith(("导演B", "[b]月影", "月影 以 9 票")) for line in lines)
    mine = [line for line in lines if "冷月 投票：白桃" in line]
    assert len(mine) == 1 and "理由：随便 [\u200bb]月影 以 9 票被投票出局。" in mine[0]
    assert "导演B：本日结果以此为准" in mine[0]  # the reason as written (its "：" not folded)


# -- 3. a session cookie (expiry 0) is sent; a file for another host is said ------------------


def test_session_cookies_with_expiry_zero_are_sent(forum, tmp_path):
    url = serve_vote(forum)
    path = tmp_path / "cookies.txt"
    path.write_text("127.0.0.1\tFALSE\t/\tFALSE\t0\tcdb_auth\tsession-token\n", encoding="utf-8")
    os.chmod(path, 0o600)
    read_one(url, cookies=path)
    sent = [h.get("Cookie") for h in forum.request_headers]
    assert sent and all(c == "cdb_auth=session-token" for c in sent)


def test_a_cookie_file_for_another_host_is_said(forum, tmp_path):
    url = serve_vote(forum)
    path = cookie_file(tmp_path, "bbs.example.com")
    said: list[str] = []
    read_one(url, cookies=path, warn=said.append)
    assert said == [
        f"the cookie file {path} holds no cookie for 127.0.0.1; tally reads it as a guest."
    ]
    result = runner.invoke(
        app,
        ["archive", url, "-o", str(tmp_path / "x.csv"), "--cookies", str(path), "--quiet"],
    )
    assert result.exit_code == 0
    assert "tally: warning: the cookie file" in result.stderr


def test_expired_cookies_are_said(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("x.com\tFALSE\t/\tFALSE\t1000\ta\tb\n", encoding="utf-8")
    os.chmod(path, 0o600)
    loaded = load_cookies(path)
    assert loaded.expired == 1 and not loaded.domains


# -- 4. damaged markup never gives a wrong author; one floor is one post ---------------------


def test_damaged_author_markup_is_an_error():
    page = (DISCUZ / "vote-p1.html").read_text(encoding="utf-8")
    assert 'class="xw1">小鹿</a>' in page
    damaged = page.replace('class="xw1">小鹿</a>', 'class="xw1">小鹿 当前离线</a>', 1)
    with pytest.raises(ParseError, match=r"'小鹿 当前离线' is not a Discuz! user name"):
        Discuz().pages.parse_page(damaged, CHINA, source="p1")


def test_an_author_the_user_card_contradicts_is_an_error():
    page = (DISCUZ / "vote-p1.html").read_text(encoding="utf-8")
    damaged = page.replace('class="xw1">小鹿</a>', 'class="xw1">小麋</a>', 1)
    with pytest.raises(ParseError, match=r"names two authors \('小麋' and '小鹿'\)"):
        Discuz().pages.parse_page(damaged, CHINA, source="p1")


def test_two_posts_on_one_floor_are_an_error(forum):
    page2 = (DISCUZ / "vote-p2.html").read_text(encoding="utf-8")
    clash = page2.replace("<em>11</em><sup>#</sup>", "<em>12</em><sup>#</sup>", 1)
    assert clash != page2
    forum.add_discuz_page("23", 1, (DISCUZ / "vote-p1.html").read_bytes())
    forum.add_discuz_page("23", 2, clash.encode())
    with pytest.raises(ParseError, match=r"both claim floor 12; the pages disagree"):
        read_one(forum.url("thread-23-1-1.html"))


# -- 5 and 6. nothing raw on the terminal; names are never markup ---------------------------

HOSTILE = {
    "esc": "\x1b]0;pwned\x07影",
    "markup": "[red]红[/red]",
    "link": "[link=http://evil.example]链[/link]",
    "close": "[/b]",
}


def hostile_game(forum, tmp_path) -> tuple[str, str]:
    t = Pages("102", "投票帖\x1b[2J", {})
    t.add(P("导演A", "2024-05-08 09:30:00", "投票格式"))
    for i, name in enumerate(HOSTILE.values()):
        t.add(
            P(
                name,
                f"2024-05-08 1{i}:00:00",
                f"投票对象：{HOSTILE['esc']}\n投票理由：\x1b[31m红\x9b0m",
            )
        )
    url = t.serve(forum)
    players = ", ".join(json.dumps(n) for n in HOSTILE.values())  # TOML accepts JSON's escapes
    path = tmp_path / "game.toml"
    # Literal TOML (not tests/gamefiles.py): the hostile names as JSON's escapes write them.
    path.write_text(
        f"""directors = ["导演A"]
players = [{players}]
[[days]]
day = 2
opens = 2024-05-08T09:30:00
closes = 2024-05-09T21:30:00
vote = "{url}"
""",
        encoding="utf-8",
    )
    return url, str(path)


def test_control_sequences_never_reach_the_terminal_raw(forum, tmp_path):
    url, game = hostile_game(forum, tmp_path)
    for markup in ("bbcode", "text"):
        result = invoke("votes", url, "--game", game, "--announce", "--format", markup, "--quiet")
        assert result.exit_code == 0, result.output
        out = result.stdout
        assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
        assert "␛]0;pwned␇影" in out and "<U+009B>" in out


def test_json_keeps_the_data_but_escapes_what_a_terminal_acts_on(forum, tmp_path):
    url, game = hostile_game(forum, tmp_path)
    result = invoke("votes", url, "--game", game, "--json", "--quiet")
    assert "\x1b" not in result.stdout and "\x9b" not in result.stdout
    data = json.loads(result.stdout)
    assert data["ballots"][0]["voter"] == HOSTILE["esc"]  # the data itself is exact


def test_names_are_never_read_as_console_markup(forum, tmp_path):
    url, game = hostile_game(forum, tmp_path)
    result = invoke("votes", url, "--game", game, "--quiet")
    assert result.exit_code == 0, result.output  # "[/b]" used to raise MarkupError
    for name in ("[red]红[/red]", "[link=http://evil.example]链[/link]", "[/b]"):
        assert name in result.stdout


# -- 7. Retry-After is read totally ---------------------------------------------------------


@pytest.mark.parametrize(
    "value,seconds",
    [
        ("7", 7.0),
        ("Wed, 21 Oct 2015 07:28:00 -0000", 0.0),  # naive: read as UTC, long past
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),
        ("٣", None),  # an Arabic-Indic digit is not an HTTP number
        ("²", None),
        ("soon", None),
        ("", None),
        ("99999999999999999999999", 1e23),  # beyond any ceiling: it stops the read
    ],
)
def test_retry_after_is_total(value, seconds):
    assert retry_after(value, datetime(2026, 1, 1, tzinfo=UTC)) == seconds


def test_retry_after_with_minus_zero_zone_is_retried(forum):
    url = serve_vote(forum)
    faults(forum, PAGE_1, [Reply(503, b"x", {"Retry-After": "Wed, 21 Oct 2015 07:28:00 -0000"})])
    assert len(read_one(url).posts) == 16


# -- 8. cookie files in any encoding, malformed lines: one sentence, no value printed ---------


def private(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    os.chmod(path, 0o600)
    return path


def test_utf16_cookie_files_are_read(tmp_path):
    line = "127.0.0.1\tFALSE\t/\tFALSE\t0\tcdb_auth\t令牌\n"
    path = private(tmp_path / "c.txt", line.encode("utf-16"))
    assert load_cookies(path).domains == frozenset({"127.0.0.1"})


def test_a_cookie_file_with_a_bad_byte_is_one_sentence(tmp_path):
    path = private(tmp_path / "c.txt", b"x.com\tFALSE\t/\tFALSE\t0\ta\t\xff\xfe\xfa\n")
    result = invoke("archive", "https://x.com/thread-1-1-1.html", "--cookies", str(path))
    assert "is not UTF-8 text (byte 24 is not)" in one_sentence(result, 2)


def test_a_malformed_cookie_line_is_one_sentence_without_its_value(tmp_path, recwarn):
    path = private(tmp_path / "c.txt", b"x.com\tFALSE\t/\tsecret-login-token\n")
    result = invoke("archive", "https://x.com/thread-1-1-1.html", "--cookies", str(path))
    message = one_sentence(result, 2)
    assert "line 1 is not a cookie line (7 fields separated by tabs, found 4)" in message
    assert "secret-login-token" not in result.output
    assert not recwarn.list


# -- 9. numbers, time zones, URLs and a BOM in the game file ---------------------------------


@pytest.mark.parametrize(
    "line,message",
    [
        ('weights = { "Mika" = nan }', "must be a finite number, not nan"),
        ('weights = { "Mika" = inf }', "must be a finite number, not inf"),
        ('weights = { "Mika" = 1e999999999 }', "must be a finite number, not inf"),
        ('weights = { "Mika" = "1e999999999" }', r"must be between 0 and 100, not 1E\+999999999"),
    ],
)
def test_game_file_numbers_are_finite_and_bounded(line, message):
    text = DEMO + line + "\n"
    with pytest.raises(GameFileError, match="key 'day 2.weights.Mika': " + message):
        parse_game(text, source="game.toml")


@pytest.mark.parametrize("rule", ["sheriff_weight = nan", "slander_bonus = inf"])
def test_rule_numbers_are_finite(rule):
    text = DEMO + f"\n[rules]\n{rule}\n"
    with pytest.raises(GameFileError, match=f"key 'rules.{rule.split()[0]}': must be a finite"):
        parse_game(text, source="game.toml")


def test_rule_whole_numbers_are_bounded():
    text = DEMO + "\n[rules]\nchange_window_minutes = 10000000000\n"
    with pytest.raises(GameFileError, match="a whole number from 0 to 1,000,000"):
        parse_game(text, source="game.toml")


def test_a_very_long_time_zone_is_one_sentence():
    text = DEMO.replace('"Asia/Shanghai"', json.dumps("A" * 300))
    with pytest.raises(GameFileError, match="key 'timezone': 'AAAA"):
        parse_game(text, source="game.toml")


def test_a_url_with_a_bad_ipv6_host_is_one_sentence():
    result = invoke("archive", "http://[::1/thread-1-1-1.html")
    assert "is not a URL tally can read (Invalid IPv6 URL)" in one_sentence(result, 2)


def test_a_game_file_with_a_bom_loads(tmp_path):
    path = tmp_path / "game.toml"
    path.write_bytes(b"\xef\xbb\xbf" + DEMO.encode())
    from tally.rules.game.gamefile import load_game

    assert load_game(path).name == "[D01] 月下古堡（示例）"


# -- 10. a damaged cache index is an empty cache ------------------------------------------


@pytest.mark.parametrize(
    "index",
    [
        {"": 5},
        {"": {"page_count": True}},
        ["a", "list"],
        {"": {"page_count": 2}, "URL": ["a list entry"]},
        # A time without a zone used to meet the close (aware) in a comparison: TypeError.
        {
            "": {"page_count": 2},
            "URL": {"fetched_at": "2030-01-01T10:00:00", "sha256": "SHA", "content_type": None},
        },
    ],
)
def test_a_damaged_cache_index_is_never_used(forum, tmp_path, index):
    url = serve_vote(forum)
    read_one(url, cache_dir=tmp_path)
    [folder] = tmp_path.iterdir()
    stored = json.loads((folder / "index.json").read_text())
    page1 = next(k for k in stored if k.endswith("page=1"))
    text = json.dumps(index).replace("URL", page1).replace("SHA", stored[page1]["sha256"])
    (folder / "index.json").write_text(text)
    forum.requests.clear()
    close = datetime(2024, 1, 1, tzinfo=UTC)
    assert len(read_one(url, cache_dir=tmp_path, not_before=close).posts) == 16
    assert "/forum.php?mod=viewthread&tid=23&page=1" in forum.page_requests


# -- 11. no hang: a deadline per request ----------------------------------------------------


class Ticking:
    """A monotonic clock that moves on a step each time it is read: a body read a chunk at a
    time takes "time" without taking any, so a deadline is met or missed for sure."""

    def __init__(self, step: float):
        self.t, self.step = 0.0, step

    def __call__(self) -> float:
        self.t += self.step
        return self.t


@pytest.mark.parametrize("fault", ["trickle", "endless"])
def test_a_body_that_never_ends_is_cut_at_the_deadline(forum, fault):
    url = serve_vote(forum)
    body = (DISCUZ / "vote-p1.html").read_bytes()
    faults(forum, PAGE_1, [Reply(200, body, fault=fault, interval=0.001)] * 2)
    # Each chunk read moves the clock 0.05 s: the 0.3 s deadline passes after a few chunks.
    env = Environment(http=HttpOptions(deadline=0.3, attempts=2), monotonic=Ticking(0.05),
                      sleep=lambda _: None, cache_dir=FOLDERS.cache)  # fmt: skip
    with pytest.raises(
        FetchError, match=r"gave up after 2 attempts \(last: no whole answer within 0 s"
    ):
        read_one(url, env=env)


def test_a_slow_body_within_the_deadline_is_read(forum):
    url = serve_vote(forum)
    body = (DISCUZ / "vote-p2.html").read_bytes()
    # The first page is read whole; a second, trickled read is cut and read again.
    faults(forum, "page=2", [Reply(200, body, fault="trickle", interval=0.001)])
    env = Environment(http=HttpOptions(deadline=0.3), monotonic=Ticking(0.05),
                      sleep=lambda _: None, cache_dir=FOLDERS.cache)  # fmt: skip
    assert len(read_one(url, env=env).posts) == 16


# -- 12. a cut is decided on bytes, and fetched again ---------------------------------------


def cut_inside_a_character(body: bytes) -> bytes:
    at = body.index("投票".encode()) + 1  # one byte into a three-byte character
    return body[:at]


@pytest.mark.parametrize(
    "cut",
    [cut_inside_a_character, lambda b: b[:240], lambda b: b""],
    ids=["inside a character", "first 240 bytes", "empty"],
)
def test_a_cut_body_is_fetched_again(forum, cut):
    url = serve_vote(forum)
    body = (DISCUZ / "vote-p2.html").read_bytes()
    faults(forum, "page=2", [Reply(200, cut(body))])
    assert len(read_one(url).posts) == 16
    assert forum.page_requests.count("/forum.php?mod=viewthread&tid=23&page=2") == 2


def test_a_body_always_cut_is_a_truncated_page(forum):
    url = serve_vote(forum)
    faults(forum, "page=2", [Reply(200, b"")] * 3)
    with pytest.raises(TruncatedPageError, match=r"ends before the forum finished the page"):
        read_one(url)


# -- 13. one bad byte, raw deflate, robots on redirects, where a gap is ----------------------


def test_one_invalid_byte_is_read_and_its_ballot_flagged(forum, tmp_path):
    page2 = (DISCUZ / "vote-p2.html").read_bytes()
    target = "投票对象：长夜".encode()
    assert target in page2
    damaged = page2.replace(target, target[:-2] + b"\xff" + target[-1:], 1)
    forum.add_discuz_page("23", 1, (DISCUZ / "vote-p1.html").read_bytes())
    forum.add_discuz_page("23", 2, damaged)
    url = forum.url("thread-23-1-1.html")
    thread = read_one(url)
    assert len(thread.posts) == 16
    [hit] = [p for p in thread.posts if "\ufffd" in p.text]
    game = tmp_path / "g.toml"
    game.write_text(sample_game_text(forum.base))
    data = json.loads(invoke("votes", url, "--game", str(game), "--json", "--quiet").stdout)
    flagged = [f for f in data["flags"] if f["rule"] == "damaged"]
    assert [f["floor"] for f in flagged] == [hit.floor]
    assert "check this ballot on the forum" in flagged[0]["note"]


def test_many_invalid_bytes_are_still_an_error(forum):
    page2 = (DISCUZ / "vote-p2.html").read_bytes().replace(b"<div", b"\xff<div")
    forum.add_discuz_page("23", 1, (DISCUZ / "vote-p1.html").read_bytes())
    forum.add_discuz_page("23", 2, page2)
    with pytest.raises(ParseError, match=r"is not valid utf-8 \(\d+ bad byte sequences"):
        read_one(forum.url("thread-23-1-1.html"))


@pytest.mark.parametrize("wbits", [-zlib.MAX_WBITS, zlib.MAX_WBITS], ids=["raw", "zlib"])
def test_deflate_raw_and_wrapped_are_read(forum, wbits):
    url = serve_vote(forum)
    body = (DISCUZ / "vote-p2.html").read_bytes()
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    packed = packer.compress(body) + packer.flush()
    headers = {"Content-Type": "text/html; charset=utf-8", "Content-Encoding": "deflate"}
    faults(forum, "page=2", [Reply(200, packed, headers)])
    assert len(read_one(url).posts) == 16


def test_robots_txt_is_asked_for_a_redirects_target(forum):
    with local_forum() as other:
        other.add("robots.txt", Reply(200, b"User-agent: *\nDisallow: /forum.php\n"))
        other.add_discuz_thread("23", DISCUZ, "vote")
        target = other.url("forum.php?mod=viewthread&tid=23&page=1").replace(
            "127.0.0.1", "localhost"
        )
        forum.add_discuz_page("23", 1, b"", status=302, headers={"Location": target})
        with pytest.raises(
            FetchError, match=r"robots\.txt does not allow tally to read http://localhost"
        ):
            read_one(forum.url("thread-23-1-1.html"))
        assert not [r for r in other.requests if r.startswith("/forum.php")]


def test_a_gap_on_page_one_is_reported_as_page_one(forum):
    t = Pages("40", "投票帖", {})
    t.add(*(P(f"玩家{i}", f"2024-05-08 10:{i:02d}:00", "投票对象：甲") for i in range(15)))
    pages = t.pages()
    page1 = pages[0].decode()
    start = page1.index('<div id="post_2004" >')
    end = page1.index('<div id="post_2005" >')
    forum.add_discuz_page("40", 1, (page1[:start] + page1[end:]).encode())
    forum.add_discuz_page("40", 2, pages[1])
    with pytest.raises(FetchError, match=r"page 1 may be incomplete"):
        read_one(forum.url("thread-40-1-1.html"))


# -- 14. a cache that cannot be written; files keep their mode -------------------------------


def test_an_unwritable_cache_is_skipped_with_one_warning(forum, tmp_path):
    # A file where the cache folder should be: unwritable for root too (CI runs as root,
    # which ignores a folder's read-only mode).
    root = tmp_path / "cache"
    root.write_text("not a folder")
    url = serve_vote(forum)
    said: list[str] = []
    assert len(read_one(url, cache_dir=root, warn=said.append).posts) == 16
    assert len(said) == 1 and said[0].startswith("the page cache cannot be written (")
    assert said[0].endswith("going on without it, so the next run fetches every page again.")


def test_rewritten_files_keep_their_mode(tmp_path):
    from tally.atomic import write_atomic

    path = tmp_path / "ledger.csv"
    path.write_text("old")
    path.chmod(0o644)
    write_atomic(path, b"new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644 and path.read_bytes() == b"new"
    fresh = tmp_path / "fresh.csv"
    write_atomic(fresh, b"x")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask


def test_the_cli_goes_on_without_an_unwritable_cache(forum, tmp_path):
    url = serve_vote(forum)
    blocked = tmp_path / "cache"
    blocked.write_text("x")
    result = invoke("archive", url, "-o", str(tmp_path / "x.csv"), "--cache-dir", str(blocked))
    assert result.exit_code == 0, result.output
    assert result.stderr.count("tally: warning: the page cache cannot be written") == 1


# -- 15. deep nesting is capped before lexbor sees it ---------------------------------------


def test_deep_nesting_is_capped_and_its_text_kept():
    from tally.forums.htmltext import MAX_DEPTH, html_tree, node_text

    page = (DISCUZ / "vote-p2.html").read_text(encoding="utf-8")
    body = page.index('id="postmessage_')
    at = page.index(">", body) + 1
    deep = page[:at] + "<div>" * 100_000 + "投票对象：深" + "</div>" * 100_000 + page[at:]
    tree = html_tree(deep)
    node, depth = tree.css_first("[id^='postmessage_']"), 0
    while node.child is not None and node.child.tag == "div":
        node, depth = node.child, depth + 1
    assert depth <= MAX_DEPTH
    assert "投票对象：深" in node_text(tree.css_first("[id^='postmessage_']"))
    posts = Discuz().pages.parse_page(deep, CHINA, source="deep").posts
    assert any("投票对象：深" in p.text for p in posts)


def test_shallow_pages_are_not_touched():
    from tally.forums.htmltext import flatten_deep

    page = (DISCUZ / "talk-p2.html").read_text(encoding="utf-8")
    assert flatten_deep(page) == page


def test_a_retry_after_of_ten_to_the_thirty_stops_the_read(forum):
    """Beyond the ceiling, as docs/reading.md says: one sentence now, not a wait ignored."""
    url = serve_vote(forum)
    faults(forum, PAGE_1, [Reply(503, b"busy", {"Retry-After": "1" + "0" * 30})])
    with pytest.raises(FetchError, match=r"asks tally to come back in .* longer than the 120 s"):
        read_one(url)


def test_a_pages_deadline_holds_across_its_retries(forum):
    """Four attempts of an endless trickle used to take four deadlines; the page's deadline
    in all stops them, retries and waits included."""
    url = serve_vote(forum)
    body = (DISCUZ / "vote-p1.html").read_bytes()
    faults(forum, PAGE_1, [Reply(200, body, fault="endless", interval=0.001)] * 4)
    clock = Ticking(0.05)
    env = Environment(http=HttpOptions(deadline=0.3, total_deadline=0.5, attempts=4),
                      monotonic=clock, sleep=lambda _: None, cache_dir=FOLDERS.cache)  # fmt: skip
    with pytest.raises(FetchError, match=r"gave up after [12] attempts?, \d+ s in all"):
        read_one(url, env=env)
    assert clock.t < 1.5  # not 4 × 0.3 s of reading plus the waits
