"""Decompression bombs (issue 24, class 2), written on demand into a temporary folder.

A few KiB on disk that would take hundreds of MB to gigabytes once read whole;
nothing large is committed. Used by ``tests/test_hostile.py`` and
``benchmarks/hostile.py``; ``python make_bombs.py FOLDER`` writes them all.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

HEADER = "method,dataset,run,r2_test,model\n"


def parquet_rows(path: Path, rows: int = 5_000_000) -> Path:
    """One run-length-encoded row repeated ``rows`` times: ~3 KB on disk, 4 columns x ``rows`` once read."""
    zeros = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, dtype=np.int8)), pa.array(["A"]))
    table = pa.table({"method": zeros, "dataset": zeros, "run": pa.array(np.zeros(rows, dtype=np.int8)),
                      "r2_test": pa.array(np.zeros(rows, dtype=np.float32))})
    pq.write_table(table, path, compression="zstd", row_group_size=rows)
    return path


def parquet_dictionary(path: Path, rows: int = 200_000, width: int = 10_000) -> Path:
    """A model string of ``width`` characters on every row through a dictionary: rows x width bytes as plain strings."""
    index = pa.array(np.zeros(rows, dtype=np.int32))
    model = pa.DictionaryArray.from_arrays(index, pa.array(["x1+" * (width // 3)]))
    names = pa.DictionaryArray.from_arrays(index, pa.array(["A"]))
    table = pa.table({"method": names, "dataset": names, "run": pa.array(np.arange(rows)), "model": model})
    pq.write_table(table, path, compression="zstd")
    return path


def parquet_pages(path: Path, size: int = 300 * 2**20) -> Path:
    """One row whose model is ``size`` bytes of one character, compressed: its pages expand to ``size``."""
    table = pa.table({"method": ["A"], "dataset": ["d"], "run": [0], "model": ["x" * size]})
    pq.write_table(table, path, compression="zstd", use_dictionary=False)
    return path


def gzip_csv(path: Path, size: int = 100 * 2**20) -> Path:
    """A CSV of ``size`` bytes of one repeated row, gzip-compressed (~0.1 % of it on disk)."""
    row = "A,d,0,0.5,x1\n"
    block = row * (2**20 // len(row))
    with gzip.open(path, "wt", compresslevel=1) as handle:
        handle.write(HEADER)
        for _ in range(size // len(block) + 1):
            handle.write(block)
    return path


def gzip_csv_rows(path: Path, rows: int = 2_000_000) -> Path:
    """``rows`` short rows (~26 MB of text, under the byte limit), gzip-compressed: millions of pandas cells."""
    with gzip.open(path, "wt", compresslevel=1) as handle:
        handle.write(HEADER)
        handle.write("A,d,0,0.5,x1\n" * rows)
    return path


BOMBS = {"rows.parquet": parquet_rows, "dictionary.parquet": parquet_dictionary, "pages.parquet": parquet_pages,
         "big.csv.gz": gzip_csv, "rows.csv.gz": gzip_csv_rows}

if __name__ == "__main__":
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    for name, make in BOMBS.items():
        print(name, make(folder / name).stat().st_size, "bytes")
