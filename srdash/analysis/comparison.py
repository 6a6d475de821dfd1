"""One comparison of methods on one metric: omnibus test, a named post-hoc test, effect sizes,
critical-difference groups and a plain-language paragraph (``srdash analyse compare``).

The pieces are srdash's own tests, put together as SRBench 2025 and autorank report them:

- **Blocks** (``unit``): a dataset (its runs combined by their median) or a (dataset, seed)
  pair (every run its own block). Each method has one value per block.
- **Missing values** (``missing``): ``'drop'`` leaves a block without a value for some method
  out of the Friedman-based tests (Wilcoxon uses, per pair, the blocks where both have a
  value); ``'worst'`` fills it with the worst value of the whole table (the minimum when
  higher is better), so a method that did not finish ranks last or tied for last there. When
  blocks are incomplete, the Skillings-Mack test is reported beside Friedman's: it uses every
  block instead of dropping the incomplete ones.
- **Omnibus**: Friedman's chi-square (tie-corrected) and Iman-Davenport's F on the complete
  blocks.
- **Post-hoc** (``posthoc``): ``'nemenyi'`` (mean ranks against the critical difference;
  controls the family-wise error itself, no correction), ``'conover'`` (Friedman-Conover t
  tests on the rank sums, then ``correction``) or ``'wilcoxon-holm'`` (Wilcoxon signed-rank per
  pair, then ``correction``: Holm by default, or Bonferroni). The two mean-rank post-hocs
  compare ranks computed among *all* the methods, so adding or removing a method can change
  the verdict on a pair; Wilcoxon's decision on a pair depends on those two methods only
  (the correction still depends on how many pairs there are). A mean-rank post-hoc only
  declares pairs different when the Friedman test rejects; Wilcoxon-Holm stands on its own.
- **Effect sizes** of every pair, on the blocks both have, positive when the first is better:
  Cliff's delta and Cohen's d (pooled standard deviation, the two samples taken as independent,
  as autorank does) with their magnitudes
  (:data:`srdash.analysis.significance.EFFECT_THRESHOLDS`).
- **Groups**: the bars of a critical-difference diagram from the chosen post-hoc's p-values
  (:func:`srdash.analysis.significance.groups_from_p_values`).

Examples
--------
>>> import pandas as pd
>>> t = pd.DataFrame({"method": list("aaaaabbbbbccccc"), "dataset": list("vwxyz") * 3,
...                   "r2_test": [.9, .8, .85, .95, .7, .5, .4, .6, .55, .3, .6, .5, .7, .65, .4]})
>>> result = compare(t, posthoc="conover")
>>> result.mean_ranks["method"].tolist()
['a', 'c', 'b']
>>> result.posthoc_label
'Conover (Friedman) post-hoc test, Holm-corrected'
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from srdash.analysis import _tables, costs

__all__ = ["Comparison", "compare", "compare_by_group", "friedman_datasets", "POSTHOCS", "MISSING_RULES"]

#: Post-hoc tests a comparison can use.
POSTHOCS = ("nemenyi", "conover", "wilcoxon-holm")
#: What a missing value becomes.
MISSING_RULES = ("drop", "worst")

#: Significant pairs the paragraph spells out (the rest are counted; every pair is in the table).
_LISTED_PAIRS = 12
#: Groups, and names per group, the paragraph spells out (the rest are counted; every group is in the result).
_LISTED_GROUPS = 12
_LISTED_NAMES = 20

_POSTHOC_NAMES = {"nemenyi": "Nemenyi post-hoc test", "conover": "Conover (Friedman) post-hoc test",
                  "wilcoxon-holm": "Wilcoxon signed-rank test per pair"}


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`.

    Attributes
    ----------
    value, direction : str
        The metric compared and which end is better.
    unit, posthoc, correction, missing : str
        The options used (``correction`` is ``'none'`` for Nemenyi).
    alpha : float
    n_blocks, n_methods : int
        Blocks with at least one value, and methods.
    omnibus : DataFrame
        ``test``, ``statistic``, ``df``, ``p_value``, ``blocks``: Friedman, Iman-Davenport and,
        when some block is incomplete, Skillings-Mack.
    mean_ranks : DataFrame
        ``method``, ``mean_rank`` (k = best, over the complete blocks), ``median`` of the metric
        over the blocks, best first.
    pairs : DataFrame
        One row per pair, ``method_a`` ranked above ``method_b``: ``p_value``, ``p_adjusted``,
        ``significant``, ``better``, ``blocks``, ``cliffs_delta``, ``cliffs_magnitude``,
        ``cohens_d``, ``cohens_magnitude`` (effect sizes of a over b on the blocks both have,
        positive when a is better: the values are negated first when lower is better).
    p_values : DataFrame
        Square matrix of ``p_adjusted``.
    groups : tuple of tuple of str
        Critical-difference bars from ``p_values``.
    paragraph : str
        The plain-language report.
    notes : tuple of str
    critical_difference : float or None
        The Nemenyi critical difference (mean-rank units) with ``posthoc='nemenyi'``; None for
        the post-hocs that decide by p-value only.
    """

    value: str
    direction: str
    unit: str
    posthoc: str
    correction: str
    missing: str
    alpha: float
    n_blocks: int
    n_methods: int
    omnibus: pd.DataFrame
    mean_ranks: pd.DataFrame
    pairs: pd.DataFrame
    p_values: pd.DataFrame
    groups: tuple[tuple[str, ...], ...]
    paragraph: str
    notes: tuple[str, ...] = ()
    critical_difference: float | None = None

    @property
    def test_label(self) -> str:
        """The omnibus test and the post-hoc in one line, for figure captions."""
        friedman = self.omnibus.set_index("test").loc["Friedman"]
        blocks = "N" if self.unit == "dataset" else "N (dataset, seed)"
        return (f"Friedman chi2 = {friedman['statistic']:.3f}, {p_text(friedman['p_value'])}; {self.posthoc_label}, "
                f"alpha = {self.alpha:g} (k = {self.n_methods}, {blocks} = {int(friedman['blocks'])})")

    @property
    def statement(self) -> str:
        """One sentence: how many pairs differ, and the best mean rank."""
        significant = int(self.pairs["significant"].sum())
        best = self.mean_ranks.iloc[0]
        return (f"{significant} of {len(self.pairs)} pairs differ significantly; best mean rank: {best['method']} "
                f"({best['mean_rank']:.2f}).")

    @property
    def posthoc_label(self) -> str:
        """The post-hoc test and its correction in words."""
        name = _POSTHOC_NAMES[self.posthoc]
        if self.correction == "none":
            return name + " (controls the family-wise error itself)"
        return f"{name}, {self.correction.capitalize()}-corrected"

    @property
    def friedman_rejects(self) -> bool:
        row = self.omnibus[self.omnibus["test"] == "Friedman"]
        return bool(len(row) and row["p_value"].iloc[0] < self.alpha)


