"""tools/wildpage.py: a fixture from a real page keeps the forum's markup byte for byte and
replaces what users wrote (fixtures/discuz-wild/ are made with it)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from tally.forums.discuz import Discuz

from .conftest import CHINA, FIXTURES

_SPEC = importlib.util.spec_from_file_location(
    "wildpage", Path(__file__).parent.parent / "tools" / "wildpage.py"
)
assert _SPEC is not None and _SPEC.loader is not None
wildpage = importlib.util.module_from_spec(_SPEC)
sys.modules["wildpage"] = wildpage
_SPEC.loader.exec_module(wildpage)

REAL = FIXTURES / "discuz" / "vote-p1.html"  # rendered by the real X3.5
GBK = FIXTURES / "discuz-wild" / "d7-gbk" / "p1.html"
_TAG = re.compile(r"<[^>]*>")
# What the tool may change inside a tag: names in alt and title, the meta copy of the title.
_USER_ATTRS = re.compile(r'\s(?:alt|title|content)="[^"]*"')


def made(path: Path, tmp_path: Path) -> Path:
    out = tmp_path / path.name
    wildpage.main([str(path), str(out), "--repo", "o/r", "--path", "p.html", "--commit",
                   "abc123", "--licence", "MIT", "--note", "one page"])  # fmt: skip
    return out


def parsed(path: Path):
    from tally.forums.charset import decode_page

    text = decode_page(path.read_bytes(), None, source=str(path))
    return Discuz().pages.parse_saved(text, CHINA, source=str(path))


def test_every_tag_script_and_space_is_kept(tmp_path):
    before = REAL.read_text(encoding="utf-8")
    after = made(REAL, tmp_path).read_text(encoding="utf-8")
    assert len(after) == len(before)
    tags_before, tags_after = _TAG.findall(before), _TAG.findall(after)
    assert len(tags_before) == len(tags_after)
    for a, b in zip(tags_before, tags_after, strict=True):
        assert _USER_ATTRS.sub("", a) == _USER_ATTRS.sub("", b)
    scripts = re.compile(r"<script\b.*?</script>", re.S)
    assert scripts.findall(before) == scripts.findall(after)
    # White space stands where it stood.
    assert [m.start() for m in re.finditer(r"\s", before)] == [
        m.start() for m in re.finditer(r"\s", after)
    ]


def test_the_forums_fields_are_kept_and_the_users_words_are_not(tmp_path):
    before, after = parsed(REAL), parsed(made(REAL, tmp_path))
    assert (after.thread_id, after.page, after.page_count, after.reply_count) == (
        before.thread_id, before.page, before.page_count, before.reply_count,
    )  # fmt: skip
    names: dict[str, str] = {}
    for a, b in zip(before.posts, after.posts, strict=True):
        assert (a.post_id, a.floor, a.author_id, a.time) == (
            b.post_id,
            b.floor,
            b.author_id,
            b.time,
        )
        assert (a.edited.at if a.edited else None) == (b.edited.at if b.edited else None)
        assert b.author != a.author and len(b.author) == len(a.author)
        # One account, one made-up name, on every floor.
        assert names.setdefault(a.author_id, b.author) == b.author
        assert b.text != a.text and len(b.text) == len(a.text)
        assert [(c.author_id, c.time) for c in a.comments] == [
            (c.author_id, c.time) for c in b.comments
        ]
    assert after.title != before.title
    for post in before.posts:
        assert post.author not in after_text(tmp_path)


def after_text(tmp_path: Path) -> str:
    return (tmp_path / REAL.name).read_text(encoding="utf-8")


def test_a_gbk_page_is_written_back_in_gbk(tmp_path):
    out = made(GBK, tmp_path)
    body = out.read_bytes()
    with pytest.raises(UnicodeDecodeError, match="'utf-8' codec can't decode byte"):
        body.decode("utf-8")
    assert len(body) == len(GBK.read_bytes())
    before, after = parsed(GBK), parsed(out)
    assert [(p.post_id, p.floor, p.time) for p in before.posts] == [
        (p.post_id, p.floor, p.time) for p in after.posts
    ]
    assert [p.author for p in before.posts] != [p.author for p in after.posts]


def test_the_same_page_gives_the_same_fixture_and_its_source_is_recorded(tmp_path):
    first = made(REAL, tmp_path).read_bytes()
    again = tmp_path / "again"
    again.mkdir()
    assert made(REAL, again).read_bytes() == first
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "| `vote-p1.html` | o/r | `p.html` | abc123 | MIT | one page |" in readme
    made(REAL, tmp_path)  # made again: one line still
    assert (tmp_path / "README.md").read_text(encoding="utf-8").count("vote-p1.html") == 1


def test_hidden_labels_stay_and_only_the_name_is_made_up():
    page = (
        '<html><head><meta charset="utf-8"></head><body><div id="post_5">'
        '<a href="space-uid-1.html" class="xi2"><em class="display_none">作者：</em>admin</a>'
        '<td class="t_f" id="postmessage_5">投票 admin 理由</td></div></body></html>'
    )
    out = wildpage.anonymise(page)
    assert '<em class="display_none">作者：</em>' in out
    fake = wildpage.made_up("admin", "name")
    assert f"</em>{fake}</a>" in out and "admin" not in out
    assert f" {fake} " in out  # the ballot names the same made-up account


def test_names_in_links_handlers_and_楼中楼_are_made_up_and_counts_kept():
    """As the real TalkOP page holds them: an all-digit name, a name in a reply button's
    handler and percent-encoded in a link, a 楼中楼 reply; a count in a link stays."""
    page = (
        '<html><head><meta charset="utf-8"></head><body>'
        '<a href="home.php?mod=space&amp;uid=7">1696907775</a>'
        '<a href="home.php?mod=space&amp;uid=8">kingkingchou</a>'
        '<a href="home.php?mod=space&amp;uid=8&amp;do=thread">1234</a>'
        '<a href="javascript:;" onclick="lchfckDiv(this,&#39;7&#39;,&#39;kingkingchou&#39;)">回复</a>'
        '<a href="home.php?mod=magic&amp;id=%3Cfont%3Ekingkingchou%3C%2Ffont%3E">x</a>'
        '<span class="lzl_content_main">厉害了</span>'
        "<p>2026-3-5 1696907775 uid=1696907775x</p></body></html>"
    )
    out = wildpage.anonymise(page)
    assert "kingkingchou" not in out and "厉害了" not in out
    assert out.count("1696907775") == 1  # only inside the longer word, not a name there
    assert ">1234</a>" in out and "2026-3-5" in out
    fake = wildpage.made_up("kingkingchou", "name")
    assert f"&#39;{fake}&#39;" in out and f"%3E{fake}%3C" in out


def test_an_editor_named_only_in_the_edit_mark_is_made_up_and_the_marks_words_kept():
    """A moderator's edit: their name stands nowhere else on the page."""
    page = (
        '<html><head><meta charset="utf-8"></head><body>'
        '<a href="space-uid-3.html" class="xw1">作者甲</a>'
        '<td class="t_f" id="postmessage_9"><i class="pstatus"> 本帖最后由 版主乙 于 2018-10-4 19:28'
        " 编辑 </i><br />投票：作者甲</td>"
        '<td class="t_f" id="postmessage_10"><i class="pstatus"> 本帖最后由 作者甲 于 2018-10-4 19:30'
        " 编辑 </i></td></body></html>"
    )
    out = wildpage.anonymise(page)
    assert "版主乙" not in out
    editor, author = wildpage.made_up("版主乙", "name"), wildpage.made_up("作者甲", "name")
    assert f"本帖最后由 {editor} 于 2018-10-4 19:28 编辑" in out
    assert f"本帖最后由 {author} 于 2018-10-4 19:30 编辑" in out
