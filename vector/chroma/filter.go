package chroma

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/loomwork/loom/vector"
)

// where is a Chroma where clause; it implements chroma-go's WhereFilter.
type where map[string]any

// String returns the clause as JSON.
func (w where) String() string {
	b, _ := w.MarshalJSON()
	return string(b)
}

// Validate accepts the clause: translate builds only valid ones.
func (w where) Validate() error { return nil }

// MarshalJSON writes the clause.
func (w where) MarshalJSON() ([]byte, error) { return json.Marshal(map[string]any(w)) }

// UnmarshalJSON reads a clause.
func (w *where) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*w = m
	return nil
}

// number is a float written in exponent form, which Chroma reads as a
// float rather than an int.
type number float64

// MarshalJSON writes n as 3e+00.
func (n number) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(float64(n), 'e', -1, 64)), nil
}

// translate maps f onto a where clause. It returns nil and ok=true when f
// matches everything, nil and ok=false when it matches nothing. f must
// have passed [vector.Filter.Validate].
func translate(f *vector.Filter) (w where, ok bool, err error) {
	if f == nil {
		return nil, true, nil
	}
	switch f.Op {
	case vector.OpAnd, vector.OpOr:
		return combine(f.Op == vector.OpAnd, f.Filters, translate)
	case vector.OpEq:
		return eq(f.Field, f.Value)
	case vector.OpIn:
		ors := make([]*vector.Filter, len(f.Values))
		for i, v := range f.Values {
			ors[i] = vector.Eq(f.Field, v)
		}
		return combine(false, ors, translate)
	case vector.OpGt, vector.OpGte, vector.OpLt, vector.OpLte:
		v, err := scalar(f.Value)
		if err != nil {
			return nil, false, err
		}
		n, isNum := v.(float64)
		if !isNum {
			return nil, false, fmt.Errorf("%w: %s %q: bound %v is not a number", vector.ErrInvalidFilter, f.Op, f.Field, f.Value)
		}
		op := map[vector.FilterOp]string{vector.OpGt: "$gt", vector.OpGte: "$gte", vector.OpLt: "$lt", vector.OpLte: "$lte"}[f.Op]
		return where{f.Field: map[string]any{op: number(n)}}, true, nil
	}
	return nil, false, fmt.Errorf("%w: operator %s", vector.ErrUnsupportedFilter, f.Op)
}

// eq matches a scalar field by $eq and, for a string, a list field by
// $contains.
func eq(field string, value any) (where, bool, error) {
	v, err := scalar(value)
	if err != nil {
		return nil, false, err
	}
	switch x := v.(type) {
	case string:
		return where{"$or": []any{
			where{field: map[string]any{"$eq": x}},
			where{field: map[string]any{"$contains": x}},
		}}, true, nil
	case float64:
		return where{field: map[string]any{"$eq": number(x)}}, true, nil
	}
	return where{field: map[string]any{"$eq": v}}, true, nil
}

// combine folds And (and=true) or Or over fs: a constant operand decides
// the result or drops out, one operand stands alone, and only two or more
// become $and or $or, as Chroma requires.
func combine(and bool, fs []*vector.Filter, tr func(*vector.Filter) (where, bool, error)) (where, bool, error) {
	var parts []any
	for _, g := range fs {
		w, ok, err := tr(g)
		if err != nil {
			return nil, false, err
		}
		if w == nil {
			if ok != and { // never inside And, always inside Or
				return nil, ok, nil
			}
			continue
		}
		parts = append(parts, w)
	}
	switch len(parts) {
	case 0:
		return nil, and, nil
	case 1:
		return parts[0].(where), true, nil
	}
	if and {
		return where{"$and": parts}, true, nil
	}
	return where{"$or": parts}, true, nil
}

// scalar normalises a filter value: a string, a bool or a number as
// float64.
func scalar(v any) (any, error) {
	norm, err := vector.NormalizeMetadata(map[string]any{"v": v})
	if err != nil {
		return nil, fmt.Errorf("%w: value %v (%T)", vector.ErrInvalidFilter, v, v)
	}
	if _, list := norm["v"].([]string); list {
		return nil, fmt.Errorf("%w: value %v (%T); use a string, bool or number", vector.ErrInvalidFilter, v, v)
	}
	return norm["v"], nil
}
