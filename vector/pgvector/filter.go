package pgvector

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/loomwork/loom/vector"
)

// predicate is a filter translated to an SQL/JSON path predicate, or a
// constant when the filter folds to always or never.
type predicate struct {
	expr     string // the predicate; empty when constant
	constant bool   // the value when expr is empty
}

var (
	always = predicate{constant: true}
	never  = predicate{constant: false}
)

// jsonPath translates f into a predicate over the metadata document. f
// must have passed [vector.Filter.Validate]. A nil filter is always.
func jsonPath(f *vector.Filter) (predicate, error) {
	if f == nil {
		return always, nil
	}
	switch f.Op {
	case vector.OpAnd, vector.OpOr:
		return combine(f)
	case vector.OpEq:
		return compare(f.Field, "==", f.Value)
	case vector.OpIn:
		parts := make([]string, 0, len(f.Values))
		for _, v := range f.Values {
			p, err := compare(f.Field, "==", v)
			if err != nil {
				return never, err
			}
			parts = append(parts, p.expr)
		}
		if len(parts) == 0 {
			return never, nil
		}
		return predicate{expr: "(" + strings.Join(parts, " || ") + ")"}, nil
	case vector.OpGt:
		return compare(f.Field, ">", f.Value)
	case vector.OpGte:
		return compare(f.Field, ">=", f.Value)
	case vector.OpLt:
		return compare(f.Field, "<", f.Value)
	case vector.OpLte:
		return compare(f.Field, "<=", f.Value)
	}
	return never, fmt.Errorf("%w: operator %s", vector.ErrUnsupportedFilter, f.Op)
}

// combine folds And and Or: a constant operand decides the result or drops
// out, so the predicate never holds a bare true or false.
func combine(f *vector.Filter) (predicate, error) {
	and := f.Op == vector.OpAnd
	join := " || "
	if and {
		join = " && "
	}
	var parts []string
	for _, g := range f.Filters {
		p, err := jsonPath(g)
		if err != nil {
			return never, err
		}
		if p.expr == "" {
			if p.constant != and { // false inside And, true inside Or
				return p, nil
			}
			continue
		}
		parts = append(parts, p.expr)
	}
	switch len(parts) {
	case 0:
		return predicate{constant: and}, nil
	case 1:
		return predicate{expr: parts[0]}, nil
	}
	return predicate{expr: "(" + strings.Join(parts, join) + ")"}, nil
}

// compare writes `$."field" op literal`. Lax mode unwraps an array field,
// so any element may match; comparing values of different types is
// unknown, which never matches.
func compare(field, op string, v any) (predicate, error) {
	lit, err := literal(v)
	if err != nil {
		return never, err
	}
	return predicate{expr: "$." + quote(field) + " " + op + " " + lit}, nil
}

// literal writes a string, bool or number as an SQL/JSON path literal.
func literal(v any) (string, error) {
	norm, err := vector.NormalizeMetadata(map[string]any{"v": v})
	if err != nil {
		return "", fmt.Errorf("%w: value %v (%T)", vector.ErrInvalidFilter, v, v)
	}
	switch x := norm["v"].(type) {
	case string:
		return quote(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	}
	return "", fmt.Errorf("%w: value %v (%T); use a string, bool or number", vector.ErrInvalidFilter, v, v)
}

// quote writes s as a double-quoted path string. JSON's escapes are a
// subset of SQL/JSON path's, so the JSON encoding is a valid path string.
func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
