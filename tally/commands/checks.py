"""What a command checks before it reads anything: the file it will write can be written,
the zone it is given is a zone."""

from __future__ import annotations

from datetime import tzinfo
from pathlib import Path

from tally.errors import InputError, OutputError
from tally.i18n import tr


def zone(name: str) -> tzinfo:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise InputError(
            tr("{name!r} is not a time zone name like Asia/Shanghai.", name=name)
        ) from None


def check_output(path: Path, what: str, *, overwrite: bool = True) -> None:
    """Before anything is downloaded: can ``path`` be written? ``what``: the kind of file,
    marked for the catalog where it is named (``N_("game file")``)."""
    if not overwrite and path.exists():
        raise InputError(
            tr("{path} exists; tally never writes over a {what}: give another name with -o.",
               path=path, what=tr(what))
        )
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(
            tr("cannot write {path}: the folder {folder} does not exist.", path=path, folder=folder)
        )
    if path.is_dir():
        raise InputError(tr("cannot write {path}: it is a folder.", path=path))
    # The file is written as a new file beside it, then renamed (tally.atomic): the folder
    # must take a new file, found out now rather than after an hour of watching.
    import tempfile

    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".tally-", suffix=".probe"):
            pass
    except OSError as exc:
        raise OutputError(
            tr("cannot write {path}: the folder {folder} takes no new file ({reason}).",
               path=path, folder=folder, reason=exc.strerror)
        ) from None
