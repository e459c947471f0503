package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// partSpan is a span as a part's row holds it (see appendPartJSON).
type partSpan struct {
	SpanID        string          `json:"span_id"`
	ParentID      string          `json:"parent_id"`
	Name          string          `json:"name"`
	Kind          string          `json:"kind"`
	StartNS       int64           `json:"start_ns"`
	EndNS         int64           `json:"end_ns"`
	Status        string          `json:"status"`
	StatusMessage string          `json:"status_message"`
	Attributes    json.RawMessage `json:"attributes"`
	Events        json.RawMessage `json:"events"`
	Scope         string          `json:"scope"`
}

// readParts appends the spans of trace id's parts to spans and orders them
// all by start time (stable, so spans of one start keep their order).
func readParts(ctx context.Context, tx *sql.Tx, id string, spans []Span) ([]Span, error) {
	rows, err := tx.QueryContext(ctx, `SELECT part_id, spans FROM parts WHERE trace_id = ? ORDER BY start_ns, rowid`, id)
	if err != nil {
		return nil, fmt.Errorf("store: read parts of trace %s: %w", id, err)
	}
	defer rows.Close()
	n := len(spans)
	texts := map[int64]string{}
	for rows.Next() {
		var key string
		var blob []byte
		if err := rows.Scan(&key, &blob); err != nil {
			return nil, fmt.Errorf("store: read part of trace %s: %w", id, err)
		}
		if spans, err = decodePart(ctx, tx, id, blob, spans, texts); err != nil {
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

// decodePart appends the spans of one part's row to spans, reading the
// shared texts it refers to within tx.
func decodePart(ctx context.Context, tx *sql.Tx, traceID string, blob []byte, spans []Span, texts map[int64]string) ([]Span, error) {
	var raw []partSpan
	if err := json.Unmarshal(blob, &raw); err != nil {
		return nil, err
	}
	for _, r := range raw {
		sp := Span{
			TraceID: traceID, SpanID: r.SpanID, ParentSpanID: r.ParentID, Name: r.Name, Kind: r.Kind,
			Start: time.Unix(0, r.StartNS).UTC(), End: time.Unix(0, r.EndNS).UTC(),
			Status: r.Status, StatusMessage: r.StatusMessage, Scope: r.Scope,
		}
		if err := decodeJSON(r.Attributes, &sp.Attributes); err != nil {
			return nil, fmt.Errorf("span %s: attributes: %w", r.SpanID, err)
		}
		if err := resolveTexts(ctx, tx, sp.Attributes, texts); err != nil {
			return nil, fmt.Errorf("span %s: %w", r.SpanID, err)
		}
		var err error
		if sp.Events, err = decodeEvents(r.Events); err != nil {
			return nil, fmt.Errorf("span %s: events: %w", r.SpanID, err)
		}
		spans = append(spans, sp)
	}
	return spans, nil
}
