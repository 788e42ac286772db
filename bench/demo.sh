#!/usr/bin/env bash
# The main job on bundled data: audit the demo logs, store them in DuckDB, print a report, explain a dispute.
set -uo pipefail
cd "$(dirname "$0")/.."
AUDIT=.venv/bin/audit
mkdir -p demo-out
echo "== audit check fixtures/demo (findings for people)"
$AUDIT check fixtures/demo
echo "   exit status $? (1 = rules were broken)"
if $AUDIT ingest --help >/dev/null 2>&1; then
  rm -f demo-out/demo.duckdb
  echo; echo "== audit ingest fixtures/demo --db demo-out/demo.duckdb"
  $AUDIT ingest fixtures/demo --db demo-out/demo.duckdb
  echo; echo "== audit report violations-by-rule"
  $AUDIT report violations-by-rule --db demo-out/demo.duckdb
fi
if $AUDIT explain --help >/dev/null 2>&1; then
  echo; echo "== audit explain fixtures/demo/reopen-dispute.txt (who should have received what)"
  $AUDIT explain fixtures/demo/reopen-dispute.txt
  $AUDIT explain fixtures/demo/home-session-odd-chip-dispute.txt --hand 387708 --format html \
    --output demo-out/odd-chip-dispute.html && echo "   page for phones: demo-out/odd-chip-dispute.html"
fi
exit 0
