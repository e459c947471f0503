package jsrt

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dop251/goja"
)

// Programs compiled once, on first use (lazyProgram), run in every runtime.
var (
	asyncFnProgram = lazyProgram("loom-sandbox-lockdown.js", "(async function(){})", true)
	genFnProgram   = lazyProgram("loom-sandbox-lockdown.js", "(function*(){})", true)
	// The Array wrappers are JS functions so that stringifying nested arrays
	// goes through JS frames, which the call stack limit counts, instead of
	// recursing in Go until the process dies of a stack overflow.
	arrayWrapProgram = lazyProgram("loom-sandbox-lockdown.js", `(function (nativeJoin, nativeToString, nativeToLocaleString) {
  "use strict";
  return [
    function join(separator) { return nativeJoin(this, separator); },
    function toString() { return nativeToString(this); },
    function toLocaleString() { return nativeToLocaleString(this); },
  ];
})`, true)
	// sort as the spec's SortIndexedProperties does it: the elements are
	// copied to a fresh array nothing else can reach, sorted there by the
	// built-in sort, and written back; a comparator or a toString that
	// changes the array cannot make the built-in read past its end. The
	// built-ins used are taken before the code runs.
	sortWrapProgram = lazyProgram("loom-sandbox-lockdown.js", `(function (nativeSort, defineProperty, TypeError, checkStopped, toObject) {
  "use strict";
  return function sort(comparefn) {
    if (comparefn !== undefined && typeof comparefn !== "function") {
      throw new TypeError("The comparison function must be either a function or undefined");
    }
    if (this === undefined || this === null) throw new TypeError("Array.prototype.sort called on null or undefined");
    const o = toObject(this);
    let len = +o.length;
    if (!(len > 0)) len = 0;
    else if (len > 9007199254740991) len = 9007199254740991;
    else len -= len % 1;
    const items = [];
    let n = 0;
    for (let i = 0; i < len; i++) {
      if ((i & 1023) === 1023) checkStopped();
      if (i in o) defineProperty(items, n++, {value: o[i], writable: true, enumerable: true, configurable: true});
    }
    nativeSort(items, comparefn);
    let i = 0;
    for (; i < n; i++) {
      if ((i & 1023) === 1023) checkStopped();
      o[i] = items[i];
    }
    for (; i < len; i++) {
      if ((i & 1023) === 1023) checkStopped();
      if (i in o) delete o[i];
    }
    return o;
  };
})`, true)
)

const dynamicCodeMessage = "dynamic code evaluation is disabled in this sandbox: eval, Function and the function constructors are not available; write the code directly"

