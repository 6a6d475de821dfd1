"""A model's formula in the judge's card, readable at a desk and on a phone without scrolling sideways.

MathJax 3 does not break a display formula into lines (that comes with v4), so srdash breaks it itself:
the LaTeX is cut between its top-level terms (:func:`srdash.figures.review.formula_latex`) once into lines
that fit a desk's card and once into lines that fit a phone's (390 px wide: a card's text is about 320 px,
some 36 typeset characters). CSS shows one of the two. A formula whose lines are the same for both (a
short one: one line on either) is set once, and shown on both (on a phone, set left as a phone's lines
are): each typeset formula costs the judge's browser MathJax's work and a few hundred elements. A formula
that cannot be cut to a phone's width (one long fraction, product or function call) is shown there as
plain text that wraps, never as a line that runs past the card.
"""

from __future__ import annotations

import re

from srdash.figures.escape import html_text
from srdash.figures.review import NARROW_LINE, WIDE_LINE, formula_latex, latex_lines

__all__ = ["typeset_html", "typeset_width", "PHONE_CHARS"]

#: Typeset characters that fit a phone's card (390 px screen; MathJax's 16 px type is about 8.5 px a character
#: for these formulas, the card's text about 320 px wide; measured on the demo's models at 390 x 844).
PHONE_CHARS = 34

_COMMAND = re.compile(r"\\(?:left|right|cdot|operatorname)\b|\\[A-Za-z]+")


def _group(latex: str, start: int) -> tuple[str, int]:
    """The brace group opening at ``latex[start]`` (``{``) without its braces, and the index after it."""
    depth = 0
    for i in range(start, len(latex)):
        if latex[i] == "{":
            depth += 1
        elif latex[i] == "}":
            depth -= 1
            if depth == 0:
                return latex[start + 1:i], i + 1
    return latex[start + 1:], len(latex)


def typeset_width(latex: str) -> int:
    r"""About how many characters wide ``latex`` is once typeset: a fraction is as wide as its wider part.

    Examples
    --------
    >>> typeset_width(r"\frac{0.4 x_{1} x_{2} - 1.5 x_{1}}{0.2 x_{1}^{2} + 1}")
    13
    >>> typeset_width(r"\sin{\left(x_{1} \right)} + 2")
    9
    """
    width, i = 0, 0
    while i < len(latex):
        if latex.startswith("\\frac", i) and latex[i + 5:i + 6] == "{":
            numerator, after = _group(latex, i + 5)
            denominator, after = _group(latex, after) if latex[after:after + 1] == "{" else ("", after)
            width += max(typeset_width(numerator), typeset_width(denominator))
            i = after
            continue
        command = _COMMAND.match(latex, i)
        if command:
            name = command.group(0)[1:]
            # a function's name is drawn (sin, exp); spacing and delimiters' commands are not
            width += 0 if name in ("left", "right", "cdot", "operatorname") else min(len(name), 3)
            i = command.end()
            continue
        if latex[i] not in "{}_^ ":
            width += 1
        i += 1
    return width


def typeset_html(latex: str, text: str = "") -> str:
    """``ŷ = latex`` set in lines for a desk and again for a phone (CSS shows one), as HTML for MathJax.

    The LaTeX is escaped as HTML text; MathJax reads the text. Where a line cannot be cut to
    :data:`PHONE_CHARS` and ``text`` (the model as text) is given, the phone's version is that text,
    wrapping inside the card. Where the desk's lines and the phone's are the same, the formula is set
    once, for both (``srdash-math-both``).

    Examples
    --------
    >>> html = typeset_html("x_{1} + 1", "x1 + 1")
    >>> html.count("$$"), "srdash-math-both" in html, "srdash-math-narrow" in html
    (2, True, False)
    >>> terms = " + ".join(f"{k}.5 x_{{{k}}}" for k in range(1, 7))
    >>> html = typeset_html(terms, "1.5*x1 + ...")
    >>> html.count("$$"), "srdash-math-wide" in html, "srdash-math-narrow" in html
    (4, True, True)
    >>> long_fraction = r"\\frac{" + " + ".join(f"{k}.5 x_{{{k}}}" for k in range(1, 9)) + "}{2}"
    >>> "srdash-formula-text" in typeset_html(long_fraction, "(1.5*x1 + ...)/2")
    True
    """
    desk = formula_latex(latex, max_chars=WIDE_LINE)
    lines = latex_lines(latex, max_chars=NARROW_LINE)
    if text and max(typeset_width(line) for line in lines) + 4 > PHONE_CHARS:   # 4: "ŷ = " on the first line
        narrow = (f"<div class='srdash-math-narrow'><div class='srdash-formula-text'>ŷ = {html_text(text)}</div>"
                  "</div>")
    else:
        phone = formula_latex(latex, max_chars=NARROW_LINE)
        if phone == desk:
            return f"<div class='srdash-math-both'>$${html_text(desk)}$$</div>"
        narrow = f"<div class='srdash-math-narrow'>$${html_text(phone)}$$</div>"
    return f"<div class='srdash-math-wide'>$${html_text(desk)}$$</div>" + narrow
