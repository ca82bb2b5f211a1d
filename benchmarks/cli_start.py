"""``python -m benchmarks.cli_start``: how long a ``graphmem`` command takes to start.

Each number the median of ``--runs`` fresh processes, beside ``python -c pass``
(the interpreter's own start on this machine, measured in the same run):

- ``graphmem --help``: wall time of the console script;
- each server-first command (``remember``, ``search``, ``context``, ``relate``,
  ``pin``, ``feedback``, ``forget``, ``list``, ``show``) while a
  ``graphmem serve`` (started here, on a data directory of its own, with
  embeddings off so its start is quick) serves the data directory, so the
  command sends GraphQL requests and never opens the store;
- ``graphmem inject``, the prompt hook, with that server on a port other
  than the usual one (found through the data directory's ``serve.json``),
  then with no server: on a data directory holding a store, and on an empty one;
- graphmem's own import time for each: what ``python -X importtime`` counts
  for the ``graphmem`` modules alone (their self times summed; the median of
  ``--runs`` processes), the part of the start this project controls; the goal
  is under 0.3 s for each command.

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
from collections.abc import Callable
from pathlib import Path

from benchmarks.server_process import ServerProcess

SCRIPT = Path(sys.executable).with_name("graphmem")
MEMORY_ID = re.compile(r"\b[0-9a-f]{32}\b")
_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)")


Args = list[str] | Callable[[], list[str]]
"""A command's arguments, or what makes them afresh for each run (``forget``
needs a memory not yet forgotten each time)."""


def graphmem(args: list[str], env: dict[str, str], stdin: str | None = None) -> str:
    done = subprocess.run(
        [str(SCRIPT), *args], env=env, input=stdin, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"graphmem {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def fresh(args: Args) -> list[str]:
    return args() if callable(args) else args


def wall(args: Args, env: dict[str, str], runs: int, stdin: str | None) -> float:
    """Median wall time of ``graphmem ARGS``, in seconds."""
    took = []
    for _ in range(runs):
        given = fresh(args)
        start = time.perf_counter()
        graphmem(given, env, stdin)
        took.append(time.perf_counter() - start)
    return statistics.median(took)


def bare_python(runs: int) -> float:
    """Median wall time of ``python -c pass``: what any command pays before its own code."""
    took = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        took.append(time.perf_counter() - start)
    return statistics.median(took)


def own_imports(args: Args, env: dict[str, str], stdin: str | None) -> list[tuple[str, float]]:
    """The ``graphmem`` modules ``graphmem ARGS`` imports, each with its self time (s)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         "import sys; from graphmem.entry import main; sys.argv[0] = 'graphmem'; main()",
         *fresh(args)],
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
    args: Args,
    env: dict[str, str],
    options: argparse.Namespace,
    stdin: str | None = None,
) -> None:
    took = wall(args, env, options.runs, stdin)
    runs = [own_imports(args, env, stdin) for _ in range(options.runs)]
    own = statistics.median(sum(seconds for _, seconds in imported) for imported in runs)
    imported = runs[0]
    print(
        f"{label:<34} wall {took * 1000:7.0f} ms ({took / options.bare:4.1f}x python)   "
        f"graphmem's imports {own * 1000:6.0f} ms ({len(imported)} modules)"
    )
    if options.modules:
        for name, seconds in imported[:15]:
            print(f"    {seconds * 1000:7.1f} ms  {name}")


def remembered(env: dict[str, str], content: str) -> str:
    """The id of a memory ``graphmem remember`` stores."""
    (memory_id,) = set(MEMORY_ID.findall(graphmem(["remember", content], env)))
    return memory_id


def server_first(env: dict[str, str], options: argparse.Namespace) -> None:
    """Each server-first command, timed while a server answers it."""
    first = remembered(env, "the build cache lives in /var/cache/build")
    second = remembered(env, "the deploy job reads the build cache")
    count = iter(range(1_000_000))
    for label, args in (
        ("remember", lambda: ["remember", f"the nightly export number {next(count)}"]),
        ("search", ["search", "build cache"]),
        ("context", ["context", "where is the build cache?"]),
        ("relate", ["relate", second, first, "--type", "RELATED_TO"]),
        ("pin", ["pin", first]),
        ("feedback", ["feedback", first, "1"]),
        ("forget", lambda: ["forget", remembered(env, f"a note to forget {next(count)}")]),
        ("list", ["list"]),
        ("show", ["show", first]),
    ):
        report(f"graphmem {label} (server)", args, env, options)


def hook_event(data_dir: Path) -> str:
    return json.dumps({
        "hook_event_name": "UserPromptSubmit", "cwd": str(data_dir),
        "prompt": "where does the build cache live?",
    })  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per number")
    parser.add_argument("--modules", action="store_true", help="list the slowest imports")
    options = parser.parse_args()
    options.bare = bare_python(options.runs)
    print(f"{'python -c pass':<34} wall {options.bare * 1000:7.0f} ms")
    data_dir = Path(tempfile.mkdtemp(prefix="gm-start-", dir="/tmp"))
    empty_dir = Path(tempfile.mkdtemp(prefix="gm-start-empty-", dir="/tmp"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env.update(GRAPHMEM_DATA_DIR=str(data_dir), GRAPHMEM_EMBEDDER="none", HF_HUB_OFFLINE="1")
    try:
        report("graphmem --help", ["--help"], env, options)
        event = hook_event(data_dir)
        with ServerProcess(data_dir, env={"GRAPHMEM_EMBEDDER": "none"}) as server:
            server_first(env, options)
            if "build cache" not in graphmem(["inject"], env, event):
                raise SystemExit("graphmem inject printed no memory")
            report(f"graphmem inject (port {server.port})", ["inject"], env, options, event)
        report("graphmem inject (no server)", ["inject"], env, options, event)
        empty = {**env, "GRAPHMEM_DATA_DIR": str(empty_dir)}
        report("graphmem inject (no store)", ["inject"], empty, options, hook_event(empty_dir))
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
        shutil.rmtree(empty_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
