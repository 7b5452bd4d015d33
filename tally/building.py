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
        built = Path(self.build_lib) / "tally" / "locale"
        if not self.editable_mode:
            targets.append(built)
        compile_catalogs(source, targets)
        if not self.editable_mode:
            # The wheel runs from its .mo alone: a .po beside it (the sdist's, for this build)
            # would be read instead wherever Babel happens to be installed and the .po looks newer.
            for po in built.glob("*/LC_MESSAGES/*.po"):
                po.unlink()

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs: list[str] = [o for o in super().get_outputs(include_bytecode)
                              if not o.endswith(".po")]  # fmt: skip
        built = Path(self.build_lib) / "tally" / "locale"
        source = Path(__file__).parent / "locale"
        outputs += [str(built / po.relative_to(source).with_suffix(".mo"))
                    for po in source.glob("*/LC_MESSAGES/*.po")]  # fmt: skip
        return outputs
