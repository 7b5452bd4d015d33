"""Discuz!'s mobile JSON when it is not what a real X3.5 answers (issue 50): every shipped
answer cut short, a post without what a count rests on, values of the wrong type, huge
numbers, more posts than the page holds, and any bytes or JSON at all; and the session's
secrets, which no answer keeps once scrubbed.

Each property asserts the specific error (or the right result), never a traceback.
TALLY_FUZZ_EXAMPLES sets the examples per property (80 by default).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tally.errors import (
    ApiUnavailable,
    PageMismatchError,
    ParseError,
    TallyError,
    TruncatedPageError,
)
from tally.forums.discuz.api import parse_thread, probe
from tally.forums.discuz.api_comments import comment_time
from tally.forums.discuz.api_secrets import SECRETS, scrub
from tally.forums.timeparse import Printed
from tally.model import Page

from .conftest import CHINA
from .strategies import UNICODE, fuzz
from .test_reading_discuz_api import INDEX, answer

FUZZ = fuzz()
# The viewthread answers a real X3.5 gave that read as a page.
PAGES = [
    "answers/vt_t1_p1_guest", "answers/vt_t1_p1_admin", "answers/vt_t1_banpost_guest",
    "answers/vt_t1_anonymous_admin", "answers/vt_t1_pendingmod_guest", "answers/vt_t2_hidden_bob",
    "answers/vt_t5_bannedmember_eve_guest", "answers/vt_t1_12h_tz-5_carol",
    "captured/vote-admin.json", "captured/minutes-guest.json",
]  # fmt: skip
ESSENTIAL = ("pid", "position", "authorid", "dbdateline", "message", "author")


def read(name: str, body: bytes) -> Page:
    a = answer(name)
    return parse_thread(
        body, a.content_type, source=name, ref=a.ref, tz=CHINA,
        asked_page=int(a.query("page", "1") or 1), ppp=int(a.query("ppp", "10") or 10), at=a.at,
    )  # fmt: skip


def document(name: str) -> dict:
    return json.loads(answer(name).body)


def dumped(data: object) -> bytes:
    return json.dumps(data, ensure_ascii=True).encode()


@pytest.mark.parametrize("name", PAGES)
def test_every_answer_cut_anywhere_is_cut_never_read(name):
    """Every shipped answer cut at every 1/20 of its bytes is a cut answer (or, cut to
    nothing, no answer of the interface's), never a page and never a traceback."""
    body = answer(name).body
    assert read(name, body).posts
    for i in range(0, 20):
        cut = body[: len(body) * i // 20]
        with pytest.raises(
            (TruncatedPageError, ApiUnavailable), match=r"its mobile interface answered an empty body|the interface's answer is cut short or damaged \(not whole JSON\)"
        ) as caught:
            read(name, cut)
        assert isinstance(caught.value, TruncatedPageError) or not cut


@FUZZ
@given(st.sampled_from(PAGES), st.data())
def test_a_post_without_what_a_count_rests_on_is_a_parse_error_naming_it(name, data):
    doc = document(name)
    posts = doc["Variables"]["postlist"]
    post = data.draw(st.sampled_from(posts))
    # An anonymous post's name is 匿名 whatever the answer says.
    keys = [k for k in ESSENTIAL if k != "author" or post.get("anonymous") != "1"]
    key = data.draw(st.sampled_from(keys))
    del post[key]
    with pytest.raises(ParseError, match=r"(post \d+|a post) has no ") as caught:
        read(name, dumped(doc))
    said = str(caught.value)
    assert (f"post {post['pid']}" in said if key != "pid" else "a post" in said), said
    assert key in said or (key == "position" and "floor" in said) or key == "message", said


WRONG = st.one_of(
    st.none(), st.booleans(), st.floats(allow_nan=True), st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.sampled_from(["", " ", "x", "-1", "0", "１２", "1e3", "12a", "3.5", "0x10"]),
    st.integers(min_value=10**18, max_value=10**40), st.integers(max_value=0),
)  # fmt: skip


@FUZZ
@given(st.sampled_from(PAGES), st.data(), WRONG)
def test_an_essential_number_of_the_wrong_type_is_a_parse_error(name, data, value):
    """pid, floor, uid and time: ASCII digits (a string, or a JSON number), nothing else;
    a floor, a pid and a time are never 0."""
    doc = document(name)
    post = data.draw(st.sampled_from(doc["Variables"]["postlist"]))
    key = data.draw(st.sampled_from(["pid", "position", "authorid", "dbdateline"]))
    if key == "authorid" and value in (0, "0"):
        value = "-1"  # 0 is an anonymous post's (or a guest's) uid
    post[key] = value
    with pytest.raises(ParseError, match=r"(, post \d+|: a post)( has no |: its )"):
        read(name, dumped(doc))


@FUZZ
@given(st.sampled_from(PAGES), st.data(), st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(UNICODE, max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
))  # fmt: skip
def test_any_value_anywhere_is_a_page_or_tallys_own_error(name, data, value):
    """Any field of the answer, the thread's, a post's or a 点评's, replaced by any JSON:
    a page (an optional field, tolerated) or one of tally's errors, never another."""
    doc = document(name)
    variables = doc["Variables"]
    places = [doc, variables, variables["thread"], *variables["postlist"]]
    shown = variables.get("comments")
    if isinstance(shown, dict):
        places += [c for items in shown.values() for c in items]
    place = data.draw(st.sampled_from(places))
    place[data.draw(st.sampled_from(sorted(place)))] = value
    try:
        page = read(name, dumped(doc))
    except TallyError:
        return
    assert all(p.floor >= 1 and p.post_id.isdigit() and p.time.tzinfo for p in page.posts)


@pytest.mark.parametrize(
    ("where", "key", "value", "error", "said"),
    [
        ("post", "dbdateline", "999999999999999999", ParseError, "is not a Unix time"),
        ("post", "position", "4000000000", ParseError, "past the last floor"),
        ("thread", "maxposition", "99999999999", ParseError, "is no count"),
        ("thread", "replies", "-3", ParseError, "is no count"),
        ("thread", "tid", "2", ParseError, "not of thread 1"),
        ("variables", "ppp", "5", ApiUnavailable, "pages of 5 posts, not the 10 asked"),
        ("variables", "postlist", [], ParseError, "holds no posts"),
        ("post", "tid", "7", ParseError, "is of thread '7'"),
    ],
)
def test_huge_numbers_and_answers_that_cannot_be_right(where, key, value, error, said):
    doc = document("answers/vt_t1_p1_guest")
    variables = doc["Variables"]
    {"post": variables["postlist"][3], "thread": variables["thread"], "variables": variables}[
        where
    ][key] = value
    with pytest.raises(error, match=said):
        read("answers/vt_t1_p1_guest", dumped(doc))


def test_a_page_holding_more_posts_than_its_size_or_a_floor_twice():
    doc = document("answers/vt_t1_p1_guest")
    doc["Variables"]["postlist"].append({**doc["Variables"]["postlist"][-1], "pid": "99"})
    with pytest.raises(ParseError, match="11 posts on a page of 10"):
        read("answers/vt_t1_p1_guest", dumped(doc))
    doc = document("answers/vt_t1_p1_guest")
    posts = doc["Variables"]["postlist"]
    posts[4] = {**posts[4], "position": posts[3]["position"]}
    with pytest.raises(ParseError, match="out of order or repeated"):
        read("answers/vt_t1_p1_guest", dumped(doc))
    doc = document("answers/vt_t1_p2_alice")
    doc["Variables"]["postlist"][0]["position"] = "10"  # a floor of page 1
    with pytest.raises(PageMismatchError, match="a floor of an earlier page"):
        read("answers/vt_t1_p2_alice", dumped(doc))


@FUZZ
@given(st.binary(max_size=400), st.sampled_from([None, "application/json", "text/html"]))
def test_any_bytes_are_tallys_own_error(body, content_type):
    with pytest.raises(TallyError, match=r"^x[:,] "):
        parse_thread(body, content_type, source="x", ref=answer("answers/vt_t1_p1_guest").ref,
                     tz=CHINA, asked_page=1, ppp=10, at=datetime.now(UTC))  # fmt: skip
    said = probe(body, content_type)
    assert said is None or "\n" not in said


@FUZZ
@given(st.integers(0, 60), st.sampled_from(["秒前", "分钟前", "&nbsp;秒前", " 分钟前"]),
       st.datetimes(min_value=datetime(2001, 1, 1), max_value=datetime(2100, 1, 1),
                    timezones=st.just(UTC)), st.booleans())  # fmt: skip
def test_a_点评_time_counted_back_from_the_answer_is_never_read_to_a_minute(n, unit, at, clock):
    """Whatever N, whenever the answer, whether or not its posts tell the clock: "N 分钟前"
    is a window of a minute that straddles two (Discuz! counts whole minutes down from an
    instant the answer does not carry), so the thread is read from its HTML pages."""
    shown = Printed(timedelta(hours=8), CHINA) if clock else None
    for said in (f"{n}{unit}", "刚刚"):
        with pytest.raises(ApiUnavailable, match="not to the minute"):
            comment_time(said, CHINA, shown, at, "a 点评")


# -- secrets -----------------------------------------------------------------------------------

# What the forum sends: base64 and hex, each marked (Zq) so that a piece of one is seen.
SECRET = st.text("0123456789abcdefABCDEF+/=", min_size=12, max_size=90).map(lambda s: "Zq" + s)
SCRUBBED = re.compile(rb'"(auth|saltkey|formhash)":"SCRUBBED"')


def with_secrets(body: bytes, auth: str, salt: str, hash_: str) -> bytes:
    """A shipped answer as the forum sent it, its secrets put back."""
    body = body.replace(b'"auth":null', b'"auth":"SCRUBBED"')
    values = {b"auth": auth, b"saltkey": salt, b"formhash": hash_}
    return SCRUBBED.sub(lambda m: b'"%s":"%s"' % (m.group(1), values[m.group(1)].encode()), body)


JSON_ANSWERS = sorted(n for n, e in INDEX.items() if e.get("file", "").endswith(".json"))


@FUZZ
@given(st.sampled_from(JSON_ANSWERS), SECRET, SECRET, SECRET)
def test_no_secret_survives_a_scrub_and_the_answer_reads_the_same(name, auth, salt, hash_):
    shipped = answer(name).body
    sent = with_secrets(shipped, auth, salt, hash_)
    kept = scrub(sent)
    for secret in (auth, salt, hash_):
        assert secret.encode() not in kept
    assert not _keys(json.loads(kept)) & SECRETS
    if name in PAGES:
        assert read(name, kept) == read(name, shipped)


def _keys(data: object) -> set[str]:
    if isinstance(data, dict):
        return set(data).union(*(_keys(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(*(_keys(v) for v in data))
    return set()


@FUZZ
@given(SECRET, SECRET, st.integers(1, 99))
def test_version_1s_posters_ip_and_e_mail_and_a_cut_answer_keep_no_secret(ip, mail, cut):
    """Version 1 of an X2-era board lists each poster's IP and e-mail; an answer cut short
    cannot be read as JSON, and its secrets go all the same."""
    doc = document("answers/vt_t1_v1_alice")
    for post in doc["Variables"]["postlist"]:
        post.update(useip=ip, port="51234", email=f"{mail}@example.com")
    doc["Variables"].update(auth=ip, formhash=mail)
    sent = dumped(doc)
    kept = scrub(sent)
    assert ip.encode() not in kept and mail.encode() not in kept and b"51234" not in kept
    # Cut anywhere: no secret (each begins with Zq) is left of what came, whole or in part.
    assert b"Zq" not in scrub(sent[: len(sent) * cut // 100])


def test_a_web_page_keeps_no_form_hash_and_what_holds_no_secret_is_kept_byte_for_byte():
    page = (
        b"<html><script>var x = {'formhash':'0989685e'};</script><form><input type=\"hidden\" "
        b'name="formhash" value="4cb17f02" /><input value="9f8e7d6c" name="formhash"></form>'
        b'<a href="forum.php?mod=post&amp;formhash=ab12cd34&amp;x=1">x</a></html>'
    )
    kept = scrub(page)
    for secret in (b"0989685e", b"4cb17f02", b"9f8e7d6c", b"ab12cd34"):
        assert secret not in kept
    assert kept.count(b"SCRUBBED") == 4 and kept.startswith(b"<html><script>")
    for name in ("answers/check_module", "answers/off_allowmobile0_viewthread"):
        body = answer(name).body
        assert scrub(body) == body
