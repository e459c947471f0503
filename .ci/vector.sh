#!/usr/bin/env bash
# CI for the vector packages' nested module (vector/bench, which keeps
# chromem-go out of loom's go.mod): vet, staticcheck and the tests with
# -race. The core module's vector packages run in .ci/run's main test step.
set -euo pipefail
cd "$(dirname "$0")/../vector/bench"
echo "=== vector/bench: go vet, staticcheck, go test -race"
go mod download
go vet ./...
staticcheck ./...
go test -race -count=1 -timeout 10m ./...
