package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/loomwork/loom/model"
)

// Cancelled returns ctx's error wrapped with the provider id when ctx is done,
// or nil. Providers check it first when a stream fails, so a cancelled call
// reports context.Canceled (or DeadlineExceeded) whatever the transport said.
func Cancelled(ctx context.Context, providerID string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: stream stopped: %w", providerID, err)
	}
	return nil
}

// Truncated returns the error for a stream that ended before the provider's
// end marker. cause is the transport error, if any.
func Truncated(providerID, missing string, cause error) error {
	if cause != nil {
		return fmt.Errorf("%s: %w: the connection ended before %s: %w", providerID, model.ErrTruncated, missing, cause)
	}
	return fmt.Errorf("%s: %w: the stream ended before %s; the answer is incomplete, retry the call", providerID, model.ErrTruncated, missing)
}

// IsCtxErr reports whether err is a context error.
func IsCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
