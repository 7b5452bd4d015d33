"""The Chinese README and the director's guide in docs/zh/ (issue 52): each Chinese page has
its English page and they link each other; every link of the Chinese pages leads somewhere,
headings in Chinese included; a Chinese page that falls behind its English page (an option,
a command, a game-file key or a code block it lacks) fails; docs/glossary.md's terms table
parses, its void reasons are the ones counting.md announces, and each Chinese page writes
the glossary's word where its English page uses the English one."""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path

from tally.outputs.written.rulesets_doc import with_rules_table
from tests.test_docs import DOCS, README, ROOT, documented

ZH = DOCS / "zh"
README_ZH = ROOT / "README.zh-CN.md"
GLOSSARY = DOCS / "glossary.md"
CHINESE = sorted(ZH.glob("*.md"))
# Written whole from the code; the Chinese pages link them, they cannot link back by hand.
GENERATED = {"rulesets.md", "cli.md"}
# Pages for developers stay English; the Chinese pages link them, saying (英文).
ENGLISH_ONLY = {"contributing.md", "json.md", "archive.md"}
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def prose(text: str) -> str:
    """A page without its code blocks."""
    return FENCE.sub("", text)


def spans(text: str) -> list[str]:
    """The inline code of a page, outside its code blocks."""
    return [" ".join(s.split()) for s in re.findall(r"`([^`]+)`", prose(text))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case; letters, marks and digits of any script
    kept (a Chinese heading keeps its characters), - and _ kept, spaces made hyphens, every
    other character (full-width punctuation ：，（） too) dropped."""
    kept = (
        c
        for c in heading.strip().lower()
        if c in " -" or unicodedata.category(c)[0] in "LMN" or unicodedata.category(c) == "Pc"
    )
    return "".join(kept).replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    """The anchors of a page's headings, -1, -2 … after a repeated one."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", prose(page.read_text(encoding="utf-8")), re.M):
        s = slug(heading)
        found.add(f"{s}-{seen[s]}" if s in seen else s)
        seen[s] = seen.get(s, 0) + 1
    return frozenset(found)


def links(page: Path) -> list[tuple[Path, str]]:
    """Each link of a page into the repository: its file, and its anchor or ""."""
    found = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose(page.read_text(encoding="utf-8"))):
        if not re.match(r"[a-z]+:", target):
            path, _, anchor = target.partition("#")
            found.append(((page.parent / path).resolve() if path else page, anchor))
    return found


def head(page: Path, lines: int = 5) -> list[Path]:
    """The pages a page links in its first lines."""
    top = "\n".join(page.read_text(encoding="utf-8").splitlines()[:lines])
    return [
        (page.parent / t.partition("#")[0]).resolve() for t in re.findall(r"\]\(([^)\s#]+)", top)
    ]


def test_the_slug_is_githubs_for_chinese_headings():
    assert slug("规则：`[rules]`") == "规则rules"
    assert slug("账号：名字和 ID") == "账号名字和-id"
    assert slug("加速（S3）") == "加速s3"
    assert slug("A count as it stood then: `--as-as`") == "a-count-as-it-stood-then---as-as"
    assert slug("点评 past the five a floor shows") == "点评-past-the-five-a-floor-shows"


def test_every_chinese_page_has_its_english_page_and_they_link_each_other():
    assert len(CHINESE) >= 14
    for page in CHINESE:
        english = DOCS / page.name
        assert english.exists(), f"docs/zh/{page.name} has no English page docs/{page.name}"
        assert english.resolve() in head(page), (
            f"docs/zh/{page.name} does not link {english.name} at its top"
        )
        if page.name not in GENERATED:
            assert page.resolve() in head(english), (
                f"docs/{page.name} does not link zh/{page.name} at its top"
            )
    # Every page of the guide the README's table names has a Chinese page, but the developers'.
    guide = {p.name for p, _ in links(README) if p.parent == DOCS.resolve() and p.suffix == ".md"}
    assert guide - ENGLISH_ONLY - {GLOSSARY.name} - {p.name for p in CHINESE} == set()


def test_every_link_of_the_chinese_pages_leads_somewhere():
    for page in (*CHINESE, README_ZH, GLOSSARY):
        for target, anchor in links(page):
            assert target.exists(), f"{page.name} links {target}, which is not there"
            if anchor and target.suffix == ".md":
                assert anchor in anchors(target), f"{page.name} links {target.name}#{anchor}"


@cache
def keys() -> frozenset[str]:
    """Every key of the game file, as docs/game-file.md's tables name them."""
    return frozenset(k for section in documented().values() for k in section)


