package jsrt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// collectionsProgram defines the Set methods of ES2025 (union,
// intersection, difference, symmetricDifference, isSubsetOf, isSupersetOf,
// isDisjointFrom) and Map.groupBy, which goja lacks. It gets the built-ins
// it uses as arguments, taken before the code runs.
var collectionsProgram = lazyProgram("loom-sandbox-polyfill.js", `(function (host, apply, defineProperty, SetCtor, TypeError, MapCtor) {
  "use strict";
  const SP = SetCtor.prototype;
  const has = SP.has, add = SP.add, del = SP.delete, forEach = SP.forEach;
  const size = host.setSize;
  function define(o, name, fn) {
    defineProperty(o, name, {value: fn, writable: true, enumerable: false, configurable: true});
  }
  function thisSet(s, name) {
    if (!host.isSet(s)) throw new TypeError("Set.prototype." + name + " called on a value that is not a Set");
    return s;
  }
  // setRecord is the spec's GetSetRecord: other must have a numeric size,
  // and has and keys methods.
  function setRecord(other) {
    if (other === null || (typeof other !== "object" && typeof other !== "function")) {
      throw new TypeError("The argument must be a Set or a Set-like object (with size, has and keys)");
    }
    const n = +other.size;
    if (n !== n) throw new TypeError("The argument's size is not a number");
    const h = other.has, k = other.keys;
    if (typeof h !== "function") throw new TypeError("The argument's has is not a function");
    if (typeof k !== "function") throw new TypeError("The argument's keys is not a function");
    return {o: other, size: n, has: h, keys: k};
  }
  function elements(s) {
    const out = [];
    apply(forEach, s, [function (v) { defineProperty(out, out.length, {value: v, writable: true, enumerable: true, configurable: true}); }]);
    return out;
  }
  function otherHas(r, v) { return !!apply(r.has, r.o, [v]); }
  function eachKey(r, fn) {
    const it = apply(r.keys, r.o, []);
    if (it === null || typeof it !== "object") throw new TypeError("The argument's keys() did not return an iterator");
    const next = it.next;
    for (;;) {
      const step = apply(next, it, []);
      if (step === null || typeof step !== "object") throw new TypeError("The iterator's next() did not return an object");
      if (step.done) return;
      if (fn(step.value) === false) return;
    }
  }
  function copy(s) {
    const r = new SetCtor();
    const e = elements(s);
    for (let i = 0; i < e.length; i++) apply(add, r, [e[i]]);
    return r;
  }
  define(SP, "union", function union(other) {
    thisSet(this, "union");
    const r = setRecord(other), out = copy(this);
    eachKey(r, v => { apply(add, out, [v]); });
    return out;
  });
  define(SP, "intersection", function intersection(other) {
    thisSet(this, "intersection");
    const r = setRecord(other), out = new SetCtor();
    if (size(this) <= r.size) {
      const e = elements(this);
      for (let i = 0; i < e.length; i++) if (otherHas(r, e[i])) apply(add, out, [e[i]]);
    } else {
      eachKey(r, v => { if (apply(has, this, [v])) apply(add, out, [v]); });
    }
    return out;
  });
  define(SP, "difference", function difference(other) {
    thisSet(this, "difference");
    const r = setRecord(other), out = copy(this);
    if (size(this) <= r.size) {
      const e = elements(this);
      for (let i = 0; i < e.length; i++) if (otherHas(r, e[i])) apply(del, out, [e[i]]);
    } else {
      eachKey(r, v => { apply(del, out, [v]); });
    }
    return out;
  });
  define(SP, "symmetricDifference", function symmetricDifference(other) {
    thisSet(this, "symmetricDifference");
    const r = setRecord(other), out = copy(this);
    eachKey(r, v => { if (apply(has, this, [v])) apply(del, out, [v]); else apply(add, out, [v]); });
    return out;
  });
  define(SP, "isSubsetOf", function isSubsetOf(other) {
    thisSet(this, "isSubsetOf");
    const r = setRecord(other);
    if (size(this) > r.size) return false;
    const e = elements(this);
    for (let i = 0; i < e.length; i++) if (!otherHas(r, e[i])) return false;
    return true;
  });
  define(SP, "isSupersetOf", function isSupersetOf(other) {
    thisSet(this, "isSupersetOf");
    const r = setRecord(other);
    if (size(this) < r.size) return false;
    let ok = true;
    eachKey(r, v => { if (!apply(has, this, [v])) { ok = false; return false; } });
    return ok;
  });
  define(SP, "isDisjointFrom", function isDisjointFrom(other) {
    thisSet(this, "isDisjointFrom");
    const r = setRecord(other);
    let ok = true;
    if (size(this) <= r.size) {
      const e = elements(this);
      for (let i = 0; i < e.length; i++) if (otherHas(r, e[i])) return false;
    } else {
      eachKey(r, v => { if (apply(has, this, [v])) { ok = false; return false; } });
    }
    return ok;
  });
  const mapGet = MapCtor.prototype.get, mapSet = MapCtor.prototype.set, mapHas = MapCtor.prototype.has;
  function groups(items, callback, add) {
    if (typeof callback !== "function") throw new TypeError("The callback must be a function");
    let k = 0;
    for (const v of items) add(callback(v, k++), v);
  }
  define(MapCtor, "groupBy", function groupBy(items, callback) {
    const out = new MapCtor();
    groups(items, callback, (key, v) => {
      if (key === 0) key = 0; // -0 is 0
      if (!apply(mapHas, out, [key])) apply(mapSet, out, [key, []]);
      const g = apply(mapGet, out, [key]);
      defineProperty(g, g.length, {value: v, writable: true, enumerable: true, configurable: true});
    });
    return out;
  });
})`, true)

