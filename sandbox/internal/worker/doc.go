// Package worker is the sandbox's isolated executor: a pool of worker
// processes, the JSON-lines protocol between the parent and a worker, the
// worker's main loop (which runs each request with the jsrt in-process
// executor), and the operating-system layers around a worker: memory and
// CPU limits (cgroup v2 or RLIMIT_AS, GOMEMLIMIT, RLIMIT_CPU), the seccomp
// filter, namespaces with an empty read-only root, and death with the
// parent.
package worker