def named(text: str) -> set[str]:
    """The options, commands and game-file keys a page writes as inline code."""
    found: set[str] = set()
    for span in spans(text):
        found.update(re.findall(r"(?<![\w-])--[a-z][a-z-]*", span))
        found.update(re.findall(r"\btally [a-z]+(?: (?:add|list|remove|keep|export))?", span))
        if span in keys():
            found.add(span)
    return found


def test_a_chinese_page_names_every_option_command_and_key_of_its_english_page():
    """A Chinese page that falls behind (its English page gained an option, a command, a key)
    fails here until it is written in."""
    for page in CHINESE:
        english = (DOCS / page.name).read_text(encoding="utf-8")
        chinese = page.read_text(encoding="utf-8")
        missing = named(english) - named(chinese)
        if page.name == "rulesets.md":  # a summary of the generated English tables
            missing -= keys()
        assert missing == set(), f"docs/zh/{page.name} does not name {sorted(missing)}"


def test_a_chinese_page_keeps_every_code_block_of_its_english_page():
    """Commands, game files and example output are the English page's, byte for byte (the
    program's output is English until the catalogs translate it)."""
    for page in CHINESE:
        if page.name in GENERATED:  # written from the code in Chinese (its examples too)
            continue
        chinese = page.read_text(encoding="utf-8")
        for block in FENCE.findall((DOCS / page.name).read_text(encoding="utf-8")):
            assert block in chinese, (
                f"docs/zh/{page.name} lacks this block of its English page:\n{block}"
            )


def test_the_chinese_game_files_rules_table_is_the_one_the_rulesets_make():
    text = (ZH / "game-file.md").read_text(encoding="utf-8")
    assert text == with_rules_table(text), (
        "docs/zh/game-file.md's [rules] table is stale: run python -m "
        "tally.outputs.written.rulesets_doc --rules-table docs/zh/game-file.md"
    )


def test_the_chinese_readme_is_the_readme():
    """README.zh-CN.md: the README's sections in the same order, at most 200 lines, linked
    from the README's first lines and linking back; its commands and code as the README's,
    but the comments."""
    text = README_ZH.read_text(encoding="utf-8")
    english = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    sections = re.findall(r"^## (.+)$", prose(text), re.M)
    assert sections == ["安装", "五条命令开一局", "命令", "指南：按你要做的事", "库"]
    assert len(sections) == len(re.findall(r"^## (.+)$", prose(english), re.M))
    assert README.resolve() in head(README_ZH) and README_ZH.resolve() in head(README)
    assert GLOSSARY.resolve() in head(README_ZH)

    def code(block: str) -> list[str]:
        lines = []
        for line in block.splitlines():
            line = re.sub(r"\s+#\s.*$", "", line)  # a comment, translated
            if line.startswith("tally "):
                line = re.split(r"\s{2,}", line)[0]  # a command's description
            elif re.match(r"\s{20,}[^\s\[-]", line):
                continue  # a description on its own line
            lines.append(line.rstrip())
        return lines

    ours, theirs = FENCE.findall(text), FENCE.findall(english)
    assert [code(b) for b in ours] == [code(b) for b in theirs]
    assert named(english) <= named(text)


@cache
def glossary() -> dict[str, tuple[str, str, str]]:
    """docs/glossary.md's terms: each table under 术语, English → (English, 中文, 用法) by
    subsection."""
    text = GLOSSARY.read_text(encoding="utf-8")
    terms: dict[str, tuple[str, str, str]] = {}
    section = ""
    body = prose(text[text.index("\n## 术语\n") :])
    rows = body.splitlines()
    for i, line in enumerate(rows):
        if line.startswith("### "):
            section = line[4:]
        if not line.startswith("| ") or line.startswith("| English ") or set(line) <= set("|- "):
            continue
        assert rows[i - 1].startswith("|"), f"glossary: a row outside a table: {line}"
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 3 and cells[0] and cells[1], (
            f"glossary: a row not English | 中文 | 用法: {line}"
        )
        assert cells[0] not in terms, f"glossary: {cells[0]} twice"
        terms[cells[0]] = (section, cells[1], cells[2])
    headers = re.findall(r"^\|.*\|$\n^\|[-| ]+\|$", body, re.M)
    assert headers and all(h.startswith("| English | 中文 | 用法 |") for h in headers), headers
    return terms


