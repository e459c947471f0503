package vector

import (
	"fmt"
	"math"
	"sort"
)

// NormalizeMetadata returns a copy of m in the stored form: strings and
// bools as they are, every integer and float as float64, and []string,
// or []any holding only strings, as []string. An empty list is left out,
// as Chroma and Weaviate drop one, so every store reads back the same.
// Nil and empty maps give nil. Any other value, a NaN or infinite number,
// an empty key, or a key starting with '#' or '$' (which stores reserve
// for their own fields and operators) is an error wrapping
// [ErrInvalidDocument] that names the key.
func NormalizeMetadata(m map[string]any) (map[string]any, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]any, len(m))
	for _, k := range sortedKeys(m) {
		if k == "" {
			return nil, fmt.Errorf("%w: metadata has an empty key", ErrInvalidDocument)
		}
		if k[0] == '#' || k[0] == '$' {
			return nil, fmt.Errorf("%w: metadata key %q starts with %q, which stores reserve for their own fields and operators; rename it",
				ErrInvalidDocument, k, k[:1])
		}
		v, ok := normalizeValue(m[k])
		if !ok {
			return nil, fmt.Errorf("%w: metadata %q is %T (%v); use a string, bool, number or []string",
				ErrInvalidDocument, k, m[k], m[k])
		}
		if l, isList := v.([]string); isList && len(l) == 0 {
			continue
		}
		out[k] = v
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// normalizeValue maps a metadata value to its stored form.
func normalizeValue(v any) (any, bool) {
	switch x := v.(type) {
	case string, bool:
		return x, true
	case []string:
		return append([]string(nil), x...), true
	case []any:
		ss := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			ss[i] = s
		}
		return ss, true
	}
	f, ok := toFloat(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false
	}
	return f, true
}

// toFloat converts any Go number to float64.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
