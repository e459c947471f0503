package jsrt

import (
	"context"
	"encoding/json"
	"time"
)

// Executor runs JavaScript. Implementations are safe for concurrent use.
type Executor interface {
	// Run runs code as a plain script and returns the value of its final
	// expression. On failure it returns an *Error and, when the run
	// started, a Result holding the console output and duration so far
	// (its Value is nil).
	Run(ctx context.Context, code string) (*Result, error)
	// Close releases the executor's resources (worker processes, the heap
	// watchdog). Runs after Close fail with ErrClosed.
	Close() error
}

// Result is a successful run's outcome.
type Result struct {
	// Value is the JSON form of the final expression's value (see the
	// package documentation for the forms of BigInt, Map, Set, Date,
	// functions and symbols). It is null when the value is undefined.
	Value json.RawMessage `json:"value"`
	// Undefined is true when the final value is undefined (the code ended
	// with a statement, or its final expression has no value).
	Undefined bool `json:"undefined,omitempty"`
	// Logs are the console lines, in order.
	Logs []LogLine `json:"logs"`
	// Duration is the run's wall time, from admission to the converted
	// result.
	Duration time.Duration `json:"duration"`
}

// Level is a console method's level.
type Level string

// Console levels. console.debug and console.trace log at LevelDebug.
const (
	LevelLog   Level = "log"
	LevelInfo  Level = "info"
	LevelWarn  Level = "warn"
	LevelError Level = "error"
	LevelDebug Level = "debug"
)

// LogLine is one console call: its arguments formatted and joined by spaces.
type LogLine struct {
	Level Level  `json:"level"`
	Text  string `json:"text"`
}
