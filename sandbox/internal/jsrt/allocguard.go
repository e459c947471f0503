package jsrt

import (
	"fmt"
	"math"

	"github.com/dop251/goja"
)

// Built-ins that allocate in one step a size the code chooses ('x'.repeat(2**30),
// new Array(2**27).fill(0), new ArrayBuffer(2**32)) are wrapped at setup:
// the wrapper converts the arguments once, estimates the allocation and
// throws a catchable RangeError past the memory limit, then calls the
// original built-in, taken before the code ran, with the converted
// arguments. What no wrapper sees (the elements a join concatenates, string
// + of huge operands) is bounded by the memory watchdog and, in a worker,
// by the process's OS limits.

// valueBytes is about what one array element costs.
const valueBytes = 16

// refuseAlloc throws a RangeError when an allocation of about n bytes would
// pass the memory limit.
func (j *job) refuseAlloc(n float64, what string) {
	if lim := j.lim.Memory; lim > 0 && n > float64(lim) {
		panic(j.newJSError("RangeError", fmt.Sprintf(
			"%s: the result would need about %.0f MB, %s %d MB. Work on smaller pieces.", what, n/(1<<20), allocRefusal, lim>>20)))
	}
}

// must panics with a built-in's error, which goja rethrows to the code.
func must(v goja.Value, err error) goja.Value {
	if err != nil {
		panic(err)
	}
	return v
}

