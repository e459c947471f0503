package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// fields is the JSON form of a state: its top-level fields by JSON name.
type fields map[string]json.RawMessage

// jsonFields returns the top-level JSON field names of the struct type t.
func jsonFields(t reflect.Type) ([]string, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("state type %s is a %s; use a struct, whose JSON fields are what nodes write", t, t.Kind())
	}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			sub, err := jsonFields(f.Type)
			if err != nil {
				return nil, err
			}
			names = append(names, sub...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names, nil
}

// encode returns the JSON fields of s.
func encode[S any](s S) (fields, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("graph: encode state %T: %w", s, err)
	}
	var f fields
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("graph: state %T does not encode to a JSON object: %w", s, err)
	}
	return f, nil
}

// decode returns the state whose JSON fields are f.
func decode[S any](f fields) (S, error) {
	var s S
	b, err := json.Marshal(f)
	if err != nil {
		return s, fmt.Errorf("graph: encode state fields: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("graph: decode state into %T: %w", s, err)
	}
	return s, nil
}

// normalize decodes f into an S and encodes it again, so that two states
// compare field by field as bytes.
func normalize[S any](f fields) (fields, error) {
	s, err := decode[S](f)
	if err != nil {
		return nil, err
	}
	return encode(s)
}

// value returns field name of f, or null when absent.
func (f fields) value(name string) json.RawMessage {
	if v, ok := f[name]; ok {
		return v
	}
	return json.RawMessage("null")
}

// Write is one field a node wrote: for a field with a reducer, the part to
// combine (the elements appended, the amount added, the keys merged); else
// the new value.
type Write struct {
	Field string          `json:"field"`
	Value json.RawMessage `json:"value"`
}

// diff returns the writes that turn before into after, in field order,
// each put through its field's reducer's delta.
func diff(before, after fields, order []string, reducers map[string]Reducer) ([]Write, error) {
	var ws []Write
	for _, name := range order {
		old, cur := before.value(name), after.value(name)
		if bytes.Equal(old, cur) {
			continue
		}
		v := cur
		if r, ok := reducers[name]; ok && r.delta != nil {
			d, err := r.delta(old, cur)
			if err != nil {
				return nil, fmt.Errorf("field %q (reducer %s): %w", name, r.name, err)
			}
			v = d
		}
		ws = append(ws, Write{Field: name, Value: v})
	}
	return ws, nil
}
