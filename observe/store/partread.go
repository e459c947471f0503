package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// partSpan is a span as a part's row holds it (see appendPartJSON).
type partSpan struct {
	SpanID        string          `json:"i"`
	ParentID      string          `json:"p"`
	Name          string          `json:"n"`
	Kind          string          `json:"k"`
	Start         int64           `json:"s"`
	Duration      int64           `json:"d"`
	Status        string          `json:"c"`
	StatusMessage string          `json:"m"`
	Attributes    json.RawMessage `json:"a"`
	Events        json.RawMessage `json:"v"`
	Scope         *string         `json:"o"`
}

// readParts appends the spans of trace id's parts to spans and orders them
// all by start time (stable, so spans of one start keep their order).
func readParts(ctx context.Context, tx *sql.Tx, id string, spans []Span) ([]Span, error) {
	rows, err := tx.QueryContext(ctx, `SELECT part_id, start_ns, spans FROM parts WHERE trace_id = ? ORDER BY start_ns, rowid`, id)
	if err != nil {
		return nil, fmt.Errorf("store: read parts of trace %s: %w", id, err)
	}
	defer rows.Close()
	n := len(spans)
	texts := map[int64]string{}
	for rows.Next() {
		var key string
		var base int64
		var blob []byte
		if err := rows.Scan(&key, &base, &blob); err != nil {
			return nil, fmt.Errorf("store: read part of trace %s: %w", id, err)
		}
		if spans, err = decodePart(ctx, tx, id, base, blob, spans, texts); err != nil {
			return nil, fmt.Errorf("store: part %s of trace %s is corrupt: %w", key, id, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read parts of trace %s: %w", id, err)
	}
	if len(spans) > n {
		slices.SortStableFunc(spans, func(a, b Span) int { return a.Start.Compare(b.Start) })
	}
	return spans, nil
}

// decodePart appends the spans of one part's row (see appendPartJSON) to
// spans, reading the texts it refers to within tx; base is the part's
// start.
func decodePart(ctx context.Context, tx *sql.Tx, traceID string, base int64, blob []byte, spans []Span, texts map[int64]string) ([]Span, error) {
	var raw []partSpan
	if err := json.Unmarshal(blob, &raw); err != nil {
		return nil, err
	}
	scope := ""
	for _, r := range raw {
		if r.Scope != nil {
			scope = *r.Scope
		}
		sp := Span{
			TraceID: traceID, SpanID: r.SpanID, ParentSpanID: r.ParentID, Name: r.Name, Kind: r.Kind,
			Start: time.Unix(0, base+r.Start).UTC(), End: time.Unix(0, base+r.Start+r.Duration).UTC(),
			Status: r.Status, StatusMessage: r.StatusMessage, Scope: scope,
		}
		if sp.Kind == "" {
			sp.Kind = "internal"
		}
		if sp.Status == "" {
			sp.Status = "unset"
		}
		var err error
		if sp.Attributes, err = decodeAttrPairs(ctx, tx, r.Attributes, texts); err != nil {
			return nil, fmt.Errorf("span %s: attributes: %w", r.SpanID, err)
		}
		if sp.Events, err = decodeEvents(r.Events); err != nil {
			return nil, fmt.Errorf("span %s: events: %w", r.SpanID, err)
		}
		spans = append(spans, sp)
	}
	return spans, nil
}

// decodeAttrPairs decodes a span's "a": keys and values in turn, keys as
// text ids or strings, values as decodeJSON does, with {"$text": id}
// values replaced by their text.
func decodeAttrPairs(ctx context.Context, tx *sql.Tx, b []byte, texts map[int64]string) (map[string]any, error) {
	var pairs []any
	if len(b) > 0 {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&pairs); err != nil {
			return nil, err
		}
	}
	if len(pairs)%2 != 0 {
		return nil, fmt.Errorf("%d keys and values: a key has no value", len(pairs))
	}
	attrs := make(map[string]any, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		var key string
		switch k := pairs[i].(type) {
		case string:
			key = k
		case json.Number:
			id, err := k.Int64()
			if err != nil {
				return nil, fmt.Errorf("key %s is not a text id", k)
			}
			if key, err = text(ctx, tx, id, texts); err != nil {
				return nil, fmt.Errorf("key: %w", err)
			}
		default:
			return nil, fmt.Errorf("key %v is neither a string nor a text id", k)
		}
		attrs[key] = fromNumber(pairs[i+1])
	}
	if err := resolveTexts(ctx, tx, attrs, texts); err != nil {
		return nil, err
	}
	return attrs, nil
}