// polyfillProgram defines Object.groupBy, String.prototype.isWellFormed
// and toWellFormed, which goja lacks, from the built-ins it is given.
var polyfillProgram = lazyProgram("loom-sandbox-polyfill.js", `(function (apply, defineProperty, TypeError, ObjectCtor, StringProto) {
  "use strict";
  function define(o, name, fn) {
    defineProperty(o, name, {value: fn, writable: true, enumerable: false, configurable: true});
  }
  const create = ObjectCtor.create;
  define(ObjectCtor, "groupBy", function groupBy(items, callback) {
    if (typeof callback !== "function") throw new TypeError("The callback must be a function");
    const out = create(null);
    let k = 0;
    for (const v of items) {
      let key = callback(v, k++);
      key = typeof key === "symbol" ? key : String(key);
      if (!apply(ObjectCtor.prototype.hasOwnProperty, out, [key])) defineProperty(out, key, {value: [], writable: true, enumerable: true, configurable: true});
      const g = out[key];
      defineProperty(g, g.length, {value: v, writable: true, enumerable: true, configurable: true});
    }
    return out;
  });
  function wellFormed(s) {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) {
        const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
        if (d >= 0xdc00 && d <= 0xdfff) { i++; continue; }
        return i;
      }
      if (c >= 0xdc00 && c <= 0xdfff) return i;
    }
    return -1;
  }
  function thisText(v, name) {
    if (v === undefined || v === null) throw new TypeError("String.prototype." + name + " called on null or undefined");
    return String(v);
  }
  define(StringProto, "isWellFormed", function isWellFormed() { return wellFormed(thisText(this, "isWellFormed")) < 0; });
  define(StringProto, "toWellFormed", function toWellFormed() {
    let s = thisText(this, "toWellFormed"), out = "", i;
    while ((i = wellFormed(s)) >= 0) { out += s.slice(0, i) + "\ufffd"; s = s.slice(i + 1); }
    return out + s;
  });
})`, true)

// reachesPolyfills reports whether code may reach Object.groupBy,
// String.prototype.isWellFormed or toWellFormed, or Error.isError, as far
// as its text tells (see reachesGlobal, whose escapes also count here: a
// computed name on this or globalThis, defineProperty, __proto__ or a
// backslash). A miss costs no guarantee: the method is missing, as on
// goja, and calling it throws a TypeError.
func reachesPolyfills(code string) bool {
	return reachesGlobal(code, "groupBy", "WellFormed", "isError")
}

