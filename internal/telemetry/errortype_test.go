package telemetry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/telemetry"
	"github.com/loomwork/loom/model"
)

type myError struct{}

func (myError) Error() string { return "mine" }

func TestErrorType(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"a provider's HTTP error", fmt.Errorf("openai: %w", &model.APIError{StatusCode: 429}), "http.429"},
		{"deadline", fmt.Errorf("call: %w", context.DeadlineExceeded), "timeout"},
		{"canceled", context.Canceled, "canceled"},
		{"the innermost error's type", fmt.Errorf("a: %w", fmt.Errorf("b: %w", myError{})), "telemetry_test.myError"},
		{"an unwrapped error", errors.New("x"), "*errors.errorString"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, telemetry.ErrorType(tc.err))
		})
	}
}
