package store

import (
	"bytes"
	"encoding/json"
	"time"
)

// Span is one stored span, as [Store.Trace] returns it and [Store.Write]
// takes it. Ids are lower-case hex, as OpenTelemetry prints them.
type Span struct {
	TraceID      string `json:"trace_id"`
	SpanID       string `json:"span_id"`
	ParentSpanID string `json:"parent_span_id,omitempty"`
	// RemoteParent marks a span whose parent lives in another process; such
	// a span is the root of what this store sees of the trace. It is read by
	// [Store.Write] and not stored: [Store.Trace] leaves it false.
	RemoteParent bool   `json:"remote_parent,omitempty"`
	Name         string `json:"name"`
	// Kind is "internal", "server", "client", "producer" or "consumer".
	Kind  string    `json:"kind"`
	Start time.Time `json:"start_time"`
	End   time.Time `json:"end_time"`
	// Status is "unset", "ok" or "error".
	Status        string `json:"status"`
	StatusMessage string `json:"status_message,omitempty"`
	// Attributes maps attribute keys to JSON values: strings, numbers,
	// booleans and arrays of them.
	Attributes map[string]any `json:"attributes"`
	Events     []Event        `json:"events,omitempty"`
	// Scope is the instrumentation scope name, "github.com/loomwork/loom"
	// for loom's own spans.
	Scope string `json:"scope,omitempty"`
}

// Event is a timestamped annotation of a span, such as the "exception"
// event of a recorded error.
type Event struct {
	Name       string         `json:"name"`
	Time       time.Time      `json:"time"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// Duration is End minus Start.
func (s *Span) Duration() time.Duration { return s.End.Sub(s.Start) }

// IsRoot reports whether the span has no parent in this process.
func (s *Span) IsRoot() bool { return s.ParentSpanID == "" || s.RemoteParent }

// rawEvent is the stored form of an event: times in Unix nanoseconds.
type rawEvent struct {
	Name       string         `json:"name"`
	TimeNS     int64          `json:"time_unix_nano"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

func decodeEvents(b []byte) ([]Event, error) {
	if len(b) == 0 || string(b) == "[]" {
		return nil, nil
	}
	var raw []rawEvent
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	out := make([]Event, len(raw))
	for i, e := range raw {
		out[i] = Event{Name: e.Name, Time: time.Unix(0, e.TimeNS).UTC(), Attributes: e.Attributes}
	}
	return out, nil
}

// decodeJSON decodes a stored attribute object, keeping integers exact.
func decodeJSON(b []byte, m *map[string]any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(m); err != nil {
		return err
	}
	for k, v := range *m {
		(*m)[k] = fromNumber(v)
	}
	return nil
}

// fromNumber turns json.Numbers into int64 where exact, else float64.
func fromNumber(v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = fromNumber(v[i])
		}
	}
	return v
}
