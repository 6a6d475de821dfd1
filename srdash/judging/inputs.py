"""A competition's dataset descriptions read and checked once per run, then handed to every step.

:func:`read_inputs` reads the descriptions where a competition enters (a command, or
:func:`~srdash.judging.preparation.prepare_competition` when it is given none); the
:class:`CompetitionInputs` it returns carries the table to the loading of the results (the features),
the synthetic track and the hashing of the data files, so one run parses every ground truth once.
It is never kept across runs: a file edited between two runs is read again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the core modules import sympy-free, but not for nothing at start-up
    from srdash.io.datasets import DatasetTable

# "Competition" is judging.competition's, named without an import, even for type checkers: judging.competition
# imports judging.fingerprint, which reads the descriptions through this module.

__all__ = ["CompetitionInputs", "read_inputs", "inputs_for"]


@dataclass(frozen=True)
class CompetitionInputs:
    """What one run read of a competition's inputs.

    Attributes
    ----------
    descriptions_path : Path or None
        The competition's ``descriptions`` the table was read from (None: it names none).
    descriptions : DatasetTable or None
        The validated dataset table (None when the competition names no descriptions).
    """

    descriptions_path: Path | None
    descriptions: "DatasetTable | None" = None

    @property
    def data_files(self) -> tuple[Path, ...]:
        """The data files the descriptions name (what the verdict's input hashes cover, role ``data``)."""
        if self.descriptions is None:
            return ()
        return tuple(path for spec in self.descriptions for path in spec.files.values() if path)


def read_inputs(competition: "Competition") -> CompetitionInputs:
    """Read and validate the competition's dataset descriptions (every problem reported at once).

    Returns
    -------
    CompetitionInputs

    Raises
    ------
    ValidationError
        Naming the file, row and column of every problem of the descriptions
        (:func:`srdash.io.datasets.load_dataset_table`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from srdash.judging.competition import competition_from_options
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "results.csv").write_text("method,dataset,r2_test,components\\na,d,0.5,3\\n")
    >>> read_inputs(competition_from_options(folder / "results.csv"))
    CompetitionInputs(descriptions_path=None, descriptions=None)
    """
    if competition.descriptions is None:
        return CompetitionInputs(descriptions_path=None)
    from srdash.io.datasets import load_dataset_table  # lazy: numpy, pandas

    return CompetitionInputs(descriptions_path=competition.descriptions,
                             descriptions=load_dataset_table(competition.descriptions))


def inputs_for(competition: "Competition", inputs: CompetitionInputs | None) -> CompetitionInputs:
    """``inputs`` when given (read by the caller for this competition), else :func:`read_inputs` now.

    Raises
    ------
    ValueError
        When ``inputs`` were read from other descriptions than the competition's.
    """
    if inputs is None:
        return read_inputs(competition)
    if inputs.descriptions_path != competition.descriptions:
        raise ValueError(f"The 'inputs' must be read from the competition's descriptions "
                         f"({competition.descriptions}). Got inputs read from {inputs.descriptions_path}.")
    return inputs
