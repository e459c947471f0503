package worker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// TestRunnerKeepsItsExecutor: a worker keeps one executor (and the runtime
// it set up ahead) for requests whose settings differ only in the time
// limit, and makes a new one when anything a runtime's setup reads changes.
func TestRunnerKeepsItsExecutor(t *testing.T) {
	fixed := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	seed := uint64(3)
	base := request{Limits: jsrt.Limits{Timeout: time.Second, Memory: 64 << 20}}
	cases := []struct {
		name string
		edit func(r *request)
		same bool
	}{
		{"same settings", func(*request) {}, true},
		{"another time limit", func(r *request) { r.Limits.Timeout = 3 * time.Second }, true},
		{"another memory limit", func(r *request) { r.Limits.Memory = 32 << 20 }, false},
		{"another call stack", func(r *request) { r.Limits.CallStack = 100 }, false},
		{"a fixed time", func(r *request) { r.FixedTime = &fixed }, false},
		{"a random seed", func(r *request) { r.RandSeed = &seed }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &runner{}
			defer r.close()
			first, err := r.executor(base)
			require.NoError(t, err)
			next := base
			c.edit(&next)
			second, err := r.executor(next)
			require.NoError(t, err)
			if c.same {
				require.Same(t, first, second)
			} else {
				require.NotSame(t, first, second)
			}
		})
	}
}
