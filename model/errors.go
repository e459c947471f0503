package model

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors, for errors.Is.
var (
	// ErrInvalidOption marks an option outside its range; see [OptionError].
	ErrInvalidOption = errors.New("invalid option")
	// ErrInvalidRequest marks a request that cannot be sent as it is.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrUnknownProvider marks a provider id that is not registered.
	ErrUnknownProvider = errors.New("unknown provider")
	// ErrMissingKey marks a provider constructed without its API key.
	ErrMissingKey = errors.New("missing API key")
	// ErrAuth marks a key the provider rejected (HTTP 401 or 403).
	ErrAuth = errors.New("authentication failed")
	// ErrRateLimited marks HTTP 429 after the retries ran out.
	ErrRateLimited = errors.New("rate limited")
	// ErrServer marks an HTTP 5xx after the retries ran out.
	ErrServer = errors.New("provider server error")
	// ErrTruncated marks a stream that ended before the provider finished it:
	// the connection broke, or it closed before the protocol's end marker.
	ErrTruncated = errors.New("stream truncated")
	// ErrMalformedResponse marks a reply that is not in the provider's wire
	// format: an HTML page where an event stream was expected, or an event
	// whose JSON cannot be decoded. The connection itself was fine.
	ErrMalformedResponse = errors.New("malformed response")
	// ErrStalled marks a stream that sent nothing for longer than the
	// provider's idle timeout; see [StallError].
	ErrStalled = errors.New("stream stalled")
	// ErrOutputLimit marks an answer the provider cut at the output token
	// limit (finish reason [FinishLength]); see [FinishReason.Err].
	ErrOutputLimit = errors.New("answer cut at the output token limit")
	// ErrUnsupported marks a feature or option the provider does not have.
	ErrUnsupported = errors.New("unsupported by provider")
)

// APIError is an error answer from a provider's API. It wraps one of
// [ErrAuth], [ErrRateLimited], [ErrServer] or [ErrInvalidRequest] by status,
// and the SDK's own error, so both errors.Is and errors.As work.
//
// When the provider asked for a wait (Retry-After) longer than the
// provider's cap, the call fails at once with RetryAfter and MaxRetryWait
// set, rather than sleeping through the wait.
type APIError struct {
	Provider   string
	StatusCode int
	// Message is a bounded summary of the provider's answer: its JSON error
	// message, an HTML page's title or the first line of anything else; never
	// the key. The full body is logged at DEBUG.
	Message string
	// Code is the provider's machine-readable reason, when its body has one:
	// an error code, type or status, as "invalid_api_key",
	// "overloaded_error" or "API_KEY_INVALID".
	Code string
	// Attempts is the number of requests sent, retries included; 0 when
	// unknown (an error event inside a stream).
	Attempts int
	// RetryAfter is the wait the provider asked for (Retry-After), when it
	// asked for one; a wait longer than MaxRetryWait made the call fail at
	// once, and a caller that retries itself should honour a shorter one.
	RetryAfter time.Duration
	// MaxRetryWait is the longest wait the provider was configured to honour.
	MaxRetryWait time.Duration
	Err          error // the SDK error, if any
}

// Error returns the error's message.
func (e *APIError) Error() string {
	hint := ""
	switch {
	case e.StatusCode == 401 || e.StatusCode == 403:
		hint = ": the API key was rejected; check the key variable"
	case e.RetryAfter > 0 && e.RetryAfter > e.MaxRetryWait:
		hint = fmt.Sprintf(": the provider asked to wait %s before retrying, longer than the %s cap (raise it with the provider's WithMaxRetryWait option); not retried", e.RetryAfter, e.MaxRetryWait)
	case e.StatusCode == 429 && e.Attempts > 1:
		hint = fmt.Sprintf(": rate limited after %d attempts", e.Attempts)
	case e.StatusCode == 429:
		hint = ": rate limited"
	case e.Attempts > 1:
		hint = fmt.Sprintf(": failed after %d attempts", e.Attempts)
	}
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if msg == "" {
		return fmt.Sprintf("%s: HTTP %d%s", e.Provider, e.StatusCode, hint)
	}
	return fmt.Sprintf("%s: HTTP %d%s: %s", e.Provider, e.StatusCode, hint, msg)
}

// Unwrap returns the status class sentinel and the SDK error.
func (e *APIError) Unwrap() []error {
	var class error
	switch {
	case e.StatusCode == 401 || e.StatusCode == 403:
		class = ErrAuth
	case e.StatusCode == 429:
		class = ErrRateLimited
	case e.StatusCode >= 500:
		class = ErrServer
	default:
		class = ErrInvalidRequest
	}
	if e.Err == nil {
		return []error{class}
	}
	return []error{class, e.Err}
}

// MissingKeyError says which variable to set for a provider's key. It wraps
// [ErrMissingKey].
type MissingKeyError struct {
	Provider string
	Vars     []string // the environment variables that are read, in order
}

// Error returns the error's message.
func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("%s: missing API key: set %s in the environment (a program can pass the key with the provider's WithAPIKey option instead)", e.Provider, orList(e.Vars))
}

// Unwrap returns [ErrMissingKey].
func (e *MissingKeyError) Unwrap() error { return ErrMissingKey }

func orList(vs []string) string {
	switch len(vs) {
	case 0:
		return "the provider's key"
	case 1:
		return vs[0]
	}
	s := ""
	for i, v := range vs {
		switch {
		case i == 0:
		case i == len(vs)-1:
			s += " or "
		default:
			s += ", "
		}
		s += v
	}
	return s
}

// StallError reports a stream that sent nothing for longer than the
// provider's idle timeout, before its headers or between two chunks. It
// wraps [ErrStalled].
type StallError struct {
	Provider string
	Idle     time.Duration // the idle timeout that ran out
	Started  bool          // whether the stream had begun (its headers arrived)
}

// Error returns the error's message.
func (e *StallError) Error() string {
	where := "waiting for the response"
	if e.Started {
		where = "mid-stream"
	}
	return fmt.Sprintf("%s: %v: no data for %s %s (the idle timeout; change it with the provider's WithIdleTimeout option)", e.Provider, ErrStalled, e.Idle, where)
}

// Unwrap returns [ErrStalled].
func (e *StallError) Unwrap() error { return ErrStalled }
