"""A reply in a Discuz! thread, posted as the director through Discuz!'s mobile interface
(``api/mobile/index.php``, the JSON its phone clients use), where the board serves it.

Asked before the thread page's fast-reply form (``tally.forums.discuz.reply``): the interface
answers in keys, not in a theme's or a language pack's words. What a real X3.5 answers:

- ``module=viewthread`` asked with the director's cookies (the thread's first floor): its
  ``"Version": "4"``, the session's ``formhash``, the logged-in member (``member_uid``,
  ``member_username``) and the board's ``Charset``. A board whose admin turned the
  interface off (开启手机版 off) answers ``{"error": "mobile_is_closed"}``; with the plugin
  disabled, the touch theme's HTML page. Anything but the JSON expected: the page's form,
  said once. (``module=check`` is not asked: it says version 4 with 开启手机版 off too, and
  viewthread's answer tells all it would.)
  ``module=secure&type=post`` names a verification code (``seccode``) or question
  (``secqaa``) a post must carry (and answers HTTP 503 when there is none, on PHP 8).
- ``POST module=sendreply``: ``formhash`` and ``message`` in the board's charset (UTF-8 sent
  to a GBK board comes out garbled), without ``mobiletype`` (it signs the post "来自:
  Android客户端"), with ``smileyoff=1`` (a player's ":)" stays text).
  ``Message.messageval`` decides: ``post_reply_succeed`` with ``Variables.pid``,
  ``post_reply_mod_succeed`` (held for a moderator), or a refusal's key with pid "0" (the
  keys of the web form's messages: flood, closed, too short or long, not logged in, the
  form hash, a verification code, the word filter); a form hash it did not issue is HTTP
  503 and its "System Error" page.

Every answer echoes the session's secrets (``auth``, ``saltkey``, ``formhash``). The form
hash goes into the form, which never shows it; nothing else of an answer is kept, and no
sentence here quotes an answer: only a key, matched against what a key may be.
"""

from __future__ import annotations

import codecs
import html
import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tally.errors import FetchError, MaybePosted, PostError
from tally.forums.discuz.reply import (
    codec,
    form_body,
    held,
    refused,
    system_error,
    unknown_answer,
)
from tally.forums.http import Response
from tally.forums.replies import INTERFACE, Accepted, Ask, ReplyForm, Submit, Unserved
from tally.i18n import tr
from tally.model import ThreadRef

API = "api/mobile/index.php?version=4"
# A key of the interface (a message's, an error's): said as it is only when it is one.
_KEY = re.compile(r"[a-z][a-z0-9_]{0,63}")
_CHARSET = re.compile(r"[A-Za-z0-9_-]{1,24}")
# The refusals a real X3.5's sendreply answers (each with pid "0"), by what each means: the
# web form's sentences (``reply.REFUSED``), the key in the place of its words.
_REFUSALS = {
    "post_flood_ctrl": "flood",
    "post_flood_ctrl_posts_per_hour": "hourly",
    "post_thread_closed": "closed",
    "post_message_tooshort": "short",
    "post_message_toolong": "long",
    "replyperm_login_nopermission": "login",
    "submit_invalid": "invalid",
    "submit_seccode_invalid": "seccode",
    "word_banned": "censor",
}
# What ``module=secure&type=post`` names when a post must carry a person's answer.
_ASKS = (("seccode", "验证码"), ("secqaa", "验证问答"))


def _off(why: str) -> Unserved:
    """Why the board does not serve the interface's form (``why``: a clause)."""
    return Unserved(
        tr("the board does not serve Discuz!'s mobile interface (api/mobile/index.php: {why})",
           why=why)
    )


def interface_form(ref: ThreadRef, ask: Ask) -> ReplyForm | Unserved:
    """The interface's reply form for the thread, as the cookies' member has it (its form
    hash, uid, name and the board's charset), or why the board does not serve it."""
    url = f"{ref.base}{API}&module=viewthread&tid={ref.thread_id}&page=1&ppp=1"
    try:
        answer = ask(url)
        if _moved(answer, url):  # the first request after a deletion: asked again once
            answer = ask(url)
    except FetchError as exc:
        return _off(tr("asking it failed: {why}", why=str(exc).rstrip(".。")))
    if _moved(answer, url):
        return _off(tr("its viewthread answers a redirect to a page"))
    got = _object(answer)
    if isinstance(got, str):
        return _off(tr("its viewthread answers {what}", what=got))
    form = _form(ref, url, got)
    if isinstance(form, ReplyForm):
        return replace(form, asks=_asks(ref, ask))
    return form


