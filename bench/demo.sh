#!/usr/bin/env bash
# The main job on bundled data: audit the demo logs, store them in DuckDB, print a report, explain a dispute.
# The demo's database is demo-out/demo.duckdb, made afresh at each run only while it is the demo's own (no program
# has it open, it holds only the demo logs: scripts/demo_db.py); otherwise it is left as it is and this run uses a
# new demo-out/demo-<date>.duckdb. `make serve` serves another file (serve-out/club.duckdb), never this one.
set -uo pipefail
cd "$(dirname "$0")/.."
AUDIT=${AUDIT:-.venv/bin/audit}
PYTHON=${PYTHON:-.venv/bin/python}
OUT=${DEMO_OUT:-demo-out}
mkdir -p "$OUT"
echo "== audit check fixtures/demo (findings for people)"
$AUDIT check fixtures/demo
echo "   exit status $? (1 = rules were broken)"
if $AUDIT ingest --help >/dev/null 2>&1; then
  DB=$OUT/demo.duckdb
  if $PYTHON scripts/demo_db.py "$DB" fixtures/demo; then
    rm -f "$DB" "$DB.wal"
  else
    DB=$OUT/demo-$(date +%Y%m%d-%H%M%S)-$$.duckdb
    echo "   (left as it is; this run uses $DB)"
  fi
  echo; echo "== audit ingest fixtures/demo --db $DB"
  $AUDIT ingest fixtures/demo --db "$DB"
  echo; echo "== audit report violations-by-rule"
  $AUDIT report violations-by-rule --db "$DB"
fi
if $AUDIT explain --help >/dev/null 2>&1; then
  echo; echo "== audit explain fixtures/demo/reopen-dispute.txt (who should have received what)"
  $AUDIT explain fixtures/demo/reopen-dispute.txt
  $AUDIT explain fixtures/demo/home-session-odd-chip-dispute.txt --hand 387708 --format html \
    --output "$OUT/odd-chip-dispute.html" && echo "   page for phones: $OUT/odd-chip-dispute.html"
fi
exit 0
