"""The SQLite archive (`tally archive --db FILE.sqlite`), written with sqlite-utils.

Tables:

- ``posts``: the CSV's columns but the thread's own (those are in ``threads``), keyed by
  origin (the board), platform, thread_id and post_id, and ``gone_at``: when a read of the
  whole thread no longer showed the post (deleted or hidden since); the row stays, for the
  record.
- ``threads``: origin, platform, thread_id, title, url, pages, replies, read_at, missing.
- with a game file: ``games`` (game_id, game, file, ruleset, timezone), ``days`` (each closed
  day counted: its kind, times, vote thread and outcome), ``ballots`` (every ballot's
  verdict) and ``totals`` (each player's votes), keyed by the game's id (``Game.id``) and the
  day, the game's name beside it, so that many games share one database, two of one name
  too, and "who voted whom on day 3" is one query::

      select voter, target from ballots where game = '…' and day = 3 and status = 'counted'

A database written before the origin and game_id keys is brought up to them on the next
write (``_migrate``): a thread's origin from its URL, a game's id its name until the game
is written again, when it takes its own id.

A second run updates in place: only rows whose values changed are written (a new post is
inserted, an edited one updated), so an unchanged game changes no row. A thread's
``read_at`` moves on only when the thread changed, or when the new read is the first after
a close of the game (which is what makes that day's count final). Everything is written in
one transaction: a failed run leaves the database as it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from tally.errors import OutputError
from tally.i18n import tr
from tally.model import Thread
from tally.records import COLUMNS, KEY, THREAD_COLUMNS, database, rows
from tally.rules.counting.count import votes_number
from tally.rules.counting.votes import DayResult
from tally.rules.game.game import Game
from tally.times import iso

POST_COLUMNS = tuple(c for c in COLUMNS if c not in THREAD_COLUMNS)
THREAD_KEY = ("origin", "platform", "thread_id")
# Each table of a game's record, and its key.
GAME_TABLES = {
    "games": ("game_id",),
    "days": ("game_id", "day"),
    "ballots": ("game_id", "day", "post_id"),
    "totals": ("game_id", "day", "player"),
}


@dataclass(frozen=True)
class Written:
    """What a run did to the database, table by table: rows inserted, updated, deleted
    (a day's ballot or total a new count no longer has), unchanged."""

    inserted: Mapping[str, int]
    updated: Mapping[str, int]
    deleted: Mapping[str, int]
    unchanged: Mapping[str, int]
    gone: int  # posts marked gone

    @property
    def changed(self) -> int:
        moved = (*self.inserted.values(), *self.updated.values(), *self.deleted.values())
        return sum(moved) + self.gone


class _Tally:
    def __init__(self) -> None:
        self.inserted: dict[str, int] = {}
        self.updated: dict[str, int] = {}
        self.deleted: dict[str, int] = {}
        self.unchanged: dict[str, int] = {}
        self.gone = 0

    def add(self, into: dict[str, int], table: str, n: int) -> None:
        into[table] = into.get(table, 0) + n


def _sync(
    db: Any,
    table: str,
    pk: Sequence[str],
    wanted: Sequence[Mapping[str, Any]],
    existing: Iterable[Mapping[str, Any]],
    tally: _Tally,
    *,
    delete_others: bool = False,
) -> None:
    """Make ``table`` hold ``wanted`` (rows of one scope), writing only what differs."""
    have = {tuple(r[k] for k in pk): dict(r) for r in existing}
    new, changed, same = [], [], 0
    for row in wanted:
        key = tuple(row[k] for k in pk)
        old = have.pop(key, None)
        if old is None:
            new.append(dict(row))
        elif any(old.get(k) != v for k, v in row.items()):
            changed.append(dict(row))
        else:
            same += 1
    t = db[table]
    if new:
        t.insert_all(new, pk=tuple(pk), alter=True)
    if changed:
        t.upsert_all(changed, pk=tuple(pk), alter=True)
    if delete_others:
        for key in have:
            t.delete(key if len(key) > 1 else key[0])
        tally.add(tally.deleted, table, len(have))
    tally.add(tally.inserted, table, len(new))
    tally.add(tally.updated, table, len(changed))
    tally.add(tally.unchanged, table, same)


def _where(db: Any, table: str, clause: str, args: Sequence[Any]) -> list[dict[str, Any]]:
    if not db[table].exists():
        return []
    return list(db[table].rows_where(clause, list(args)))


def write_db(
    path: Path,
    threads: Sequence[Thread],
    *,
    game: Game | None = None,
    results: Sequence[DayResult] = (),
    now: datetime,
) -> Written:
    """Write (or bring up to date) the SQLite archive at ``path``."""
    import sqlite3

    tally = _Tally()
    try:
        db = database(path)
        with db.atomic():
            _migrate(db)
            for thread in threads:
                _thread(db, thread, game, now, tally)
            if game is not None:
                _game(db, game, results, tally)
        db.close()
    except sqlite3.DatabaseError as exc:
        raise OutputError(tr("cannot write the database {path} ({error}).", path=path,
                             error=exc)) from None  # fmt: skip
    return Written(tally.inserted, tally.updated, tally.deleted, tally.unchanged, tally.gone)


def _migrate(db: Any) -> None:
    """A database written before the origin and game_id keys, brought up to them."""
    from tally.model import origin_of

    threads, posts = db["threads"], db["posts"]
    if threads.exists() and "origin" not in threads.columns_dict:
        threads.add_column("origin", str)
        for row in list(threads.rows):
            url = row.get("url") or ""
            db.execute(
                "update threads set origin = ? where platform = ? and thread_id = ?",
                [origin_of(url) if "://" in url else "", row["platform"], row["thread_id"]],
            )
        threads.transform(pk=THREAD_KEY)
    if posts.exists() and "origin" not in posts.columns_dict:
        posts.add_column("origin", str)
        db.execute(
            "update posts set origin = coalesce((select t.origin from threads t where "
            "t.platform = posts.platform and t.thread_id = posts.thread_id), '')"
        )
        posts.transform(pk=KEY)
    for table, pk in GAME_TABLES.items():
        if db[table].exists() and "game_id" not in db[table].columns_dict:
            db[table].add_column("game_id", str)
            db.execute(f"update {table} set game_id = game")  # the name was the key
            db[table].transform(pk=pk)


def _thread(db: Any, thread: Thread, game: Game | None, now: datetime, tally: _Tally) -> None:
    key = [thread.origin, thread.platform, thread.thread_id]
    existing = _where(db, "posts", "origin = ? and platform = ? and thread_id = ?", key)
    wanted = [{c: r[c] for c in POST_COLUMNS} | {"gone_at": None} for r in rows([thread])]
    seen = {r["post_id"] for r in wanted}
    before = tally.gone + tally.inserted.get("posts", 0) + tally.updated.get("posts", 0)
    # A post the forum no longer shows stays, marked gone (only a whole read can tell).
    if not thread.missing:
        for row in existing:
            if row["post_id"] not in seen and row.get("gone_at") is None:
                db["posts"].update((*key, row["post_id"]), {"gone_at": iso(now)})
                tally.gone += 1
    _sync(db, "posts", KEY, wanted, [r for r in existing if r["post_id"] in seen], tally)
    grew = tally.gone + tally.inserted.get("posts", 0) + tally.updated.get("posts", 0) > before
    old = next(
        iter(_where(db, "threads", "origin = ? and platform = ? and thread_id = ?", key)), None
    )
    read_at = iso(thread.read_at)
    if old is not None and old.get("read_at") and thread.read_at is not None:
        last = datetime.fromisoformat(old["read_at"])
        closes = [d.closes for d in game.days] if game is not None else []
        crossed = any(last < c <= thread.read_at for c in closes)
        if not grew and not crossed:
            read_at = old["read_at"]  # the same thread, read again: nothing new to record
    row = {
        "origin": thread.origin,
        "platform": thread.platform,
        "thread_id": thread.thread_id,
        "title": thread.title,
        "url": thread.url,
        "pages": thread.page_count,
        "replies": thread.reply_count,
        "read_at": read_at or None,
        "missing": "; ".join(thread.missing),
        "read_by": thread.read_by,
    }
    _sync(db, "threads", THREAD_KEY, [row], [old] if old is not None else [], tally)


def _adopt_legacy(db: Any, game: Game) -> None:
    """A game written before games had ids was keyed by its name: the first write of it
    since gives its rows the game's own id (when the name is that game's: same file)."""
    if not db["games"].exists() or _where(db, "games", "game_id = ?", [game.id]):
        return
    file = str(game.path) if game.path is not None else ""
    legacy = _where(db, "games", "game_id = ? and game = ?", [game.name, game.name])
    if legacy and legacy[0].get("file") in (file, "", None):
        for table in GAME_TABLES:
            if db[table].exists():
                db.execute(
                    f"update {table} set game_id = ? where game_id = ?", [game.id, game.name]
                )


def _game(db: Any, game: Game, results: Sequence[DayResult], tally: _Tally) -> None:
    gid = game.id
    _adopt_legacy(db, game)
    about = {
        "game_id": gid,
        "game": game.name,
        "file": str(game.path) if game.path is not None else "",
        "ruleset": game.rules.name,
        "timezone": str(game.timezone),
    }
    _sync(db, "games", ("game_id",), [about], _where(db, "games", "game_id = ?", [gid]), tally)
    for result in results:
        scope = [gid, result.day.day]
        _sync(db, "days", GAME_TABLES["days"], [_day_row(game, result)],
              _where(db, "days", "game_id = ? and day = ?", scope), tally)  # fmt: skip
        _sync(
            db, "ballots", GAME_TABLES["ballots"], _ballot_rows(game, result),
            _where(db, "ballots", "game_id = ? and day = ?", scope), tally, delete_others=True,
        )  # fmt: skip
        _sync(
            db, "totals", GAME_TABLES["totals"], _total_rows(game, result),
            _where(db, "totals", "game_id = ? and day = ?", scope), tally, delete_others=True,
        )  # fmt: skip


def _day_key(game: Game, result: DayResult) -> dict[str, Any]:
    """The columns every row of a day's record starts with: the game's id, its name, the day."""
    return {"game_id": game.id, "game": game.name, "day": result.day.day}


def _day_row(game: Game, result: DayResult) -> dict[str, Any]:
    """The ``days`` row: the day's kind, times, vote thread and outcome."""
    day, o = result.day, result.outcome
    return {
        **_day_key(game, result),
        "kind": str(result.kind),
        "opens": iso(day.opens),
        "closes": iso(day.closes),
        "vote_origin": result.thread.origin,
        "vote_platform": result.thread.platform,
        "vote_thread_id": result.thread.thread_id,
        "outcome_result": str(o.result),
        "outcome_player": o.player,
        "outcome_rule": str(o.code),
        "outcome_note": o.note,
        "cast": votes_number(result.count.cast),
    }


def _ballot_rows(game: Game, result: DayResult) -> list[dict[str, Any]]:
    """The ``ballots`` rows: every ballot's verdict, then each post that holds no ballot
    (listed, never counted), in the same columns."""
    weights = result.count.weights
    thread = {"platform": result.thread.platform, "thread_id": result.thread.thread_id}
    return [
        {
            **_day_key(game, result),
            "post_id": b.post_id,
            **thread,
            "parent_post_id": b.parent_post_id,
            "floor": b.floor,
            "comment": int(b.comment),
            "author": b.author,
            "voter": b.voter,
            "kind": str(b.kind),
            "target": b.target,
            "written": b.written,
            "weight": votes_number(weights[b.voter][0]) if b.voter in weights else None,
            "time": iso(b.time),
            "posted_at": iso(b.posted_at),
            "status": str(b.status),
            "reason": str(b.reason) if b.reason else None,
            "note": b.note,
        }
        for b in result.ballots
    ] + [
        {
            **_day_key(game, result),
            "post_id": r.post_id,
            **thread,
            "parent_post_id": r.parent_post_id,
            "floor": r.floor,
            "comment": int(r.comment),
            "author": r.author,
            "voter": r.player,
            "kind": None,
            "target": None,
            "written": "",
            "weight": None,
            "time": iso(r.time),
            "posted_at": iso(r.time),
            "status": str(r.status),
            "reason": None,
            "note": r.note or r.words,
        }
        for r in result.remarks
    ]


def _total_rows(game: Game, result: DayResult) -> list[dict[str, Any]]:
    """The ``totals`` rows: each player's votes, voters and bonus."""
    return [
        {
            **_day_key(game, result),
            "player": t.player,
            "votes": votes_number(t.votes),
            "voters": json.dumps(list(t.voters), ensure_ascii=False),
            "bonus": votes_number(sum((a for a, _, _ in t.bonuses), start=t.votes * 0)),
        }
        for t in result.totals
    ]
