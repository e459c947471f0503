#!/usr/bin/env bash
# CI for the vector store adapters, each its own Go module under vector/:
# starts PGlite (PostgreSQL 18 in WASM) with pgvector, a real Chroma
# server (.ci/chroma.sh) and a real Weaviate server (.ci/weaviate.sh) on
# free 127.0.0.1 ports for the adapters' tests, then runs go vet,
# staticcheck and go test -race in every nested module. Weaviate's
# server builds (cold, once per version) in the background while PGlite
# and Chroma install and the modules that do not need it are tested.
# Called from .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s\n' "$*"; }

source .ci/weaviate.sh
weaviate_build_start

step "PGlite with pgvector (npm ci from .ci/pglite/package-lock.json)"
npm ci --prefix .ci/pglite --no-audit --no-fund
log=$(mktemp)
.ci/pglite/node_modules/.bin/pglite-server --db=memory:// --host=127.0.0.1 --port=0 -m 4 \
  -e @electric-sql/pglite-pgvector:vector >"$log" 2>&1 &
pglite=$!
chroma_pid=""
# Chroma's server does not always stop on SIGTERM: it is killed outright.
# (wait reaps it quietly: bash would otherwise report it as "Killed".)
trap 'kill "$pglite" 2>/dev/null || true; [ -z "$chroma_pid" ] || { kill -9 "$chroma_pid"; wait "$chroma_pid"; } 2>/dev/null || true; weaviate_stop; rm -f "$log"' EXIT
port=""
for _ in $(seq 1 240); do
  port=$(grep -o '"port":[0-9]*' "$log" | head -1 | cut -d: -f2 || true)
  [ -n "$port" ] && break
  kill -0 "$pglite" 2>/dev/null || { cat "$log"; echo "PGlite exited before listening"; exit 1; }
  sleep 0.5
done
[ -n "$port" ] || { cat "$log"; echo "PGlite did not listen within 120 s"; exit 1; }
export LOOM_TEST_PGVECTOR_DSN="postgres://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable"
echo "PGlite listening on 127.0.0.1:${port}"

source .ci/chroma.sh # the real Chroma server: sets LOOM_TEST_CHROMA_URL

# The nested modules build against the repository's core through a
# replace directive, so a dependency the core gains after a nested go.mod
# was last tidied would fail -mod=readonly; let go resolve it instead.
for mod in vector/pgvector vector/pinecone vector/chroma vector/weaviate vector/bench; do
  [ -f "$mod/go.mod" ] || continue
  if [ "$mod" = vector/weaviate ]; then weaviate_start; fi # sets LOOM_TEST_WEAVIATE_URL
  step "$mod: go vet, staticcheck, go test -race"
  (
    cd "$mod"
    export GOFLAGS="-mod=mod"
    go vet ./...
    if command -v staticcheck >/dev/null 2>&1; then staticcheck ./...; fi
    go test -race -count=1 -timeout 10m ./...
  )
done
