package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"

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

// StreamErr classifies the error a stream ended with, the same way for
// every provider: the caller's cancellation, an HTTP error or stall the
// [Transport] reported, a reply that could not be decoded (malformed, not
// truncated), and otherwise a connection that broke mid-stream (truncated)
// or a request that never got an answer. started says whether any event
// had arrived; marker names the end marker, as "message_stop".
func StreamErr(ctx context.Context, providerID, baseURL string, err error, started bool, marker string) error {
	if cerr := Cancelled(ctx, providerID); cerr != nil {
		return cerr
	}
	var apiErr *model.APIError
	if errors.As(err, &apiErr) {
		return apiErr
	}
	var stall *model.StallError
	if errors.As(err, &stall) {
		return stall
	}
	if errors.Is(err, model.ErrMalformedResponse) {
		return unwrapURL(err)
	}
	if d := decodeError(err); d != "" {
		return Malformed(providerID, d)
	}
	if IsCtxErr(err) {
		return fmt.Errorf("%s: %w", providerID, err)
	}
	if started {
		return Truncated(providerID, marker, err)
	}
	return fmt.Errorf("%s: request to %s failed: %w", providerID, baseURL, err)
}

// Malformed returns the error for an event that could not be decoded;
// detail says what was wrong, without the event's content.
func Malformed(providerID, detail string) error {
	return fmt.Errorf("%s: %w: an event in the stream is not valid JSON of the expected shape (%s); the connection was fine, the provider or a proxy sent something else", providerID, model.ErrMalformedResponse, detail)
}

// decodeError returns a short account of a JSON decoding error in err's
// chain, or "".
func decodeError(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("%s at byte %d", syn.Error(), syn.Offset)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		field := strings.TrimPrefix(typ.Field, "Alias.") // genai decodes through an alias type
		return Clip(fmt.Sprintf("field %q is a JSON %s where %s was expected", field, typ.Value, jsonKind(typ.Type)), MaxSummary)
	}
	return ""
}

// jsonKind names the JSON value a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another value"
}

// unwrapURL returns the error inside a *url.Error, which http.Client adds
// around a transport's error, so the provider's message comes first.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
