"""tally speaks the director's language (issue 52): which language a run chooses and why,
the catalogs complete and compilable, the command line in each language."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from typer.testing import CliRunner

from tally import catalogs, i18n
from tally.errors import InputError
from tally.i18n import Choice, Language, choose, from_locale, language_of, speaking, tr

from .test_house import modules, nodes

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


# --- the choice -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "language", "source"),
    [
        ({"LANG": "zh_CN.UTF-8"}, Language.ZH, "LANG=zh_CN.UTF-8"),
        ({"LANG": "en_GB.UTF-8"}, Language.EN, "LANG=en_GB.UTF-8"),
        ({"LANG": "zh_TW.UTF-8"}, Language.ZH, "LANG=zh_TW.UTF-8"),
        # LC_ALL before LC_MESSAGES before LANG, as gettext reads them
        ({"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, Language.EN, "LC_ALL=en_US.UTF-8"),
        ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US"}, Language.ZH, "LC_MESSAGES=zh_CN.UTF-8"),
        # LANGUAGE's list first, a language tally has no catalog for passed over
        ({"LANGUAGE": "fr:zh_CN:en", "LANG": "fr_FR.UTF-8"}, Language.ZH,
         "LANGUAGE=fr:zh_CN:en"),
        # TALLY_LANG before all; its words: zh, en, and locale names
        ({"TALLY_LANG": "zh", "LANG": "en_US.UTF-8"}, Language.ZH, "TALLY_LANG"),
        ({"TALLY_LANG": "en", "LANG": "zh_CN.UTF-8"}, Language.EN, "TALLY_LANG"),
        ({"TALLY_LANG": "zh_CN.UTF-8"}, Language.ZH, "TALLY_LANG"),
    ],
)
def test_the_language_is_chosen_as_people_expect(environ, language, source):
    chosen = choose(environ)
    assert (chosen.language, chosen.source, chosen.said) == (language, source, True)


def test_c_says_nothing_and_english_is_the_default():
    # C and POSIX name no language, and LANGUAGE is not read under them (GNU gettext).
    for environ in ({"LANG": "C.UTF-8"}, {"LC_ALL": "C", "LANGUAGE": "zh_CN"},
                    {"LANG": "POSIX"}, {}, {"LANG": "fr_FR.UTF-8"}):  # fmt: skip
        assert from_locale(environ) is None or environ == {"LANG": "fr_FR.UTF-8"}
        assert choose(environ) == i18n.DEFAULT
    assert Choice(Language.EN, "tally's default", said=False) == i18n.DEFAULT


def test_the_config_file_comes_after_tally_lang_and_before_the_locale(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('language = "zh"\n', encoding="utf-8")
    environ = {"TALLY_CONFIG": str(config), "LANG": "en_US.UTF-8"}
    said = i18n.configured_language(environ)
    assert said == ("zh", f"config file {config}")
    assert choose(environ, said) == Choice(Language.ZH, f"config file {config}")
    assert choose({**environ, "TALLY_LANG": "en"}, said).language is Language.EN


def test_a_language_tally_does_not_speak_is_one_sentence(tmp_path):
    with pytest.raises(InputError, match=r"^TALLY_LANG: 'klingon' is not a language tally "
                                         r'speaks; say "zh" \(中文\) or "en" \(English\)\.$'):
        choose({"TALLY_LANG": "klingon"})
    from tally.settings import load_config

    config = tmp_path / "config.toml"
    config.write_text("language = 3\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"config file .*, key 'language': '3' is not a language"):
        load_config(config)


@pytest.mark.parametrize("word", ["zh", "ZH", "zh-CN", "zh_CN.UTF-8", "zh-Hans", "chinese", "中文"])
def test_words_for_chinese(word):
    assert language_of(word) is Language.ZH


def test_the_language_follows_the_with_and_a_function():
    with speaking(Language.ZH):
        assert i18n.current() is Language.ZH
        asked = [Language.EN]
        with speaking(lambda: asked[0]):
            assert i18n.current() is Language.EN
            asked[0] = Language.ZH
            assert i18n.current() is Language.ZH
    assert i18n.current() is Language.EN  # the suite's (TALLY_LANG=en, tests/conftest.py)


# --- the catalogs -----------------------------------------------------------------------


@functools.cache
def extracted() -> Catalog:
    """Every sentence of the code and the desk's pages, as ``catalogs.extract()`` finds them
    (Babel tokenizes all of tally: 0.6 s of CPU), extracted once a process for the tests that
    read them (here, tests/test_i18n_*.py, tests/test_desk_i18n.py). Read, never changed."""
    return catalogs.extract()


def test_every_sentence_is_translated_in_both_catalogs():
    """The untranslated-sentence test: a sentence of the code missing from a catalog, left
    untranslated, or whose translation lost (or made up) a placeholder fails here, named."""
    faults = catalogs.faults(template=extracted())
    assert [str(f) for f in faults] == []


def test_the_catalogs_compile_and_the_build_compiles_them(tmp_path):
    from tally.building import compile_catalogs

    written = compile_catalogs(i18n.LOCALES, [tmp_path])
    assert {p.relative_to(tmp_path).as_posix() for p in written} == {
        "en/LC_MESSAGES/tally.mo", "zh_CN/LC_MESSAGES/tally.mo"}  # fmt: skip
    import gettext

    with (tmp_path / "zh_CN/LC_MESSAGES/tally.mo").open("rb") as f:
        zh = gettext.GNUTranslations(f)
    assert zh.gettext("Options") != "Options" and zh.gettext("The game file.") != "The game file."


def test_a_placeholder_lost_is_a_fault(tmp_path, monkeypatch):
    from babel.messages.catalog import Catalog

    broken = Catalog(locale="zh_CN")
    broken.add("floor {floor} was edited", "楼被编辑了")
    broken.add("{n} ballot", "{n}张票")
    monkeypatch.setattr(catalogs, "read", lambda language: broken)
    monkeypatch.setattr(catalogs, "extract", lambda: broken)
    found = {f.sentence: f.problem for f in catalogs.faults([Language.ZH])}
    assert found == {"floor {floor} was edited": "placeholders differ: '楼被编辑了'"}


def _calls(walked: Iterable[ast.AST], names: set[str]) -> list[ast.Call]:
    return [n for n in walked if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name) and n.func.id in names]  # fmt: skip


# Where a sentence is translated from a table (help texts, a kept sentence): the catalog has
# it from where it was written (N_).
FROM_TABLES = {
    "tally/cli_run.py",
    "tally/i18n.py",
    # the tabs' labels (tally.desk.pages' table); the words of values the pages show (a day's
    # state, a ballot's status and kind, a thread's role)
    "tally/desk/app.py",
    "tally/desk/views.py",
    # the sentence a missing field is said in (the helper's said=), a platform's no_posting;
    # the summary's words for where pages came from; an API's title
    "tally/forums/base.py",
    "tally/forums/built.py",
    "tally/forums/ways.py",
    # the kind of file a sentence names ("game file"), marked where it is named
    "tally/commands/checks.py",
    "tally/files.py",
    "tally/tomlfile.py",
    # a sentence chosen by the caller (N_ there): a K1 card's, a setting's error,
    # where a setting came from
    "tally/commands/cards.py",
    "tally/settings.py",
    "tally/commands/day.py",
    # The words of the statuses of posts that hold no ballot (_REMARK_STATUS).
    "tally/outputs/shown/console.py",
    # doctor's table: the fields' names, marked where each field is defined (N_)
    "tally/outputs/shown/display.py",
    # the card ledger's table: who gave a card, a value of the ledger's file (_BY)
    "tally/outputs/shown/ledger.py",
    # The rulesets page's sentences kept in tables (the ways to change, what is shown), and
    # the rules' own words (tie steps, ABOUT), translated once the rules' catalog has them.
    "tally/outputs/written/rulesets_doc.py",
    # What says when a day opens: English for `tally day add`'s sentences, translated for
    # the comment tally init writes (draft.opening); the rulesets' ABOUT, the rules' words.
    "tally/outputs/written/draft.py",
    # The rules' sentences kept until shown: a ballot text's problem (verdicts.Problem, read
    # in a cached function), the words of a 屏蔽 (rows.BANNED), a quote box's flag, a
    # status in a watch's line, an account's role, a change button's words, a thread's role.
    "tally/rules/verdicts.py",
    "tally/rules/judging/rows.py",
    "tally/rules/judging/sorting.py",
    "tally/rules/judging/changes.py",
    "tally/rules/counting/polls.py",
    "tally/rules/counting/uids.py",
    "tally/rules/counting/guards.py",
    # Discuz!'s refusals, by the key its interface answers and by what they mean; where a
    # page says its thread and its pages (the savers' marks, the links), and where doctor
    # found each field of a post, marked where found and said by doctor
    "tally/forums/discuz/api.py",
    "tally/forums/discuz/reply.py",
    "tally/forums/discuz/frame.py",
    "tally/forums/discuz/fields.py",
    # tally/desk/app.py: the tabs' labels (tally.desk.pages' table); tally/desk/views.py: the
    # words of values the pages show (a day's state, a ballot's status and kind, a thread's role).
    # tally/rules/game/dayblocks.py and game.py: a day's thread that is not the vote thread asked
    # for, a sentence per role; tally/rules/cards/ledger.py: a card named, a sentence per colour;
    # tally/rules/cards/writings.py: the L7 flag, a sentence per font; tally/tomlfile.py: how to
    # save a file as UTF-8, a sentence per kind of file.
    "tally/rules/game/dayblocks.py",
    "tally/rules/game/game.py",
    "tally/rules/cards/ledger.py",
    "tally/rules/cards/writings.py",
}


def test_sentences_are_written_where_babel_finds_them():
    """Babel extracts the first argument of tr, ntr and N_ when it is a string written there:
    never an f-string (the catalog would hold the filled sentence), never inside an f-string
    (Python 3.11 reads the f-string as one token: the sentence would be missed)."""
    for path, tree in modules():  # tally's code, parsed once (tests/test_house.py)
        name = path.relative_to(ROOT).as_posix()
        for call in _calls(nodes(tree), {"tr", "ntr", "N_"}):
            first = call.args[0] if call.args else None
            if name in FROM_TABLES and not isinstance(first, ast.Constant):
                continue
            assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
                f"{name}:{call.lineno}: the sentence must be a string written in the call")
        for joined in (n for n in nodes(tree) if isinstance(n, ast.JoinedStr)):
            inside = _calls(ast.walk(joined), {"tr", "ntr"})
            assert not inside, f"{name}:{joined.lineno}: tr in an f-string"


# --- the command line in each language --------------------------------------------------


def test_help_in_chinese_and_english():
    from tally.cli import app

    zh = runner.invoke(app, ["votes", "--help"], env={"TALLY_LANG": "zh"})
    en = runner.invoke(app, ["votes", "--help"], env={"TALLY_LANG": "en"})
    assert zh.exit_code == en.exit_code == 0
    assert "Options:" in en.stdout and "Usage: tally votes" in en.stdout
    assert "选项" in zh.stdout and "Options:" not in zh.stdout
    with speaking(Language.ZH):
        assert tr("The game file.") in zh.stdout
    assert "The game file." in en.stdout and "The game file." not in zh.stdout


def test_an_option_mistake_in_chinese():
    from tally.cli import app

    said = runner.invoke(app, ["votes", "--zzz"], env={"TALLY_LANG": "zh"})
    assert said.exit_code == 2
    with speaking(Language.ZH):
        assert said.stderr == tr("tally: {said}; see `{where} --help`.",
                                 said=tr("no such option: {option}", option="--zzz"),
                                 where="tally votes") + "\n"  # fmt: skip
    assert re.search(r"[\u4e00-\u9fff]", said.stderr)
    english = runner.invoke(app, ["votes", "--zzz"], env={"TALLY_LANG": "en"})
    assert english.stderr == "tally: no such option: --zzz; see `tally votes --help`.\n"


def test_a_bad_tally_lang_stops_the_command_line():
    from tally.cli import app

    said = runner.invoke(app, ["config"], env={"TALLY_LANG": "xx"})
    assert said.exit_code == 2
    assert said.stderr.startswith("tally: TALLY_LANG: 'xx' is not a language tally speaks")


def test_tally_config_says_the_language_and_where_from(tmp_path):
    from tally.cli import app

    config = tmp_path / "config.toml"
    config.write_text('language = "zh"\n', encoding="utf-8")
    said = runner.invoke(app, ["config", "--json"],
                         env={"TALLY_LANG": "", "TALLY_CONFIG": str(config)})  # fmt: skip
    assert said.exit_code == 0, said.stderr
    import json

    assert json.loads(said.stdout)["language"] == {"value": "zh_CN",
                                                   "from": f"config file {config}"}  # fmt: skip
