"""The questions analysts ask most, as polars DataFrames (each is one report, one query over the views)::

    from audit import Store, frames
    with Store.open("club.duckdb", read_only=True) as store:
        frames.violations_per_100_hands(store)                     # per player
        frames.rule_profile_week(store, wide=True)                 # rule x profile, a column per week
        frames.misawarded_pots(store, from_date="2026-11-01")      # every pot paid wrong

Every helper takes a ``Store`` (or a database's path, opened read-only for the call) and the reports' filters:
``from_date``, ``to_date`` (days of play), ``profile``, ``table_name``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import polars

    from audit.store.db import Store



def _frame(source: Store | str | os.PathLike[str], report: str, **filters: object) -> polars.DataFrame:
    from audit.store.db import Store

    if isinstance(source, Store):
        return source.frame(report, **filters)
    with Store.open(source, read_only=True) as store:
        return store.frame(report, **filters)


def violations_per_100_hands(source: Store | str | os.PathLike[str], **filters: object) -> polars.DataFrame:
    """Per player: hands dealt in, violations and warnings named against them, violations per 100 hands played
    and the commonest rule (report ``violations-by-player``), most violations first."""
    return _frame(source, "violations-by-player", **filters)


def rule_profile_week(source: Store | str | os.PathLike[str], wide: bool = False,
                      **filters: object) -> polars.DataFrame:
    """Findings per rule, profile and week of play (report ``rule-profile-week``: findings, hands, hands played,
    findings per 100 hands). ``wide``: one row per rule and profile, one column of findings per week."""
    import polars as pl

    frame = _frame(source, "rule-profile-week", **filters)
    if not wide:
        return frame
    by_week = frame.with_columns(pl.col("week").cast(pl.String).fill_null("no date"))
    return (by_week.pivot(on="week", index=["rule", "profile"], values="findings", aggregate_function="sum",
                          sort_columns=True)
            .fill_null(0).sort(["rule", "profile"]))


def misawarded_pots(source: Store | str | os.PathLike[str], **filters: object) -> polars.DataFrame:
    """Every pot paid to the wrong player, in the wrong amount or with the odd chip to the wrong player: who
    collected what, who should have, and the findings (report ``misawarded-pots``)."""
    return _frame(source, "misawarded-pots", **filters)
