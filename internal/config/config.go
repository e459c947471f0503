// Package config applies loom's one rule for the numbers in a config struct
// (stated in the engine package doc): zero means the documented default and
// a negative value is refused, unless the field says otherwise.
//
// A field that gives a negative value a meaning (a retry budget of -1 meaning
// none, for example) says so in its doc comment and carries the struct tag
// `config:"negative"`; [Check] then lets it through. Check descends into
// nested structs (agent.Limits inside engine.Config, say) but not through
// pointers, slices, maps or interfaces: those are values a caller built with
// their own constructor, which checked them.
package config

import (
	"fmt"
	"reflect"
)

// TagNegative is the value of the `config` struct tag that marks a field
// whose negative values have a documented meaning.
const TagNegative = "negative"

// FieldError is a field of a config struct whose value breaks the rule.
type FieldError struct {
	// Field is the field's path from the config's type, such as
	// "engine.Config.Limits.Timeout".
	Field string
	// Value is the refused value, as printed by fmt.
	Value string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s is %s: a negative value is not allowed; use 0 for the default or a positive value", e.Field, e.Value)
}

// Check returns a [*FieldError] for the first signed integer, float or
// duration field of cfg (a struct or a pointer to one) that is negative
// and not tagged `config:"negative"`, or nil. name prefixes the field's
// path in the error, typically the config's qualified type name such as
// "engine.Config".
func Check(name string, cfg any) error {
	v := reflect.ValueOf(cfg)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	return check(name, v)
}

func check(path string, v reflect.Value) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		p := path + "." + f.Name
		switch fv.Kind() {
		case reflect.Struct:
			if err := check(p, fv); err != nil {
				return err
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if fv.Int() < 0 && f.Tag.Get("config") != TagNegative {
				return &FieldError{Field: p, Value: fmt.Sprint(fv.Interface())}
			}
		case reflect.Float32, reflect.Float64:
			if fv.Float() < 0 && f.Tag.Get("config") != TagNegative {
				return &FieldError{Field: p, Value: fmt.Sprint(fv.Interface())}
			}
		}
	}
	return nil
}
