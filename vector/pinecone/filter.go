package pinecone

import (
	"fmt"

	"github.com/loomwork/loom/vector"
)

// translate maps f onto Pinecone's filter language. It returns nil and
// ok=true when f matches everything, nil and ok=false when f matches
// nothing. f must have passed [vector.Filter.Validate].
func translate(f *vector.Filter) (expr map[string]any, ok bool, err error) {
	if f == nil {
		return nil, true, nil
	}
	switch f.Op {
	case vector.OpAnd, vector.OpOr:
		return combine(f)
	case vector.OpEq:
		v, err := scalar(f.Value)
		return map[string]any{f.Field: map[string]any{"$eq": v}}, true, err
	case vector.OpIn:
		return in(f)
	case vector.OpGt, vector.OpGte, vector.OpLt, vector.OpLte:
		v, err := scalar(f.Value)
		op := map[vector.FilterOp]string{vector.OpGt: "$gt", vector.OpGte: "$gte", vector.OpLt: "$lt", vector.OpLte: "$lte"}[f.Op]
		return map[string]any{f.Field: map[string]any{op: v}}, true, err
	}
	return nil, false, fmt.Errorf("%w: operator %s", vector.ErrUnsupportedFilter, f.Op)
}

// in is $in when every value is a string or every value is a number, and
// $or of $eq otherwise.
func in(f *vector.Filter) (map[string]any, bool, error) {
	if len(f.Values) == 0 {
		return nil, false, nil
	}
	vals := make([]any, len(f.Values))
	kinds := map[string]bool{}
	for i, v := range f.Values {
		s, err := scalar(v)
		if err != nil {
			return nil, false, err
		}
		vals[i] = s
		kinds[fmt.Sprintf("%T", s)] = true
	}
	if len(kinds) == 1 && !kinds["bool"] {
		return map[string]any{f.Field: map[string]any{"$in": vals}}, true, nil
	}
	ors := make([]any, len(vals))
	for i, v := range vals {
		ors[i] = map[string]any{f.Field: map[string]any{"$eq": v}}
	}
	if len(ors) == 1 {
		return ors[0].(map[string]any), true, nil
	}
	return map[string]any{"$or": ors}, true, nil
}

// combine folds And and Or: a constant operand decides the result or drops
// out, so no empty $and or $or is sent.
func combine(f *vector.Filter) (map[string]any, bool, error) {
	and := f.Op == vector.OpAnd
	var parts []any
	for _, g := range f.Filters {
		expr, ok, err := translate(g)
		if err != nil {
			return nil, false, err
		}
		if expr == nil {
			if ok != and { // never inside And, always inside Or
				return nil, ok, nil
			}
			continue
		}
		parts = append(parts, expr)
	}
	switch len(parts) {
	case 0:
		return nil, and, nil
	case 1:
		return parts[0].(map[string]any), true, nil
	}
	if and {
		return map[string]any{"$and": parts}, true, nil
	}
	return map[string]any{"$or": parts}, true, nil
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
