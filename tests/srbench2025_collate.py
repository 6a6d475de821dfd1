"""A reference for SRBench 2025's mean ranks: the ranking of its collate script, transcribed.

Source: cavalab/srbench, branch ``srbench_2025`` (commit dc3f6daa93bf10955df8775256a6f8644f38fd93),
``postprocessing/scripts/collate_experiments_results.py``. :func:`collate_mean_ranks` follows its
lines 72 (one record per run that wrote a JSON file), 95-98 (the per-dataset algorithm count),
108-109 (``groupby(['algorithm', 'dataset'], as_index=False).median()``), 116-121 (per column
ending in ``test`` or ``size``: ``ascending = 'r2' not in col``; ``round(x.rank(ascending=...), 3)``
per dataset) and 131-141 (``groupby('algorithm')[...].mean()`` of those ranks). Left out: reading
the JSON files (lines 49-69), the renaming and the symbolic-algorithm filter (lines 80-84, which
need SRBench's name lists), the per-trial ranks (lines 101-105, not used by the mean ranks) and the
normalised scores (lines 123-125).

Written from the script, not from srdash: the tests compare srdash's
:func:`srdash.analysis.srbench2025.srbench2025_mean_ranks` with it.
"""

from __future__ import annotations

import pandas as pd


def collate_mean_ranks(records: list[dict]) -> pd.DataFrame:
    """``algorithm``, ``r2_test_avg_rank``, ``model_size_avg_rank`` from one record per run (keys
    ``dataset``, ``algorithm``, ``random_state``, ``r2_test``, ``model_size``; a missing key or a NaN is a
    value the run did not write)."""
    df_results = pd.DataFrame.from_records(records)  # line 72
    df_results2 = df_results.merge(  # lines 95-98
        df_results.groupby('dataset')['algorithm'].nunique().reset_index(),
        on='dataset', suffixes=('', '_count')
    )
    df_sum = df_results2.groupby(['algorithm', 'dataset'], as_index=False).median()  # lines 108-109

    for col in [c for c in df_sum.columns if c.endswith('test') or c.endswith('size')]:  # lines 116-121
        ascending = 'r2' not in col
        df_sum[col + '_rank'] = df_sum.groupby('dataset')[col] \
            .transform(lambda x: round(x.rank(ascending=ascending), 3))

    avg_ranks = pd.DataFrame({  # lines 131-141
        'algorithm': df_sum['algorithm'].unique()
    })
    avg_ranks['r2_test_avg_rank'] = df_sum.groupby('algorithm')['r2_test_rank'] \
        .mean().reindex(avg_ranks['algorithm']).values
    avg_ranks['model_size_avg_rank'] = df_sum.groupby('algorithm')['model_size_rank'] \
        .mean().reindex(avg_ranks['algorithm']).values
    return avg_ranks
