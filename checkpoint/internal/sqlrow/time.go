package sqlrow

import "time"

// Time returns the stored Unix nanoseconds ns as a UTC time.
func Time(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// Bound returns t as Unix nanoseconds for a "before t" comparison: a zero
// t (no bound, or "nothing is older") becomes the smallest value, and times
// beyond what nanoseconds hold are clamped.
func Bound(t time.Time) int64 {
	switch {
	case t.IsZero() || t.Before(time.Unix(0, minNS)):
		return minNS
	case t.After(time.Unix(0, maxNS)):
		return maxNS
	}
	return t.UnixNano()
}

const (
	minNS = -1 << 63
	maxNS = 1<<63 - 1
)
