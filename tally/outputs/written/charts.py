"""The pictures of a day and of a game, drawn with matplotlib: SVG for the report (text kept
as text, so names stay searchable and the page small) and PNG for a forum post.

Chinese names need a font with Chinese characters. ``cjk_font`` looks for one among the
fonts installed (by its glyphs, not by its name alone) and registers it with matplotlib;
without one, SVG text still names the common CJK families for the browser to find, and a
PNG says so (``Picture.warning``).
"""

from __future__ import annotations

import functools
import io
import itertools
import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tally.i18n import tr
from tally.kept import Kept
from tally.rules.counting.count import votes_text
from tally.rules.counting.timeline import moments
from tally.rules.verdicts import Status
from tally.times import clock, short

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tally.rules.counting.votes import DayResult

# Families that hold Chinese characters, most common first: what the SVG asks a browser for.
CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "Microsoft YaHei",
    "PingFang SC",
    "Hiragino Sans GB",
    "SimHei",
    "Droid Sans Fallback",
    "AR PL UMing CN",
)
# Words in font file names that suggest Chinese glyphs; each candidate is then checked.
_HINTS = ("cjk", "wqy", "wenquan", "han", "hei", "song", "ming", "kai", "yahei", "msyh",
          "simsun", "pingfang", "hiragino", "notosanssc", "fallback")  # fmt: skip
_PROBE = "月影长夜"
TIED = "#bbbbbb"  # the leader band while several lead
COLOURS = ("#c0392b", "#2980b9", "#27ae60", "#8e44ad", "#d35400", "#16a085", "#2c3e50",
           "#f39c12", "#7f8c8d", "#e84393", "#00838f", "#6d4c41")  # fmt: skip


