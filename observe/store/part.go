package store

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
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
	start := p.Spans[0].Start.UnixNano()
	for _, r := range p.Spans {
		start = min(start, r.Start.UnixNano())
	}
	sc := in.scratch
	var err error
	if sc.buf, err = in.appendPartJSON(ctx, sc.buf[:0], p, start); err != nil {
		return err
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

// appendPartJSON appends p's spans in a part's stored form: a JSON array
// with one compact object per span, as decodePart reads it:
//
//	{"i": span id, "p": parent id, "n": name, "k": kind (omitted when
//	 internal), "s": start in ns after base, "d": duration in ns,
//	 "c": status (omitted when unset), "m": status message,
//	 "a": [key, value, key, value, …], "v": events (as in the spans
//	 table), "o": scope (omitted when the previous span's)}
//
// base is the part's start (its row's start_ns). An attribute key is the
// id of a stored text, or the key itself when the store shares no more
// texts; a long value that repeats from run to run is {"$text": id} (see
// sharedKey). Keys of a span appear once: a later value of a key wins.
func (in *inserter) appendPartJSON(ctx context.Context, b []byte, p *Part, base int64) ([]byte, error) {
	b = append(b, '[')
	scope := ""
	for i, r := range p.Spans {
		shared, err := in.shareTexts(ctx, r.Attributes, in.scratch.shared[:0])
		if err != nil {
			return nil, err
		}
		in.scratch.shared = shared
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"i":"`...)
		b = hex.AppendEncode(b, r.SpanID[:])
		b = append(b, '"')
		if r.ParentID.IsValid() {
			b = append(b, `,"p":"`...)
			b = hex.AppendEncode(b, r.ParentID[:])
			b = append(b, '"')
		}
		b = append(b, `,"n":`...)
		b = appendJSONString(b, r.Name)
		if k := kindString(r.Kind); k != "internal" {
			b = append(b, `,"k":"`...)
			b = append(b, k...)
			b = append(b, '"')
		}
		start := r.Start.UnixNano()
		b = append(b, `,"s":`...)
		b = strconv.AppendInt(b, start-base, 10)
		b = append(b, `,"d":`...)
		b = strconv.AppendInt(b, r.End.UnixNano()-start, 10)
		if c := codeString(r.Status); c != "unset" {
			b = append(b, `,"c":"`...)
			b = append(b, c...)
			b = append(b, '"')
		}
		if r.StatusMessage != "" {
			b = append(b, `,"m":`...)
			b = appendJSONString(b, r.StatusMessage)
		}
		if b, err = in.appendAttrPairs(ctx, b, r.Attributes, shared); err != nil {
			return nil, err
		}
		if len(r.Events) > 0 {
			b = append(b, `,"v":[`...)
			for j, e := range r.Events {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendEventJSON(b, e.Name, e.Time.UnixNano(), e.Attributes)
			}
			b = append(b, ']')
		}
		if i == 0 || r.Scope != scope {
			b = append(b, `,"o":`...)
			b = appendJSONString(b, r.Scope)
			scope = r.Scope
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// appendAttrPairs appends "a": attrs as a flat array of keys (ids of
// stored texts where the store shares them) and values.
func (in *inserter) appendAttrPairs(ctx context.Context, b []byte, attrs []attribute.KeyValue, shared []sharedRef) ([]byte, error) {
	b = append(b, `,"a":[`...)
	for n, i := range lastOfKeys(attrs) {
		kv := attrs[i]
		if n > 0 {
			b = append(b, ',')
		}
		id, ok, err := in.textID(ctx, string(kv.Key))
		if err != nil {
			return nil, err
		}
		if ok {
			b = strconv.AppendInt(b, id, 10)
		} else {
			b = appendJSONString(b, string(kv.Key))
		}
		b = append(b, ',')
		if id, ok := sharedID(shared, i); ok {
			b = appendTextRef(b, id)
		} else {
			b = appendValueJSON(b, kv.Value)
		}
	}
	return append(b, ']'), nil
}
