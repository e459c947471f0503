package store

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
)

// insertPartSQL stores one part as one row, insertPartsSQL partRows parts;
// a part stored before (same trace and key) is skipped.
var (
	insertPartSQL  = insertPartsSQLOf(1)
	insertPartsSQL = insertPartsSQLOf(partRows)
)

// partRows is how many parts one multi-row insert writes.
const partRows = 16

func insertPartsSQLOf(rows int) string {
	return valuesSQL("INSERT INTO parts (trace_id, part_id, start_ns, span_count, spans)\n\t", 5, rows, " ON CONFLICT (trace_id, part_id) DO NOTHING")
}

// EncodedPart is a [Part] in the form the store writes it: its spans
// encoded as its row will hold them, and the facts its trace's summary
// needs. It holds no span records, so that what waits to be written costs
// the garbage collector little. Make one with [Store.EncodePart].
type EncodedPart struct {
	traceID, key string
	base         int64 // the part's start, that span starts count from
	blob         []byte
	sum          *delta   // what the part adds to its trace's summary
	wanted       []string // texts in blob that the store would share
	// spooled marks a part encoded by a [Spool]: blob is its spool form,
	// and count its spans.
	spooled bool
	count   int
}

// Spans returns how many spans the part holds.
func (e *EncodedPart) Spans() int {
	if e.spooled {
		return e.count
	}
	if e.sum == nil {
		return 0
	}
	return int(e.sum.spans)
}

// EncodePart encodes p for [Store.WriteEncoded]. It is safe for concurrent
// use and reads nothing from the database: keys and values the store has
// not stored as shared texts yet are encoded in place, and the write
// stores them for the parts encoded after it.
func (s *Store) EncodePart(p *Part) EncodedPart {
	e := EncodedPart{traceID: p.TraceID.String(), key: p.key()}
	if len(p.Spans) == 0 {
		return e
	}
	e.base = p.Spans[0].Start.UnixNano()
	for _, r := range p.Spans {
		e.base = min(e.base, r.Start.UnixNano())
	}
	e.sum = s.partSummary(e.traceID, p.Spans)
	s.texts.mu.RLock()
	e.blob, e.wanted = appendPartJSON(make([]byte, 0, 256*len(p.Spans)), p, e.base, s.texts.ids, nil)
	s.texts.mu.RUnlock()
	return e
}

// WriteParts encodes parts and writes them; see [Store.WriteEncoded].
func (s *Store) WriteParts(ctx context.Context, parts []Part) error {
	return s.WriteEncoded(ctx, encodeAll(parts, s.EncodePart))
}

// encodeAll encodes parts with encode.
func encodeAll(parts []Part, encode func(*Part) EncodedPart) []EncodedPart {
	enc := make([]EncodedPart, len(parts))
	for i := range parts {
		enc[i] = encode(&parts[i])
	}
	return enc
}

