#!/usr/bin/env bash
# `make serve`: the service on its own database, serve-out/club.duckdb (DB=, or SERVE_DB= to make), on http://$HOST:$PORT.
# The database is never deleted: made and filled with the demo logs only when it does not exist yet; after that,
# what clubs uploaded and the tokens made for them stay from one run to the next.
set -euo pipefail
cd "$(dirname "$0")/.."
AUDIT=${AUDIT:-.venv/bin/audit}
DB=${DB:-serve-out/club.duckdb}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
# A port another program listens on is said in the words of `make serve` (audit serve itself says --port).
if (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; then
  echo "audit: $HOST:$PORT is in use by another program: stop it, or choose another port: make serve PORT=$((PORT + 1))" >&2
  exit 2
fi
if [ ! -e "$DB" ]; then
  mkdir -p "$(dirname "$DB")"
  echo "audit: a new database $DB, with the demo logs (fixtures/demo)" >&2
  $AUDIT ingest fixtures/demo --db "$DB" -q || [ $? -eq 1 ]
fi
exec $AUDIT serve --db "$DB" --host "$HOST" --port "$PORT"
