"""The wheel's build step that compiles the message catalogs: each ``tally/locale/*/
LC_MESSAGES/tally.po`` becomes its ``.mo`` beside it (what an editable install and a checkout
read) and in the build's copy of the package (what the wheel holds). No compiled catalog is
committed. Loaded by setuptools (pyproject.toml, ``[tool.setuptools] cmdclass``) before
tally's dependencies exist: it needs only Babel (a build requirement) and the standard
library."""

from __future__ import annotations

import io
from pathlib import Path

from setuptools.command.build_py import build_py


def compile_catalogs(source: Path, targets: list[Path]) -> list[Path]:
    """Every ``.po`` under ``source`` compiled into each of ``targets`` (same layout)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    written = []
    for po in sorted(source.glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as f:
            catalog = read_po(f)
        buffer = io.BytesIO()
        write_mo(buffer, catalog)
        for target in targets:
            mo = target / po.relative_to(source).with_suffix(".mo")
            mo.parent.mkdir(parents=True, exist_ok=True)
            part = mo.with_suffix(".mo.part")
            part.write_bytes(buffer.getvalue())
            part.replace(mo)
            written.append(mo)
    return written


class BuildPy(build_py):  # type: ignore[misc]
    """build_py, then the catalogs compiled."""

    def run(self) -> None:
        super().run()
        source = Path(__file__).parent / "locale"
        targets = [source]
        if not self.editable_mode:
            targets.append(Path(self.build_lib) / "tally" / "locale")
        compile_catalogs(source, targets)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs: list[str] = super().get_outputs(include_bytecode)
        built = Path(self.build_lib) / "tally" / "locale"
        source = Path(__file__).parent / "locale"
        outputs += [str(built / po.relative_to(source).with_suffix(".mo"))
                    for po in source.glob("*/LC_MESSAGES/*.po")]  # fmt: skip
        return outputs
