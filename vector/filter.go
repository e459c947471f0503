package vector

import (
	"fmt"
	"math"
	"slices"
)

// FilterOp is a [Filter]'s operator.
type FilterOp uint8

// The filter operators; see the package doc for their semantics.
const (
	OpEq  FilterOp = iota + 1 // Field equals Value
	OpIn                      // Field equals one of Values
	OpAnd                     // every one of Filters
	OpOr                      // at least one of Filters
	OpGt                      // number Field > Value
	OpGte                     // number Field >= Value
	OpLt                      // number Field < Value
	OpLte                     // number Field <= Value
)

var opNames = [...]string{OpEq: "eq", OpIn: "in", OpAnd: "and", OpOr: "or", OpGt: "gt", OpGte: "gte", OpLt: "lt", OpLte: "lte"}

// String returns the operator's name, as "eq".
func (op FilterOp) String() string {
	if int(op) < len(opNames) && opNames[op] != "" {
		return opNames[op]
	}
	return fmt.Sprintf("FilterOp(%d)", uint8(op))
}

// Filter is a metadata filter: a comparison of one field, or And/Or over
// other filters. Build filters with [Eq], [In], [And], [Or], [Gt], [Gte],
// [Lt] and [Lte]; the package doc gives their exact semantics.
type Filter struct {
	Op      FilterOp
	Field   string    // the metadata key, for comparisons
	Value   any       // Eq: string, bool or number; Gt/Gte/Lt/Lte: float64
	Values  []any     // In: strings, bools or numbers
	Filters []*Filter // And, Or
}

// Eq matches documents whose field equals v (a string, bool or number), or
// whose []string field holds v.
func Eq(field string, v any) *Filter { return &Filter{Op: OpEq, Field: field, Value: v} }

// In matches documents whose field equals one of vs, or whose []string
// field holds one of them. In with no values matches nothing.
func In(field string, vs ...any) *Filter { return &Filter{Op: OpIn, Field: field, Values: vs} }

// And matches documents that every filter matches; And() matches all.
func And(fs ...*Filter) *Filter { return &Filter{Op: OpAnd, Filters: fs} }

// Or matches documents that at least one filter matches; Or() matches none.
func Or(fs ...*Filter) *Filter { return &Filter{Op: OpOr, Filters: fs} }

// Gt matches documents whose number field is greater than n.
func Gt(field string, n float64) *Filter { return &Filter{Op: OpGt, Field: field, Value: n} }

// Gte matches documents whose number field is at least n.
func Gte(field string, n float64) *Filter { return &Filter{Op: OpGte, Field: field, Value: n} }

// Lt matches documents whose number field is less than n.
func Lt(field string, n float64) *Filter { return &Filter{Op: OpLt, Field: field, Value: n} }

// Lte matches documents whose number field is at most n.
func Lte(field string, n float64) *Filter { return &Filter{Op: OpLte, Field: field, Value: n} }

// Validate reports whether f is well formed: a known operator, a field for
// comparisons, scalar values of a supported type (string, bool, finite
// number), number bounds for ranges and no nil operands. Errors wrap
// [ErrInvalidFilter].
func (f *Filter) Validate() error {
	if f == nil {
		return fmt.Errorf("%w: a nil filter inside And or Or", ErrInvalidFilter)
	}
	switch f.Op {
	case OpAnd, OpOr:
		for i, g := range f.Filters {
			if g == nil {
				return fmt.Errorf("%w: operand %d of %s is nil", ErrInvalidFilter, i, f.Op)
			}
			if err := g.Validate(); err != nil {
				return err
			}
		}
		return nil
	case OpEq, OpIn, OpGt, OpGte, OpLt, OpLte:
	default:
		return fmt.Errorf("%w: unknown operator %s; build filters with Eq, In, And, Or, Gt, Gte, Lt or Lte", ErrInvalidFilter, f.Op)
	}
	if f.Field == "" {
		return fmt.Errorf("%w: %s has no field", ErrInvalidFilter, f.Op)
	}
	switch f.Op {
	case OpEq:
		if _, ok := scalar(f.Value); !ok {
			return fmt.Errorf("%w: eq %q: value %v is %T; use a string, bool or finite number", ErrInvalidFilter, f.Field, f.Value, f.Value)
		}
	case OpIn:
		for i, v := range f.Values {
			if _, ok := scalar(v); !ok {
				return fmt.Errorf("%w: in %q: value %d (%v) is %T; use strings, bools or finite numbers", ErrInvalidFilter, f.Field, i, v, v)
			}
		}
	default:
		n, ok := toFloat(f.Value)
		if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
			return fmt.Errorf("%w: %s %q: bound %v is %T; use a finite number", ErrInvalidFilter, f.Op, f.Field, f.Value, f.Value)
		}
	}
	return nil
}

// Match reports whether metadata passes f; nil f matches everything. It is
// the reference evaluator of the semantics in the package doc. metadata
// may hold values as given to Upsert or in their normalised form. Match
// does not validate f: a malformed filter matches nothing.
func (f *Filter) Match(metadata map[string]any) bool { return f.match(metadata, false) }

// match evaluates f; normalized says metadata is already in the form
// [NormalizeMetadata] returns, which skips converting each field.
func (f *Filter) match(metadata map[string]any, normalized bool) bool {
	if f == nil {
		return true
	}
	switch f.Op {
	case OpAnd:
		for _, g := range f.Filters {
			if g == nil || !g.match(metadata, normalized) {
				return false
			}
		}
		return true
	case OpOr:
		for _, g := range f.Filters {
			if g != nil && g.match(metadata, normalized) {
				return true
			}
		}
		return false
	}
	field, ok := metadata[f.Field]
	if !ok {
		return false
	}
	if !normalized {
		if field, ok = normalizeValue(field); !ok {
			return false
		}
	}
	switch f.Op {
	case OpEq:
		want, ok := scalar(f.Value)
		return ok && equal(field, want)
	case OpIn:
		for _, v := range f.Values {
			if want, ok := scalar(v); ok && equal(field, want) {
				return true
			}
		}
		return false
	case OpGt, OpGte, OpLt, OpLte:
		n, ok := field.(float64)
		bound, okb := toFloat(f.Value)
		if !ok || !okb {
			return false
		}
		switch f.Op {
		case OpGt:
			return n > bound
		case OpGte:
			return n >= bound
		case OpLt:
			return n < bound
		default:
			return n <= bound
		}
	}
	return false
}

// scalar normalises a comparison value: a string, a bool or a finite number
// as float64.
func scalar(v any) (any, bool) {
	switch x := v.(type) {
	case string, bool:
		return x, true
	}
	f, ok := toFloat(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false
	}
	return f, true
}

// equal compares a normalised field with a normalised scalar by type and
// value; a []string field matches when any element equals a string.
func equal(field, want any) bool {
	if list, ok := field.([]string); ok {
		s, ok := want.(string)
		return ok && slices.Contains(list, s)
	}
	return field == want
}
