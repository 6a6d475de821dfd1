"""Exceptions raised by srdash.

Every error a user can trigger is a subclass of :class:`SrdashError`, so callers
(the CLI, the widgets) can show its message instead of a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SrdashError", "Problem", "ValidationError", "RulesError", "ModelRejected", "CriterionWithoutData"]


class SrdashError(Exception):
    """Base class of every error srdash raises on purpose."""


@dataclass(frozen=True)
class Problem:
    """One problem found while validating input.

    Attributes
    ----------
    source : str
        The file (or ``"<DataFrame>"``) the problem was found in.
    row : int or None
        1-based data row (header excluded) or line number; None for whole-file problems.
    column : str or None
        The column concerned, if any.
    message : str
        What is wrong and what was expected.
    """

    source: str
    row: int | None
    column: str | None
    message: str

    def __str__(self) -> str:
        where = self.source
        if self.row is not None:
            where += f", row {self.row}"
        if self.column is not None:
            where += f", column '{self.column}'"
        return f"{where}: {self.message}"


class ValidationError(SrdashError, ValueError):
    """Input data failed validation; ``problems`` lists every problem found at once."""

    def __init__(self, problems, *, header: str = "The input is not valid"):
        self.problems = tuple(problems)
        lines = [f"{header} ({len(self.problems)} problem{'s' if len(self.problems) != 1 else ''}):"]
        lines += [f"  - {p}" for p in self.problems]
        super().__init__("\n".join(lines))


class RulesError(SrdashError, ValueError):
    """A rules file or a rules option is not valid."""


class ModelRejected(SrdashError, ValueError):
    """A model string was refused by the safe parser.

    Attributes
    ----------
    status : {'rejected', 'parse_error'}
        ``'parse_error'`` for strings that are not valid syntax, ``'rejected'`` for
        valid syntax outside the whitelist (attribute access, unknown names, ...).
    reason : str
        Human-readable reason.
    """

    def __init__(self, reason: str, *, status: str = "rejected"):
        self.status = status
        self.reason = reason
        super().__init__(reason)


class CompetitionError(SrdashError):
    """A competition file that cannot be used; the message names the file, the key and its line."""


class CriterionWithoutData(SrdashError, ValueError):
    """A criterion the rules require has no value at all: no verdict is published without it.

    Attributes
    ----------
    criteria : tuple of str
        The names of the criteria without data.
    """

    def __init__(self, message: str, *, criteria=()):
        self.criteria = tuple(criteria)
        super().__init__(message)
