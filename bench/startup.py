"""What the start of ``audit check`` is made of: the part of a command no worker can share (see
docs/explanation/performance.md).

    .venv/bin/python bench/startup.py [--rounds 25]

Writes one simulated home-open session to a temporary file, then times whole processes, each started afresh,
the steps in turn in every round (so that a busy moment falls on all of them), and prints the median and the
fastest of each:

1. the interpreter alone (``python -c pass``);
2. the standard library modules ``audit.check`` and ``audit.profile`` bring in (listed by a child that imports
   them; only the modules, none of the audit's own);
3. ``import audit.check, audit.profile``: the same with the audit's modules, without ``click``;
4. the check of the session through ``audit.check.check_paths``, the command's own function, without ``click``;
5. the command as a user types it, ``audit check FILE --format json``: the same and the command line (``click``).

Each step holds the one before, so its difference from it is what that layer costs. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from check import audit_command, make_corpus  # noqa: E402

NO_CLICK = """\
import os, sys
from audit.check import check_paths
from audit.profile import load_profile
with open(os.devnull, "w") as out:
    check_paths([sys.argv[1]], load_profile("home-open"), "json", out)
"""

LIST_STDLIB = """\
import sys
before = set(sys.modules)
import audit.check, audit.profile
print(",".join(sorted(m for m in set(sys.modules) - before
                      if "." not in m and not m.startswith(("audit", "_")) and m in sys.stdlib_module_names)))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=25)
    args = parser.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "session.txt")
        hands, _, _ = make_corpus(path, 1, 1)
        stdlib = subprocess.run([py, "-c", LIST_STDLIB], capture_output=True, text=True, check=True).stdout.strip()
        steps = [
            ("the interpreter alone", [py, "-c", "pass"]),
            (f"the standard library the audit imports ({stdlib.count(',') + 1} modules)", [py, "-c", f"import {stdlib}"]),
            ("import audit.check, audit.profile (no click)", [py, "-c", "import audit.check, audit.profile"]),
            (f"check_paths of {hands} hands, no click", [py, "-c", NO_CLICK, path]),
            (f"audit check FILE --format json ({hands} hands)", audit_command() + ["check", path, "--format", "json"]),
        ]
        times: list[list[float]] = [[] for _ in steps]
        for _ in range(args.rounds):
            for i, (_, command) in enumerate(steps):
                t0 = time.perf_counter()
                done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                times[i].append(time.perf_counter() - t0)
                if done.returncode != 0:
                    sys.exit(f"{command!r} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    print(f"whole processes, medians of {args.rounds} rounds (fastest in brackets); the standard library: {stdlib}")
    width = max(len(name) for name, _ in steps)
    previous = 0.0
    for (name, _), runs in zip(steps, times):
        median = statistics.median(runs)
        print(f"  {name:<{width}}  {median * 1000:6.1f} ms ({min(runs) * 1000:5.1f})  "
              f"{(median - previous) * 1000:+6.1f} ms over the line above")
        previous = median
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
