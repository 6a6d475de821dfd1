"""A small, built-in prediction-file competition (for the predictions app, its tests and `srdash predictions serve`).

:func:`write_demo_predictions` writes, deterministically from a seed, the two
test files (one line per test sample, the target in one of them and an empty
line in the other), six teams' submission files and a listing CSV (``team``,
``file``, ``submitted_at``; team names need not be folder names). It is meant
to show everything the app shows:

- a shake-up: team ``overfit`` tuned on the preliminary samples (small errors
  there, large ones on the final samples) drops on the final leaderboard;
- two metrics that disagree: ``spiky``'s errors are mostly tiny with a few
  large ones (good MAE, poor RMSE), ``steady``'s are all medium;
- a rejected submission: ``steady``'s second file has ``n/a`` on line 17;
- a team called ``<b>bold</b>``, which must be shown as text, never as HTML.

Examples
--------
>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     options = write_demo_predictions(folder)
...     sorted(options)
['metrics', 'rule', 'submissions', 'targets_final', 'targets_preliminary']
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from srdash.io.csvsafe import write_csv

__all__ = ["DEMO_TEAMS", "REJECTED_LINE", "write_demo_predictions"]

#: The demo's teams (listing order).
DEMO_TEAMS = ("forest", "linear", "overfit", "spiky", "steady", "<b>bold</b>")
#: The line of ``steady``'s second submission that is not a number.
REJECTED_LINE = 17
_SAMPLES = 240
_PRELIMINARY_SHARE = 0.3


def write_demo_predictions(folder: str | os.PathLike, *, seed: int = 0, samples: int = _SAMPLES) -> dict:
    """Write the demo prediction competition into ``folder`` and return the options to score it.

    Parameters
    ----------
    folder : path
        Created if needed; existing demo files are overwritten.
    seed : int, keyword-only
        Same seed, same files.
    samples : int, keyword-only
        Number of test samples (at least 20).

    Returns
    -------
    dict
        ``targets_preliminary``, ``targets_final``, ``submissions`` (absolute
        paths), ``metrics`` (``['rmse', 'mae']``) and ``rule`` (``'last'``):
        the keys of ``SRDASH_PREDICTIONS``.
    """
    if samples < 20:
        raise ValueError(f"The demo needs at least 20 samples. Got {samples}.")
    folder = Path(folder).resolve()
    rng = np.random.default_rng(seed)
    x = rng.uniform(-3.0, 3.0, samples)
    y = np.round(2.0 * np.sin(x) + 0.5 * x + rng.normal(0.0, 0.3, samples), 4)
    preliminary = rng.random(samples) < _PRELIMINARY_SHARE
    preliminary[:2], preliminary[2:4] = True, False  # both subsets are never empty
    _write_lines(folder / "targets_preliminary.txt", np.where(preliminary, y, np.nan))
    _write_lines(folder / "targets_final.txt", np.where(preliminary, np.nan, y))

    def noisy(scale: float) -> np.ndarray:
        return y + rng.normal(0.0, scale, samples)

    spikes = np.where(rng.random(samples) < 0.08, rng.normal(0.0, 2.5, samples), rng.normal(0.0, 0.1, samples))
    files = {
        ("forest", "forest-1.txt"): noisy(0.6),
        ("forest", "forest-2.txt"): noisy(0.45),
        ("linear", "linear-1.txt"): 0.5 * x + rng.normal(0.0, 0.2, samples),
        ("overfit", "overfit-1.txt"): np.where(preliminary, noisy(0.15), noisy(1.1)),
        ("spiky", "spiky-1.txt"): y + spikes,
        ("steady", "steady-1.txt"): noisy(0.5),
        ("steady", "steady-2.txt"): noisy(0.4),
        ("<b>bold</b>", "bold-1.txt"): noisy(0.55),
    }
    rows = []
    start = pd.Timestamp("2024-05-01T09:00:00Z")
    for i, ((team, name), values) in enumerate(files.items()):
        path = folder / "submissions" / name
        texts = [f"{v:.6f}" for v in values]
        if name == "steady-2.txt":
            texts[REJECTED_LINE - 1] = "n/a"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
        rows.append({"team": team, "file": f"submissions/{name}",
                     "submitted_at": (start + pd.Timedelta(hours=i)).isoformat()})
    listing = folder / "listing.csv"
    write_csv(pd.DataFrame(rows), listing, index=False, formulas="keep")
    return {"targets_preliminary": str(folder / "targets_preliminary.txt"),
            "targets_final": str(folder / "targets_final.txt"),
            "submissions": str(listing), "metrics": ["rmse", "mae"], "rule": "last"}


def _write_lines(path: Path, values: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["" if np.isnan(v) else f"{v:.4f}" for v in values]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
