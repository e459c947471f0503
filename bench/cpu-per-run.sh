#!/bin/bash
# CPU time of one run of a sandbox benchmark, parent and worker processes
# together: perf stat's task-clock at 2200 runs minus at 200, over 2000.
# Immune to the wall-clock noise of a loaded machine. Alternates the test
# binaries given, three rounds. Run from the sandbox directory:
#
#   bench/cpu-per-run.sh 'IsolatedFact$' /tmp/before.test /tmp/after.test
set -euo pipefail
re=$1
shift
clock() { perf stat -e task-clock -x, "$1" -test.run '^$' -test.bench "$re" -test.benchtime "$2" 2>&1 >/dev/null | grep task-clock | cut -d, -f1; }
for round in 1 2 3; do
	for bin in "$@"; do
		t1=$(clock "$bin" 200x)
		t2=$(clock "$bin" 2200x)
		printf '%s %s %s: %.0f µs CPU per run\n' "$round" "$bin" "$re" "$(echo "($t2 - $t1) * 1000 / 2000" | bc -l)"
	done
done
