#!/usr/bin/env bash
# The reliability checks too heavy for the -race run: 1,000 concurrent
# code-execution workflows through the OpenAI provider against a local
# server, on each sandbox, with 0 failures and no goroutine or worker
# process left after Close. Called from .ci/run after the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
LOOM_LOAD_WORKFLOWS=1000 go test -count=1 -timeout 10m -run '^TestConcurrentWorkflows$' -v ./examples/internal/loadtest
