//go:build race

package worker

// RaceEnabled is true in binaries built with -race. The race detector maps
// shadow memory as the heap grows, so a worker of such a binary gets no
// RLIMIT_AS: its memory is bounded by GOMEMLIMIT, the heap watchdog and a
// cgroup when there is one.
const RaceEnabled = true
