package worker

import (
	"encoding/json"
	"time"

	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// The worker protocol. A worker is a child process started with the
// environment variable LOOM_SANDBOX_WORKER=1 (and the worker settings in
// LOOM_SANDBOX_WORKER_CONFIG, as JSON). It speaks JSON lines: one JSON
// object per line, UTF-8, on its stdin (requests) and stdout (replies);
// stderr is free text, kept by the parent to explain a crash.
//
//  1. The worker applies its OS limits, then writes {"ready":true,"pid":N,"version":1}.
//  2. The parent writes one request: {"id":N,"code":"…","limits":{…},"fixedTime":"…","randSeed":N}.
//  3. The worker runs it and writes one reply: {"id":N,"result":{…}} or
//     {"id":N,"error":{"kind":"…","message":"…",…},"logs":[…],"durationNs":N}.
//     When the reply has "exiting":true the worker exits after it (a run it
//     could not stop is still running).
//  4. Repeat from 2; the worker exits when its stdin closes.
//
// One request is in flight per worker at a time. A request that offers
// host tools lists their names in "tools" and their limits in "calls".
// During its run the worker may then write tool calls,
// {"id":N,"call":{"seq":S,"tool":"…","args":…}}, before its reply; the
// parent runs each and answers with {"id":N,"answer":{"seq":S,"result":…}}
// or {"id":N,"answer":{"seq":S,"error":{"tool":…,"kind":…,"message":…}}}.
// The parent refuses a call for any run but the one in flight (and kills
// the worker); the worker ignores an answer for any run but its current
// one, and an answer to a call it no longer waits for.
const (
	workerEnvKey    = "LOOM_SANDBOX_WORKER"
	workerEnvValue  = "1"
	workerConfigEnv = "LOOM_SANDBOX_WORKER_CONFIG"
	protocolVersion = 1
)

// workerSettings are the worker's process-wide settings, from its
// environment.
type workerSettings struct {
	// Memory is the per-run memory budget, in bytes.
	Memory int64 `json:"memory"`
	// MaxStack is the Go stack limit (debug.SetMaxStack), in bytes.
	MaxStack int `json:"maxStack"`
	// AddressSpace, when true, makes the worker set RLIMIT_AS to its
	// measured address space plus AddressBudget (no cgroup is in use).
	AddressSpace  bool  `json:"addressSpace"`
	AddressBudget int64 `json:"addressBudget"`
	// Parent is the parent's process ID: a worker whose parent is another
	// exits at once.
	Parent int `json:"parent,omitempty"`
	// Namespaces, when true, says the worker started in its own
	// namespaces and must make Dir, its working directory, an empty
	// read-only root.
	Namespaces bool   `json:"namespaces,omitempty"`
	Dir        string `json:"dir,omitempty"`
	// Expect holds the settings of the runs to come (Limits, FixedTime,
	// RandSeed; no code), so the worker sets up its first run's runtime
	// while it waits for the first request.
	Expect *request `json:"expect,omitempty"`
}

type request struct {
	ID        uint64      `json:"id"`
	Code      string      `json:"code"`
	Limits    jsrt.Limits `json:"limits"`
	FixedTime *time.Time  `json:"fixedTime,omitempty"`
	RandSeed  *uint64     `json:"randSeed,omitempty"`
	// Tools and Calls offer host tools to the run (hosttools_wire.go).
	Tools []string        `json:"tools,omitempty"`
	Calls jsrt.CallLimits `json:"calls,omitzero"`
	// Answer, instead of a new run, answers a tool call of run ID.
	Answer *callAnswer `json:"answer,omitempty"`
}

type reply struct {
	Ready   bool `json:"ready,omitempty"`
	PID     int  `json:"pid,omitempty"`
	Version int  `json:"version,omitempty"`
	// Unfiltered, in the ready reply, says why the worker runs without its
	// system call filter.
	Unfiltered string `json:"unfiltered,omitempty"`

	ID         uint64         `json:"id,omitempty"`
	Result     *jsrt.Result   `json:"result,omitempty"`
	Error      *jsrt.Error    `json:"error,omitempty"`
	Logs       []jsrt.LogLine `json:"logs,omitempty"`
	DurationNs int64          `json:"durationNs,omitempty"`
	Exiting    bool           `json:"exiting,omitempty"`
	// Call, instead of a reply, is a tool call of run ID.
	Call *callMsg `json:"call,omitempty"`
}

// maxLine bounds one protocol line: code, result and logs are bounded by
// the limits, and JSON escaping grows text at most six times.
func maxLine(l jsrt.Limits) int {
	return 6*(l.SourceBytes+l.ResultBytes+l.LogBytes) + 64*l.LogLines + 1<<16
}

// marshalLine encodes v as one protocol line.
func marshalLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
