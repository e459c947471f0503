// loom's assert shim and the Python helpers translated tests call. It runs
// before the solution and the tests in the same sandbox run (node:assert is
// not available there). Its bindings are const and frozen, and it keeps its
// own references to the built-ins it compares with, so a solution cannot
// replace them to pass; it is not a security boundary (the sandbox is).
const assert = (function () {
  const isArray = Array.isArray, keys = Object.keys, getProto = Object.getPrototypeOf;
  const hasOwn = Object.prototype.hasOwnProperty, stringify = JSON.stringify, freeze = Object.freeze;
  const setHas = Set.prototype.has, setValues = Set.prototype.values, mapHas = Map.prototype.has;
  const mapGet = Map.prototype.get, mapEntries = Map.prototype.entries, dateTime = Date.prototype.getTime;
  const sizeOf = (x) => x.size;
  const call = (f, self, ...args) => Reflect.apply(f, self, args);
  const items = (it) => { const out = []; for (let r = it.next(); !r.done; r = it.next()) out.push(r.value); return out; };
  class AssertionError extends Error {
    constructor(message) { super(message); this.name = "AssertionError"; }
  }
  function show(v) {
    var s;
    try {
      s = stringify(v, function (k, x) {
        if (x === undefined) return "undefined";
        if (typeof x === "number" && !isFinite(x)) return String(x);
        if (x instanceof Set) return { Set: Array.from(x) };
        if (x instanceof Map) return { Map: Array.from(x) };
        return x;
      });
    } catch (e) { s = String(v); }
    if (s === undefined) s = String(v);
    return s.length > 200 ? s.slice(0, 197) + "..." : s;
  }
  function fail(message, detail) {
    if (typeof message === "function") {
      try { message = String(message()); } catch (e) { message = undefined; }
    }
    throw new AssertionError(message ? message + ": " + detail : detail);
  }
  function same(a, b) { return a === b || (a !== a && b !== b); }
  function deepEqual(a, b, depth) {
    if (same(a, b)) return true;
    if (depth > 100 || a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
    const proto = getProto(a);
    if (proto !== getProto(b)) return false;
    if (isArray(a)) {
      if (!isArray(b) || a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i], depth + 1)) return false;
      return true;
    }
    if (proto === Set.prototype) {
      if (sizeOf(a) !== sizeOf(b)) return false;
      const bs = items(call(setValues, b));
      for (const x of items(call(setValues, a))) {
        if (call(setHas, b, x)) continue;
        let found = false;
        for (let j = 0; j < bs.length && !found; j++) found = deepEqual(x, bs[j], depth + 1);
        if (!found) return false;
      }
      return true;
    }
    if (proto === Map.prototype) {
      if (sizeOf(a) !== sizeOf(b)) return false;
      for (const [k, v] of items(call(mapEntries, a))) if (!call(mapHas, b, k) || !deepEqual(v, call(mapGet, b, k), depth + 1)) return false;
      return true;
    }
    if (proto === Date.prototype) return call(dateTime, a) === call(dateTime, b);
    const ka = keys(a), kb = keys(b);
    if (ka.length !== kb.length) return false;
    for (let i = 0; i < ka.length; i++) {
      if (!call(hasOwn, b, ka[i]) || !deepEqual(a[ka[i]], b[ka[i]], depth + 1)) return false;
    }
    return true;
  }
  var api = {
    AssertionError: AssertionError,
    isDeepStrictEqual: function (a, b) { return deepEqual(a, b, 0); },
    ok: function (v, message) { if (!v) fail(message, "expected a truthy value, got " + show(v)); },
    strictEqual: function (a, b, message) {
      if (!same(a, b)) fail(message, "expected " + show(b) + ", got " + show(a));
    },
    notStrictEqual: function (a, b, message) {
      if (same(a, b)) fail(message, "expected a value other than " + show(b));
    },
    deepStrictEqual: function (a, b, message) {
      if (!deepEqual(a, b, 0)) fail(message, "expected " + show(b) + ", got " + show(a));
    },
    notDeepStrictEqual: function (a, b, message) {
      if (deepEqual(a, b, 0)) fail(message, "expected a value other than " + show(b));
    },
    throws: function (fn, expected, message) {
      if (typeof expected === "string") { message = expected; expected = undefined; }
      try { fn(); } catch (e) {
        if (typeof expected === "function" && expected.prototype !== undefined && !(e instanceof expected)) {
          fail(message, "expected a " + expected.name + ", got " + (e && e.name));
        }
        if (expected instanceof RegExp && !expected.test(String(e && e.message))) {
          fail(message, "the error's message " + show(e && e.message) + " does not match " + String(expected));
        }
        return;
      }
      fail(message, "expected the function to throw");
    },
  };
  api.equal = api.strictEqual;
  api.deepEqual = api.deepStrictEqual;
  return freeze(api);
})();
