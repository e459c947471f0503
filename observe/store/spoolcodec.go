package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// A spool file (see [Spool]) is a sequence of frames, one per write:
//
//	frame   = magic (4 bytes) | length (uint32 LE) | crc32c of payload (uint32 LE) | payload
//	payload = part*
//	part    = trace id (16) | uvarint span count | span*
//	span    = span id (8) | parent id (8) | flags (1: remote parent) | str name |
//	          kind (1) | varint start ns | varint end − start | status (1) | str message |
//	          attrs | uvarint event count | (str name | varint time ns | attrs)* | str scope
//	attrs   = uvarint count | (str key | type (1) | value)*
//	str     = uvarint length | bytes
//
// Values keep their OpenTelemetry type, so a part read back is encoded
// for the database exactly as the writer's store would have encoded it.
// A frame is written with one write call; a reader takes the frames whose
// length and checksum hold and ignores a torn tail (a process killed in the
// middle of a write).
const (
	spoolMagic     = "LSP1"
	spoolFrameHead = 12
	// maxSpoolFrame bounds one frame, so a corrupt length cannot make a
	// reader allocate without limit.
	maxSpoolFrame = 256 << 20
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// errSpoolCorrupt marks bytes of a spool file that are not what the writer
// wrote.
var errSpoolCorrupt = errors.New("corrupt spool frame")

// errSpoolVersion marks a spool file of another format version (its magic
// differs in the last byte only): a reader leaves it to a loom that reads
// that version.
var errSpoolVersion = errors.New("spool file of another format version")

// appendSpoolPart appends p in a part's spool form.
func appendSpoolPart(b []byte, p *Part) []byte {
	b = append(b, p.TraceID[:]...)
	b = binary.AppendUvarint(b, uint64(len(p.Spans)))
	for _, r := range p.Spans {
		b = append(b, r.SpanID[:]...)
		b = append(b, r.ParentID[:]...)
		flags := byte(0)
		if r.RemoteParent {
			flags = 1
		}
		b = append(b, flags)
		b = appendSpoolString(b, r.Name)
		b = append(b, byte(r.Kind))
		start := r.Start.UnixNano()
		b = binary.AppendVarint(b, start)
		b = binary.AppendVarint(b, r.End.UnixNano()-start)
		b = append(b, byte(r.Status))
		b = appendSpoolString(b, r.StatusMessage)
		b = appendSpoolAttrs(b, r.Attributes)
		b = binary.AppendUvarint(b, uint64(len(r.Events)))
		for _, e := range r.Events {
			b = appendSpoolString(b, e.Name)
			b = binary.AppendVarint(b, e.Time.UnixNano())
			b = appendSpoolAttrs(b, e.Attributes)
		}
		b = appendSpoolString(b, r.Scope)
	}
	return b
}

// putSpoolHead fills in the head of frame, whose payload follows its
// first spoolFrameHead bytes.
func putSpoolHead(frame []byte) {
	payload := frame[spoolFrameHead:]
	copy(frame, spoolMagic)
	binary.LittleEndian.PutUint32(frame[4:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(frame[8:], crc32.Checksum(payload, crcTable))
}

func appendSpoolString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendSpoolAttrs(b []byte, attrs []attribute.KeyValue) []byte {
	b = binary.AppendUvarint(b, uint64(len(attrs)))
	for _, kv := range attrs {
		b = appendSpoolString(b, string(kv.Key))
		v := kv.Value
		switch t := v.Type(); t {
		case attribute.BOOL:
			b = append(b, byte(t), boolByte(v.AsBool()))
		case attribute.INT64:
			b = binary.AppendVarint(append(b, byte(t)), v.AsInt64())
		case attribute.FLOAT64:
			b = binary.LittleEndian.AppendUint64(append(b, byte(t)), math.Float64bits(v.AsFloat64()))
		case attribute.BOOLSLICE:
			xs := v.AsBoolSlice()
			b = binary.AppendUvarint(append(b, byte(t)), uint64(len(xs)))
			for _, x := range xs {
				b = append(b, boolByte(x))
			}
		case attribute.INT64SLICE:
			xs := v.AsInt64Slice()
			b = binary.AppendUvarint(append(b, byte(t)), uint64(len(xs)))
			for _, x := range xs {
				b = binary.AppendVarint(b, x)
			}
		case attribute.FLOAT64SLICE:
			xs := v.AsFloat64Slice()
			b = binary.AppendUvarint(append(b, byte(t)), uint64(len(xs)))
			for _, x := range xs {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
			}
		case attribute.STRINGSLICE:
			xs := v.AsStringSlice()
			b = binary.AppendUvarint(append(b, byte(t)), uint64(len(xs)))
			for _, x := range xs {
				b = appendSpoolString(b, x)
			}
		case attribute.STRING:
			b = appendSpoolString(append(b, byte(t)), v.AsString())
		default:
			// An invalid value is stored as its text, as the database does.
			b = appendSpoolString(append(b, byte(attribute.STRING)), v.String())
		}
	}
	return b
}

func boolByte(x bool) byte {
	if x {
		return 1
	}
	return 0
}

// spoolFrame is one whole frame read back: its payload and its size with
// its head.
type spoolFrame struct {
	payload []byte
	size    int
}

// readSpoolFrames returns the whole frames at the start of data; it stops
// at the first frame that is incomplete (a writer still writing, or a torn
// tail). err is not nil when a frame is complete but not what the writer
// wrote.
func readSpoolFrames(data []byte) (frames []spoolFrame, err error) {
	n := 0
	for len(data)-n >= spoolFrameHead {
		h := data[n : n+spoolFrameHead]
		if string(h[:4]) != spoolMagic {
			if n == 0 && string(h[:3]) == spoolMagic[:3] {
				return nil, fmt.Errorf("%w: %q", errSpoolVersion, h[:4])
			}
			return frames, fmt.Errorf("%w at byte %d: bad magic", errSpoolCorrupt, n)
		}
		size := binary.LittleEndian.Uint32(h[4:])
		if size > maxSpoolFrame {
			return frames, fmt.Errorf("%w at byte %d: length %d", errSpoolCorrupt, n, size)
		}
		end := n + spoolFrameHead + int(size)
		if end > len(data) {
			break
		}
		payload := data[n+spoolFrameHead : end]
		if crc32.Checksum(payload, crcTable) != binary.LittleEndian.Uint32(h[8:]) {
			return frames, fmt.Errorf("%w at byte %d: checksum", errSpoolCorrupt, n)
		}
		frames = append(frames, spoolFrame{payload: payload, size: end - n})
		n = end
	}
	return frames, nil
}

// spoolReader decodes a frame's payload.
type spoolReader struct {
	b   []byte
	err error
}

func (r *spoolReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", errSpoolCorrupt, what)
	}
	r.b = nil
}

func (r *spoolReader) bytes(n int, what string) []byte {
	if n < 0 || n > len(r.b) {
		r.fail(what)
		return make([]byte, max(n, 0))
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *spoolReader) byte1(what string) byte { return r.bytes(1, what)[0] }

func (r *spoolReader) uvarint(what string) uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *spoolReader) varint(what string) int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a count of items of at least min bytes each, refusing one
// the payload cannot hold.
func (r *spoolReader) count(minBytes int, what string) int {
	n := r.uvarint(what)
	if n > uint64(len(r.b)/max(minBytes, 1)) {
		r.fail(what)
		return 0
	}
	return int(n)
}

func (r *spoolReader) str(what string) string {
	n := r.uvarint(what)
	if n > uint64(len(r.b)) {
		r.fail(what)
		return ""
	}
	return string(r.bytes(int(n), what))
}

func (r *spoolReader) float(what string) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(r.bytes(8, what)))
}

