package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Reducer combines a field's writes in a step. A node's write to a field
// is the difference between the state it read and the state it returned,
// as the reducer sees it: for [Append] the elements added at the end, for
// [Sum] the amount added, for [Merge] the keys added or changed, for
// [Replace] and [Custom] the new value. The step applies the writes of all
// its nodes, in task order, one after the other.
//
// A field with no reducer takes one write per step; two are an error
// naming the field and both nodes ([*WriteConflictError]).
type Reducer struct {
	name  string
	delta func(old, cur json.RawMessage) (json.RawMessage, error)
	apply func(cur, write json.RawMessage) (json.RawMessage, error)
}

// Name returns the reducer's name, as "append".
func (r Reducer) Name() string { return r.name }

// Replace keeps the last write of the step (in task order).
func Replace() Reducer {
	return Reducer{name: "replace", apply: func(_, w json.RawMessage) (json.RawMessage, error) { return w, nil }}
}

// Append concatenates JSON arrays: each node's write is the elements it
// appended to the list it read. A node that changes or removes elements it
// read fails with an error naming the field.
func Append() Reducer {
	return Reducer{name: "append", delta: appendDelta, apply: appendApply}
}

func arrayOf(raw json.RawMessage) ([]json.RawMessage, error) {
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("not a JSON array or null: %s", raw)
	}
	return a, nil
}

func appendDelta(old, cur json.RawMessage) (json.RawMessage, error) {
	o, err := arrayOf(old)
	if err != nil {
		return nil, err
	}
	c, err := arrayOf(cur)
	if err != nil {
		return nil, err
	}
	if len(c) < len(o) {
		return nil, fmt.Errorf("the node removed elements (%d read, %d returned); an append-only field can only grow at its end", len(o), len(c))
	}
	for i := range o {
		if !bytes.Equal(o[i], c[i]) {
			return nil, fmt.Errorf("the node changed element %d; an append-only field can only grow at its end", i)
		}
	}
	return json.Marshal(c[len(o):])
}

func appendApply(cur, w json.RawMessage) (json.RawMessage, error) {
	c, err := arrayOf(cur)
	if err != nil {
		return nil, err
	}
	add, err := arrayOf(w)
	if err != nil {
		return nil, err
	}
	return json.Marshal(append(c, add...))
}

// Sum adds numbers: each node's write is the amount it added to the number
// it read. Integers stay integers while they fit in an int64.
func Sum() Reducer {
	return Reducer{name: "sum", delta: func(old, cur json.RawMessage) (json.RawMessage, error) {
		return arith(cur, old, -1)
	}, apply: func(cur, w json.RawMessage) (json.RawMessage, error) {
		return arith(cur, w, 1)
	}}
}

// arith returns a + sign*b for two JSON numbers (null is 0).
func arith(a, b json.RawMessage, sign int64) (json.RawMessage, error) {
	num := func(raw json.RawMessage) (json.Number, error) {
		if string(raw) == "null" {
			return "0", nil
		}
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", fmt.Errorf("not a JSON number or null: %s", raw)
		}
		return n, nil
	}
	x, err := num(a)
	if err != nil {
		return nil, err
	}
	y, err := num(b)
	if err != nil {
		return nil, err
	}
	xi, e1 := x.Int64()
	yi, e2 := y.Int64()
	if e1 == nil && e2 == nil {
		r := xi + sign*yi
		if (sign > 0 && (yi > 0 && r < xi || yi < 0 && r > xi)) || (sign < 0 && (yi > 0 && r > xi || yi < 0 && r < xi)) {
			return nil, fmt.Errorf("integer overflow adding %d and %d", xi, sign*yi)
		}
		return json.RawMessage(strconv.FormatInt(r, 10)), nil
	}
	xf, err := x.Float64()
	if err != nil {
		return nil, err
	}
	yf, err := y.Float64()
	if err != nil {
		return nil, err
	}
	r := xf + float64(sign)*yf
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return nil, fmt.Errorf("sum out of range")
	}
	return json.Marshal(r)
}

// Merge merges JSON objects (Go maps): each node's write is the keys it
// added or changed; a later write of a key wins. A node that deletes a key
// it read fails with an error naming the field.
func Merge() Reducer {
	return Reducer{name: "merge", delta: func(old, cur json.RawMessage) (json.RawMessage, error) {
		o, err := objectOf(old)
		if err != nil {
			return nil, err
		}
		c, err := objectOf(cur)
		if err != nil {
			return nil, err
		}
		d := map[string]json.RawMessage{}
		for k, v := range c {
			if ov, ok := o[k]; !ok || !bytes.Equal(ov, v) {
				d[k] = v
			}
		}
		for k := range o {
			if _, ok := c[k]; !ok {
				return nil, fmt.Errorf("the node deleted key %q; a merged field's keys can be added or changed, not deleted", k)
			}
		}
		return json.Marshal(d)
	}, apply: func(cur, w json.RawMessage) (json.RawMessage, error) {
		c, err := objectOf(cur)
		if err != nil {
			return nil, err
		}
		add, err := objectOf(w)
		if err != nil {
			return nil, err
		}
		if c == nil {
			c = map[string]json.RawMessage{}
		}
		for k, v := range add {
			c[k] = v
		}
		return json.Marshal(c)
	}}
}

func objectOf(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("not a JSON object or null: %s", raw)
	}
	return m, nil
}

// Custom combines writes with fn: each node's write is the field's new
// value, and fn(current, write) returns the field after it. name labels
// the reducer in errors.
func Custom[T any](name string, fn func(current, write T) (T, error)) Reducer {
	return Reducer{name: name, apply: func(cur, w json.RawMessage) (json.RawMessage, error) {
		var c, x T
		if err := json.Unmarshal(cur, &c); err != nil {
			return nil, fmt.Errorf("decode current value into %T: %w", c, err)
		}
		if err := json.Unmarshal(w, &x); err != nil {
			return nil, fmt.Errorf("decode write into %T: %w", x, err)
		}
		r, err := fn(c, x)
		if err != nil {
			return nil, err
		}
		return json.Marshal(r)
	}}
}