@functools.cache
def cjk_font() -> str | None:
    """The family name of an installed font that draws Chinese, registered with matplotlib;
    None when there is none."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    def draws_chinese(path: str) -> bool:
        try:
            font = FT2Font(path)
            return all(font.get_char_index(ord(c)) for c in _PROBE)
        except (OSError, RuntimeError, ValueError):
            return False

    known = {f.name: f.fname for f in font_manager.fontManager.ttflist}
    for family in CJK_FAMILIES:
        if family in known and draws_chinese(known[family]):
            return family
    # Fonts installed after matplotlib built its cache are not in ttflist: look at the files.
    for path in sorted(font_manager.findSystemFonts()):
        name = path.rsplit("/", 1)[-1].lower().replace("-", "").replace("_", "")
        if any(h in name for h in _HINTS) and draws_chinese(path):
            font_manager.fontManager.addfont(path)
            return str(font_manager.FontProperties(fname=path).get_name())
    return None


def _style() -> Any:  # matplotlib types rcParams keys as literals
    import logging

    # "Failed to find font weight bold": the regular face is used, which is fine here.
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    found = cjk_font()
    families = [found] if found else []
    families += [f for f in CJK_FAMILIES if f != found] + ["DejaVu Sans"]
    return {
        # Every text is a name or words from a forum or a game file, drawn as written: a
        # "$" must not start a formula ("$\\bad$" is a traceback, "a$b$c" italics).
        "text.parse_math": False,
        "text.usetex": False,
        "svg.fonttype": "none",  # text as <text>: searchable, small, drawn by the browser
        "font.family": "sans-serif",
        "font.sans-serif": families,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "font.size": 10,
    }


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


@dataclass(frozen=True)
class Picture:
    data: bytes
    warning: str | None  # a sentence when the picture cannot show Chinese names


# The pictures drawn last, each by all it is drawn from: the desk draws a day's three on
# every visit to it, and the report the same day again (a few hundred ms each).
DRAWN_KEPT = 48
_drawn: Kept[bytes, str] = Kept(DRAWN_KEPT)


def svg(draw: Any, *args: Any, salt: str) -> str:
    """The SVG text of the figure ``draw(*args)`` makes; ``salt`` keeps its element ids
    apart from those of the other pictures on the same page. A picture is a pure function
    of ``draw``, what it reads of ``args`` (``_pictured``) and the style, so one drawn from
    the same (pickled to the same bytes) is the one drawn before."""
    style = {**_style(), "svg.hashsalt": salt}
    try:
        drawn_from = tuple(_pictured(a) for a in args)
        key = pickle.dumps((draw, drawn_from, sorted(style.items(), key=str)), protocol=5)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        key = None  # a lambda, a local function: drawn every time
    if key is not None:
        found = _drawn.get(key)
        if found is not None:
            return found
    text = _svg(draw, args, style)
    if key is not None:
        _drawn.put(key, text)
    return text


def _pictured(arg: Any) -> Any:
    """What of ``arg`` a picture is drawn from: of a day's result, its day's number, open and
    close, its count and its ballots (not where its pages came from, nor when they were
    read: a report's second run reads them from the cache, the desk's next poll at another
    time; nor the day's threads, whose addresses a mended game file changes). A drawing
    kept here reads nothing else of a result (a test guards it): day_figure, which reads
    whether the count is provisional, is drawn by ``png`` alone, never kept."""
    from tally.rules.counting.votes import DayResult

    if isinstance(arg, DayResult):
        day = arg.day
        return ("day", (day.day, day.opens, day.closes), arg.count, arg.ballots)
    return arg


def _saved(draw: Any, args: tuple[Any, ...], style: Any, out: Any, **how: Any) -> None:
    """The figure ``draw(*args)`` makes in ``style``, saved to ``out`` as ``how`` says."""
    import warnings

    import matplotlib

    with matplotlib.rc_context(style), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Glyph missing": the browser draws it
        draw(*args).savefig(out, **how)


def _svg(draw: Any, args: tuple[Any, ...], style: Any) -> str:
    out = io.StringIO()
    # No date of drawing: the page says when it was made (the run's clock), and two runs
    # over the same game make the same page.
    _saved(draw, args, style, out, format="svg", metadata={"Date": None})
    text = out.getvalue()
    return text[text.index("<svg") :]


def png(draw: Any, *args: Any, dpi: int = 110) -> Picture:
    found = cjk_font()
    out = io.BytesIO()
    _saved(draw, args, _style(), out, format="png", dpi=dpi)
    warning = None
    if found is None:
        warning = tr(
            "no font with Chinese characters is installed, so names in the picture show as "
            "boxes; install one (Debian: fonts-noto-cjk or fonts-wqy-microhei) and run again."
        )
    return Picture(out.getvalue(), warning)


def _colour(players: Sequence[str]) -> dict[str, str]:
    return dict(zip(players, itertools.cycle(COLOURS), strict=False))


def _title(result: DayResult) -> str:
    what = result.kind.label  # 警长竞选, 投票
    return f"第{result.day.day}天{what}"


# A bonus as the players know it (RULES C2, C3), not by its rule id.
BONUS_WORDS = {"C2": "诽谤", "C3": "众志成城"}


def _whole_ticks(axis: Any) -> None:
    """Ticks at whole votes (or posts) only: half a vote is never a mark on the axis."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


# -- the pictures -----------------------------------------------------------------------------


def totals_figure(result: DayResult) -> Figure:
    fig = _figure(6.4, 0.45 * max(3, len(result.totals)) + 1.0)
    draw_totals(fig.add_subplot(), result)
    return fig


def draw_totals(ax: Any, result: DayResult) -> None:
    """Each player's votes as a bar, one segment per voter (by weight) and the bonuses."""
    weights = result.count.weights
    totals = list(result.totals)
    names = [t.player for t in totals][::-1]
    for row, t in enumerate(totals[::-1]):
        left = Decimal(0)
        for voter in t.voters:
            w = weights.get(voter, (Decimal(1), None))[0]
            ax.barh(row, float(w), left=float(left), color="#5b8def", edgecolor="white")
            if w >= Decimal("0.8"):
                label = voter + (f"×{votes_text(w)}" if w != 1 else "")
                ax.text(float(left + w / 2), row, label, ha="center", va="center",
                        fontsize=8, color="white")  # fmt: skip
            left += w
        for amount, _why, rule in t.bonuses:
            ax.barh(row, float(amount), left=float(left), color="#f0b429", edgecolor="white",
                    hatch="//")  # fmt: skip
            word = BONUS_WORDS.get(rule, rule)
            ax.text(float(left + amount / 2), row, f"{word} +{votes_text(amount)}",
                    ha="center", va="center", fontsize=8)  # fmt: skip
            left += amount
        ax.text(float(left) + 0.1, row, votes_text(t.votes), va="center", fontweight="bold")
    ax.set_yticks(range(len(names)), names)
    _whole_ticks(ax.xaxis)
    ax.set_xlabel("票数（蓝：每位投票人的票，按票权；黄斜纹：加票）", fontsize=8)
    ax.set_title(f"{_title(result)}：得票")
    if not totals:
        ax.text(0.5, 0.5, "无人得票", transform=ax.transAxes, ha="center")


def _flow_rows(result: DayResult) -> int:
    counted = [b for b in result.ballots if b.status == Status.COUNTED and b.voter and b.target]
    return max(len({b.voter for b in counted}), len({b.target for b in counted}), 2)


def flow_figure(result: DayResult) -> Figure:
    fig = _figure(6.4, 0.32 * _flow_rows(result) + 1.2)
    draw_flow(fig.add_subplot(), result)
    return fig


def draw_flow(ax: Any, result: DayResult) -> None:
    """Who voted whom: voters on the left, targets on the right, a line per ballot in force
    at the close, as thick as its weight."""
    weights = result.count.weights
    counted = [b for b in result.ballots if b.status == Status.COUNTED and b.voter and b.target]
    voters = list(dict.fromkeys(b.voter for b in counted if b.voter))
    targets = list(dict.fromkeys(b.target for b in counted if b.target))
    rows = _flow_rows(result)
    ax.set_axis_off()
    ax.set_xlim(-0.35, 1.35)
    ax.set_ylim(-0.8, rows - 0.2)

    def y(items: Sequence[str], name: str) -> float:
        offset = (rows - len(items)) / 2
        return rows - 1 - offset - items.index(name)

    # Each player in one colour in every picture of the day: the order of the totals.
    colours = _colour(list(dict.fromkeys([t.player for t in result.totals] + targets)))
    for b in counted:
        assert b.voter is not None and b.target is not None
        w = weights.get(b.voter, (Decimal(1), None))[0]
        y0, y1 = y(voters, b.voter), y(targets, b.target)
        style = "--" if b.abstain else "-"
        ax.plot([0, 1], [y0, y1], style, color=colours[b.target], linewidth=1 + 2 * float(w),
                alpha=0.75)  # fmt: skip
    for name in voters:
        # The weight beside the voter's name: in the middle it sat on the crossing lines.
        w = weights.get(name, (Decimal(1), None))[0]
        label = f"{name} ×{votes_text(w)}" if w != 1 else name
        ax.text(-0.03, y(voters, name), label, ha="right", va="center")
    totals = {t.player: t.votes for t in result.totals}
    for name in targets:
        label = f"{name}  {votes_text(totals[name])}" if name in totals else name
        ax.text(1.03, y(targets, name), label, ha="left", va="center", fontweight="bold",
                color=colours[name])  # fmt: skip
    ax.set_title(f"{_title(result)}：谁投了谁")
    if any(b.abstain for b in counted):
        ax.text(0.5, -0.7, "虚线：弃权票", ha="center", va="center", fontsize=8, color="#555")
    if not counted:
        ax.text(0.5, 0.5, "无有效票", ha="center")


def timeline_figure(result: DayResult) -> Figure:
    """The running totals from the open to the close, the leader marked along the top."""
    import matplotlib.dates as mdates

    seen = moments(result)
    # Everyone who had a vote at some moment: those at the close first, in their order.
    players = list(
        dict.fromkeys([t.player for t in result.totals] + [p for m in seen for p in m.totals])
    )
    colours = _colour(players)
    fig = _figure(7.2, 3.6)
    ax: Any = fig.add_subplot()
    tz = result.day.closes.tzinfo
    times = [m.time for m in seen]
    for player in players:
        values = [float(m.totals.get(player, 0)) for m in seen]
        ax.step(times, values, where="post", color=colours.get(player, "#555"), label=player,
                linewidth=2)  # fmt: skip
    from matplotlib.patches import Patch

    # The close in the legend, not as words on the plot: there they sat on the line.
    ax.axvline(result.day.closes, color="#c0392b", linestyle="--",
               label=f"关门 {clock(result.day.closes)}")  # fmt: skip
    top = max((float(v) for m in seen for v in m.totals.values()), default=1.0)
    # Along the top, a band in the colour of who leads (grey while several tie).
    tied = False
    for now, then in itertools.pairwise(seen):
        if not now.leaders:
            continue
        tied = tied or len(now.leaders) > 1
        colour = colours.get(now.leaders[0], "#555") if len(now.leaders) == 1 else TIED
        ax.fill_between([now.time, then.time], top * 1.1, top * 1.18, color=colour,
                        linewidth=0)  # fmt: skip
    handles, _ = ax.get_legend_handles_labels()
    handles.append(Patch(facecolor="none", edgecolor="none", label="顶部色带：当时领先者"))
    if tied:
        handles.append(Patch(color=TIED, label="灰：并列领先"))
    ax.set_ylim(0, top * 1.3 + 0.5)
    _whole_ticks(ax.yaxis)
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%m-%d %H:%M", tz=tz))  # type: ignore[no-untyped-call]
    ax.set_ylabel("票数")
    ax.set_title(f"{_title(result)}：票数变化")
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8,
              frameon=False)  # fmt: skip
    fig.autofmt_xdate()
    return fig


