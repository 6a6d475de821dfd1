"""A leaderboard as a LaTeX ``booktabs`` table, every competitor's text escaped."""

from __future__ import annotations

from srdash._version import __version__
from srdash.judging.ranking import Verdict

__all__ = ["leaderboard_latex"]

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}"}


def _latex(text) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in " ".join(str(text).split()))


def leaderboard_latex(verdict: Verdict, *, decimals: int = 3, caption: str | None = None,
                      label: str = "tab:leaderboard") -> str:
    """A leaderboard as a LaTeX table (``booktabs``: ``\\usepackage{booktabs}``).

    Columns: place (1 = best), method, score, the mean rank of each criterion
    (higher is better, K = best), datasets and DNF. Method names are escaped.

    Parameters
    ----------
    verdict : Verdict
    decimals : int, keyword-only
    caption : str, optional, keyword-only
        Default: the rules' title and how to read the ranks. Inserted as LaTeX
        (not escaped), so it may hold markup.
    label : str, keyword-only

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> t = pd.DataFrame({"method": ["a_b & c", "d"], "dataset": "x", "r2_test": [0.9, 0.8]})
    >>> from dataclasses import replace
    >>> rules = load_rules("srbench2022")
    >>> rules = replace(rules, criteria=(rules.criterion("accuracy"),))  # the table has accuracy only
    >>> print(leaderboard_latex(judge(t, rules)))  # doctest: +NORMALIZE_WHITESPACE
    % srdash ... leaderboard (rules srbench2022); needs \\usepackage{booktabs}
    \\begin{table}[ht]
    \\centering
    \\caption{SRBench 2022 synthetic track (published criteria). Place 1 = best; criteria columns are mean ranks over datasets (higher is better, 2 = best).}
    \\label{tab:leaderboard}
    \\begin{tabular}{rlrrrr}
    \\toprule
    Place & Method & Score & Accuracy & Datasets & DNF \\\\
    \\midrule
    1 & a\\_b \\& c & 2.000 & 2.000 & 1 & 0 \\\\
    2 & d & 1.000 & 1.000 & 1 & 0 \\\\
    \\bottomrule
    \\end{tabular}
    \\end{table}
    """
    rules = verdict.rules
    k = verdict.n_methods
    if caption is None:
        caption = (f"{_latex(rules.title or rules.name)}. Place 1 = best; criteria columns are mean ranks over "
                   f"datasets (higher is better, {k} = best).")
    header = ["Place", "Method", "Score"] + [_latex(c.name.replace("_", " ").capitalize()) for c in verdict.criteria]
    header += ["Datasets", "DNF"]
    lines = [f"% srdash {__version__} leaderboard (rules {_latex(rules.name)}); needs \\usepackage{{booktabs}}",
             "\\begin{table}[ht]", "\\centering", f"\\caption{{{caption}}}", f"\\label{{{label}}}",
             "\\begin{tabular}{rl" + "r" * (len(header) - 2) + "}", "\\toprule", " & ".join(header) + " \\\\",
             "\\midrule"]
    for row in verdict.leaderboard.to_dict("records"):
        cells = [str(int(row["place"])), _latex(row["method"]), f"{row['score']:.{decimals}f}"]
        cells += [f"{row[f'{c.name}_rank']:.{decimals}f}" for c in verdict.criteria]
        cells += [str(int(row["datasets"])), str(int(row["dnf"]))]
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"
