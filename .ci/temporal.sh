#!/usr/bin/env bash
# The nested temporal module (issue 15): builds the Temporal CLI, whose
# dev server the integration test starts, once into a cache directory that
# survives between runs (about 3 minutes cold on 2 cores, 1.8 GB of memory;
# the binary is never committed), then runs vet, staticcheck and the race
# tests of the module with LOOM_TEMPORAL_CLI set.
set -euo pipefail
cd "$(dirname "$0")/.."

TEMPORAL_CLI_VERSION=v1.5.1 # the newest `go install`able release (v1.9.1 has a replace directive)
cache="${LOOM_TEMPORAL_CACHE:-${HOME}/.cache/loom-temporal/bin}"
bin="$cache/temporal"

printf '\n=== %s\n' "Temporal CLI $TEMPORAL_CLI_VERSION (dev server) in $cache"
if [ ! -x "$bin" ] || ! "$bin" --version 2>/dev/null | grep -q "${TEMPORAL_CLI_VERSION#v}\|0.0.0-DEV"; then
  mkdir -p "$cache"
  GOFLAGS= GOBIN="$cache" go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_CLI_VERSION"
fi
"$bin" --version
export LOOM_TEMPORAL_CLI="$bin"

printf '\n=== %s\n' "temporal module: vet, staticcheck, tests (go test -race)"
cd temporal
go mod download
go vet ./...
staticcheck ./...
go test -race -count=1 -timeout 15m ./...
