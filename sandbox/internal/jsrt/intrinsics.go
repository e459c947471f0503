package jsrt

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/dop251/goja"
)

// intrinsics are built-ins the host calls from Go, taken from a fresh
// runtime before any of the code runs, so the code cannot replace them.
// Each reads an object's internal slot (a Map's entries, a RegExp's
// flags...) and runs no code of the object it is given. Only what goja
// creates anyway at setup is taken here: the error constructors and
// Object's; RegExp's are taken with the named-group support
// (installRegExp), and Map's and Set's with their polyfills
// (installCollections), before the code runs, when it can reach them.
// A Symbol's description is read through goja's Go API instead, so that a
// runtime whose code uses no Symbol never creates Symbol and its
// prototype (a hundred allocations per runtime).
type intrinsics struct {
	mapForEach     goja.Callable // Map.prototype.forEach, when the code can reach Map (installCollections)
	setForEach     goja.Callable // Set.prototype.forEach, likewise
	regexpSource   goja.Callable // get RegExp.prototype.source, when the code can reach RegExp (installRegExp)
	regexpFlags    []regexpFlag  // the flag getters, in the order of RegExp.prototype.flags, likewise
	errorCtors     map[string]*goja.Object
	objectProto    *goja.Object
	defineProperty goja.Value // Object.defineProperty
}

// regexpFlag is one flag getter of RegExp.prototype.
type regexpFlag struct {
	letter byte
	get    goja.Callable
}

// descriptorFields are the property names of a property descriptor. goja
// builds descriptor objects with ordinary assignments,
// so a property of that name on Object.prototype (an accessor, or a
// read-only value) would run code or hide the field.
var descriptorFields = map[string]bool{"value": true, "writable": true, "get": true, "set": true, "enumerable": true, "configurable": true}

// captureIntrinsics reads the built-ins from the runtime, which no code has
// touched yet.
func (j *job) captureIntrinsics() error {
	rt := j.rt
	in := &j.in
	proto := func(ctor string) *goja.Object {
		return rt.Get(ctor).(*goja.Object).Get("prototype").(*goja.Object)
	}
	in.errorCtors = map[string]*goja.Object{}
	for _, name := range []string{"Error", "TypeError", "RangeError", "SyntaxError", "EvalError"} {
		c, ok := rt.Get(name).(*goja.Object)
		if !ok {
			return fmt.Errorf("intrinsics: %s is not an object", name)
		}
		in.errorCtors[name] = c
	}
	in.objectProto = proto("Object")
	in.defineProperty = rt.Get("Object").(*goja.Object).Get("defineProperty")
	return nil
}

// captureRegExp reads RegExp.prototype's source and flag getters, before
// the code runs. Getting RegExp makes goja create it and its prototype
// (about 220 allocations), so it waits for code that can reach them
// (installRegExp).
func (j *job) captureRegExp() error {
	rt := j.rt
	in := &j.in
	gopd, ok := goja.AssertFunction(rt.Get("Object").(*goja.Object).Get("getOwnPropertyDescriptor"))
	if !ok {
		return errors.New("intrinsics: Object.getOwnPropertyDescriptor is not a function")
	}
	getter := func(o *goja.Object, name string) (goja.Callable, error) {
		d, err := gopd(goja.Undefined(), o, rt.ToValue(name))
		if err != nil {
			return nil, err
		}
		if do, ok := d.(*goja.Object); ok {
			if fn, ok := goja.AssertFunction(do.Get("get")); ok {
				return fn, nil
			}
		}
		return nil, fmt.Errorf("intrinsics: no getter %s", name)
	}
	rp := rt.Get("RegExp").(*goja.Object).Get("prototype").(*goja.Object)
	source, err := getter(rp, "source")
	if err != nil {
		return err
	}
	flags := make([]regexpFlag, 0, 6)
	for _, f := range []struct {
		letter byte
		name   string
	}{{'g', "global"}, {'i', "ignoreCase"}, {'m', "multiline"}, {'s', "dotAll"}, {'u', "unicode"}, {'y', "sticky"}} {
		fn, err := getter(rp, f.name)
		if err != nil {
			return err
		}
		flags = append(flags, regexpFlag{f.letter, fn})
	}
	in.regexpSource, in.regexpFlags = source, flags
	return nil
}

