package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/loomwork/loom/model"
)

// ErrorType classifies err for a span's error.type attribute: "http.429"
// for a provider's HTTP error, "timeout" and "canceled" for the context's
// errors, else the Go type of the innermost wrapped error. Packages with
// error types of their own test for them first.
func ErrorType(err error) string {
	var ae *model.APIError
	switch {
	case errors.As(err, &ae):
		return "http." + strconv.Itoa(ae.StatusCode)
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		err = u
	}
	return fmt.Sprintf("%T", err)
}
