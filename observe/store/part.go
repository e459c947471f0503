package store

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
)

// insertPartSQL stores one part as one row; a part stored before (same
// trace and key) is skipped.
const insertPartSQL = `INSERT INTO parts (trace_id, part_id, start_ns, span_count, spans)
	VALUES (?, ?, ?, ?, ?) ON CONFLICT (trace_id, part_id) DO NOTHING`

// WriteParts stores parts of traces, each as one row holding its spans
// (see [Part]), and updates the traces' summaries, all in one
// transaction. A part written before is skipped, so writing a batch twice
// changes nothing. Queries see the parts' spans as they see exported ones.
func (s *Store) WriteParts(ctx context.Context, parts []Part) error {
	n := 0
	for i := range parts {
		n += len(parts[i].Spans)
	}
	if n == 0 {
		return nil
	}
	return s.inTx(ctx, n, func(ins *inserter) error {
		// The last write's rows go now, not when it ended: its summaries
		// are written after this function returns.
		sc := ins.scratch
		clear(sc.rows)
		sc.rows = sc.rows[:0]
		if cap(sc.rows) < n || cap(sc.rows) > 4*n+1024 {
			sc.rows = make([]row, 0, n)
		}
		for i := range parts {
			if len(parts[i].Spans) == 0 {
				continue
			}
			if err := ins.insertPart(ctx, &parts[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// insertPart stores p as one row and, when it is new, adds its spans to
// their trace's summary delta.
func (in *inserter) insertPart(ctx context.Context, p *Part) error {
	if in.part == nil {
		in.part = in.tx.StmtContext(ctx, in.stmts.insertPart)
	}
	traceID := p.TraceID.String()
	sc := in.scratch
	var err error
	if sc.buf, err = in.appendPartJSON(ctx, sc.buf[:0], p); err != nil {
		return err
	}
	start := p.Spans[0].Start.UnixNano()
	for i := range p.Spans {
		start = min(start, p.Spans[i].Start.UnixNano())
	}
	res, err := in.part.ExecContext(ctx, traceID, p.key(), start, len(p.Spans), sc.buf)
	if err != nil {
		return fmt.Errorf("store: insert %d spans of trace %s: %w", len(p.Spans), traceID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // stored before: a retried write
	}
	if cap(sc.buf) > 1<<20 {
		sc.buf = nil // do not keep a huge buffer after one huge part
	}
	// The deltas keep pointers to rows until the transaction ends:
	// WriteParts made room for every span, so appending never moves them.
	for _, r := range p.Spans {
		sc.rows = append(sc.rows, rowFromRecord(traceID, r))
		in.count(&sc.rows[len(sc.rows)-1])
	}
	return nil
}

// rowFromRecord returns the facts of r that a trace summary needs; the
// encoded attributes and events stay empty, as the part's row holds them.
func rowFromRecord(traceID string, r *Record) row {
	out := row{
		traceID:       traceID,
		spanID:        r.SpanID.String(),
		root:          !r.ParentID.IsValid() || r.RemoteParent,
		name:          r.Name,
		startNS:       r.Start.UnixNano(),
		endNS:         r.End.UnixNano(),
		statusCode:    codeString(r.Status),
		statusMessage: r.StatusMessage,
	}
	for _, kv := range r.Attributes {
		out.facts.set(string(kv.Key), kv.Value)
	}
	return out
}

// appendPartJSON appends p's spans as a JSON array of objects with the
// fields of the spans table: the part's row is what a row per span would
// hold, in one value, with long values that repeat from run to run stored
// once (see sharedKey).
func (in *inserter) appendPartJSON(ctx context.Context, b []byte, p *Part) ([]byte, error) {
	b = append(b, '[')
	for i := range p.Spans {
		r := p.Spans[i]
		shared, err := in.shareTexts(ctx, r.Attributes, in.scratch.shared[:0])
		if err != nil {
			return nil, err
		}
		in.scratch.shared = shared
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"span_id":"`...)
		b = hex.AppendEncode(b, r.SpanID[:])
		b = append(b, '"')
		if r.ParentID.IsValid() {
			b = append(b, `,"parent_id":"`...)
			b = hex.AppendEncode(b, r.ParentID[:])
			b = append(b, '"')
		}
		b = append(b, `,"name":`...)
		b = appendJSONString(b, r.Name)
		b = append(b, `,"kind":"`...)
		b = append(b, kindString(r.Kind)...)
		b = append(b, `","start_ns":`...)
		b = strconv.AppendInt(b, r.Start.UnixNano(), 10)
		b = append(b, `,"end_ns":`...)
		b = strconv.AppendInt(b, r.End.UnixNano(), 10)
		b = append(b, `,"status":"`...)
		b = append(b, codeString(r.Status)...)
		b = append(b, '"')
		if r.StatusMessage != "" {
			b = append(b, `,"status_message":`...)
			b = appendJSONString(b, r.StatusMessage)
		}
		b = append(b, `,"attributes":`...)
		b = appendAttrsJSON(b, r.Attributes, shared)
		if len(r.Events) > 0 {
			b = append(b, `,"events":[`...)
			for j, e := range r.Events {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendEventJSON(b, e.Name, e.Time.UnixNano(), e.Attributes)
			}
			b = append(b, ']')
		}
		if r.Scope != "" {
			b = append(b, `,"scope":`...)
			b = appendJSONString(b, r.Scope)
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}
