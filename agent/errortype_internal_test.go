package agent

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/model"
)

func TestErrorType(t *testing.T) {
	trip := &TripwireError{Guardrail: "secrets", Stage: StageOutput, Agent: "a", Reason: "a key"}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"tripwire", fmt.Errorf("run: %w", trip), "tripwire"},
		{"tripwire inside a halt", Halt(trip), "tripwire"},
		{"limit", &LimitError{Limit: "max_turns"}, "limit:max_turns"},
		{"validation", &ValidationError{}, "validation"},
		{"provider status", &model.APIError{StatusCode: 429}, "http.429"},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), "timeout"},
		{"canceled", context.Canceled, "canceled"},
		{"other", fmt.Errorf("x: %w", errors.New("y")), "*errors.errorString"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, errorType(c.err))
		})
	}
}