// installPolyfills defines the built-ins goja lacks but the Set methods
// and Map.groupBy (installCollections), once per runtime, before the code
// runs, when it can reach them (reachesPolyfills).
func (j *job) installPolyfills() error {
	if j.polyfills {
		return nil
	}
	rt := j.rt
	err := j.callProgram(polyfillProgram(), j.applyFunc(), j.in.defineProperty, j.in.errorCtors["TypeError"],
		rt.Get("Object"), rt.Get("String").(*goja.Object).Get("prototype"))
	if err != nil {
		return err
	}
	// Error.isError: an object with an Error's internal slot, read without
	// running any code (a Proxy of an Error is not one).
	isError := j.hostFunc("isError", func(c goja.FunctionCall) goja.Value {
		o, ok := c.Argument(0).(*goja.Object)
		return rt.ToValue(ok && classOf(o) == "Error")
	})
	if err := j.in.errorCtors["Error"].DefineDataProperty("isError", isError, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	j.polyfills = true
	return nil
}

// installCollections takes Map's and Set's built-ins the exporter uses and
// defines the Set methods and Map.groupBy. Map and Set are made on first
// use, about 275 allocations, and then these another 300, so a run does
// this only when its code can reach them (reachesCollections), after setup
// and before the code runs. No built-in, kit or host function makes a Map
// or a Set for the code. A miss (see reachesGlobal) leaves a Map the code
// made without the Set methods, and its export fails with an error; the
// host never reads it through the code's replacements.
func (j *job) installCollections() error {
	if j.collections {
		return nil
	}
	rt := j.rt
	proto := func(ctor string) *goja.Object {
		return rt.Get(ctor).(*goja.Object).Get("prototype").(*goja.Object)
	}
	var ok bool
	if j.in.mapForEach, ok = goja.AssertFunction(proto("Map").Get("forEach")); !ok {
		return fmt.Errorf("intrinsics: Map.prototype.forEach is not a function")
	}
	if j.in.setForEach, ok = goja.AssertFunction(proto("Set").Get("forEach")); !ok {
		return fmt.Errorf("intrinsics: Set.prototype.forEach is not a function")
	}
	host := rt.NewObject()
	isSet := func(v goja.Value) bool {
		o, ok := v.(*goja.Object)
		return ok && classOf(o) == "Set"
	}
	sizeOf, err := j.sizeGetter("Set")
	if err != nil {
		return err
	}
	for name, fn := range map[string]func(goja.FunctionCall) goja.Value{
		"isSet": func(c goja.FunctionCall) goja.Value { return rt.ToValue(isSet(c.Argument(0))) },
		"setSize": func(c goja.FunctionCall) goja.Value {
			return must(sizeOf(c.Argument(0)))
		},
	} {
		if err := host.Set(name, fn); err != nil {
			return err
		}
	}
	err = j.callProgram(collectionsProgram(), host, j.applyFunc(), j.in.defineProperty, rt.Get("Set"), j.in.errorCtors["TypeError"], rt.Get("Map"))
	if err != nil {
		return err
	}
	j.collections = true
	return nil
}

// reachesCollections reports whether code may reach Map or Set
// (reachesGlobal).
func reachesCollections(code string) bool {
	return reachesGlobal(code, "Map", "Set")
}

// reachesGlobal reports whether code may reach a global whose name
// contains one of names, as far as its text tells: it names one (in an
// identifier or a string; an escape in an identifier needs a backslash),
// or it may read the global object's properties by a computed name through
// this or globalThis (eval and Function are locked), or as the receiver of
// an accessor on the global object's prototype chain, defined by name
// (defineProperty, defineProperties) or on a prototype given to the global
// object by assigning __proto__. It is a heuristic: code can also reach
// Object.defineProperty as ({}).constructor["def" + "ineProperty"] and
// name nothing. So it only decides what a miss costs no guarantee: the Set
// methods and Map.groupBy, Map's and Set's export (refused with an error
// on a miss, never read through the code's replacements), and Date's
// string forms on a host in UTC. A false positive only costs an install.
func reachesGlobal(code string, names ...string) bool {
	for _, s := range []string{"this", "globalThis", "define", "__proto__", `\`} {
		if strings.Contains(code, s) {
			return true
		}
	}
	for _, s := range names {
		if strings.Contains(code, s) {
			return true
		}
	}
	return false
}

// callProgram runs one of the sandbox's programs, whose value is a
// function, and calls that function with args.
func (j *job) callProgram(p *goja.Program, args ...goja.Value) error {
	v, err := j.rt.RunProgram(p)
	if err != nil {
		return err
	}
	fn, ok := goja.AssertFunction(v)
	if !ok {
		return errors.New("a sandbox program's value is not a function")
	}
	_, err = fn(goja.Undefined(), args...)
	return err
}

// applyFunc is apply(f, this, args) for the polyfills, made once per
// runtime: it calls f from Go, since Function.prototype.call can be
// replaced by the code, and Reflect would cost every run its creation.
func (j *job) applyFunc() *goja.Object {
	if j.apply != nil {
		return j.apply
	}
	j.apply = j.hostFunc("apply", func(c goja.FunctionCall) goja.Value {
		f, ok := goja.AssertFunction(c.Argument(0))
		if !ok {
			panic(j.newJSError("TypeError", "not a function"))
		}
		var args []goja.Value
		if a, ok := c.Argument(2).(*goja.Object); ok {
			n := a.Get("length").ToInteger() // a fresh array of the polyfill's own
			for i := int64(0); i < n; i++ {
				args = append(args, a.Get(strconv.FormatInt(i, 10)))
			}
		}
		return must(f(c.Argument(1), args...))
	})
	return j.apply
}

// sizeGetter is the size getter of Map.prototype or Set.prototype.
func (j *job) sizeGetter(ctor string) (goja.Callable, error) {
	rt := j.rt
	gopd, ok := goja.AssertFunction(rt.Get("Object").(*goja.Object).Get("getOwnPropertyDescriptor"))
	if !ok {
		return nil, fmt.Errorf("lockdown: Object.getOwnPropertyDescriptor is not a function")
	}
	proto := rt.Get(ctor).(*goja.Object).Get("prototype")
	d, err := gopd(goja.Undefined(), proto, rt.ToValue("size"))
	if err != nil {
		return nil, err
	}
	if do, ok := d.(*goja.Object); ok {
		if g, ok := goja.AssertFunction(do.Get("get")); ok {
			return g, nil
		}
	}
	return nil, fmt.Errorf("lockdown: %s.prototype.size has no getter", ctor)
}