def compare(
    table: pd.DataFrame,
    *,
    value: str = "r2_test",
    direction: str = "higher",
    method: str | None = None,
    dataset: str = "dataset",
    seed: str | None = None,
    unit: str = "dataset",
    posthoc: str = "wilcoxon-holm",
    correction: str = "holm",
    missing: str = "drop",
    alpha: float = 0.05,
) -> Comparison:
    """Compare every method on one metric: omnibus test, post-hoc test, effect sizes, report.

    Parameters
    ----------
    table : DataFrame
        One row per (method, dataset) or per run.
    value : str, keyword-only
        The metric column.
    direction : {'higher', 'lower'}, keyword-only
    method : str, optional, keyword-only
        Column of the method names (default 'method', else 'algorithm').
    dataset : str, keyword-only
    seed : str, optional, keyword-only
        Seed column with ``unit='dataset-seed'`` (default 'seed', 'random_state' or 'run').
    unit : {'dataset', 'dataset-seed'}, keyword-only
    posthoc : {'nemenyi', 'conover', 'wilcoxon-holm'}, keyword-only
    correction : {'holm', 'bonferroni'}, keyword-only
        Correction of the Conover and Wilcoxon p-values (Nemenyi takes none).
    missing : {'drop', 'worst'}, keyword-only
    alpha : float, keyword-only

    Returns
    -------
    Comparison

    Raises
    ------
    ValidationError
        When a column is missing.
    ValueError
        For an unknown option, fewer than three methods or fewer than two complete blocks.
    """
    from scipy import special

    from srdash.analysis.significance import (check_alpha, friedman_statistic, iman_davenport_test, nemenyi_pairs, cliffs_delta,
                                              cohens_d, critical_difference, groups_from_p_values, magnitude,
                                              skillings_mack)  # lazy: scipy

    _tables.check_direction("direction", direction)
    for name, given, allowed in (("posthoc", posthoc, POSTHOCS), ("correction", correction, _tables.CORRECTIONS),
                                 ("missing", missing, MISSING_RULES), ("unit", unit, _tables.UNITS)):
        if given not in allowed:
            raise ValueError(f"The '{name}' option must be one of {', '.join(map(repr, allowed))}. Got {given!r}.")
    check_alpha(alpha)
    method = _tables.method_column(table, method)
    _tables.check_columns(table, [method, dataset, value], what="the comparison of methods")
    blocked, block = _tables.blocks(table, unit=unit, dataset=dataset, seed=seed)
    matrix = _tables.wide(blocked, value, method=method, dataset=block).dropna(how="all")
    methods = list(matrix.columns)
    if len(methods) < 3:
        raise ValueError(f"A comparison needs at least three methods. Got {len(methods)}.")
    costs.check_compare(len(methods), posthoc=posthoc)  # past a bound of pairs: refused, with what to do
    notes: list[str] = []
    block_word = "datasets" if unit == "dataset" else "(dataset, seed) blocks"
    incomplete = matrix.isna().any(axis=1)
    if incomplete.any() and missing == "worst":
        worst = float(np.nanmin(matrix.to_numpy()) if direction == "higher" else np.nanmax(matrix.to_numpy()))
        notes.append(f"{int(matrix.isna().sum().sum())} missing value(s) filled with the worst value of the "
                     f"table, {worst:g} (missing='worst').")
        matrix = matrix.fillna(worst)
    oriented = matrix * (1.0 if direction == "higher" else -1.0)
    complete = oriented.dropna()
    if len(complete) < 2:
        raise ValueError(f"A comparison needs at least two {block_word} with a value for every method. "
                         f"Got {len(complete)}.")
    if len(complete) < len(oriented):
        notes.append(f"{len(oriented) - len(complete)} of {len(oriented)} {block_word} lack some method: the "
                     f"Friedman-based tests leave them out; the Skillings-Mack test uses them.")

    values = complete.to_numpy(dtype=float)
    ranks = pd.DataFrame(values).rank(axis=1, method="average").to_numpy()  # k = best
    n_complete, k = ranks.shape
    chi2, _ = friedman_statistic(ranks)
    friedman_p = float(special.chdtrc(k - 1, chi2))
    iman, iman_p = iman_davenport_test(chi2, n_complete, k)
    friedman_rejects = friedman_p < alpha
    omnibus = [{"test": "Friedman", "statistic": float(chi2), "df": float(k - 1), "p_value": friedman_p,
                "blocks": n_complete},
               {"test": "Iman-Davenport", "statistic": iman, "df": float(k - 1), "p_value": iman_p,
                "blocks": n_complete}]
    if len(complete) < len(oriented):
        sm = skillings_mack(oriented)
        omnibus.append({"test": "Skillings-Mack", "statistic": sm.statistic, "df": float(sm.df),
                        "p_value": sm.p_value, "blocks": sm.n_blocks})
    omnibus_table = pd.DataFrame(omnibus, columns=["test", "statistic", "df", "p_value", "blocks"])

    ranked = pd.Series(ranks.mean(axis=0), index=list(complete.columns)).sort_values(ascending=False, kind="stable")
    order = list(ranked.index)
    medians = matrix.median(axis=0)
    mean_ranks = pd.DataFrame({"method": order, "mean_rank": ranked.to_numpy(),
                               "median": [float(medians[m]) for m in order]})
    cd = critical_difference(k, n_complete, alpha=alpha) if posthoc == "nemenyi" else None

    long = (oriented.rename_axis(index="block", columns="method").stack().rename("v").reset_index())
    if posthoc == "nemenyi":
        used_correction = "none"
        raw = nemenyi_pairs(ranked, k, n_complete, cd)
        p_of = {frozenset((a, b)): p for a, b, p in zip(raw["method_a"], raw["method_b"], raw["p_value"])}
        adjusted_of = p_of
        blocks_of = {key: len(complete) for key in p_of}
    else:
        from srdash.analysis import pairwise  # scipy.stats: only for these two post-hocs

        used_correction = correction
        if posthoc == "conover":  # on the complete blocks (the note above says how many were left out)
            complete_long = long[long["block"].isin(complete.index)]
            tests = pairwise.friedman_conover(complete_long, value="v", method="method", dataset="block",
                                              p_adjust=correction)
        else:
            tests = pairwise.wilcoxon_holm(long, value="v", method="method", dataset="block", correction=correction)
        notes.extend(tests.notes)
        p_of, adjusted_of, blocks_of = {}, {}, {}
        for row in tests.pairs.itertuples(index=False):
            key = frozenset((row.method_a, row.method_b))
            p_of[key], adjusted_of[key], blocks_of[key] = row.p_value, row.p_adjusted, row.datasets
    gate = posthoc == "wilcoxon-holm" or friedman_rejects

    rows = []
    values_of = oriented.to_numpy(dtype=float)
    column_of = {name: i for i, name in enumerate(oriented.columns)}
    for a, b in itertools.combinations(order, 2):
        key = frozenset((a, b))
        x, y = values_of[:, column_of[a]], values_of[:, column_of[b]]
        both = ~np.isnan(x) & ~np.isnan(y)
        x, y = x[both], y[both]
        delta, d = cliffs_delta(x, y), cohens_d(x, y)
        adjusted = float(adjusted_of[key])
        better_sign = float(np.median(x - y)) if x.size else 0.0
        rows.append({"method_a": a, "method_b": b, "p_value": float(p_of[key]), "p_adjusted": adjusted,
                     "significant": bool(gate and adjusted < alpha),
                     "better": a if better_sign > 0 else b if better_sign < 0 else "",
                     "blocks": int(blocks_of[key]),
                     "cliffs_delta": delta, "cliffs_magnitude": magnitude(delta, "cliffs_delta"),
                     "cohens_d": d, "cohens_magnitude": magnitude(d, "cohens_d")})
    pairs = pd.DataFrame(rows)
    square = np.ones((len(order), len(order)))
    position = {name: i for i, name in enumerate(order)}
    first, second = [position[a] for a in pairs["method_a"]], [position[b] for b in pairs["method_b"]]
    square[first, second] = square[second, first] = pairs["p_adjusted"].to_numpy(dtype=float)
    p_values = pd.DataFrame(square, index=pd.Index(order, name="method"), columns=order)
    if not gate:
        groups: tuple[tuple[str, ...], ...] = (tuple(order),)
    else:
        groups = groups_from_p_values(order, p_values, alpha=alpha)
    result = Comparison(value=value, direction=direction, unit=unit, posthoc=posthoc, correction=used_correction,
                        missing=missing, alpha=float(alpha), n_blocks=len(oriented), n_methods=len(methods),
                        omnibus=omnibus_table, mean_ranks=mean_ranks, pairs=pairs, p_values=p_values,
                        groups=groups, paragraph="", notes=tuple(notes),
                        critical_difference=cd)
    return _with_paragraph(result)


