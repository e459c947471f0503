package observe

import "go.opentelemetry.io/otel/attribute"

// attrBuf holds a span's attributes. Once the span's part is encoded
// nothing reads them, so the buffer goes back to its provider's pool for a
// later span: most of what a recorded span allocates is its attributes.
type attrBuf struct{ kv []attribute.KeyValue }

// attrBufSize is the room a new buffer has: about what loom's agent spans
// set when they start and end. maxPooledAttrs bounds the buffers the pool
// keeps, so that one span with many attributes does not pin its buffer.
const (
	attrBufSize    = 24
	maxPooledAttrs = 128
)

// appendAttrs appends kv to s's attributes, in a pooled buffer.
func (s *span) appendAttrs(kv []attribute.KeyValue) {
	if s.attrs == nil {
		s.attrs = s.t.p.attrs.Get().(*attrBuf)
		s.rec.Attributes = s.attrs.kv[:0]
	}
	s.rec.Attributes = append(s.rec.Attributes, kv...)
	s.attrs.kv = s.rec.Attributes
}

// release returns the attribute buffers of spans whose part was encoded.
func (p *TracerProvider) release(spans []*span) {
	for _, s := range spans {
		s.mu.Lock()
		b := s.attrs
		clear(s.rec.Attributes)
		s.attrs, s.rec.Attributes = nil, nil
		s.mu.Unlock()
		if b != nil && cap(b.kv) <= maxPooledAttrs {
			b.kv = b.kv[:0]
			p.attrs.Put(b)
		}
	}
}
