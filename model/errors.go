package model

import (
	"errors"
	"fmt"
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
	// ErrTruncated marks a stream that ended before the provider finished it.
	ErrTruncated = errors.New("stream truncated")
	// ErrUnsupported marks a feature or option the provider does not have.
	ErrUnsupported = errors.New("unsupported by provider")
)

// APIError is an error answer from a provider's API. It wraps one of
// [ErrAuth], [ErrRateLimited], [ErrServer] or [ErrInvalidRequest] by status,
// and the SDK's own error, so both errors.Is and errors.As work.
type APIError struct {
	Provider   string
	StatusCode int
	Message    string // the provider's message, never the key
	Err        error  // the SDK error
}

// Error returns the error's message.
func (e *APIError) Error() string {
	hint := ""
	switch {
	case e.StatusCode == 401 || e.StatusCode == 403:
		hint = ": the API key was rejected; check the key variable"
	case e.StatusCode == 429:
		hint = ": rate limited; retries exhausted"
	}
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
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
	return fmt.Sprintf("%s: missing API key: set %s (or pass the key as an option)", e.Provider, orList(e.Vars))
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
