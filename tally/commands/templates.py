"""`tally templates export`: the built-in templates and their README copied into a folder, to
start a house style from."""

from __future__ import annotations

from pathlib import Path

from tally.errors import InputError, OutputError
from tally.i18n import tr
from tally.outputs.results import Exported
from tally.outputs.written.templating import TEMPLATES


def export_templates(folder: Path) -> Exported:
    """Copy the built-in templates and their README into ``folder`` (made if need be), to
    start a house style from; never over a file that is there."""
    from importlib import resources

    from tally.atomic import write_atomic

    if folder.exists() and not folder.is_dir():
        raise InputError(tr("{folder} is a file, not a folder.", folder=folder))
    sources = sorted(
        (p for p in resources.files(TEMPLATES).iterdir() if p.name.endswith((".j2", ".md"))),
        key=lambda p: p.name,
    )
    clash = [folder / p.name for p in sources if (folder / p.name).exists()]
    if clash:
        raise InputError(
            tr("{path} exists; tally never writes over a template: export into an empty folder.",
               path=clash[0])
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(
            tr("the folder {folder} cannot be made ({reason}).", folder=folder, reason=exc.strerror)
        ) from None
    written = []
    for source in sources:
        target = folder / source.name
        write_atomic(target, source.read_bytes())
        written.append(target)
    return Exported(folder, tuple(written))