// newJSError creates an error of the named built-in type (Error,
// TypeError, RangeError, SyntaxError, EvalError; anything else is a
// TypeError) from the runtime's own constructors, taken before the code
// ran.
func (j *job) newJSError(ctor, msg string) *goja.Object {
	c := j.in.errorCtors[ctor]
	if c == nil {
		c = j.in.errorCtors["TypeError"]
	}
	if c != nil {
		if o, err := j.rt.New(c, j.rt.ToValue(msg)); err == nil {
			return o
		}
	}
	return j.rt.NewTypeError(msg)
}

// symbolText returns a Symbol's description, and false when it has none
// or it is empty (both print as Symbol(), as in Node). goja's Go API reads
// the description slot: no code runs. It copies the whole description
// when it is not ASCII, so the host may briefly hold a copy of the
// longest string the code made; the memory limit bounds that string.
func symbolText(sym *goja.Symbol) (string, bool) {
	d := sym.String()
	return d, d != ""
}

// regexpText returns a RegExp's /source/flags, read through the built-in
// getters, and false for any other object.
func (j *job) regexpText(o *goja.Object) (string, bool) {
	if o.ClassName() != "RegExp" || j.in.regexpSource == nil {
		return "", false
	}
	src, err := j.in.regexpSource(o)
	s, ok := primString(src)
	if err != nil || !ok {
		return "", false
	}
	var b strings.Builder
	b.WriteByte('/')
	b.WriteString(s)
	b.WriteByte('/')
	for _, f := range j.in.regexpFlags {
		v, err := f.get(o)
		if err != nil {
			return "", false
		}
		if v.ToBoolean() { // a primitive boolean: no code runs
			b.WriteByte(f.letter)
		}
	}
	return b.String(), true
}

// errStopEntries ends a forEach early; its message is never shown.
const stopEntriesMessage = "loom sandbox: enough entries"

// entries returns a Map's keys and values or a Set's values (with nil
// keys), in insertion order, at most max of them, through the built-in
// forEach; false for any other object.
func (j *job) entries(o *goja.Object, max int) (keys, values []goja.Value, ok bool) {
	var each goja.Callable
	isSet := false
	switch classOf(o) {
	case "Map":
		each = j.in.mapForEach
	case "Set":
		each, isSet = j.in.setForEach, true
	default:
		return nil, nil, false
	}
	if each == nil {
		return nil, nil, false
	}
	full := false
	cb := j.rt.ToValue(func(c goja.FunctionCall) goja.Value {
		if len(values) >= max {
			full = true
			panic(j.rt.NewTypeError(stopEntriesMessage))
		}
		if isSet {
			keys = append(keys, nil)
		} else {
			keys = append(keys, c.Argument(1))
		}
		values = append(values, c.Argument(0))
		return goja.Undefined()
	})
	if _, err := each(o, cb); err != nil && !full {
		return nil, nil, false
	}
	return keys, values, true
}

// typedArray returns a typed array's length and an element reader, and
// false for any other object. Export of a typed array is the Go slice over
// its buffer: no property is read and no code runs (goja's typed arrays
// cannot be detached or resized from JS).
func (j *job) typedArray(o *goja.Object) (int, func(int) goja.Value, bool) {
	if classOf(o) != "TypedArray" {
		return 0, nil, false
	}
	v := reflect.ValueOf(o.Export())
	if v.Kind() != reflect.Slice {
		return 0, nil, false
	}
	return v.Len(), func(i int) goja.Value { return j.rt.ToValue(v.Index(i).Interface()) }, true
}

// taintedObjectPrototype names a property on Object.prototype, or on an
// object in its prototype chain, named like a field of a property
// descriptor, and "" when there is none. While there is one, the built-in
// Object.getOwnPropertyDescriptor (which the exporter reads properties
// through) may run the code's accessors or lose fields, so the exporter
// refuses to read the value instead of reporting a falsified one.
func (j *job) taintedObjectPrototype() string {
	p := j.in.objectProto
	for i := 0; p != nil && i < 64; i++ {
		if classOf(p) == "proxy" {
			return "(a Proxy in Object.prototype's chain)"
		}
		for _, n := range p.GetOwnPropertyNames() {
			if descriptorFields[n] {
				return n
			}
		}
		p = p.Prototype()
	}
	return ""
}
