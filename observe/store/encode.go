package store

import (
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"sort"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/loomwork/loom/internal/jsonquote"
)

// appendAttrsJSON appends attrs as one JSON object. Later duplicates of a
// key win, as in OpenTelemetry's own attribute sets.
func appendAttrsJSON(b []byte, attrs []attribute.KeyValue) []byte {
	b = append(b, '{')
	for n, i := range lastOfKeys(attrs) {
		if n > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, string(attrs[i].Key))
		b = append(b, ':')
		b = appendValueJSON(b, attrs[i].Value)
	}
	return append(b, '}')
}

// lastOfKeys yields the indexes of attrs whose key does not appear again
// later, numbered from 0.
func lastOfKeys(attrs []attribute.KeyValue) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		n := 0
		for i := range attrs {
			if dupLater(attrs, i) {
				continue
			}
			if !yield(n, i) {
				return
			}
			n++
		}
	}
}

// dupLater reports whether attrs[i]'s key appears again after i. Attribute
// lists are short and usually free of duplicates, so a scan beats a map.
func dupLater(attrs []attribute.KeyValue, i int) bool {
	for _, kv := range attrs[i+1:] {
		if kv.Key == attrs[i].Key {
			return true
		}
	}
	return false
}

func appendValueJSON(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		return strconv.AppendBool(b, v.AsBool())
	case attribute.INT64:
		return strconv.AppendInt(b, v.AsInt64(), 10)
	case attribute.FLOAT64:
		return appendFloatJSON(b, v.AsFloat64())
	case attribute.STRING:
		return appendJSONString(b, v.AsString())
	case attribute.BOOLSLICE:
		return appendSlice(b, v.AsBoolSlice(), strconv.AppendBool)
	case attribute.INT64SLICE:
		return appendSlice(b, v.AsInt64Slice(), func(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) })
	case attribute.FLOAT64SLICE:
		return appendSlice(b, v.AsFloat64Slice(), appendFloatJSON)
	case attribute.STRINGSLICE:
		return appendSlice(b, v.AsStringSlice(), appendJSONString)
	default:
		return appendJSONString(b, v.String())
	}
}

func appendSlice[T any](b []byte, xs []T, f func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = f(b, x)
	}
	return append(b, ']')
}

// appendFloatJSON writes f as a JSON number, or as a string for NaN and
// infinities, which JSON cannot hold.
func appendFloatJSON(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return appendJSONString(b, strconv.FormatFloat(f, 'g', -1, 64))
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	for _, c := range b[n:] {
		if c == '.' || c == 'e' {
			return b
		}
	}
	// Keep integral floats floats when read back: 3 → 3.0.
	return append(b, '.', '0')
}

// appendJSONString appends s as a JSON string, replacing invalid UTF-8 with
// U+FFFD and escaping U+2028 and U+2029 so the text is safe inside script.
func appendJSONString(b []byte, s string) []byte {
	return jsonquote.Append(b, s, false)
}

// appendEventsJSON appends the span's events in their stored form.
func appendEventsJSON(b []byte, events []sdktrace.Event) []byte {
	b = append(b, '[')
	for i, e := range events {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEventJSON(b, e.Name, e.Time.UnixNano(), e.Attributes)
	}
	return append(b, ']')
}

// appendEventJSON appends one event in its stored form (see rawEvent).
func appendEventJSON(b []byte, name string, timeNS int64, attrs []attribute.KeyValue) []byte {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, name)
	b = append(b, `,"time_unix_nano":`...)
	b = strconv.AppendInt(b, timeNS, 10)
	if len(attrs) > 0 {
		b = append(b, `,"attributes":`...)
		b = appendAttrsJSON(b, attrs)
	}
	return append(b, '}')
}

// mapJSON encodes attributes given as a map (from [Store.Write]) with sorted
// keys; values that JSON cannot hold are written with %v.
func mapJSON(m map[string]any) []byte {
	if len(m) == 0 {
		return []byte("{}")
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		switch v := m[k].(type) {
		case float64:
			b = appendFloatJSON(b, v)
		case string:
			b = appendJSONString(b, v)
		default:
			enc, err := json.Marshal(v)
			if err != nil {
				enc = appendJSONString(nil, fmt.Sprint(v))
			}
			b = append(b, enc...)
		}
	}
	return append(b, '}')
}
