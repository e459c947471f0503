package weaviate

import (
	"fmt"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"

	"github.com/loomwork/loom/vector"
)

// fields lists the metadata fields f compares.
func fields(f *vector.Filter) []string {
	if f == nil {
		return nil
	}
	if f.Op == vector.OpAnd || f.Op == vector.OpOr {
		var out []string
		for _, g := range f.Filters {
			out = append(out, fields(g)...)
		}
		return out
	}
	return []string{f.Field}
}

// translate maps f onto a where clause over properties of the given
// types. It returns nil and ok=true when f matches everything, nil and
// ok=false when it matches nothing. f must have passed
// [vector.Filter.Validate].
func translate(f *vector.Filter, props map[string]string) (w *filters.WhereBuilder, ok bool, err error) {
	if f == nil {
		return nil, true, nil
	}
	switch f.Op {
	case vector.OpAnd, vector.OpOr:
		return combine(f.Op == vector.OpAnd, f.Filters, props)
	case vector.OpEq:
		return eq(f.Field, f.Value, props[f.Field])
	case vector.OpIn:
		ors := make([]*vector.Filter, len(f.Values))
		for i, v := range f.Values {
			ors[i] = vector.Eq(f.Field, v)
		}
		return combine(false, ors, props)
	case vector.OpGt, vector.OpGte, vector.OpLt, vector.OpLte:
		v, err := scalar(f.Value)
		if err != nil {
			return nil, false, err
		}
		n, isNum := v.(float64)
		if !isNum || props[f.Field] != typeNumber {
			return nil, false, nil
		}
		op := map[vector.FilterOp]filters.WhereOperator{vector.OpGt: filters.GreaterThan, vector.OpGte: filters.GreaterThanEqual,
			vector.OpLt: filters.LessThan, vector.OpLte: filters.LessThanEqual}[f.Op]
		return filters.Where().WithPath([]string{f.Field}).WithOperator(op).WithValueNumber(n), true, nil
	}
	return nil, false, fmt.Errorf("%w: operator %s", vector.ErrUnsupportedFilter, f.Op)
}

// eq compares a property of type typ with a value: Equal on a property of
// the value's type, ContainsAny on a text[] property for a string, and
// nothing otherwise.
func eq(field string, value any, typ string) (*filters.WhereBuilder, bool, error) {
	v, err := scalar(value)
	if err != nil {
		return nil, false, err
	}
	w := filters.Where().WithPath([]string{field})
	switch x := v.(type) {
	case string:
		switch typ {
		case typeText:
			return w.WithOperator(filters.Equal).WithValueText(x), true, nil
		case typeTexts:
			return w.WithOperator(filters.ContainsAny).WithValueText(x), true, nil
		}
	case bool:
		if typ == typeBoolean {
			return w.WithOperator(filters.Equal).WithValueBoolean(x), true, nil
		}
	case float64:
		if typ == typeNumber {
			return w.WithOperator(filters.Equal).WithValueNumber(x), true, nil
		}
	}
	return nil, false, nil
}

// combine folds And (and=true) or Or over fs: a constant operand decides
// the result or drops out, and one operand stands alone.
func combine(and bool, fs []*vector.Filter, props map[string]string) (*filters.WhereBuilder, bool, error) {
	var parts []*filters.WhereBuilder
	for _, g := range fs {
		w, ok, err := translate(g, props)
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
		return parts[0], true, nil
	}
	op := filters.Or
	if and {
		op = filters.And
	}
	return filters.Where().WithOperator(op).WithOperands(parts), true, nil
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
