"""`tally report`: one self-contained HTML page about a game so far (复盘).

For each closed day: the totals, who voted whom and the votes over time as pictures (SVG
from ``tally.outputs.written.charts``, inline), and every ballot with a link to its floor; then
posts per player per day with the cards, and the ledger. Nothing is fetched when the page
is opened: no CDN, no font, no script from elsewhere. The page is rendered with Jinja2's
autoescaping (every name is text); the pictures are matplotlib's SVG.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from tally.forums import platform_of
from tally.outputs.written import charts
from tally.outputs.written.announce import gone_label, outcome_sentence, post_link
from tally.outputs.written.template_reach import reach
from tally.outputs.written.templating import render, with_source
from tally.rules.cards.daycount import PlayerDay
from tally.rules.cards.ledger import Card
from tally.rules.counting.acceleration import Acceleration
from tally.rules.counting.count import votes_text
from tally.rules.counting.votes import DayResult
from tally.rules.game.game import Game
from tally.rules.judging.as_of import LostRead
from tally.rules.judging.standing import HIDDEN_REPLY
from tally.rules.verdicts import Colour, DayKind, Status, ThreadRole, void_words
from tally.times import long, short

REPORT = "report.html.j2"


def check_template(template_dir: Path | None) -> None:
    """Compile the report's page now, so that a broken one in the director's folder stops
    the command before any page is read: the report is no announcement, and is no kind of
    one."""
    from tally.outputs.written.templating import compile_templates

    compile_templates([REPORT], template_dir, html=True, finalize=None)


_MARK = {Colour.YELLOW: "黄", Colour.RED: "红", Colour.BLUE: "蓝"}


# A day's pictures: the key each has in its day, how it is drawn, its ids' salt.
PICTURES = {
    "totals_svg": (charts.totals_figure, "t"),
    "flow_svg": (charts.flow_figure, "f"),
    "timeline_svg": (charts.timeline_figure, "l"),
}
# Every key of a day (``_day``), for the template's reach (``template_reach``).
DAY_KEYS = frozenset({"day", "kind", "sentence", "rule", "thread_url", "closes", "comment_word",
                      *PICTURES, "not_voted", "ballots", "counted", "lost", "hidden",
                      "requests"})  # fmt: skip


def _day(
    result: DayResult, game: Game, drawn: frozenset[str] = frozenset(PICTURES),
    lost: Sequence[LostRead] = (),
    requests: Acceleration | None = None,
) -> dict[str, Any]:
    """One day of the page; of its pictures, those ``drawn`` (the template shows no other);
    ``lost`` the versions lost its count of the vote thread takes (the page says each);
    ``requests`` its acceleration requests where they disagree with the game file."""
    ref = result.day.vote_ref
    platform = platform_of(ref)
    mine = (result.day.day, ThreadRole.VOTE)
    salt = f"d{result.day.day}"
    pictures = {
        key: charts.svg(draw, result, salt=salt + suffix)
        for key, (draw, suffix) in PICTURES.items()
        if key in drawn
    }
    return {
        "day": result.day.day,
        "kind": "警长竞选" if result.kind is DayKind.SHERIFF else "放逐投票",
        "sentence": outcome_sentence(result, game),
        "rule": str(result.outcome.code.rule),
        "thread_url": platform.page_url(ref, 1),
        "closes": f"{short(result.day.closes)}",
        "comment_word": platform.comment_word,
        **pictures,
        "not_voted": list(result.not_voted),
        "ballots": _ballot_rows(result, game),
        "counted": sum(1 for b in result.ballots if b.status == Status.COUNTED),
        "lost": [_lost(r, game) for r in lost if (r.day, r.role) == mine],
        # Replies the forum hid from the players (回帖仅作者可见) and the count took: the page
        # counts ballots its readers could not see in the thread.
        "hidden": sum(1 for p in result.thread.posts if p.hidden == HIDDEN_REPLY),
        # S3: the close the count takes is the game file's, which the requests gainsay.
        "requests": None if requests is None else {
            "asked": len(requests.asked), "living": requests.living, "needed": requests.needed,
            "by": short(requests.deadline), "marked": requests.marked,
            "doubtful": len(requests.doubtful)},
    }  # fmt: skip


def _lost(read: LostRead, game: Game) -> dict[str, Any]:
    """A version lost that a count of the page takes, as the page names it: the day, the
    thread (by its role: 讨论帖, 投票帖, …), the page and when tally read it; ``note`` the
    director's sentence (the run's warning, in the director's language: the page shows
    none)."""
    return {"day": read.day, "thread": read.role.label, "thread_id": read.thread,
            "page": read.lost.page, "read": short(read.lost.read_at.astimezone(game.timezone)),
            "note": read.note}  # fmt: skip


def _ballot_rows(result: DayResult, game: Game) -> list[dict[str, Any]]:
    """Every ballot of the day and every post that holds none (listed, never counted), in
    the thread's order, as the page's table lists them."""
    weights = result.count.weights
    return sorted(
        [
            {
                "floor": b.floor,
                "comment": b.comment,
                "link": post_link(result, b),
                "voter": b.voter or b.author,
                "kind": b.kind.label,
                "target": b.target or b.written,
                "weight": votes_text(weights[b.voter][0]) if b.voter in weights else "",
                "time": f"{short(b.time)}",
                "status": str(b.status),
                "status_label": b.status.label,
                "reason": void_words(b.reason, game.rules) if b.reason else "",
                "note": b.note,
            }
            for b in result.ballots
        ]
        + [
            {
                "floor": r.floor,
                "comment": r.comment,
                "link": post_link(result, r),
                "voter": r.player or r.author,
                "kind": "",
                "target": "",
                "weight": "",
                "time": f"{short(r.time)}",
                "status": str(r.status),
                "status_label": r.status.label,
                # In the players' words: a post that holds no ballot by its first
                # words, one the forum took from them (屏蔽, deleted) by its label.
                "reason": r.words if r.status is Status.NOT_A_BALLOT else gone_label(r),
                "note": r.note,  # the director's, in English: the page shows none
            }
            for r in result.remarks  # a post that holds no ballot: listed, never counted
        ],
        key=lambda b: (b["floor"], b["comment"]),
    )


def render_report(
    game: Game,
    results: Sequence[DayResult],
    posts: Mapping[int, Sequence[PlayerDay]],
    cards: Sequence[Card],
    *,
    generated: datetime,
    pending: Sequence[int] = (),
    lost: Sequence[LostRead] = (),
    requests: Mapping[int, Acceleration] | None = None,
    template_dir: Path | None = None,
) -> str:
    """The report page; ``posts`` is each discussion day's counts, ``pending`` the days
    not closed yet (named, not drawn), ``lost`` the versions of the history lost that its
    counts take (said by the day whose count they touch), ``requests`` each day's acceleration
    requests that disagree with the game file (S3, by day); ``template_dir`` may hold the
    director's own report.html.j2 (else the built-in one). A picture the template cannot
    show is not drawn (``template_reach``): drawn before the render, never inside its time
    bound."""
    template, tree = with_source(REPORT, template_dir, html=True, finalize=None)
    reached = reach(tree, "days", DAY_KEYS)
    drawn = frozenset(PICTURES) if reached is None else reached.keys & frozenset(PICTURES)
    days = sorted(posts)
    counts = {(p.player, d): p.posts for d in days for p in posts[d]}
    marks: dict[tuple[str, int], str] = {}
    for c in cards:
        if not c.in_doubt:  # not counted yet: no mark on the heat map
            marks[(c.player, c.day)] = marks.get((c.player, c.day), "") + _MARK.get(c.colour, "")
    heatmap = None
    if days and (reached is None or "heatmap" in reached.names):
        heatmap = charts.svg(
            charts.heatmap_figure, list(game.players), days, counts, marks, salt="posts"
        )
    context = dict(
        game=game.name,
        ruleset=game.rules.name,
        generated=f"{long(generated)}",
        days=[_day(r, game, drawn, lost, (requests or {}).get(r.day.day)) for r in results],
        pending=list(pending),
        # The versions lost that the posts' counts take (each day's threads but its vote).
        posts_lost=[_lost(r, game) for r in lost if r.role is not ThreadRole.VOTE],
        heatmap=heatmap,
        players=list(game.players),
        cards=[
            {
                "day": c.day,
                "player": c.player,
                "colour": c.colour.label,
                "mark": _MARK.get(c.colour, ""),
                "rule": c.rule,
                "reason": c.reason,
                "in_doubt": c.in_doubt,
            }
            for c in sorted(cards, key=lambda c: (c.day, c.player))
        ],
    )
    return render(template, REPORT, context, html=True)
