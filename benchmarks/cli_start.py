"""``python -m benchmarks.cli_start``: how long a ``graphmem`` command takes to start.

Each number the median of ``--runs`` fresh processes:

- ``graphmem --help``: wall time of the console script;
- ``graphmem search``, server first: wall time of a search while a
  ``graphmem serve`` (started here, on a data directory of its own, with
  embeddings off so its start is quick) serves the data directory, so the
  command sends one GraphQL request and never opens the store;
- ``graphmem inject``, the prompt hook, with that server on a port other
  than the usual one (found through the data directory's ``serve.json``);
- graphmem's own import time for each: what ``python -X importtime`` counts
  for the ``graphmem`` modules alone (their self times summed), the part of
  the start this project controls.

With ``--modules`` it also prints the ``graphmem`` modules each imports,
slowest first.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.server_process import ServerProcess

SCRIPT = Path(sys.executable).with_name("graphmem")
_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)")


def graphmem(args: list[str], env: dict[str, str], stdin: str | None = None) -> str:
    done = subprocess.run(
        [str(SCRIPT), *args], env=env, input=stdin, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"graphmem {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def wall(args: list[str], env: dict[str, str], runs: int, stdin: str | None) -> float:
    """Median wall time of ``graphmem ARGS``, in seconds."""
    took = []
    for _ in range(runs):
        start = time.perf_counter()
        graphmem(args, env, stdin)
        took.append(time.perf_counter() - start)
    return statistics.median(took)


def own_imports(args: list[str], env: dict[str, str], stdin: str | None) -> list[tuple[str, float]]:
    """The ``graphmem`` modules ``graphmem ARGS`` imports, each with its self time (s)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         "import sys; from graphmem.entry import main; sys.argv[0] = 'graphmem'; main()",
         *args],
        env=env, input=stdin, capture_output=True, text=True, check=False,
    )  # fmt: skip
    found = []
    for line in done.stderr.splitlines():
        match = _IMPORT_LINE.match(line)
        if match and match.group(4).split(".")[0] == "graphmem":
            found.append((match.group(4), int(match.group(1)) / 1e6))
    return sorted(found, key=lambda item: -item[1])


def report(
    label: str,
    args: list[str],
    env: dict[str, str],
    runs: int,
    modules: bool,
    stdin: str | None = None,
) -> None:
    took = wall(args, env, runs, stdin)
    imported = own_imports(args, env, stdin)
    own = sum(seconds for _, seconds in imported)
    print(
        f"{label:<28} wall {took * 1000:7.0f} ms   graphmem's imports {own * 1000:6.0f} ms "
        f"({len(imported)} modules)"
    )
    if modules:
        for name, seconds in imported[:15]:
            print(f"    {seconds * 1000:7.1f} ms  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per number")
    parser.add_argument("--modules", action="store_true", help="list the slowest imports")
    options = parser.parse_args()
    data_dir = Path(tempfile.mkdtemp(prefix="gm-start-", dir="/tmp"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env.update(GRAPHMEM_DATA_DIR=str(data_dir), GRAPHMEM_EMBEDDER="none", HF_HUB_OFFLINE="1")
    try:
        report("graphmem --help", ["--help"], env, options.runs, options.modules)
        with ServerProcess(data_dir, env={"GRAPHMEM_EMBEDDER": "none"}) as server:
            graphmem(["remember", "the build cache lives in /var/cache/build"], env)
            report(
                "graphmem search (server)", ["search", "build cache"], env, options.runs,
                options.modules,
            )  # fmt: skip
            event = json.dumps({
                "hook_event_name": "UserPromptSubmit", "cwd": str(data_dir),
                "prompt": "where does the build cache live?",
            })  # fmt: skip
            if "build cache" not in graphmem(["inject"], env, event):
                raise SystemExit("graphmem inject printed no memory")
            report(
                f"graphmem inject (port {server.port})", ["inject"], env, options.runs,
                options.modules, event,
            )  # fmt: skip
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