// wrapMethod replaces o[name] with a host function of the same name and
// length that runs w with the original.
func (j *job) wrapMethod(o *goja.Object, name string, w func(orig goja.Callable, c goja.FunctionCall) goja.Value) error {
	ov, _ := o.Get(name).(*goja.Object)
	orig, ok := goja.AssertFunction(ov)
	if !ok {
		return fmt.Errorf("lockdown: %s is not a function", name)
	}
	f := j.hostFunc(name, func(c goja.FunctionCall) goja.Value { return w(orig, c) })
	if err := f.DefineDataProperty("length", ov.Get("length"), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	return o.DefineDataProperty(name, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// thisString is String.prototype's this as a primitive string; nil for
// undefined and null, which the original rejects.
func thisString(c goja.FunctionCall) goja.Value {
	if c.This == nil || goja.IsUndefined(c.This) || goja.IsNull(c.This) {
		return nil
	}
	return c.This.ToString()
}

func isNullish(v goja.Value) bool {
	return v == nil || goja.IsUndefined(v) || goja.IsNull(v)
}

// arrayLength is a real Array's length (an own data property: reading it
// runs no code), and false for anything else.
func arrayLength(v goja.Value) (float64, bool) {
	o, ok := v.(*goja.Object)
	if !ok || classOf(o) != "Array" {
		return 0, false
	}
	return float64(o.Get("length").ToInteger()), true
}

// guardAllocations wraps the built-ins that allocate a size the code
// chooses.
func (j *job) guardAllocations() error {
	rt := j.rt
	proto := func(ctor string) *goja.Object {
		return rt.Get(ctor).(*goja.Object).Get("prototype").(*goja.Object)
	}
	sp, ap := proto("String"), proto("Array")
	err := j.wrapMethod(sp, "repeat", func(orig goja.Callable, c goja.FunctionCall) goja.Value {
		s := thisString(c)
		if s == nil {
			return must(orig(c.This, c.Arguments...))
		}
		n := c.Argument(0).ToNumber()
		if f := n.ToFloat(); f > 0 && !math.IsInf(f, 1) {
			j.refuseAlloc(float64(stringLength(s))*math.Trunc(f), "String.prototype.repeat")
		}
		return must(orig(s, n))
	})
	if err != nil {
		return err
	}
	for _, name := range []string{"padStart", "padEnd"} {
		what := "String.prototype." + name
		err := j.wrapMethod(sp, name, func(orig goja.Callable, c goja.FunctionCall) goja.Value {
			s := thisString(c)
			if s == nil {
				return must(orig(c.This, c.Arguments...))
			}
			n := c.Argument(0).ToNumber()
			fill := c.Argument(1)
			if !goja.IsUndefined(fill) {
				fill = fill.ToString()
			}
			if f := n.ToFloat(); f > float64(stringLength(s)) {
				j.refuseAlloc(f, what)
			}
			return must(orig(s, n, fill))
		})
		if err != nil {
			return err
		}
	}
	err = j.wrapMethod(sp, "split", func(orig goja.Callable, c goja.FunctionCall) goja.Value {
		sep, limit := c.Argument(0), c.Argument(1)
		if _, isObj := sep.(*goja.Object); isObj || isNullish(c.This) { // Symbol.split, or a TypeError
			return must(orig(c.This, c.Arguments...))
		}
		s := c.This.ToString()
		lim := math.MaxUint32 * 1.0
		if !goja.IsUndefined(limit) {
			limit = limit.ToNumber()
			lim = float64(uint32(limit.ToInteger()))
		}
		if !goja.IsUndefined(sep) {
			sep = sep.ToString()
			if stringLength(sep) == 0 {
				j.refuseAlloc(math.Min(float64(stringLength(s)), lim)*valueBytes*2, "String.prototype.split")
			}
		}
		return must(orig(s, sep, limit))
	})
	if err != nil {
		return err
	}
	err = j.wrapMethod(sp, "concat", func(orig goja.Callable, c goja.FunctionCall) goja.Value {
		s := thisString(c)
		if s == nil {
			return must(orig(c.This, c.Arguments...))
		}
		n := float64(stringLength(s))
		args := make([]goja.Value, len(c.Arguments))
		for i, a := range c.Arguments {
			args[i] = a.ToString()
			n += float64(stringLength(args[i]))
		}
		j.refuseAlloc(n, "String.prototype.concat")
		return must(orig(s, args...))
	})
	if err != nil {
		return err
	}
	err = j.wrapMethod(ap, "fill", func(orig goja.Callable, c goja.FunctionCall) goja.Value {
		n, ok := arrayLength(c.This)
		if !ok {
			return must(orig(c.This, c.Arguments...))
		}
		args := []goja.Value{c.Argument(0), c.Argument(1), c.Argument(2)}
		from, to := 0.0, n
		if !goja.IsUndefined(args[1]) {
			args[1] = args[1].ToNumber()
			from = relIndex(args[1].ToFloat(), n)
		}
		if !goja.IsUndefined(args[2]) {
			args[2] = args[2].ToNumber()
			to = relIndex(args[2].ToFloat(), n)
		}
		j.refuseAlloc((to-from)*valueBytes, "Array.prototype.fill")
		return must(orig(c.This, args...))
	})
	if err != nil {
		return err
	}
	err = j.wrapMethod(ap, "concat", func(orig goja.Callable, c goja.FunctionCall) goja.Value {
		total := 1.0
		if n, ok := arrayLength(c.This); ok {
			total = n
		}
		for _, a := range c.Arguments {
			if n, ok := arrayLength(a); ok {
				total += n
			} else {
				total++
			}
		}
		j.refuseAlloc(total*valueBytes, "Array.prototype.concat")
		return must(orig(c.This, c.Arguments...))
	})
	if err != nil {
		return err
	}
	if j.cfg.OSMemoryLimit {
		// In a worker a huge buffer meets the process's own memory limit;
		// wrapping the twelve constructors would cost every run their
		// creation.
		return nil
	}
	// In process they are wrapped in every runtime: code can reach them
	// without naming them (through ({}).constructor and computed names),
	// so no reading of the source can tell it does not.
	return j.guardBufferConstructors()
}

// relIndex is a relative index of fill and slice, clamped to [0, n].
func relIndex(f, n float64) float64 {
	if math.IsNaN(f) {
		return 0
	}
	f = math.Trunc(f)
	if f < 0 {
		return math.Max(n+f, 0)
	}
	return math.Min(f, n)
}

// joinSize refuses a join whose separators alone pass the memory limit
// (a sparse array's length can be 2^32-1). It returns the separator,
// converted once.
func (j *job) joinSize(this, sep goja.Value) goja.Value {
	if !goja.IsUndefined(sep) {
		sep = sep.ToString()
	}
	if n, ok := arrayLength(this); ok && n > 1 {
		w := 1.0
		if !goja.IsUndefined(sep) {
			w = float64(stringLength(sep))
		}
		j.refuseAlloc((n-1)*w, "Array.prototype.join")
	}
	return sep
}

// guardBufferConstructors puts ArrayBuffer and the typed array constructors
// behind Proxies whose construct trap checks the size first. instanceof,
// subclasses and the static members work through the Proxy.
func (j *job) guardBufferConstructors() error {
	rt := j.rt
	for _, name := range []string{"ArrayBuffer", "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
		"Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"} {
		target, ok := rt.Get(name).(*goja.Object)
		if !ok {
			continue
		}
		construct, ok := goja.AssertConstructor(target)
		if !ok {
			return fmt.Errorf("lockdown: %s is not a constructor", name)
		}
		elem := 1.0
		if name != "ArrayBuffer" {
			elem = float64(target.Get("BYTES_PER_ELEMENT").ToInteger())
		}
		what := "new " + name
		err := j.wrapConstructor(name, target, &goja.ProxyTrapConfig{
			Construct: func(target *goja.Object, args []goja.Value, newTarget *goja.Object) *goja.Object {
				if len(args) > 0 {
					switch a := args[0].(type) {
					case *goja.Object:
						if n, ok := arrayLength(a); ok {
							j.refuseAlloc(n*elem, what)
						}
					default:
						if !isNullish(a) {
							args[0] = a.ToNumber()
							if f := args[0].ToFloat(); f > 0 {
								j.refuseAlloc(f*elem, what)
							}
						}
					}
				}
				return mustObject(construct(newTarget, args...))
			},
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// mustObject is must for a constructor's result. The constructors are
// called directly (goja.AssertConstructor) rather than through
// Reflect.construct, which would cost every runtime Reflect's creation.
func mustObject(o *goja.Object, err error) *goja.Object {
	if err != nil {
		panic(err)
	}
	return o
}

// wrapConstructor replaces the global constructor name with a Proxy of it
// with the given traps, and makes the Proxy stand for the constructor:
// prototype.constructor is the Proxy, and instanceof works (goja's
// instanceof does not look through a Proxy of a function, so the
// constructor gets its own Symbol.hasInstance that checks against the
// real constructor).
func (j *job) wrapConstructor(name string, target *goja.Object, traps *goja.ProxyTrapConfig) error {
	rt := j.rt
	hasInstance, err := j.proxiedHasInstance()
	if err != nil {
		return err
	}
	pv := rt.ToValue(rt.NewProxy(target, traps)).(*goja.Object)
	if j.proxied == nil {
		j.proxied = make([]proxiedCtor, 0, 14) // the buffers, Date and String
	}
	j.proxied = append(j.proxied, proxiedCtor{pv, target})
	if err := target.DefineDataPropertySymbol(goja.SymHasInstance, hasInstance, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	if err := rt.GlobalObject().DefineDataProperty(name, pv, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	return target.Get("prototype").(*goja.Object).DefineDataProperty("constructor", pv, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// proxiedCtor is a built-in constructor and the Proxy that stands for it.
type proxiedCtor struct{ proxy, target *goja.Object }

// proxiedHasInstance returns the Symbol.hasInstance method the wrapped
// constructors share (made once per runtime): Function.prototype's, taken
// before the code ran, called on the real constructor when this is one of
// the Proxies.
func (j *job) proxiedHasInstance() (*goja.Object, error) {
	if j.hasInstance != nil {
		return j.hasInstance, nil
	}
	fp := j.in.errorCtors["Error"].Prototype() // Function.prototype
	ordinary, ok := goja.AssertFunction(fp.GetSymbol(goja.SymHasInstance))
	if !ok {
		return nil, fmt.Errorf("lockdown: Function.prototype[Symbol.hasInstance] is not a function")
	}
	j.hasInstance = j.hostFunc("[Symbol.hasInstance]", func(c goja.FunctionCall) goja.Value {
		this := c.This
		if o, ok := this.(*goja.Object); ok {
			for _, p := range j.proxied {
				if o == p.proxy {
					this = p.target
					break
				}
			}
		}
		return must(ordinary(this, c.Argument(0)))
	})
	return j.hasInstance, nil
}
