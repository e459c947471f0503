package provider

import (
	"bytes"
	"io"
)

// MarkerBody watches a server-sent event stream for an end marker that the
// SDK's decoder swallows without telling its caller, as OpenAI's
// "data: [DONE]". Seen reports whether the marker began a line.
type MarkerBody struct {
	rc     io.ReadCloser
	marker []byte // "\n" + the line's start, as "\ndata: [DONE]"
	alt    []byte // the same without the space after the colon
	tail   []byte // the last bytes read, to find a marker split across reads
	seen   bool
}

// WatchMarker returns rc wrapped to look for a line beginning
// "data: "+value (or "data:"+value).
func WatchMarker(rc io.ReadCloser, value string) *MarkerBody {
	return &MarkerBody{rc: rc, marker: []byte("\ndata: " + value), alt: []byte("\ndata:" + value), tail: []byte("\n")}
}

// Read reads from the stream.
func (b *MarkerBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 && !b.seen {
		chunk := p[:n]
		// A marker split across reads shows in the tail joined to the
		// start of this read; the rest is searched in place.
		edge := append(b.tail, chunk[:min(n, len(b.marker))]...)
		b.seen = b.has(edge) || b.has(chunk)
		if len(chunk) >= len(b.marker) {
			b.tail = append(b.tail[:0], chunk[n-len(b.marker):]...)
		} else {
			b.tail = append(b.tail[:0], edge[max(0, len(edge)-len(b.marker)):]...)
		}
	}
	return n, err
}

func (b *MarkerBody) has(p []byte) bool {
	return bytes.Contains(p, b.marker) || bytes.Contains(p, b.alt)
}

// Close closes the stream.
func (b *MarkerBody) Close() error { return b.rc.Close() }

// Seen reports whether the marker has been read.
func (b *MarkerBody) Seen() bool { return b.seen }
