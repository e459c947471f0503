package jsrt

import (
	"fmt"
	"time"
)

// Limits bound one run. A zero field takes its default (see
// [DefaultLimits]); a negative field is invalid.
type Limits struct {
	// Timeout is the run's wall-time limit, covering the code, the Promise
	// jobs it queues and the conversion of its result. Default 5s. The
	// caller's context deadline, when earlier, applies instead.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Grace is how long a run may take to stop after its time limit before
	// it is given up: the in-process executor stops waiting for it (its
	// concurrency slot stays taken until it really ends) and the isolated
	// executor kills the worker. Default 1s.
	Grace time.Duration `json:"grace,omitempty"`
	// Memory is the heap growth allowed to one run, in bytes. In process it
	// is a best-effort watchdog on the whole process's heap; in a worker it
	// is also enforced by the operating system. Default 256 MiB.
	Memory int64 `json:"memory,omitempty"`
	// CallStack is the deepest JS call stack allowed, in frames. Default
	// 2000.
	CallStack int `json:"callStack,omitempty"`
	// SourceBytes is the largest source accepted, in bytes. Default 64 KiB.
	// It also bounds what the nesting prescan, a tokenizer, could miss
	// where only a parser can tell a regexp from a division: at 64 KiB,
	// goja's parser needs at most about 128 MB of Go stack. Raise it far
	// for [InProcess] only with trusted code.
	SourceBytes int `json:"sourceBytes,omitempty"`
	// Nesting is the deepest bracket nesting accepted in the source, and in
	// text given to JSON.parse. Default 256.
	Nesting int `json:"nesting,omitempty"`
	// ResultBytes is the largest JSON form of the final value. Default
	// 256 KiB.
	ResultBytes int `json:"resultBytes,omitempty"`
	// ResultDepth is the deepest nesting of objects and arrays in the final
	// value, and in values given to JSON.stringify. Default 128.
	ResultDepth int `json:"resultDepth,omitempty"`
	// LogBytes and LogLines bound the console output kept; the rest is
	// dropped and a truncation marker is logged. Defaults 64 KiB and 1000
	// lines.
	LogBytes int `json:"logBytes,omitempty"`
	LogLines int `json:"logLines,omitempty"`
}

// Default limits.
const (
	DefaultTimeout     = 5 * time.Second
	DefaultGrace       = time.Second
	DefaultMemory      = 256 << 20
	DefaultCallStack   = 2000
	DefaultSourceBytes = 64 << 10
	DefaultNesting     = 256
	DefaultResultBytes = 256 << 10
	DefaultResultDepth = 128
	DefaultLogBytes    = 64 << 10
	DefaultLogLines    = 1000
)

// maxOperatorChain is the most operators the source prescan allows along
// one path of nested expressions: goja parses some nesting (arrow functions)
// in quadratic time.
const maxOperatorChain = 1000

// DefaultLimits returns the limits a zero Limits stands for.
func DefaultLimits() Limits {
	return Limits{
		Timeout:     DefaultTimeout,
		Grace:       DefaultGrace,
		Memory:      DefaultMemory,
		CallStack:   DefaultCallStack,
		SourceBytes: DefaultSourceBytes,
		Nesting:     DefaultNesting,
		ResultBytes: DefaultResultBytes,
		ResultDepth: DefaultResultDepth,
		LogBytes:    DefaultLogBytes,
		LogLines:    DefaultLogLines,
	}
}

// withDefaults fills zero fields and rejects negative ones.
func (l Limits) withDefaults() (Limits, error) {
	d := DefaultLimits()
	var bad []string
	fillDur := func(name string, v *time.Duration, def time.Duration) {
		switch {
		case *v < 0:
			bad = append(bad, name)
		case *v == 0:
			*v = def
		}
	}
	fillInt := func(name string, v *int, def int) {
		switch {
		case *v < 0:
			bad = append(bad, name)
		case *v == 0:
			*v = def
		}
	}
	fillDur("Timeout", &l.Timeout, d.Timeout)
	fillDur("Grace", &l.Grace, d.Grace)
	switch {
	case l.Memory < 0:
		bad = append(bad, "Memory")
	case l.Memory == 0:
		l.Memory = d.Memory
	}
	fillInt("CallStack", &l.CallStack, d.CallStack)
	fillInt("SourceBytes", &l.SourceBytes, d.SourceBytes)
	fillInt("Nesting", &l.Nesting, d.Nesting)
	fillInt("ResultBytes", &l.ResultBytes, d.ResultBytes)
	fillInt("ResultDepth", &l.ResultDepth, d.ResultDepth)
	fillInt("LogBytes", &l.LogBytes, d.LogBytes)
	fillInt("LogLines", &l.LogLines, d.LogLines)
	if len(bad) > 0 {
		return l, fmt.Errorf("sandbox: invalid limits: %v must not be negative (zero means the default)", bad)
	}
	return l, nil
}

// LimitsWithDefaults is l with its zero fields filled, or an error naming
// the negative ones.
func LimitsWithDefaults(l Limits) (Limits, error) { return l.withDefaults() }
