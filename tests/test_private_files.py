"""Issue 32: every file srdash writes for the real-world track is private to its owner, whatever the umask.

The trust store holds every judge's ranks and comments, the key digests and the blinding seed (from which
the blinded orders can be recomputed before the reveal). Before issue 32, `srdash trust init` made it
0644 (and its -wal and -shm), like every export. The tests run with umask 000, the most permissive: a
file that is private then owes it to srdash, not to the user's umask.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main
from srdash.io.private import create_private_file, make_private, open_private, private_database
from srdash.judging.trust import TrustStore

pytestmark = pytest.mark.skipif(os.name != "posix", reason="Unix file modes")

RULES = "srbench2023-track2"
CRITERIA = ("pipeline", "interpretability", "analysis", "insight")


@pytest.fixture
def permissive_umask():
    """umask 000: a file created the ordinary way is then readable and writable by everyone (0666)."""
    previous = os.umask(0o000)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _assert_private(paths) -> None:
    modes = {str(p): oct(_mode(p)) for p in paths}
    assert all(_mode(p) & 0o077 == 0 for p in paths), modes


def _invoke(*args) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def test_every_file_of_the_real_world_track_is_private_under_umask_000(tmp_path, permissive_umask):
    # the control: under this umask an ordinary file is world-readable
    (tmp_path / "ordinary.txt").write_text("x")
    assert _mode(tmp_path / "ordinary.txt") == 0o666

    store = tmp_path / "organiser" / "trust.sqlite"  # a folder srdash makes
    _invoke("trust", "init", "--store", store)
    scores = tmp_path / "scores.csv"
    pd.DataFrame([(judge, "d", method, criterion, 3 + (judge == "bob") - (method == "b"))
                  for judge in ("ann", "bob") for method in ("a", "b") for criterion in CRITERIA],
                 columns=["judge", "dataset", "method", "criterion", "score"]).to_csv(scores, index=False)
    _invoke("trust", "import-scores", scores, "--store", store, "--rules", RULES)
    entries = tmp_path / "entries.csv"
    entries.write_text("judge,dataset,method,rank,comment\nann,d,a,1,sound\nann,d,b,2,odd constant\n")
    _invoke("trust", "import", entries, "--store", store)
    key = _invoke("trust", "issue-key", "--store", store, "--judge", "ann").strip().splitlines()[-1]
    assert len(key) > 20  # the key is printed once, never written to a file; its digest is in the store
    # a writer still holds the store (as the review app does): its -wal and -shm exist now
    with TrustStore(store) as writer:
        writer.record("bob", "d", "a", kind="rank", value=1, comment="kept")
        companions = [Path(f"{store}{suffix}") for suffix in ("-wal", "-shm")]
        assert all(p.exists() for p in companions)
        exported = tmp_path / "exported-entries.csv"
        exported_scores = tmp_path / "exported-scores.csv"
        jury = tmp_path / "jury.csv"
        _invoke("trust", "export", "--store", store, "-o", exported)
        _invoke("trust", "export", "--store", store, "-o", exported_scores, "--scores")
        _invoke("trust", "jury", "--store", store, "--rules", RULES, "-o", jury)
        written = [store, *companions, exported, exported_scores, jury]
        _assert_private(written)
    assert _mode(store.parent) == 0o700
    # and they hold what they should (the exports are not empty files)
    assert len(pd.read_csv(exported)) == 3 and len(pd.read_csv(exported_scores)) == 16
    assert pd.read_csv(jury)["method"].tolist() == ["a", "b"]


def test_a_store_made_before_is_made_private_when_opened(tmp_path, permissive_umask):
    store = tmp_path / "old.sqlite"
    with TrustStore(store) as made:
        made.record("ann", "d", "a", kind="rank", value=1)
    os.chmod(store, 0o644)  # as srdash made it before issue 32
    Path(f"{store}-wal").write_bytes(b"")
    os.chmod(f"{store}-wal", 0o666)
    with TrustStore(store, read_only=True) as reading:  # even an export's read-only opening
        assert len(reading.entries()) == 1
    _assert_private([store, Path(f"{store}-wal")])


def test_an_existing_export_is_made_private_before_it_is_written(tmp_path, permissive_umask):
    target = tmp_path / "out.csv"
    target.write_text("an older, longer export that must not leak through\n" * 3)
    os.chmod(target, 0o644)
    with open_private(target, "w") as handle:
        handle.write("new\n")
    assert target.read_text() == "new\n" and _mode(target) == 0o600
    with pytest.raises(ValueError, match=r"The 'mode' option must be one of 'w', 'wb', 'a', 'ab', 'x', "
                                         r"'xb'\. Got 'r\+'\."):
        open_private(target, "r+")


def test_the_helpers_leave_links_and_others_files_alone(tmp_path, permissive_umask):
    real = tmp_path / "real.txt"
    real.write_text("x")
    os.chmod(real, 0o644)
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    assert make_private(link) is False and _mode(real) == 0o644   # a link is not followed
    assert create_private_file(link) is False                       # nor replaced
    assert make_private(tmp_path / "missing") is True
    private_database(tmp_path / "a" / "b" / "t.sqlite", create=True)
    _assert_private([tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "t.sqlite"])


def test_the_reviews_token_file_is_private_from_its_creation(permissive_umask):
    import json
    import shutil

    from srdash.cli.review import token_config

    folder = token_config("s3cret")
    try:
        config = folder / "voila.json"
        assert json.loads(config.read_text()) == {"Voila": {"token": "s3cret"}}
        _assert_private([folder, config])
    finally:
        shutil.rmtree(folder)
