"""Representative-run tables for the review's widget tests."""

from __future__ import annotations

import pandas as pd


def sized_representatives(datasets: int, methods: int = 3) -> pd.DataFrame:
    """``methods`` models on each of ``datasets`` datasets, with no model string (black-box results give each
    model's size only): no formula and no figure on their cards."""
    return pd.DataFrame([(f"m{m}", f"d{d:03d}", 0, float("nan"), 0.5 + m / 10, -1.0, 5.0, "given", "", "", 1)
                         for d in range(datasets) for m in range(methods)],
                        columns=["method", "dataset", "run", "model", "r2_test", "simplicity", "components",
                                 "status", "reason", "features_used", "n_runs"])
