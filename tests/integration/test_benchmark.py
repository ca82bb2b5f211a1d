"""The benchmark keeps working: its baseline does graphmem's work, and a tiny run
produces every figure. Nothing here asserts speed; the machine is shared."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from benchmarks.baseline import raw_rows
from benchmarks.data import generate
from graphmem.api import GraphMem
from graphmem.store import Store
from tests.conftest import cypher

ROOT = Path(__file__).resolve().parents[2]


def test_raw_rows_carry_the_properties_graphmem_stores(gm: GraphMem, store: Store) -> None:
    items = generate(60).memories
    ids = gm.remember_many(items)
    stored = cypher(
        store, "UNWIND $ids AS id MATCH (m:Memory {id: id}) RETURN keys(m)", {"ids": ids}
    )
    rows = raw_rows(items, project=gm.default_project)
    assert [sorted(keys) for (keys,) in stored] == [sorted(row) for row in rows]


@pytest.mark.slow
def test_smoke_run_produces_every_figure() -> None:
    # A scratch folder of this run's own (other benchmarks may run beside it).
    scratch = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmt-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env["TMPDIR"] = str(scratch)
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--n", "200", "--requests", "50", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "graphmem benchmark" in done.stderr  # the table, beside the JSON on stdout
    report = json.loads(done.stdout)
    assert report["memories_read_at"] == 200
    assert report["memories"] == 200 + (50 + 4) * 10
    assert report["relations"] > 0

    figures = {f["key"]: f for f in report["figures"]}
    assert list(figures) == ["write_api", "read_p50", "read_p95", "write_http"]
    for figure in figures.values():
        assert figure["value"] > 0 and figure["baseline"] > 0
        assert math.isfinite(figure["ratio"]) and figure["ratio"] > 0
    assert [f["count"] for f in figures.values()] == [200, 50, 50, 500]
    assert isinstance(figures["write_api"]["passed"], bool)
    assert isinstance(figures["read_p95"]["passed"], bool)
    assert figures["read_p95"]["value"] >= figures["read_p50"]["value"]
    assert not list(scratch.glob("gmbench-*")), "the run left its data directory"
    shutil.rmtree(scratch)
