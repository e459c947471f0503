package provider

import (
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryAfter reads the wait a response asks for: retry-after-ms
// (milliseconds, as OpenAI and Anthropic send), then Retry-After in seconds
// or as an HTTP date. ok is false when neither header holds a usable value.
func retryAfter(h http.Header, now time.Time) (wait time.Duration, ok bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) {
			return durationOf(ms, time.Millisecond), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || math.IsNaN(s) {
			return 0, false
		}
		return durationOf(s, time.Second), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// durationOf returns n units, saturating rather than overflowing.
func durationOf(n float64, unit time.Duration) time.Duration {
	if d := n * float64(unit); d < math.MaxInt64 {
		return time.Duration(d)
	}
	return math.MaxInt64
}

// backoff returns the jittered wait before retry number retry (from 0): the
// initial wait doubled per retry, capped at most, then reduced by a random
// amount of up to half, so clients that failed together do not retry
// together.
func backoff(retry int, initial, most time.Duration) time.Duration {
	d := initial
	for range retry {
		if d >= most/2 {
			d = most
			break
		}
		d *= 2
	}
	d = min(d, most)
	return d - time.Duration(rand.Int64N(int64(d/2)+1))
}

// retryable reports whether a response status is worth retrying: a timeout,
// a conflict, a rate limit or a server error.
func retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}