def friedman_datasets(table: pd.DataFrame, *, dataset: str = "dataset") -> pd.Series:
    """SRBench's ``friedman_dataset`` column: whether the dataset's name contains ``_fri_`` (PMLB's
    synthetic Friedman datasets, 62 of the 122 black-box datasets).

    Examples
    --------
    >>> friedman_datasets(pd.DataFrame({"dataset": ["607_fri_c4_1000_50", "1027_ESL"]})).tolist()
    [True, False]
    """
    return table[dataset].astype(str).str.contains("_fri_", regex=False).rename("friedman_dataset")


def compare_by_group(table: pd.DataFrame, *, by: str, dataset: str = "dataset",
                     **options) -> tuple[tuple[str, Comparison], ...]:
    """:func:`compare` on each group of datasets (e.g. Friedman vs other PMLB datasets).

    Parameters
    ----------
    table : DataFrame
    by : str, keyword-only
        The column whose values split the datasets; ``'friedman_dataset'`` is derived from the
        dataset names (:func:`friedman_datasets`) when the table does not have it.
    dataset : str, keyword-only
    **options
        As :func:`compare`.

    Returns
    -------
    tuple of (group value as text, Comparison), by group value.

    Raises
    ------
    ValidationError
        When ``by`` is missing.
    ValueError
        When a dataset lies in two groups, or as :func:`compare` for any group.
    """
    if by not in table.columns and by == "friedman_dataset" and dataset in table.columns:
        table = table.assign(friedman_dataset=friedman_datasets(table, dataset=dataset).to_numpy())
    _tables.check_columns(table, [by, dataset], what="a comparison split by dataset group")
    groups_of = table.groupby(table[dataset].astype(str))[by].nunique(dropna=False)
    mixed = sorted(groups_of[groups_of > 1].index)
    if mixed:
        raise ValueError(f"The column '{by}' must hold one value per dataset; {', '.join(mixed[:5])} "
                         f"{'has' if len(mixed) == 1 else 'have'} several.")
    out = []
    for value, part in table.groupby(table[by].astype(str), sort=True):
        try:
            out.append((str(value), compare(part, dataset=dataset, **options)))
        except ValueError as exc:
            raise ValueError(f"Group {by} = {value}: {exc}") from exc
    return tuple(out)


