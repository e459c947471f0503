package checkpoint

import (
	"maps"
	"slices"
	"time"
)

// StoredTime returns t as every store reads it back: UTC, nanosecond
// precision, no monotonic clock reading. Stores keep times as Unix
// nanoseconds.
func StoredTime(t time.Time) time.Time { return time.Unix(0, t.UnixNano()).UTC() }

// clone returns a deep copy of cp as stores read it back: the time in
// UTC, empty JSON and Meta as nil.
func (cp Checkpoint) clone() Checkpoint {
	cp.Time = StoredTime(cp.Time)
	cp.State = cloneJSON(cp.State)
	cp.Events = cloneJSON(cp.Events)
	if len(cp.Meta) == 0 {
		cp.Meta = nil
	} else {
		cp.Meta = maps.Clone(cp.Meta)
	}
	return cp
}

func cloneJSON(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return slices.Clone(b)
}