// decodeSpoolParts decodes the parts of one frame's payload.
func decodeSpoolParts(payload []byte) ([]Part, error) {
	r := &spoolReader{b: payload}
	var parts []Part
	for len(r.b) > 0 && r.err == nil {
		var p Part
		copy(p.TraceID[:], r.bytes(16, "trace id"))
		n := r.count(20, "span count")
		p.Spans = make([]*Record, 0, n)
		for range n {
			p.Spans = append(p.Spans, r.record())
		}
		parts = append(parts, p)
	}
	if r.err != nil {
		return nil, r.err
	}
	return parts, nil
}

func (r *spoolReader) record() *Record {
	rec := &Record{}
	copy(rec.SpanID[:], r.bytes(8, "span id"))
	copy(rec.ParentID[:], r.bytes(8, "parent id"))
	rec.RemoteParent = r.byte1("flags")&1 != 0
	rec.Name = r.str("name")
	rec.Kind = trace.SpanKind(r.byte1("kind"))
	start := r.varint("start")
	rec.Start, rec.End = time.Unix(0, start), time.Unix(0, start+r.varint("duration"))
	rec.Status = codes.Code(r.byte1("status"))
	rec.StatusMessage = r.str("status message")
	rec.Attributes = r.attrs()
	if n := r.count(3, "event count"); n > 0 {
		rec.Events = make([]RecordEvent, n)
		for i := range rec.Events {
			rec.Events[i].Name = r.str("event name")
			rec.Events[i].Time = time.Unix(0, r.varint("event time"))
			rec.Events[i].Attributes = r.attrs()
		}
	}
	rec.Scope = r.str("scope")
	return rec
}

func (r *spoolReader) attrs() []attribute.KeyValue {
	n := r.count(3, "attribute count")
	if n == 0 {
		return nil
	}
	out := make([]attribute.KeyValue, 0, n)
	for range n {
		key := attribute.Key(r.str("attribute key"))
		var v attribute.Value
		switch t := attribute.Type(r.byte1("attribute type")); t {
		case attribute.BOOL:
			v = attribute.BoolValue(r.byte1("bool") != 0)
		case attribute.INT64:
			v = attribute.Int64Value(r.varint("int"))
		case attribute.FLOAT64:
			v = attribute.Float64Value(r.float("float"))
		case attribute.STRING:
			v = attribute.StringValue(r.str("string"))
		case attribute.BOOLSLICE:
			xs := make([]bool, r.count(1, "bools"))
			for i := range xs {
				xs[i] = r.byte1("bool") != 0
			}
			v = attribute.BoolSliceValue(xs)
		case attribute.INT64SLICE:
			xs := make([]int64, r.count(1, "ints"))
			for i := range xs {
				xs[i] = r.varint("int")
			}
			v = attribute.Int64SliceValue(xs)
		case attribute.FLOAT64SLICE:
			xs := make([]float64, r.count(8, "floats"))
			for i := range xs {
				xs[i] = r.float("float")
			}
			v = attribute.Float64SliceValue(xs)
		case attribute.STRINGSLICE:
			xs := make([]string, r.count(1, "strings"))
			for i := range xs {
				xs[i] = r.str("string")
			}
			v = attribute.StringSliceValue(xs)
		default:
			r.fail(fmt.Sprintf("attribute type %d", t))
			return nil
		}
		out = append(out, attribute.KeyValue{Key: key, Value: v})
	}
	return out
}
