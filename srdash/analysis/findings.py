"""One line of a certificate (:mod:`srdash.analysis.certificate`, :mod:`srdash.analysis.jury_certificate`):
a family of changes, a place, and what happens to who holds it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

__all__ = ["Finding"]


def group_text(methods: Sequence[str]) -> str:
    """``a = b`` for a tie, ``nobody`` for none."""
    return " = ".join(methods) if methods else "nobody"


@dataclass(frozen=True)
class Finding:
    """One line of the certificate: one family of changes, one place.

    Attributes
    ----------
    family : {'data', 'runs', 'rules', 'weights', 'entrants'}
    place : int
        The leaderboard position (1 = the winner).
    holder : tuple of str
        Who holds the place in the official verdict (several: a tie).
    stays : bool or None
        True: no change searched changes the holder; False: one does; None: the family
        does not apply (``reason`` says why).
    changes_to : tuple of str
        Who holds the place after the change (empty when it stays).
    items : tuple of str
        What is responsible: the datasets or runs removed, the rules variants, the
        weights, the method removed.
    reason : str
        One sentence for the reader.
    search : str
        How the family was searched, with its bound.
    scope : str
        Where the place is (a jury's dataset; empty for a competition's leaderboard).
    """

    family: str
    place: int
    holder: tuple[str, ...]
    stays: bool | None
    changes_to: tuple[str, ...]
    items: tuple[str, ...]
    reason: str
    search: str
    scope: str = ""

    @property
    def outcome(self) -> str:
        """``stays``, ``changes to X`` or ``not applicable``."""
        if self.stays is None:
            return "not applicable"
        return "stays" if self.stays else f"changes to {group_text(self.changes_to)}"

    def line(self) -> str:
        """The finding as one line of text."""
        return f"{self.family:<9} {self.outcome}: {self.reason}"
