"""The winner certificate as HTML: one renderer for the report and the dashboard.

Examples
--------
>>> import pandas as pd
>>> from srdash.analysis.certificate import winner_certificate
>>> from srdash.demo.examples import accuracy_rules
>>> runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "r2_test": [0.9, 0.5, 0.1]})
>>> page = certificate_html(winner_certificate(runs, rules=accuracy_rules(), podium=1))
>>> "Name- and order-invariant: yes" in page, page.count("<tr")
(True, 6)
"""

from __future__ import annotations

from srdash.figures.escape import html_text
from srdash.figures.tables import Cell, Markup, table_html

__all__ = ["certificate_html"]


def certificate_html(certificate, *, variants: bool = True) -> str:
    """The certificate's findings (one row per place and family), the rules variants that change the
    winner, and the invariance line.

    Parameters
    ----------
    certificate : WinnerCertificate
        From :func:`srdash.analysis.certificate.winner_certificate`.
    variants : bool, keyword-only
        Also list the rules variants that change the winner.

    Returns
    -------
    str
        An HTML fragment; every text escaped.
    """
    # Three columns, the outcome and its reason in one cell: with five, a phone's screen (390 px) showed
    # the outcome and cut the reason off to the right, in rows a dozen lines tall.
    header = [Cell("Place"), Cell("Change"), Cell("Outcome, and why")]
    rows = [[Cell(Markup("{}<br><span class='srdash-holder'>{}</span>").format(f.place, " = ".join(f.holder))),
             Cell(f.family),
             Cell(Markup("<b>{}</b>: {}").format(f.outcome, f.reason), "srdash-changes" if f.stays is False else "")]
            for f in certificate.findings]
    parts = [table_html(header, rows, css="srdash-table srdash-certificate")]
    changing = certificate.variants[certificate.variants["changes"]]
    if variants and len(changing):
        parts.append(f"<div class='srdash-caption'>{html_text(f'Rules variants that change the winner ({len(changing)} of {len(certificate.variants)}, each judged directly)')}</div>")
        parts.append(table_html([Cell("Variant"), Cell("Winner"), Cell("Score")],
                                [[Cell(row.variant), Cell(row.winner), Cell(f"{row.winner_score:.4g}")]
                                 for row in changing.itertuples()], css="srdash-table srdash-certificate-variants"))
    checks = "; ".join(f"{name}: {'yes' if ok else 'no'}" for name, ok in certificate.invariance.items())
    parts.append(f"<div class='srdash-note'>{html_text(f'Name- and order-invariant: ' + ('yes' if certificate.invariant else 'no') + f' ({checks}).')}</div>")
    return "".join(parts)
