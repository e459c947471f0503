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

// Events is the shape of the SDKs' server-sent event streams
// (ssestream.Stream in openai-go and anthropic-sdk-go).
type Events[T any] interface {
	Next() bool
	Current() T
	Err() error
	Close() error
}

// Pump drains events into yield and closes them. decode maps one event to
// chunks and returns false once the consumer stopped; end turns the error
// the stream ended with (nil after a clean end) into the call's error;
// last is the final chunk, yielded when end returns nil.
func Pump[T any](events Events[T], decode func(T) bool, end func(error) error, last func() model.Chunk, yield func(model.Chunk, error) bool) {
	defer events.Close()
	for events.Next() {
		if !decode(events.Current()) {
			return
		}
	}
	if err := end(events.Err()); err != nil {
		yield(model.Chunk{}, err)
		return
	}
	yield(last(), nil)
}