// WriteEncoded stores parts of traces, each as one row holding its spans
// (see [Part]), and updates the traces' summaries, all in one
// transaction. A part written before is skipped, so writing a batch twice
// changes nothing. Queries see the parts' spans as they see exported ones.
func (s *Store) WriteEncoded(ctx context.Context, parts []EncodedPart) error {
	n := 0
	for i := range parts {
		if parts[i].spooled {
			return fmt.Errorf("%w: part %d was encoded by a Spool: write it with the Spool's WriteEncoded", ErrWrongEncoder, i)
		}
		n += parts[i].Spans()
	}
	if n == 0 {
		return nil
	}
	stored := map[string]int64{}
	err := s.inTx(ctx, n, func(ins *inserter) error {
		for i := range parts {
			if err := ins.shareWanted(ctx, parts[i].wanted, stored); err != nil {
				return err
			}
		}
		chunk := make([]*EncodedPart, 0, partRows)
		for i := range parts {
			if parts[i].Spans() == 0 {
				continue
			}
			if chunk = append(chunk, &parts[i]); len(chunk) == partRows {
				if err := ins.insertParts(ctx, chunk); err != nil {
					return err
				}
				chunk = chunk[:0]
			}
		}
		for _, p := range chunk {
			if err := ins.insertPart(ctx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		// Only texts of a committed write may be referred to.
		s.texts.publish(stored)
	}
	return err
}

// insertParts stores len(parts) == partRows parts with one statement inside
// a savepoint. When some of them were stored before (a retried write), it
// rolls the statement back and stores them one by one, so that only new
// parts count in the summaries.
func (in *inserter) insertParts(ctx context.Context, parts []*EncodedPart) error {
	if in.parts == nil {
		st, err := in.stmts.in(ctx, in.tx, stmtInsertParts)
		if err != nil {
			return err
		}
		in.parts = st
	}
	in.args = in.args[:0]
	for _, p := range parts {
		in.args = append(in.args, p.traceID, p.key, p.base, p.Spans(), p.blob)
	}
	all, err := in.allNew(ctx, in.parts, len(parts))
	if err != nil {
		return fmt.Errorf("store: insert %d parts from trace %s: %w", len(parts), parts[0].traceID, err)
	}
	for _, p := range parts {
		if !all {
			if err := in.insertPart(ctx, p); err != nil {
				return err
			}
			continue
		}
		in.inserted += p.sum.spans
		in.deltaOf(p.traceID).merge(p.sum)
	}
	return nil
}

// insertPart stores p as one row and, when it is new, adds its spans to
// their trace's summary delta.
func (in *inserter) insertPart(ctx context.Context, p *EncodedPart) error {
	if in.part == nil {
		st, err := in.stmts.in(ctx, in.tx, stmtInsertPart)
		if err != nil {
			return err
		}
		in.part = st
	}
	res, err := in.part.ExecContext(ctx, p.traceID, p.key, p.base, p.Spans(), p.blob)
	if err != nil {
		return fmt.Errorf("store: insert %d spans of trace %s: %w", p.Spans(), p.traceID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // stored before: a retried write
	}
	in.inserted += p.sum.spans
	in.deltaOf(p.traceID).merge(p.sum)
	return nil
}

// partSummary folds the spans of a part into what they add to their
// trace's summary, keeping a copy of only the rows it refers to (the root
// and the outermost agent span), so that an encoded part holds one small
// delta rather than a row per span.
func (s *Store) partSummary(traceID string, spans []*Record) *delta {
	d := &delta{traceID: traceID}
	r := new(row)
	for _, rec := range spans {
		*r = rowFromRecord(traceID, rec)
		d.add(r, &s.cfg)
		if d.root != r && d.top != r {
			continue
		}
		kept := new(row)
		*kept = *r
		kept.spanID = rec.SpanID.String()
		if d.root == r {
			d.root = kept
		}
		if d.top == r {
			d.top = kept
		}
	}
	return d
}

// rowFromRecord returns the facts of r that a trace summary needs; the
// encoded attributes and events stay empty, as the part's row holds them,
// and so does the span id, which only the rows a summary keeps and failed
// spans need.
func rowFromRecord(traceID string, r *Record) row {
	out := row{
		traceID:       traceID,
		root:          !r.ParentID.IsValid() || r.RemoteParent,
		name:          r.Name,
		startNS:       r.Start.UnixNano(),
		endNS:         r.End.UnixNano(),
		statusCode:    codeString(r.Status),
		statusMessage: r.StatusMessage,
	}
	if out.statusCode == "error" {
		// A failed span's ids tell a failure passed up through nested
		// spans from one of its own (see delta.addError).
		out.spanID = r.SpanID.String()
		if r.ParentID.IsValid() {
			out.parentID = r.ParentID.String()
		}
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
// id of a stored text (from ids), or the key itself; a long value that
// repeats from run to run (see sharedKey) is {"$text": id}, or the value
// itself. Keys and shared values written in place are appended to wanted.
// Keys of a span appear once: a later value of a key wins.
func appendPartJSON(b []byte, p *Part, base int64, ids map[string]int64, wanted []string) ([]byte, []string) {
	b = append(b, '[')
	scope := ""
	for i, r := range p.Spans {
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
		b, wanted = appendAttrPairs(b, r.Attributes, ids, wanted)
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
	return append(b, ']'), wanted
}

// appendAttrPairs appends "a": attrs as a flat array of keys and values,
// keys and shared values as text ids where ids has them.
func appendAttrPairs(b []byte, attrs []attribute.KeyValue, ids map[string]int64, wanted []string) ([]byte, []string) {
	b = append(b, `,"a":[`...)
	for n, i := range lastOfKeys(attrs) {
		kv := attrs[i]
		if n > 0 {
			b = append(b, ',')
		}
		if id, ok := ids[string(kv.Key)]; ok {
			b = strconv.AppendInt(b, id, 10)
		} else {
			b = appendJSONString(b, string(kv.Key))
			wanted = append(wanted, string(kv.Key))
		}
		b = append(b, ',')
		if !sharedValue(kv) {
			b = appendValueJSON(b, kv.Value)
		} else if id, ok := ids[kv.Value.AsString()]; ok {
			b = appendTextRef(b, id)
		} else {
			b = appendValueJSON(b, kv.Value)
			wanted = append(wanted, kv.Value.AsString())
		}
	}
	return append(b, ']'), wanted
}
