package temporal

import (
	"errors"
	"fmt"

	"github.com/loomwork/loom/agent"
	"go.temporal.io/sdk/temporal"
)

// ErrInvalidOptions marks activity options out of range.
var ErrInvalidOptions = errors.New("invalid activity options")

var errNegative = fmt.Errorf("%w: a negative StartToCloseTimeout or HeartbeatTimeout: use 0 for the default or a positive duration", ErrInvalidOptions)

// activityError turns an activity's failure, as the workflow sees it, back
// into the error the activity met: an application error carrying an
// agent.ErrorRecord gives an error that errors.Is still matches against
// loom's sentinels (model.ErrAuth, model.ErrServer, sandbox kinds, limits).
// Other failures (timeouts, cancellation) are returned as Temporal's.
func activityError(err error) error {
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || !ae.HasDetails() {
		return err
	}
	var rec agent.ErrorRecord
	if ae.Details(&rec) != nil || rec.Message == "" {
		return err
	}
	return &ActivityFailure{Type: ae.Type(), err: rec.Err(), cause: err}
}

// ActivityFailure is the error of a failed model call or tool activity on
// the workflow side. Its message is the original error's; it unwraps to the
// original error rebuilt from its record (so errors.Is matches loom's
// sentinels) and to Temporal's error (so errors.As finds the
// *temporal.ActivityError and *temporal.ApplicationError).
type ActivityFailure struct {
	// Type is the application error's type, as [ErrorTypeModel].
	Type  string
	err   error
	cause error
}

// Error returns the original error's message.
func (e *ActivityFailure) Error() string { return e.err.Error() }

// Unwrap returns the rebuilt original error and Temporal's error.
func (e *ActivityFailure) Unwrap() []error { return []error{e.err, e.cause} }