def p_text(p: float) -> str:
    from srdash.analysis.significance import p_text  # lazy: scipy

    return p_text(p)


def _with_paragraph(result: Comparison) -> Comparison:
    import dataclasses

    return dataclasses.replace(result, paragraph=_paragraph(result))


def _paragraph(r: Comparison) -> str:
    """The plain-language report of a comparison (what autorank's ``create_report`` says, srdash's way)."""
    block_word = "datasets" if r.unit == "dataset" else "(dataset, seed) pairs, each run its own block"
    better = "higher" if r.direction == "higher" else "lower"
    friedman = r.omnibus.set_index("test").loc["Friedman"]
    parts = [f"{r.n_methods} methods were compared on {r.value} ({better} is better) over {r.n_blocks} "
             f"{block_word}."]
    if r.missing == "worst" and any("missing='worst'" in n for n in r.notes):
        parts.append("Missing values were filled with the worst value of the table.")
    parts.append(f"The Friedman test {'rejects' if friedman['p_value'] < r.alpha else 'does not reject'} that all "
                 f"methods perform alike (chi2 = {friedman['statistic']:.3f}, {p_text(friedman['p_value'])}, "
                 f"{int(friedman['blocks'])} complete blocks, alpha = {r.alpha:g}).")
    if "Skillings-Mack" in set(r.omnibus["test"]):
        sm = r.omnibus.set_index("test").loc["Skillings-Mack"]
        parts.append(f"Some blocks lack a method; the Skillings-Mack test, which uses them too, "
                     f"{'rejects' if sm['p_value'] < r.alpha else 'does not reject'} it (SM = {sm['statistic']:.3f}, "
                     f"{p_text(sm['p_value'])}, {int(sm['blocks'])} blocks).")
    if r.posthoc == "wilcoxon-holm":
        parts.append(f"Pairs were compared with the {r.posthoc_label}: the decision on a pair depends on those two "
                     f"methods only (the correction on the number of pairs), not on which other methods take part.")
    else:
        parts.append(f"Pairs were compared with the {r.posthoc_label}, on the mean ranks among all {r.n_methods} "
                     f"methods: adding or removing a method can change the verdict on a pair.")
        if not r.friedman_rejects:
            parts.append("Since the Friedman test does not reject, no pair is declared different.")
    significant = r.pairs[r.pairs["significant"]]
    if len(significant):
        sentences = []
        for row in significant.head(_LISTED_PAIRS).itertuples(index=False):
            winner = row.better or row.method_a
            loser = row.method_b if winner == row.method_a else row.method_a
            sign = 1.0 if winner == row.method_a else -1.0
            sentences.append(f"{winner} is significantly better than {loser} (p = {row.p_adjusted:.3g}; "
                             f"Cliff's delta = {sign * row.cliffs_delta:.3f}, {row.cliffs_magnitude}; "
                             f"Cohen's d = {sign * row.cohens_d:.3f}, {row.cohens_magnitude})")
        more = len(significant) - _LISTED_PAIRS
        parts.append("; ".join(sentences) + (f"; and {more} more significant pair(s) (see the pairs table)."
                                              if more > 0 else "."))
    else:
        parts.append("No pair of methods differs significantly.")
    groups = [g for g in r.groups if len(g) > 1]
    if groups and len(significant):
        # a paragraph of bounded length: 300 methods made about 100 groups of about 150 names (60,000 characters)
        shown = ["{" + ", ".join(g[:_LISTED_NAMES]) + (f", and {len(g) - _LISTED_NAMES} more" if
                                                       len(g) > _LISTED_NAMES else "") + "}"
                 for g in groups[:_LISTED_GROUPS]]
        more = len(groups) - _LISTED_GROUPS
        parts.append("Methods not significantly different from one another: " + "; ".join(shown)
                     + (f"; and {more} more group(s) (see the critical-difference diagram)." if more > 0 else "."))
    best = r.mean_ranks.iloc[0]
    parts.append(f"Best mean rank: {best['method']} ({best['mean_rank']:.3f}, {r.n_methods} = best).")
    return " ".join(parts)
