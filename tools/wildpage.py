"""Make a fixture from a real saved page of a board: every text a user wrote (names, post
bodies, signatures, 点评, the thread's title) replaced by made-up text of the same shape,
everything the forum wrote kept byte for byte (tags, attributes, classes, ids, scripts,
white space, uids, pids, times, floor labels), the page written back in its own charset.

    python tools/wildpage.py SAVED.html OUT.html --repo OWNER/NAME --path PATH \\
        --commit SHA --licence MIT [--note "what was trimmed"]

The source is recorded in the README.md beside OUT (one line per page made). The made-up
text is deterministic: the same page gives the same fixture, so a fixture can be made
again and compared. Only text is touched: a name is replaced wherever it stands in text
(and in alt/title attributes), the same way each time, so the page's authors stay one
account each; the text inside a post body is replaced character by character (a CJK
character by another, a letter by a letter, a digit by a digit; punctuation, white space
and entities kept), except Discuz!'s own words inside it (the edit mark, a quote's header).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from tally.forums.charset import charset_of

# Characters the same in simplified and traditional Chinese, in GB2312 and in Big5: the
# made-up text encodes in the page's own charset whatever it is.
_HAN = (
    "一二三四五六七八九十人大小中上下天日月山水火木土石田目口手心白由甲申公子女王今古本末名"
    "文字同合千百方正主工生用力米平安半去可北南西"
)
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_UPPER = _LOWER.upper()
_DIGITS = "0123456789"

# One token of a page: a comment, a script or style element whole, a tag, or text.
_TOKEN = re.compile(
    r"<!--.*?-->|<script\b.*?</script\s*>|<style\b.*?</style\s*>|<[^>]*>|[^<]+|<",
    re.S | re.I,
)
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)", re.S)
_ATTR = re.compile(r"""([\w:-]+)\s*=\s*("[^"]*"|'[^']*'|[^\s>"']+)""")
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|\w+);")
# Kept as they are: entities (markup), and times (the forum's: a 点评's, a quote header's).
_ENTITY_KEPT = re.compile(
    r"(&(?:#\d+|#x[0-9a-fA-F]+|\w+);|\d{4}-\d{1,2}-\d{1,2}(?:\s+\d{1,2}:\d{2}(?::\d{2})?)?)"
)
_FEATURE = re.compile(r"[?&;](?:do=(?!profile)|view=|type=)")
_WORDY = re.compile(r"[A-Za-z\u3400-\u9fff]")
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_PROFILE = re.compile(
    r"home\.php\?mod=space(?=&|\"|$)|space\.php\?|space-uid-\d+|space-username-|/space/uid/"
)

# Where users write: a post's body (every version's id and class for it), its signature,
# the 点评 under it, the thread's title.
_USER_ID = re.compile(r"^(?:postmessage_\d+|thread_subject|comment_\d+)$")
_USER_CLASS = frozenset(
    {
        "t_f",
        "t_msgfont",
        "postmessage",
        "sign",
        "psti",
        "signatures",
        "message",
        "customstatus",
        "lzl_content_main",
    }
)
# Discuz!'s own words inside a body: its edit mark, a quote's "X 发表于 T" header link,
# the reply header's floor link.
_FORUM_CLASS = frozenset({"pstatus"})
# The editor in an edit mark, in the language packs tally knows the words of.
_EDITOR = re.compile(r"(本帖最[后後]由\s+|edited by\s+)(\S+)(\s+(?:[于於]|at)\s)")
# "本帖最后由 NAME 于 TIME 编辑" (and Big5's), as Discuz! 6/7 writes it into the post.
_EDIT_MARK = re.compile(r"\s*本帖最[后後]由\s+(?P<by>\S+)\s+[于於]\s+[\d: -]+\s*[编編][辑輯]\s*$")
_CONTENT = re.compile(r'content="([^"]*)"')
_META_USER = re.compile(r"""<meta\s+name=["'](?:keywords|description)["']""", re.I)


