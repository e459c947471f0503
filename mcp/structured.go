package mcp

import (
	"math"
	"slices"
	"strconv"

	"github.com/loomwork/loom/internal/jsonquote"
)

// appendDecoded appends v, a value as decoded from JSON into any (objects
// as map[string]any, arrays as []any, strings, float64 numbers, booleans
// and nil), in exactly the bytes json.Marshal writes for it, without its
// reflection: re-encoding a tool's structured content that way is six
// allocations, this is one. It reports false for anything else (NaN or
// an infinity, another type); the caller then uses json.Marshal.
func appendDecoded(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, v), true
	case string:
		return jsonquote.Append(b, v, true), true
	case float64:
		return appendNumber(b, v)
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendDecoded(b, x); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if v == nil {
			return append(b, "null"...), true
		}
		var small [16]string
		keys := small[:0]
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys) // json.Marshal sorts an object's keys
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonquote.Append(b, k, true)
			b = append(b, ':')
			var ok bool
			if b, ok = appendDecoded(b, v[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendNumber appends f as json.Marshal writes a float64: plain notation
// from 1e-6 up to 1e21, exponent notation beyond, with a one-digit
// negative exponent unpadded.
func appendNumber(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}
