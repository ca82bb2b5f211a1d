"""A short, bounded run of the load benchmark: a real server process under
concurrent mixed traffic answers every request and stores exactly what it
acknowledged. Timings are the benchmark's business (benchmarks/load.py)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.load import OPERATIONS, LoadConfig, report, run


def test_mixed_load_has_no_errors_and_stores_what_it_acknowledged(tmp_path_factory):
    data_dir: Path = tmp_path_factory.mktemp("load")
    config = LoadConfig(clients=8, seconds=3, max_requests=600, baseline_seconds=1, embedder="none")
    result = run(config, data_dir=data_dir)
    assert result.errors == [], report(result)
    assert set(result.latencies) == set(OPERATIONS), report(result)
    assert result.remembered > 0 and result.created, report(result)
    assert result.stored_memories == len(result.created), report(result)
    assert result.stored_occurrences == result.remembered, report(result)
    assert result.requests <= config.max_requests


def test_two_server_processes_on_one_data_directory_store_what_they_acknowledged(
    tmp_path_factory,
):
    data_dir: Path = tmp_path_factory.mktemp("load2")
    config = LoadConfig(
        clients=4, seconds=3, max_requests=300, baseline_seconds=1, embedder="none", servers=2
    )
    result = run(config, data_dir=data_dir)
    assert result.errors == [], report(result)
    assert result.remembered > 0 and result.created, report(result)
    assert result.stored_memories == len(result.created), report(result)
    assert result.stored_occurrences == result.remembered, report(result)
    assert "2 server process(es)" in report(result)