def made_up(text: str, salt: str) -> str:
    """``text`` with every CJK character, letter and digit replaced, deterministically;
    white space, punctuation and HTML entities kept."""
    seed = hashlib.sha256((salt + "\0" + text).encode("utf-8")).digest()
    out: list[str] = []
    position = 0
    for i, piece in enumerate(_ENTITY_KEPT.split(text)):
        if i % 2:
            out.append(piece)  # an entity or a time, kept
            continue
        for ch in piece:
            k = seed[position % len(seed)] + position
            position += 1
            if "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf":
                out.append(_HAN[k % len(_HAN)])
            elif ch in _LOWER:
                out.append(_LOWER[k % 26])
            elif ch in _UPPER:
                out.append(_UPPER[k % 26])
            elif ch in _DIGITS:
                out.append(_DIGITS[k % 10])
            else:
                out.append(ch)
    return "".join(out)


@dataclass
class _Open:
    tag: str
    user: bool
    forum: bool


def tokens(text: str) -> Iterator[str]:
    for m in _TOKEN.finditer(text):
        yield m.group(0)


def names_of(text: str) -> list[str]:
    """The names the page shows in links to members' profiles (what users chose)."""
    found: set[str] = set()
    in_link = 0
    hidden = 0
    counting = False  # inside a link to a member's threads or friends: its text is a count
    plain = False
    stack: list[tuple[str, bool, bool]] = []
    for token in tokens(text):
        if token.startswith("<"):
            m = _TAG.match(token)
            if m is None or token.startswith(("<!", "<script", "<style")):
                continue
            closing, name = m.group(1), m.group(2).lower()
            if closing:
                while stack:
                    tag, link, hid = stack.pop()
                    in_link -= link
                    hidden -= hid
                    if tag == name:
                        break
                continue
            if name in _VOID or token.endswith("/>"):
                continue
            attrs = dict((k.lower(), v.strip("\"'")) for k, v in _ATTR.findall(token))
            # A profile link, or Discuz! 6/7's own account in its header (a#viewpro).
            link = name == "a" and (
                bool(_PROFILE.search(attrs.get("href", ""))) or attrs.get("id") == "viewpro"
            )
            hid = "display_none" in attrs.get("class", "").split()
            if link:
                # A member's threads, friends, messages: the forum's words or a count.
                counting = bool(_FEATURE.search(attrs.get("href", "")))
                # A user card's do=profile links also hold its counts (积分 44712).
                plain = "do=profile" in attrs.get("href", "")
            stack.append((name, link, hid))
            in_link += link
            hidden += hid
        elif in_link and not hidden:
            name = token.strip()
            # A link's count ("12" posts, home.php?mod=space&uid=N&do=thread) or a sign is
            # the forum's, not a name; a name may be all digits (a QQ number).
            if name.isdigit():  # a QQ number as a name, in a plain profile link only
                named = len(name) > 3 and not plain
            else:
                named = bool(_WORDY.search(name)) and not _forum_words(name)
            if named and not counting:
                found.add(name)
    return sorted(found, key=len, reverse=True)


# A word starts after a character that is not part of one, or after a percent escape.
_WORD_START = r"(?:(?<![A-Za-z0-9_])|(?<=%[0-9A-Fa-f]{2}))"


# Discuz!'s own words in links to a member's profile, and counts ("4万", "12").
_LINK_WORDS = frozenset(
    {"查看详细资料", "查看个人网站", "个人资料", "发消息", "加为好友", "打招呼", "发短消息"}
)
_COUNT = re.compile(r"^[\d.,]+\s*[万千亿kKwW]?$")


def _forum_words(text: str) -> bool:
    return text in _LINK_WORDS or bool(_COUNT.match(text)) or bool(_ENTITY.fullmatch(text))


