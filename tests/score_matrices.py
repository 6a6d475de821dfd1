"""Score tables shared by the statistics tests (test_comparison, test_lineage_pairwise)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def long(matrix: pd.DataFrame) -> pd.DataFrame:
    """A (dataset x method) matrix of R2 as the long table the analyses read: dataset, method, r2_test."""
    return matrix.rename_axis(index="dataset", columns="method").stack().rename("r2_test").reset_index()


def random_matrix(seed: int, n=12, k=4) -> pd.DataFrame:
    """``n`` datasets (d0...) x ``k`` methods (m0...): standard normal noise, method j shifted by 0.3 j."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(size=(n, k)) + np.arange(k) * 0.3,
                        index=[f"d{i}" for i in range(n)], columns=[f"m{j}" for j in range(k)])