def day_figure(result: DayResult, sentence: str) -> Figure:
    """The picture to paste: the totals and who voted whom, side by side, under the day's
    result as the announcement words it (``sentence``). Before the close it is a standing,
    headed 暂计 with its time, and says nothing of who is out: the picture is what gets
    posted, and it must not look final."""
    rows = max(len(result.totals) * 1.4, _flow_rows(result), 3)
    fig = _figure(12, 0.34 * rows + 1.6)
    left, right = fig.subplots(1, 2)
    draw_totals(left, result)
    draw_flow(right, result)
    if result.provisional:
        heading = f"{_title(result)} 暂计（截至 {short(result.as_of)}，未结票）"
    else:
        heading = f"{_title(result)}：{sentence}"
    fig.suptitle(heading, fontweight="bold")
    return fig


def heatmap_figure(
    players: Sequence[str],
    days: Sequence[int],
    posts: Mapping[tuple[str, int], int],
    cards: Mapping[tuple[str, int], str],
) -> Figure:
    """Posts per player per discussion day; a cell with a card carries its colour's mark."""
    import numpy as np

    grid = np.array([[posts.get((p, d), -1) for d in days] for p in players], dtype=float)
    masked = np.ma.masked_less(grid, 0)
    # Wide enough for its title and key whatever the number of days (two were clipped).
    fig = _figure(max(4.6, 1.6 + 0.9 * len(days)), 0.36 * max(3, len(players)) + 1.6)
    ax: Any = fig.add_subplot()
    image = ax.imshow(masked, cmap="Blues", aspect="auto")
    for i, p in enumerate(players):
        for j, d in enumerate(days):
            n = posts.get((p, d))
            mark = cards.get((p, d), "")
            text = ("—" if n is None else str(n)) + (f" {mark}" if mark else "")
            dark = n is not None and grid[i, j] > (np.nanmax(grid) or 1) * 0.6
            ax.text(j, i, text, ha="center", va="center", fontsize=8,
                    color="white" if dark else "black")  # fmt: skip
    ax.set_xticks(range(len(days)), [f"第{d}天" for d in days])
    ax.set_yticks(range(len(players)), list(players))
    ax.set_title("每天发言数")
    ax.set_xlabel("格内：发言数；黄、红：当天的黄牌、红牌；—：已出局", fontsize=8)
    bar = fig.colorbar(image, ax=ax, shrink=0.6, label="发言数")
    _whole_ticks(bar.ax.yaxis)
    return fig
