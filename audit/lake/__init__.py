"""Past one machine: a Parquet lake of the database's tables, filled in parallel (a Dask cluster or the ingest's
worker pool), read by DuckDB where it lies, and loadable into a database.

- ``layout``: the folders, file names and manifest; ``open_lake`` checks a folder is a lake (and nothing else).
- ``write``: one input file into the lake (``LakeWriter``, the task each worker runs).
- ``run``: ``ingest_lake``, the run: plan, send the files to Dask or the pool, count.
- ``query``: ``open_lake_store``, a read-only ``Store`` whose views read the lake.
- ``load``: ``load_lake``, a lake into a database (``--from-lake``).

The options ``ingest``, ``report`` and ``sql`` take are in ``audit.cli.lake``; nothing here imports click, nor
Dask until ``--dask`` asks for it.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {"Lake": "layout", "open_lake": "layout", "load_lake": "load", "open_lake_store": "query",
          "LakeSummary": "run", "ingest_lake": "run"}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    """The public names, imported when first used (``import audit.lake`` stays light)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'audit.lake' has no attribute {name!r}")
    return getattr(importlib.import_module(f"audit.lake.{home}"), name)