// lockdown removes dynamic code evaluation and wraps the built-ins whose
// native recursion could overflow the Go stack or run uninterruptibly.
func (j *job) lockdown() error {
	rt := j.rt
	thrower := rt.ToValue(func(goja.FunctionCall) goja.Value {
		panic(j.newJSError("EvalError", dynamicCodeMessage))
	}).(*goja.Object)
	lock := func(o *goja.Object, name string) error {
		return o.DefineDataProperty(name, thrower, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	}
	// Function keeps its prototype, so that instanceof Function works.
	if err := thrower.DefineDataProperty("prototype", thrower.Prototype(), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
		return err
	}
	if err := thrower.DefineDataProperty("name", rt.ToValue("Function"), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	g := rt.GlobalObject()
	if err := lock(g, "eval"); err != nil {
		return err
	}
	if err := lock(g, "Function"); err != nil {
		return err
	}
	// Function.prototype, AsyncFunction.prototype and
	// GeneratorFunction.prototype each lead to a constructor that compiles
	// source text. The last two are locked before the code runs, when it
	// defines a function of their kind (lockFunctionKinds): creating them
	// costs every runtime about 200 allocations.
	j.thrower = thrower
	if err := lock(thrower.Prototype(), "constructor"); err != nil {
		return err
	}
	if err := j.wrapArray(); err != nil {
		return err
	}
	return j.wrapJSON()
}

// lockFunctionKinds locks the constructor of AsyncFunction and of
// GeneratorFunction when the code defines a function of that kind and it
// is not locked yet. It runs after setup, before the code.
func (j *job) lockFunctionKinds(kinds funcKinds) error {
	for _, k := range []struct {
		kind funcKinds
		prog func() *goja.Program
	}{{asyncFuncs, asyncFnProgram}, {generatorFuncs, genFnProgram}} {
		if kinds&k.kind == 0 || j.locked&k.kind != 0 {
			continue
		}
		fn, err := j.rt.RunProgram(k.prog())
		if err != nil {
			return err
		}
		if err := fn.(*goja.Object).Prototype().DefineDataProperty("constructor", j.thrower, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
			return err
		}
		j.locked |= k.kind
	}
	return nil
}

// wrapArray replaces Array.prototype.join, toString and toLocaleString with
// JS wrappers, and flat with a Go wrapper that flattens in bounded steps.
func (j *job) wrapArray() error {
	rt := j.rt
	ap := rt.Get("Array").(*goja.Object).Get("prototype").(*goja.Object)
	natives := make([]goja.Value, 3)
	for i, name := range []string{"join", "toString", "toLocaleString"} {
		fn, ok := goja.AssertFunction(ap.Get(name))
		if !ok {
			return fmt.Errorf("lockdown: Array.prototype.%s is not a function", name)
		}
		isJoin := name == "join"
		natives[i] = j.hostFunc(name, func(c goja.FunctionCall) goja.Value {
			var args []goja.Value
			if len(c.Arguments) > 1 {
				args = c.Arguments[1:]
			}
			if isJoin {
				args = []goja.Value{j.joinSize(c.Argument(0), c.Argument(1))}
			}
			v, err := fn(c.Argument(0), args...)
			if err != nil {
				panic(err)
			}
			return v
		})
	}
	mkv, err := rt.RunProgram(arrayWrapProgram())
	if err != nil {
		return err
	}
	mk, _ := goja.AssertFunction(mkv)
	wrappers, err := mk(goja.Undefined(), natives...)
	if err != nil {
		return err
	}
	wo := wrappers.(*goja.Object)
	for i, name := range []string{"join", "toString", "toLocaleString"} {
		if err := ap.DefineDataProperty(name, wo.Get(strconv.Itoa(i)), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	if err := j.wrapSort(ap); err != nil {
		return err
	}
	flat, ok := goja.AssertFunction(ap.Get("flat"))
	if !ok {
		return fmt.Errorf("lockdown: Array.prototype.flat is not a function")
	}
	flatFn := j.hostFunc("flat", func(c goja.FunctionCall) goja.Value { return j.flat(flat, c) })
	return ap.DefineDataProperty("flat", flatFn, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// wrapSort replaces Array.prototype.sort with one that sorts a private
// copy.
func (j *job) wrapSort(ap *goja.Object) error {
	rt := j.rt
	sort, ok := goja.AssertFunction(ap.Get("sort"))
	if !ok {
		return fmt.Errorf("lockdown: Array.prototype.sort is not a function")
	}
	native := j.hostFunc("sort", func(c goja.FunctionCall) goja.Value {
		return must(sort(c.Argument(0), c.Argument(1)))
	})
	stopped := j.hostFunc("checkStopped", func(goja.FunctionCall) goja.Value {
		j.checkStopped()
		return goja.Undefined()
	})
	mkv, err := rt.RunProgram(sortWrapProgram())
	if err != nil {
		return err
	}
	mk, _ := goja.AssertFunction(mkv)
	fn, err := mk(goja.Undefined(), native, rt.Get("Object").(*goja.Object).Get("defineProperty"), j.in.errorCtors["TypeError"], stopped, rt.Get("Object"))
	if err != nil {
		return err
	}
	return ap.DefineDataProperty("sort", fn, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// flatStep is the most levels one native flat call may recurse.
const flatStep = 64

// flat is Array.prototype.flat in steps of at most flatStep levels, so that
// flat(Infinity) on deeply nested arrays neither recurses deep in Go nor
// runs without a chance to stop.
func (j *job) flat(native goja.Callable, c goja.FunctionCall) goja.Value {
	call := func(this goja.Value, depth float64) goja.Value {
		v, err := native(this, j.rt.ToValue(depth))
		if err != nil {
			panic(err)
		}
		return v
	}
	depth := 1.0
	if a := c.Argument(0); !goja.IsUndefined(a) {
		depth = a.ToFloat()
		if math.IsNaN(depth) {
			depth = 0
		}
	}
	if depth <= flatStep {
		return call(c.This, math.Trunc(depth))
	}
	r := call(c.This, flatStep)
	for depth -= flatStep; depth > 0; depth -= flatStep {
		j.checkStopped()
		if !j.hasNestedArray(r) {
			break
		}
		r = call(r, math.Min(depth, flatStep))
	}
	return r
}

// hasNestedArray reports whether r, the result of the native flat, is an
// array with an array element. A Symbol.species constructor can make r any
// object with any length, so only a real Array is looked into, and the
// loop checks the deadline.
func (j *job) hasNestedArray(r goja.Value) bool {
	a, ok := r.(*goja.Object)
	if !ok || classOf(a) != "Array" {
		return false
	}
	n := a.Get("length").ToInteger() // an Array's own length: no code runs
	for i := int64(0); i < n; i++ {
		if i%1024 == 0 {
			j.checkStopped()
		}
		// A getter at an index runs, as it does in the native flat itself.
		if o, ok := a.Get(strconv.FormatInt(i, 10)).(*goja.Object); ok && classOf(o) == "Array" {
			return true
		}
	}
	return false
}

// wrapJSON replaces JSON.stringify and JSON.parse with wrappers that bound
// the nesting of the data, so that neither recurses deep in Go, and that
// let a stopped run end during a long stringify.
func (j *job) wrapJSON() error {
	rt := j.rt
	jo := rt.Get("JSON").(*goja.Object)
	stringify, ok1 := goja.AssertFunction(jo.Get("stringify"))
	parse, ok2 := goja.AssertFunction(jo.Get("parse"))
	if !ok1 || !ok2 {
		return fmt.Errorf("lockdown: JSON.stringify or JSON.parse is not a function")
	}
	s := j.hostFunc("stringify", func(c goja.FunctionCall) goja.Value { return j.stringify(jo, stringify, c) })
	p := j.hostFunc("parse", func(c goja.FunctionCall) goja.Value { return j.parse(jo, parse, c) })
	for name, fn := range map[string]*goja.Object{"stringify": s, "parse": p} {
		if err := jo.DefineDataProperty(name, fn, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	return nil
}

// hostFunc makes a native function with the given name: goja's ToValue
// would name it after its Go symbol, which the code could read.
func (j *job) hostFunc(name string, fn func(goja.FunctionCall) goja.Value) *goja.Object {
	f := j.rt.ToValue(fn).(*goja.Object)
	// A native function's name is configurable; its source text is made
	// from it.
	_ = f.DefineDataProperty("name", j.rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return f
}

// stringify calls the native JSON.stringify with a replacer that tracks the
// depth of every object and applies the caller's replacer.
func (j *job) stringify(jo *goja.Object, native goja.Callable, c goja.FunctionCall) goja.Value {
	rt := j.rt
	value, replacer, space := c.Argument(0), c.Argument(1), c.Argument(2)
	var userFn goja.Callable
	var allow map[string]bool
	if ro, ok := replacer.(*goja.Object); ok {
		if fn, ok := goja.AssertFunction(ro); ok {
			userFn = fn
		} else if ro.ClassName() == "Array" {
			allow = map[string]bool{}
			n := ro.Get("length").ToInteger()
			for i := int64(0); i < n && i < 1<<20; i++ {
				if i%1024 == 0 {
					j.checkStopped()
				}
				item := ro.Get(strconv.FormatInt(i, 10))
				if k, ok := primString(item); ok {
					allow[k] = true
				} else if _, isObj := item.(*goja.Object); !isObj && item != nil && !goja.IsUndefined(item) && !goja.IsNull(item) {
					allow[item.String()] = true
				}
			}
		}
	}
	limit := j.lim.ResultDepth
	depths := map[*goja.Object]int{}
	guard := rt.ToValue(func(rc goja.FunctionCall) goja.Value {
		j.checkStopped()
		holder, _ := rc.This.(*goja.Object)
		key, v := rc.Argument(0), rc.Argument(1)
		if userFn != nil {
			var err error
			if v, err = userFn(rc.This, key, v); err != nil {
				panic(err)
			}
		}
		if allow != nil && holder != nil && holder.ClassName() != "Array" {
			if k, _ := primString(key); k != "" && !allow[k] {
				return goja.Undefined()
			}
		}
		if o, ok := v.(*goja.Object); ok {
			d := depths[holder] + 1
			if d > limit {
				panic(j.newJSError("RangeError", fmt.Sprintf("JSON.stringify: the value is nested more than %d levels deep, the sandbox's limit", limit)))
			}
			depths[o] = d
		}
		return v
	})
	out, err := native(jo, value, guard, space)
	if err != nil {
		panic(err)
	}
	return out
}

// parse checks the nesting of the text before the native JSON.parse runs.
func (j *job) parse(jo *goja.Object, native goja.Callable, c goja.FunctionCall) goja.Value {
	text := c.Argument(0)
	s, ok := primString(text)
	if !ok {
		text = text.ToString() // may run the value's toString, as JSON.parse would
		s = text.String()
	}
	if d := jsonDepth(s); d > j.lim.Nesting {
		panic(j.newJSError("SyntaxError", fmt.Sprintf("JSON.parse: the text is nested more than %d levels deep, the sandbox's limit", j.lim.Nesting)))
	}
	args := append([]goja.Value{text}, c.Arguments[min(1, len(c.Arguments)):]...)
	out, err := native(jo, args...)
	if err != nil {
		panic(err)
	}
	return out
}

// jsonDepth returns the deepest [ { nesting of JSON text, outside strings.
func jsonDepth(s string) int {
	depth, max, inStr := 0, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '[', '{':
			depth++
			if depth > max {
				max = depth
			}
		case ']', '}':
			depth--
		}
	}
	return max
}

// checkStopped throws when the run has been stopped, so that Go loops
// inside built-ins end; the pending interrupt then makes it uncatchable at
// the next JS instruction.
func (j *job) checkStopped() {
	if j.reason.Load() != nil {
		panic(j.rt.NewTypeError("the run was stopped"))
	}
}
