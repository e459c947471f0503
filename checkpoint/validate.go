package checkpoint

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Size bounds of a checkpoint's labels.
const (
	// MaxIDBytes bounds a run or session id.
	MaxIDBytes = 256
	// MaxKindBytes bounds a checkpoint's Kind.
	MaxKindBytes = 256
	// MaxMetaBytes bounds a checkpoint's Meta: the sum of its keys' and
	// values' lengths.
	MaxMetaBytes = 64 << 10
)

var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// Validate reports whether cp may be put: a valid run id, Seq of 1 or
// more, a Time that is set and fits Unix nanoseconds, valid JSON (or nil)
// in State and Events, and Meta within bounds. Its errors wrap
// [ErrInvalid] and say which field is wrong and how to fix it.
func (cp Checkpoint) Validate() error {
	if err := ValidateID("run", cp.RunID); err != nil {
		return err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("run %q checkpoint %d: %w: %s", cp.RunID, cp.Seq, ErrInvalid, fmt.Sprintf(format, args...))
	}
	if cp.Seq < 1 {
		return bad("Seq must be 1 or more (a new run starts at 1, then head Seq+1)")
	}
	if err := checkLabel(cp.Kind, MaxKindBytes); err != "" {
		return bad("Kind %s", err)
	}
	if cp.Time.IsZero() {
		return bad("Time is zero: set it from the run's clock")
	}
	if cp.Time.Before(minTime) || cp.Time.After(maxTime) {
		return bad("Time %s is outside the years 1678 to 2262 that nanosecond timestamps hold", cp.Time)
	}
	if len(cp.State) > 0 && !json.Valid(cp.State) {
		return bad("State is not valid JSON: encode it with encoding/json, or leave it nil")
	}
	if len(cp.Events) > 0 && !json.Valid(cp.Events) {
		return bad("Events is not valid JSON: encode them with encoding/json, or leave them nil")
	}
	size := 0
	for k, v := range cp.Meta {
		if k == "" {
			return bad("Meta has an empty key")
		}
		if err := checkLabel(k, MaxMetaBytes); err != "" {
			return bad("Meta key %q %s", k, err)
		}
		if err := checkLabel(v, MaxMetaBytes); err != "" {
			return bad("Meta[%q] %s", k, err)
		}
		size += len(k) + len(v)
	}
	if size > MaxMetaBytes {
		return bad("Meta holds %d bytes, more than %d: keep labels small and put data in State", size, MaxMetaBytes)
	}
	return nil
}

// ValidateID checks a run or session id (what is "run" or "session"): it
// must be non-empty valid UTF-8 without NUL bytes, at most [MaxIDBytes]
// bytes. Its errors wrap [ErrInvalid].
func ValidateID(what, id string) error {
	if id == "" {
		return fmt.Errorf("%w: the %s id is empty: give every %s an id", ErrInvalid, what, what)
	}
	if err := checkLabel(id, MaxIDBytes); err != "" {
		return fmt.Errorf("%w: %s id %s %s", ErrInvalid, what, quoteShort(id), err)
	}
	return nil
}

// ValidateSeq checks the Seq asked of [Store.Get]: 1 or more. Its errors
// wrap [ErrInvalid].
func ValidateSeq(runID string, seq int64) error {
	if seq < 1 {
		return fmt.Errorf("run %q: %w: checkpoint %d asked for: Seq starts at 1", runID, ErrInvalid, seq)
	}
	return nil
}

// Validate reports whether f is usable; its errors wrap [ErrInvalid].
func (f RunFilter) Validate() error {
	if f.Limit < 0 {
		return fmt.Errorf("%w: RunFilter.Limit is %d: use 0 for no limit or a positive number", ErrInvalid, f.Limit)
	}
	return nil
}

// ValidateAppend checks the arguments of [SessionStore.Append]; its errors
// wrap [ErrInvalid].
func ValidateAppend(sessionID string, after int, turns []json.RawMessage) error {
	if err := ValidateID("session", sessionID); err != nil {
		return err
	}
	if after < 0 {
		return fmt.Errorf("session %q: %w: after is %d: pass the number of turns the session holds (0 for a new one)", sessionID, ErrInvalid, after)
	}
	if len(turns) == 0 {
		return fmt.Errorf("session %q: %w: no turns to append: pass at least one", sessionID, ErrInvalid)
	}
	for i, t := range turns {
		if len(t) == 0 || !json.Valid(t) {
			return fmt.Errorf("session %q: %w: turn %d (of those appended) is not valid JSON: encode each turn with encoding/json", sessionID, ErrInvalid, i+1)
		}
	}
	return nil
}

// ValidateLimit checks a listing limit: 0 means none, negative is an
// error wrapping [ErrInvalid].
func ValidateLimit(limit int) error {
	if limit < 0 {
		return fmt.Errorf("%w: limit is %d: use 0 for no limit or a positive number", ErrInvalid, limit)
	}
	return nil
}

// quoteShort quotes s, cut to its first 40 bytes when longer.
func quoteShort(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%q...", s[:40])
	}
	return fmt.Sprintf("%q", s)
}

// checkLabel returns what is wrong with a stored label, or "".
func checkLabel(s string, maxBytes int) string {
	switch {
	case len(s) > maxBytes:
		return fmt.Sprintf("is %d bytes, more than %d", len(s), maxBytes)
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "contains a NUL byte"
	}
	return ""
}
