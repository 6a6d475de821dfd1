"""docs/architecture.md matches the code: every module under srdash/ is named in its package's section, and
every module or package path the document names exists (issue 36, item 6)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "architecture.md"

# "### `srdash/io/`": a package's section; "- `loading.py`": a module of it, named at the start of a line
SECTION = re.compile(r"^### `(srdash/(?:[\w]+/)*)`", re.MULTILINE)
MODULE = re.compile(r"^- `([\w]+\.py)`", re.MULTILINE)
# a path written out anywhere in the document: srdash/..../name.py or srdash/.../ (a package)
PATH = re.compile(r"`(srdash/[\w/]*\w(?:\.py)?/?)`")


def documented_modules(text: str) -> set[str]:
    """The modules the document names, as paths: each section's package joined with its ``- `x.py``` lines.

    Examples
    --------
    >>> sorted(documented_modules("### `srdash/io/`\\n- `loading.py`: results\\n### `srdash/`\\n- `cache.py`: x"))
    ['srdash/cache.py', 'srdash/io/loading.py']
    """
    found = set()
    sections = list(SECTION.finditer(text))
    for i, section in enumerate(sections):
        end = sections[i + 1].start() if i + 1 < len(sections) else len(text)
        found |= {section.group(1) + name for name in MODULE.findall(text[section.end():end])}
    return found


def _modules() -> set[str]:
    return {str(path.relative_to(REPO)) for path in (REPO / "srdash").rglob("*.py")
            if "__pycache__" not in path.parts}


def test_every_module_under_srdash_is_named_in_its_packages_section():
    missing = sorted(_modules() - documented_modules(DOC.read_text(encoding="utf-8")))
    assert missing == [], f"modules not in docs/architecture.md: {missing}"


def test_every_module_the_document_names_exists():
    text = DOC.read_text(encoding="utf-8")
    named = documented_modules(text) | {path.rstrip("/") for path in PATH.findall(text)}
    absent = sorted(path for path in named if not (REPO / path).exists())
    assert absent == [], f"docs/architecture.md names what does not exist: {absent}"


def test_every_package_has_a_section():
    packages = {str(path.parent.relative_to(REPO)) + "/" for path in (REPO / "srdash").rglob("__init__.py")}
    sections = set(SECTION.findall(DOC.read_text(encoding="utf-8")))
    assert sorted(packages - sections) == []
