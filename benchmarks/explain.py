"""Time of `srdash explain` on the real SRBench black-box results (21 methods, 122 datasets).

Prints the seconds of the whole command (reading the file, judging, the certificate and
its text, through click's CliRunner in this process) and of the certificate alone
(:func:`srdash.analysis.certificate.winner_certificate` on the judged competition), each
the best of ``--repeat`` runs. Target: under 10 s on 2 cores. No assertions.

Usage: python benchmarks/explain.py [--repeat 3] [--results PATH]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from click.testing import CliRunner

from srdash.analysis.certificate import winner_certificate
from srdash.cli import main
from srdash.judging.competition import competition_from_options
from srdash.judging.pipeline import judge_competition

from _timing import best_of

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "realdata" / "srbench_results" / "blackbox_results.csv"


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--results", type=Path, default=DEFAULT)
    args = parser.parse_args()
    if not args.results.exists():
        raise SystemExit(f"Real data not found at {args.results}.")

    import tempfile

    from srdash.judging.rules import load_rules

    # the black-box results have no property column: rules that make it optional (srbench2022 refuses them)
    rules_file = Path(tempfile.mkdtemp()) / "srbench2022-blackbox.toml"
    rules_file.write_text(load_rules("srbench2022").text.replace('column = "property"\n',
                                                                 'column = "property"\noptional = true\n'))

    def command() -> None:
        result = CliRunner().invoke(main, ["explain", str(args.results), "--rules", str(rules_file)])
        if result.exit_code != 0:
            raise SystemExit(result.output)

    whole = best_of(args.repeat, command)
    judged = judge_competition(competition_from_options(args.results, rules=rules_file))
    certificate = best_of(args.repeat, lambda: winner_certificate(judged))
    print(f"srdash explain (whole command): {whole:.2f} s")
    print(f"winner_certificate alone:       {certificate:.2f} s")


if __name__ == "__main__":
    main_()
