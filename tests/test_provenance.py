"""Tests of the provenance block (srdash.judging.provenance)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from srdash.judging.provenance import (block_sha256, comment_lines, hash_inputs, provenance_block, sympy_version_warning,
                               versions, write_sidecar)
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules, parse_rules

DATA = Path(__file__).parent / "data"

RULES_TEXT = """
name = "tiny"
competition_sympy_version = "1.10.1"
[[criteria]]
name = "accuracy"
column = "r2_test"
decimals = 3
"""


@pytest.fixture
def inputs(tmp_path):
    first = tmp_path / "results.csv"
    first.write_bytes(b"method,dataset,r2_test\na,d,0.9\n")
    second = tmp_path / "datasets.csv"
    second.write_bytes(b"dataset,features\nd,x1 x2\n")
    return first, second


def test_block_lists_versions_rules_hash_and_one_hash_per_input(inputs):
    rules = parse_rules(RULES_TEXT, source="tiny.toml")
    block = provenance_block(rules, inputs, sympy_version="1.14.0")
    assert block["sympy_version"] == "1.14.0"
    for key in ("srdash_version", "python_version", "numpy_version", "pandas_version"):
        assert block[key]
    assert block["rules"] == "tiny" and block["rules_source"] == "tiny.toml"
    assert block["rules_sha256"] == rules.sha256
    assert block["competition_sympy_version"] == "1.10.1"
    assert sorted(k for k in block if k.startswith("input_sha256:")) == sorted(
        f"input_sha256:{p}" for p in inputs)


def test_changing_one_input_byte_changes_the_block(inputs):
    rules = parse_rules(RULES_TEXT)
    before = provenance_block(rules, inputs, sympy_version="1.14.0")
    data = bytearray(inputs[0].read_bytes())
    data[-2] = ord("8")  # 0.9 -> 0.8: one byte
    inputs[0].write_bytes(bytes(data))
    after = provenance_block(rules, inputs, sympy_version="1.14.0")
    assert after != before
    assert after[f"input_sha256:{inputs[0]}"] != before[f"input_sha256:{inputs[0]}"]
    assert after[f"input_sha256:{inputs[1]}"] == before[f"input_sha256:{inputs[1]}"]
    assert block_sha256(after) != block_sha256(before)


@pytest.mark.parametrize("changed", [
    RULES_TEXT.replace("decimals = 3", "decimals = 2"),           # one value of the file
    RULES_TEXT.replace('"1.10.1"', '"1.10.2"'),                   # the stated sympy version
])
def test_changing_one_rules_value_changes_the_block(changed):
    before = provenance_block(parse_rules(RULES_TEXT), sympy_version="1.14.0")
    after = provenance_block(parse_rules(changed), sympy_version="1.14.0")
    assert after["rules_sha256"] != before["rules_sha256"]


def test_changing_a_rules_option_after_loading_changes_the_block():
    rules = load_rules("srbench2022")
    before = provenance_block(rules, sympy_version="1.14.0")
    after = provenance_block(rules.with_options(weights={"accuracy": 2.0}), sympy_version="1.14.0")
    assert after["rules_sha256"] != before["rules_sha256"]


def test_changing_the_reported_sympy_version_changes_the_block():
    rules = load_rules("srbench2022")
    a = provenance_block(rules, sympy_version="1.10.1")
    b = provenance_block(rules, sympy_version="1.14.0")
    assert a != b and a["sympy_version"] == "1.10.1" and b["sympy_version"] == "1.14.0"
    assert {k: v for k, v in a.items() if k != "sympy_version"} == {k: v for k, v in b.items() if k != "sympy_version"}


def test_same_inputs_same_block(inputs):
    rules = load_rules("srbench2022")
    assert provenance_block(rules, inputs) == provenance_block(rules, inputs)


def test_warning_names_both_versions_when_they_differ():
    rules = load_rules("srbench2022")  # states competition_sympy_version = "1.10.1"
    warning = sympy_version_warning(rules, sympy_version="1.14.0")
    assert "sympy 1.10.1" in warning and "sympy 1.14.0" in warning
    assert "therefore simplicity, can differ from the official ones" in warning


def test_no_warning_when_the_versions_agree_or_none_is_stated():
    assert sympy_version_warning(load_rules("srbench2022"), sympy_version="1.10.1") is None
    unstated = parse_rules(RULES_TEXT.replace('competition_sympy_version = "1.10.1"\n', ""))
    assert sympy_version_warning(unstated, sympy_version="1.14.0") is None
    assert "competition_sympy_version" not in provenance_block(unstated)


def test_warning_and_block_agree_with_the_verdict():
    # ranking.judge builds its own provenance and sympy warning today; they must
    # stay identical to this module's until judge calls it (see the report).
    verdict = judge(pd.read_csv(DATA / "golden_basic.csv"), load_rules("srbench2022"))
    block = provenance_block(load_rules("srbench2022"))
    for key, value in verdict.provenance.items():
        assert block[key] == value, key
    expected = sympy_version_warning(load_rules("srbench2022"))
    if expected is not None:
        assert expected in verdict.warnings


def test_folder_inputs_hash_every_file_and_non_files_are_named(tmp_path):
    folder = tmp_path / "runs"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.json").write_text("{}")
    (folder / "sub" / "b.json").write_text("[]")
    hashes = hash_inputs([folder, "<DataFrame>"])
    assert sorted(hashes) == sorted([f"input_sha256:{folder / 'a.json'}", f"input_sha256:{folder / 'sub' / 'b.json'}",
                                     "input:<DataFrame>"])
    assert hashes["input:<DataFrame>"] == "not a file; not hashed"
    # sha256 of the two bytes "{}"
    assert hashes[f"input_sha256:{folder / 'a.json'}"] == (
        "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a")


def test_versions_report_an_injected_sympy_version():
    assert versions(sympy_version="9.9")["sympy"] == "9.9"
    assert set(versions()) == {"srdash", "sympy", "numpy", "pandas", "python"}


def test_comment_lines_round_trip_through_a_csv(tmp_path):
    block = provenance_block(load_rules("srbench2022"), sympy_version="1.14.0")
    path = tmp_path / "board.csv"
    path.write_text(comment_lines(block) + "place,method,score\n1,a,2.0\n")
    assert pd.read_csv(path, comment="#").to_dict("list") == {"place": [1], "method": ["a"], "score": [2.0]}
    assert f"# rules_sha256: {block['rules_sha256']}" in path.read_text()


def test_sidecar_holds_the_block(tmp_path):
    block = provenance_block(load_rules("srbench2022"), sympy_version="1.14.0")
    sidecar = write_sidecar(tmp_path / "out.csv", block)
    assert sidecar == tmp_path / "out.csv.provenance.json"
    assert json.loads(sidecar.read_text()) == block