def _word(name: str) -> str:
    """A name as a pattern: a Latin name or number only as a whole word ("2019" is not in
    "2019-8-2 00:20", "ab" not in "table"); a CJK one wherever it stands."""
    escaped = re.escape(name)
    if name[:1].isascii() and name[:1].isalnum():
        escaped = rf"(?<![A-Za-z0-9_-]){escaped}"
    if name[-1:].isascii() and name[-1:].isalnum():
        escaped = rf"{escaped}(?![A-Za-z0-9_-])"
    return escaped


class Replacer:
    def __init__(self, names: list[str], subject: str | None, encoding: str = "utf-8"):
        self.map = {n: made_up(n, "name") for n in names}
        if subject:
            self.map[subject] = made_up(subject, "title")
        self._pattern = (
            re.compile("|".join(_word(k) for k in sorted(self.map, key=len, reverse=True)))
            if self.map
            else None
        )
        # In links and handlers a name stands as it is or percent-encoded (in the page's
        # charset and in UTF-8), and only as a whole word: "forum" in forum.php is no name.
        self.attr_map: dict[str, str] = {}
        for name, fake in self.map.items():
            if len(name) < 2:
                continue
            self.attr_map[name] = fake
            for charset in {encoding, "utf-8"}:
                try:
                    self.attr_map[quote(name, encoding=charset)] = quote(fake, encoding=charset)
                except UnicodeEncodeError:
                    continue
        keys = sorted(self.attr_map, key=len, reverse=True)
        self._attr_pattern = (
            re.compile("|".join(rf"{_WORD_START}{re.escape(k)}(?![A-Za-z0-9_])" for k in keys))
            if keys
            else None
        )

    def attribute(self, value: str) -> str:
        if self._attr_pattern is None:
            return value
        return self._attr_pattern.sub(lambda m: self.attr_map[m.group(0)], value)

    def mark(self, text: str) -> str:
        """Discuz!'s own words inside a post (its edit mark): kept, but the editor's name
        made up as every name is, even one the page shows nowhere else (a moderator)."""
        out, last = [], 0
        for m in _EDITOR.finditer(text):
            editor = self.map.get(m[2]) or made_up(m[2], "name")
            out += [self.names(text[last : m.start()]), m[1], editor, m[3]]
            last = m.end()
        out.append(self.names(text[last:]))
        return "".join(out)

    def post(self, text: str) -> str:
        if _EDIT_MARK.match(text):  # Discuz! 6/7's edit mark, a plain <i> in the post
            return self.mark(text)
        if self._pattern is None:
            return made_up(text, "body")
        out, last = [], 0
        for m in self._pattern.finditer(text):
            out += [made_up(text[last : m.start()], "body"), self.map[m.group(0)]]
            last = m.end()
        out.append(made_up(text[last:], "body"))
        return "".join(out)

    def names(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: self.map[m.group(0)], text)


def _subject(text: str) -> str | None:
    """The thread's title as the page shows it (X2 and later: #thread_subject; Discuz! 6/7:
    the last words of the h1 in div.mainbox.viewthread)."""
    m = re.search(r'id="thread_subject"[^>]*>([^<]+)<', text) or re.search(
        r'class="mainbox viewthread">.*?<h1>(?:<a [^>]*>[^<]*</a>)?([^<]+)</h1>', text, re.S
    )
    return m.group(1).strip() or None if m else None


# Attributes that may hold a name or a title: what a reader sees (alt, title, value) and
# links and handlers that carry one (a search for it, 回复 NAME, a magic's target).
_NAMED_ATTRS = frozenset({"alt", "title", "value", "href", "onclick", "onmouseover"})


def _attrs_named(token: str, replacer: Replacer) -> str:
    """A tag with the names in those attributes replaced; the rest as it was."""

    def one(m: re.Match[str]) -> str:
        if m.group(1).lower() not in _NAMED_ATTRS:
            return m.group(0)
        return m.group(1) + "=" + replacer.attribute(m.group(2))

    return _ATTR.sub(one, token)


