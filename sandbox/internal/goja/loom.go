package goja

import (
	"fmt"
	"sync/atomic"

	"github.com/loomwork/loom/sandbox/internal/goja/unistring"
)

// LOOM PATCH: helpers for loom's sandbox. The accessors read an object's
// internal slots and run no code of the object: no getter, no Proxy trap,
// no replaced built-in. See LOOM_PATCH.md.

// LoomRegExpText returns a RegExp object's /source/flags from its internal
// slots, and false for any other object.
func (o *Object) LoomRegExpText() (string, bool) {
	re, ok := o.self.(*regexpObject)
	if !ok {
		return "", false
	}
	var sb StringBuilder
	sb.WriteRune('/')
	if !re.writeEscapedSource(&sb) {
		sb.WriteString(re.source)
	}
	sb.WriteRune('/')
	p := re.pattern
	for _, f := range []struct {
		on bool
		c  rune
	}{{p.global, 'g'}, {p.ignoreCase, 'i'}, {p.multiline, 'm'}, {p.dotAll, 's'}, {p.unicode, 'u'}, {p.sticky, 'y'}} {
		if f.on {
			sb.WriteRune(f.c)
		}
	}
	return sb.String().String(), true
}

// LoomErrorFrames returns the call stack an Error object captured when it
// was created, and false for any other object.
func (o *Object) LoomErrorFrames() ([]StackFrame, bool) {
	e, ok := o.self.(*errorObject)
	if !ok {
		return nil, false
	}
	return e.stack, true
}

// LoomEntries returns the live entries of a Map (key, value pairs) or a Set
// (values, with nil keys) in insertion order, at most max of them, and
// false for any other object.
func (o *Object) LoomEntries(max int) (keys, values []Value, ok bool) {
	var m *orderedMap
	isSet := false
	switch c := o.self.(type) {
	case *mapObject:
		m = c.m
	case *setObject:
		m, isSet = c.m, true
	default:
		return nil, nil, false
	}
	for e := m.iterFirst; e != nil && len(values) < max; e = e.iterNext {
		if e.key == nil { // deleted
			continue
		}
		if isSet {
			keys = append(keys, nil)
			values = append(values, e.key)
		} else {
			keys = append(keys, e.key)
			values = append(values, e.value)
		}
	}
	return keys, values, true
}

// LoomTypedArray returns a typed array's length and an element reader, and
// false for any other object or a detached buffer.
func (o *Object) LoomTypedArray() (int, func(int) Value, bool) {
	a, ok := o.self.(*typedArrayObject)
	if !ok || !a.viewedArrayBuf.ensureNotDetached(false) {
		return 0, nil, false
	}
	return a.length, func(i int) Value { return a._getIdx(i) }, true
}

// LoomDescription returns a Symbol's description, or nil when it has none.
func (s *Symbol) LoomDescription() String {
	return s.desc
}

// LoomOwnIndex returns an object's own data property at an array index,
// and nil for an accessor, a missing property or a Proxy.
func (o *Object) LoomOwnIndex(i int64) Value {
	if _, isProxy := o.self.(*proxyObject); isProxy {
		return nil
	}
	switch p := o.getOwnProp(valueInt(i)).(type) {
	case nil:
		return nil
	case *valueProperty:
		if p.accessor {
			return nil
		}
		return p.value
	default:
		return p
	}
}

// LoomFunc makes a native function with the given name (ToValue would name
// it after its Go symbol).
func (r *Runtime) LoomFunc(name string, fn func(FunctionCall) Value) *Object {
	return r.newNativeFunc(fn, unistring.NewFromString(name), 0)
}

// LoomNewError makes an error of the built-in constructor named ctor
// (Error, EvalError, RangeError, SyntaxError, anything else a TypeError), from the
// runtime's own constructors, which a script cannot replace.
func (r *Runtime) LoomNewError(ctor, msg string) *Object {
	var c *Object
	switch ctor {
	case "Error":
		c = r.getError()
	case "EvalError":
		c = r.getEvalError()
	case "RangeError":
		c = r.getRangeError()
	case "SyntaxError":
		c = r.getSyntaxError()
	default:
		c = r.getTypeError()
	}
	return r.newError(c, msg).(*Object)
}

// loomValueBytes is about what one element of an array costs.
const loomValueBytes = 16

// LoomSetAllocLimit bounds, in bytes, the single allocations of built-ins
// that take a size from the script (repeat, padStart/padEnd, join, split
// into characters, fill of a sparse array): past it they throw a
// RangeError before allocating. Zero means no bound.
func (r *Runtime) LoomSetAllocLimit(n int64) {
	r.loomAllocLimit = n
}

// loomCheckAlloc throws a RangeError when an allocation of about n bytes
// would pass the bound.
func (r *Runtime) loomCheckAlloc(n float64, what string) {
	if r.loomAllocLimit > 0 && n > float64(r.loomAllocLimit) {
		panic(r.newError(r.getRangeError(), fmt.Sprintf(
			"%s: the result would need about %.0f MB, more than the memory limit of %d MB", what, n/(1<<20), r.loomAllocLimit>>20)))
	}
}

// loomCheckJoin bounds a join's result as it grows, and lets an
// interrupted run end in the middle of a long join.
func (r *Runtime) loomCheckJoin(i int, b *StringBuilder) {
	if i%1024 != 0 {
		return
	}
	r.loomCheckAlloc(float64(b.asciiBuilder.Len()+2*len(b.unicodeBuilder.buf)), "Array.prototype.join")
	if atomic.LoadUint32(&r.vm.interrupted) != 0 {
		panic(r.newError(r.getRangeError(), "the run was stopped"))
	}
}

// loomUnitBytes is the bytes per UTF-16 unit of s.
func loomUnitBytes(s String) float64 {
	if _, ascii := s.(asciiString); ascii {
		return 1
	}
	return 2
}