def test_the_glossary_parses_and_its_void_reasons_are_the_announcements():
    terms = glossary()
    assert len(terms) >= 100
    reasons = {k.strip("`"): v[1] for k, v in terms.items() if v[0] == "作废原因"}
    table = re.findall(
        r"^\| `(\w+)` \| [\w—]+ \| (.+?) \|$",
        (DOCS / "counting.md").read_text(encoding="utf-8"),
        re.M,
    )
    assert reasons == dict(table)
    zh_table = re.findall(
        r"^\| `(\w+)` \| [\w—]+ \| (.+?) \|$",
        (ZH / "counting.md").read_text(encoding="utf-8"),
        re.M,
    )
    assert reasons == dict(zh_table)


# Terms whose use is decidable from the English prose (code and link targets left out): where
# an English page says one, its Chinese page writes the glossary's word for it (its row's 中文
# or, as for void's 作废, the word its 用法 gives).
USED = {
    "director": (r"\bdirectors?\b", "导演"),
    "sheriff": (r"\bsheriffs?\b", "警长"),
    "deputy": (r"\bdeput(?:y|ies)\b", "执警"),
    "change": (r"\ba change\b", "改票"),
    "proxy": (r"\bprox(?:y|ies)\b", "代投"),
    "abstain / abstention": (r"\babstain|\babstention", "弃权"),
    "void": (r"\bvoid\b", "作废"),
    "provisional": (r"\bprovisional\b", "暂计"),
    "tie": (r"\bti(?:e|es|ed)\b", "平票"),
    "ruling": (r"\brulings?\b", "裁定"),
    "card ledger": (r"\bledger\b", "判牌记录"),
    "game file": (r"\bgame files?\b", "游戏文件"),
    "vote thread": (r"\bvote threads?\b", "投票帖"),
    "discussion thread": (r"\bdiscussion threads?\b", "讨论帖"),
    "acceleration": (r"\baccelerat", "加速"),
    "lurking / lurker": (r"\blurk", "潜水"),
    "yellow card": (r"\byellow cards?\b", "黄牌"),
    "red card": (r"\bred cards?\b", "红牌"),
    "moderator": (r"\bmoderators?\b", "版主"),
    "final hour": (r"\b(?:final|last) hour\b", "关门前一小时"),
}


def test_each_chinese_page_uses_the_glossarys_words():
    terms = glossary()
    for english_term, (pattern, word) in USED.items():
        assert english_term in terms, f"the glossary has no row {english_term!r}"
        _, chinese, usage = terms[english_term]
        assert word == chinese.split("/")[0] or f"“{word}”" in usage, (english_term, word)
        for page in CHINESE:
            if page.name == "rulesets.md":  # a summary of the generated English tables
                continue
            english = " ".join(prose((DOCS / page.name).read_text(encoding="utf-8")).split())
            english = re.sub(r"`[^`]*`|\]\([^)]*\)", "", english)
            if re.search(pattern, english, re.I):
                assert word in page.read_text(encoding="utf-8"), (
                    f"docs/{page.name} says {english_term!r}; docs/zh/{page.name} never writes {word}"
                )


def test_chinese_is_spaced_from_latin_words_and_code():
    """The glossary's rule: a half-width space between Chinese and a Latin word, a code span
    or a link's text, none between Chinese and full-width punctuation. Words quoted from the
    forums (“来自: Android客户端”) are as the forums write them."""
    han = r"[\u4e00-\u9fff]"
    for page in (*CHINESE, README_ZH, GLOSSARY):
        if page.parent == ZH and page.name in GENERATED:
            continue  # written by code: its tables' cells hold the ballots' own forms as code
        text = prose(page.read_text(encoding="utf-8"))
        text = re.sub(r"“[^”]*”", "“”", text)
        text = re.sub(r"\]\([^)]*\)", "]", text)
        text = re.sub(r"`[^`]+`", "`c`", text)
        tight = re.findall(rf".{{0,8}}(?:{han}[A-Za-z`]|[A-Za-z`]{han}).{{0,8}}", text)
        assert tight == [], f"{page.name}: no space between Chinese and Latin or code: {tight}"


def test_a_link_to_a_page_in_english_only_says_so():
    """A Chinese page that sends the reader to a developer's page says (英文) beside it."""
    for page in (*CHINESE, README_ZH):
        text = prose(page.read_text(encoding="utf-8"))
        for m in re.finditer(r"\]\(([^)\s#]*?([\w-]+\.md))(#[^)]*)?\)", text):
            if m.group(2) in ENGLISH_ONLY or m.group(1).endswith("bench/README.md"):
                after = text[m.end() : m.end() + 60]
                assert "英文" in after.split("\n\n")[0], (
                    f"{page.name}: {m.group(0)} says not (英文)"
                )