def _form(ref: ThreadRef, url: str, got: dict[str, Any]) -> ReplyForm | Unserved:
    variables = got.get("Variables")
    if not isinstance(variables, dict):
        error = got.get("error")
        what = f'{{"error": {error}}}' if isinstance(error, str) and _KEY.fullmatch(error) else (
            tr("JSON without its Variables"))
        return _off(tr("its viewthread answers {what}", what=what))
    if str(got.get("Version")) != "4":
        return _off(tr("its viewthread answers no version 4"))
    formhash, uid = variables.get("formhash"), variables.get("member_uid")
    if not (isinstance(formhash, str) and formhash.isascii() and formhash.isalnum()):
        return _off(tr("its viewthread answers no form hash"))
    if not (isinstance(uid, str) and uid.isascii() and uid.isdigit()):
        return _off(tr("its viewthread answers no member"))
    name = variables.get("member_username")
    said = got.get("Charset") or "utf-8"
    if not isinstance(said, str) or not _CHARSET.fullmatch(said) or not _known(codec(said)):
        return _off(tr("its viewthread names a charset tally does not know"))
    return ReplyForm(
        action=f"{ref.base}{API}&module=sendreply&tid={ref.thread_id}&replysubmit=yes",
        fields=(("formhash", formhash),),
        charset=codec(said),
        uid=uid,
        # Discuz! keeps a name HTML-escaped (a & in it is &amp;), as its pages print it.
        member=html.unescape(name).strip() if isinstance(name, str) else "",
        page_url=url,
        via=INTERFACE,
    )


def _asks(ref: ThreadRef, ask: Ask) -> str:
    """What the board asks a person for with each post (验证码, 验证问答), as its
    ``module=secure`` says: "" where it asks nothing."""
    try:
        got = _object(ask(f"{ref.base}{API}&module=secure&type=post"))
    except FetchError:
        # X3.5 on PHP 8 answers HTTP 503 ("System Error", array_merge) when it asks nothing.
        return ""
    variables = got.get("Variables") if isinstance(got, dict) else None
    if not isinstance(variables, dict):
        return ""
    return "、".join(word for key, word in _ASKS if variables.get(key))


def send(form: ReplyForm, text: str, submit: Submit, link: Callable[[str], str]) -> Accepted:
    """The reply sent once through ``module=sendreply``, and its answer read: the new post
    (``link`` makes its URL from its id), or one sentence for each refusal; an answer that
    never came, or one tally does not know, is ``MaybePosted`` (the thread may hold it)."""
    body = form_body(form, text)  # the form hash, the message, 表情 off, in the board's charset
    headers = {"Content-Type": f"application/x-www-form-urlencoded; charset={form.charset}"}

    def explain(raw: bytes, content_type: str | None) -> PostError | None:
        return system_error(503, raw.decode(form.charset, errors="replace"))

    try:
        answer = submit(form.action, body, headers, explain)
    except FetchError as exc:  # sent, and no answer: it may be in the thread
        raise MaybePosted(str(exc)) from None
    return read_sent(answer.status, answer.body, link)


def read_sent(status: int, body: bytes, link: Callable[[str], str]) -> Accepted:
    """The interface's answer to a reply: the new post, or one sentence for each refusal."""
    got = _object(Response("", status, {}, body))
    if isinstance(got, str):
        raise unknown_answer(got if status == 200 else f"HTTP {status}")
    message = got.get("Message")
    said = message.get("messageval") if isinstance(message, dict) else None
    # "replyperm_login_nopermission//1": the key, and how Discuz! shows it.
    key = said.split("//")[0] if isinstance(said, str) else ""
    variables = got.get("Variables")
    pid = variables.get("pid") if isinstance(variables, dict) else None
    if key == "post_reply_succeed" and _a_post(pid):
        assert isinstance(pid, str)
        return Accepted(pid, link(pid))
    if key == "post_reply_mod_succeed":
        raise held()
    if key in _REFUSALS:
        raise PostError(refused(_REFUSALS[key], key))
    named = f"{key} (HTTP {status})" if _KEY.fullmatch(key) else f"HTTP {status}"
    raise unknown_answer(named)


def _a_post(pid: object) -> bool:
    return isinstance(pid, str) and pid.isascii() and pid.isdigit() and pid.strip("0") != ""


def _object(answer: Response) -> dict[str, Any] | str:
    """The answer's JSON object, or what it is instead, in words (never its body)."""
    if answer.status != 200:
        return f"HTTP {answer.status}"
    text = None
    for encoding in ("utf-8", "gb18030"):  # ASCII on a real X3.5, whatever the charset
        try:
            text = answer.body.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    try:
        data = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict):
        return data
    head = answer.body[:4096].lower()
    if b"<html" in head or b"<!doctype" in head:
        return tr("an HTML page")
    return tr("something that is not JSON") if data is None else tr("JSON that is no object")


def _moved(answer: Response, url: str) -> bool:
    """Whether the answer came from another address than ``url`` (a redirect followed)."""
    if not answer.url:
        return False
    came, asked = urlsplit(answer.url), urlsplit(url)
    return came.path != asked.path or sorted(parse_qsl(came.query)) != sorted(
        parse_qsl(asked.query)
    )


def _known(name: str) -> bool:
    try:
        codecs.lookup(name)
    except LookupError:
        return False
    return True