def anonymise(
    text: str,
    *,
    also: tuple[str, ...] = (),
    names: tuple[str, ...] = (),
    encoding: str = "utf-8",
) -> str:
    """The page ``text`` with what its users wrote made up (see the module's docstring).
    ``also``: ids or classes of more places users write on this board (an announcement,
    a theme's own signature box); ``names``: more names to replace (the saver's own
    account in the header, written without a profile link)."""
    found = sorted({*names_of(text), *names}, key=len, reverse=True)
    replacer = Replacer(found, _subject(text), encoding)
    out: list[str] = []
    stack: list[_Open] = []
    for token in tokens(text):
        user = any(o.user for o in stack) and not any(o.forum for o in stack)
        if not token.startswith("<") or token == "<":
            # A name in a post (a ballot's target, an @mention) is made up as the name is
            # everywhere; the rest of the post character by character.
            inside_mark = any(o.forum for o in stack) and any(o.user for o in stack)
            if user:
                out.append(replacer.post(token))
            else:
                out.append(replacer.mark(token) if inside_mark else replacer.names(token))
            continue
        if token.startswith(("<!--", "<script", "<style", "<!", "<?")):
            out.append(token)
            continue
        m = _TAG.match(token)
        if m is None:
            out.append(token)
            continue
        closing, name = m.group(1), m.group(2).lower()
        if closing:
            if any(o.tag == name for o in stack):
                while stack and stack.pop().tag != name:
                    pass
            out.append(token)
            continue
        if _META_USER.match(token):
            # The title and the opening post's first words, as the forum copies them.
            out.append(_CONTENT.sub(lambda c: f'content="{made_up(c[1], "meta")}"', token))
            continue
        out.append(_attrs_named(token, replacer))
        if name in _VOID or token.endswith("/>"):
            continue
        attrs = dict((k.lower(), v.strip("\"'")) for k, v in _ATTR.findall(token))
        classes = set(attrs.get("class", "").split())
        href = attrs.get("href", "")
        stack.append(
            _Open(
                name,
                user=bool(_USER_ID.match(attrs.get("id", "")))
                or bool(classes & _USER_CLASS)
                or attrs.get("id", "") in also
                or bool(classes & set(also)),
                forum=bool(classes & _FORUM_CLASS) or (user and "findpost" in href),
            )
        )
    return "".join(out)


def make(
    source: Path, out: Path, *, also: tuple[str, ...] = (), names: tuple[str, ...] = ()
) -> None:
    body = source.read_bytes()
    encoding = charset_of(body)  # as tally reads it: GBK pages as GB18030
    bom = body.startswith(b"\xef\xbb\xbf")
    text = body[3:].decode(encoding) if bom else body.decode(encoding)
    made = anonymise(text, also=also, names=names, encoding=encoding).encode(encoding)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes((b"\xef\xbb\xbf" if bom else b"") + made)


def record(out: Path, repo: str, path: str, commit: str, licence: str, note: str) -> None:
    """One line per page in the README beside ``out``: where the real page came from."""
    readme = out.parent / "README.md"
    head = (
        "# Source of these pages\n\nMade by `tools/wildpage.py` from real saved pages: every "
        "user-written text replaced, the markup kept byte for byte.\n\n"
        "| page | repository | path | commit | licence | note |\n|---|---|---|---|---|---|\n"
    )
    lines = [head]
    if readme.exists():
        lines = readme.read_text(encoding="utf-8").splitlines(keepends=True)
    mine = f"| `{out.name}` | {repo} | `{path}` | {commit} | {licence} | {note} |\n"
    lines = [line for line in lines if not line.startswith(f"| `{out.name}` |")] + [mine]
    readme.write_text("".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--path", required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--licence", required=True)
    parser.add_argument("--note", default="")
    parser.add_argument("--also", action="append", default=[], help="an id or class users write in")
    parser.add_argument("--name", action="append", default=[], help="a name to replace too")
    args = parser.parse_args(argv)
    make(args.source, args.out, also=tuple(args.also), names=tuple(args.name))
    record(args.out, args.repo, args.path, args.commit, args.licence, args.note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
