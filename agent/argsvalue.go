package agent

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strings"
)

// A Func's input is parsed once: the schema check runs on the parsed
// value, and a valueSetter then sets the typed input from that value
// instead of decoding the text again. A setter handles the types
// encoding/json decodes without calling any code of the type (booleans,
// strings, numbers, pointers, slices, string-keyed maps, structs of tagged
// fields, any) and gives the same result json.Unmarshal gives for them;
// it reports false where it cannot promise that (a type that unmarshals
// itself, an embedded struct, a key that is not a field's exact name, a
// number that does not fit), and the caller decodes the text instead.
//
// Two differences are on purpose: where an object repeats a key, the value
// that passed the schema check (the last one) is the value set, whereas
// encoding/json would merge two objects or arrays given for one field; and
// a number JSON Schema counts an integer (1e3, 2.0) sets an integer field,
// where encoding/json refuses the literal.

// valueSetter sets dst, a zero value, from v, a value as
// internal/jsonschema's Parse returns it.
type valueSetter func(v any, dst reflect.Value) bool

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
)

// setterFor returns the setter of t, or nil when t has a part a setter
// cannot decode as encoding/json does.
func setterFor(t reflect.Type) valueSetter {
	return (&setterPlan{building: map[reflect.Type]*valueSetter{}}).of(t)
}

// setterPlan builds the setters of a type and the types inside it; a
// recursive type refers to the setter being built through its slot.
type setterPlan struct {
	building map[reflect.Type]*valueSetter
	failed   bool
}

func (p *setterPlan) of(t reflect.Type) valueSetter {
	if slot, ok := p.building[t]; ok {
		return func(v any, dst reflect.Value) bool { return (*slot)(v, dst) }
	}
	slot := new(valueSetter)
	p.building[t] = slot
	s := p.build(t)
	if s == nil || p.failed {
		p.failed = true
		return nil
	}
	*slot = s
	return s
}

func (p *setterPlan) build(t reflect.Type) valueSetter {
	if t.Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType) ||
		t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) || t == numberType {
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return setBool
	case reflect.String:
		return setString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return setNumber
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil
		}
		return setAny
	case reflect.Pointer:
		return p.pointer(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // base64 text
		}
		return p.slice(t)
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Key().Implements(textUnmarshalerType) || reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) {
			return nil
		}
		return p.mapOf(t)
	case reflect.Struct:
		return p.structOf(t)
	}
	return nil
}

func setBool(v any, dst reflect.Value) bool {
	switch b := v.(type) {
	case nil:
		return true // null leaves a boolean as it is
	case bool:
		dst.SetBool(b)
		return true
	}
	return false
}

func setString(v any, dst reflect.Value) bool {
	switch s := v.(type) {
	case nil:
		return true
	case string:
		dst.SetString(s)
		return true
	}
	return false
}

// setNumber sets an integer or a floating-point number. Parse gives
// numbers as float64, so a setter can promise json.Unmarshal's result only
// where the float64 holds the literal exactly: an integer below 2^53
// in magnitude for an integer kind, any value for a float64. For a
// float32, or a larger or fractional number for an integer kind, it
// reports false and the text is decoded instead (which rounds a float32
// once, and refuses what the kind cannot hold, as encoding/json does).
func setNumber(v any, dst reflect.Value) bool {
	if v == nil {
		return true
	}
	f, ok := v.(float64)
	if !ok {
		return false
	}
	const exact = 1 << 53
	switch dst.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if f != math.Trunc(f) || f >= exact || f <= -exact || dst.OverflowInt(int64(f)) {
			return false
		}
		dst.SetInt(int64(f))
	case reflect.Float64:
		dst.SetFloat(f)
	case reflect.Float32:
		return false
	default:
		if f != math.Trunc(f) || f < 0 || f >= exact || dst.OverflowUint(uint64(f)) {
			return false
		}
		dst.SetUint(uint64(f))
	}
	return true
}

// setAny sets an empty interface to v, which is already what
// json.Unmarshal gives an any.
func setAny(v any, dst reflect.Value) bool {
	if v == nil {
		dst.SetZero()
		return true
	}
	dst.Set(reflect.ValueOf(v))
	return true
}

func (p *setterPlan) pointer(t reflect.Type) valueSetter {
	elem := p.of(t.Elem())
	if elem == nil {
		return nil
	}
	return func(v any, dst reflect.Value) bool {
		if v == nil {
			dst.SetZero()
			return true
		}
		ptr := reflect.New(t.Elem())
		if !elem(v, ptr.Elem()) {
			return false
		}
		dst.Set(ptr)
		return true
	}
}

func (p *setterPlan) slice(t reflect.Type) valueSetter {
	elem := p.of(t.Elem())
	if elem == nil {
		return nil
	}
	return func(v any, dst reflect.Value) bool {
		switch a := v.(type) {
		case nil:
			dst.SetZero()
			return true
		case []any:
			s := reflect.MakeSlice(t, len(a), len(a)) // an empty array is an empty slice, not nil
			for i, e := range a {
				if !elem(e, s.Index(i)) {
					return false
				}
			}
			dst.Set(s)
			return true
		}
		return false
	}
}

func (p *setterPlan) mapOf(t reflect.Type) valueSetter {
	elem := p.of(t.Elem())
	if elem == nil {
		return nil
	}
	return func(v any, dst reflect.Value) bool {
		switch o := v.(type) {
		case nil:
			dst.SetZero()
			return true
		case map[string]any:
			m := reflect.MakeMapWithSize(t, len(o))
			for k, e := range o {
				ev := reflect.New(t.Elem()).Elem()
				if !elem(e, ev) {
					return false
				}
				m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
			}
			dst.Set(m)
			return true
		}
		return false
	}
}

// structField is a field a JSON key sets.
type structField struct {
	index int
	set   valueSetter
}

func (p *setterPlan) structOf(t reflect.Type) valueSetter {
	fields := map[string]structField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil // embedded fields follow encoding/json's promotion rules
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		} else if !plainTagName(name) {
			return nil
		}
		if strings.Contains(","+opts+",", ",string,") {
			return nil
		}
		if _, dup := fields[name]; dup {
			return nil // encoding/json drops both
		}
		set := p.of(f.Type)
		if set == nil {
			return nil
		}
		fields[name] = structField{index: i, set: set}
	}
	return func(v any, dst reflect.Value) bool {
		switch o := v.(type) {
		case nil:
			return true // null leaves a struct as it is
		case map[string]any:
			for k, e := range o {
				f, ok := fields[k]
				if !ok {
					return false // unknown, or a case-insensitive match: encoding/json decides
				}
				if !f.set(e, dst.Field(f.index)) {
					return false
				}
			}
			return true
		}
		return false
	}
}

// plainTagName reports whether a json tag's name is one encoding/json
// takes as it is: letters, digits and a few punctuation marks.
func plainTagName(s string) bool {
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.', c == '$':
		default:
			return false
		}
	}
	return true
}
