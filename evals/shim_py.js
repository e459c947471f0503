// Python's built-ins as the translated tests call them (len, sorted, slices,
// truthiness …). Included only in programs whose tests use them.
const __py = (function () {
  function truthy(v) {
    if (v === null || v === undefined) return false;
    if (Array.isArray(v) || typeof v === "string") return v.length > 0;
    if (v instanceof Set || v instanceof Map) return v.size > 0;
    if (typeof v === "object") return Object.keys(v).length > 0;
    return !!v;
  }
  function len(v) {
    if (v instanceof Set || v instanceof Map) return v.size;
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return Object.keys(v).length;
    return v.length;
  }
  function list(v) {
    if (typeof v === "string" || v instanceof Set || Array.isArray(v)) return Array.from(v);
    if (v instanceof Map) return Array.from(v.keys());
    if (v !== null && typeof v === "object") return Object.keys(v);
    return Array.from(v);
  }
  function cmp(a, b) {
    if (Array.isArray(a) && Array.isArray(b)) {
      for (var i = 0; i < a.length && i < b.length; i++) { var c = cmp(a[i], b[i]); if (c) return c; }
      return a.length - b.length;
    }
    return a < b ? -1 : a > b ? 1 : 0;
  }
  function at(v, i) {
    if (typeof i === "number" && (typeof v === "string" || Array.isArray(v))) {
      if (i < 0) i += v.length;
      if (i < 0 || i >= v.length) throw new RangeError("index out of range");
      return v[i];
    }
    if (v instanceof Map) return v.get(i);
    if (v === null || v === undefined) throw new TypeError("cannot index " + v);
    return v[i];
  }
  function round(x, n) {
    var m = Math.pow(10, n || 0), y = x * m, r = Math.round(y);
    if (Math.abs(y % 1) === 0.5 && r % 2 !== 0) r -= 1; // half to even, as Python
    return r / m;
  }
  var methods = {
    lower: function (s) { return s.toLowerCase(); },
    upper: function (s) { return s.toUpperCase(); },
    strip: function (s) { return s.trim(); },
    split: function (s, sep) { return sep === undefined ? s.split(/\s+/).filter(Boolean) : s.split(sep); },
    join: function (sep, xs) { return Array.from(xs).join(sep); },
    count: function (s, x) { return s.split(x).length - 1; },
    startswith: function (s, x) { return s.startsWith(x); },
    endswith: function (s, x) { return s.endsWith(x); },
    index: function (s, x) { return s.indexOf(x); },
  };
  return Object.freeze({
    truthy: truthy,
    len: len,
    list: list,
    at: at,
    round: round,
    eq: function (a, b) { return assert.isDeepStrictEqual(a, b); },
    sorted: function (v) { return list(v).sort(cmp); },
    sum: function (v) { return list(v).reduce(function (a, b) { return a + b; }, 0); },
    min: function () { var xs = arguments.length === 1 ? list(arguments[0]) : Array.from(arguments); return xs.reduce(function (a, b) { return cmp(b, a) < 0 ? b : a; }); },
    max: function () { var xs = arguments.length === 1 ? list(arguments[0]) : Array.from(arguments); return xs.reduce(function (a, b) { return cmp(b, a) > 0 ? b : a; }); },
    set: function (v) { return new Set(v === undefined ? [] : list(v)); },
    str: function (v) { return typeof v === "string" ? v : String(v); },
    int: function (v) { return Math.trunc(Number(v)); },
    all: function (v) { return list(v).every(truthy); },
    any: function (v) { return list(v).some(truthy); },
    range: function (a, b, s) {
      if (b === undefined) { b = a; a = 0; }
      s = s || 1;
      var out = [];
      for (var i = a; s > 0 ? i < b : i > b; i += s) out.push(i);
      return out;
    },
    isclose: function (a, b, rel, abs) {
      return Math.abs(a - b) <= Math.max(rel * Math.max(Math.abs(a), Math.abs(b)), abs);
    },
    isinstance: function (v, t) {
      switch (t) {
        case "int": return Number.isInteger(v);
        case "float": return typeof v === "number";
        case "str": return typeof v === "string";
        case "bool": return typeof v === "boolean";
        case "list": case "tuple": return Array.isArray(v);
        case "dict": return v !== null && typeof v === "object" && !Array.isArray(v);
      }
      return false;
    },
    type: function (v) {
      if (Array.isArray(v)) return "list";
      if (typeof v === "string") return "str";
      if (typeof v === "boolean") return "bool";
      if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
      return typeof v;
    },
    contains: function (c, x) {
      if (typeof c === "string") return c.indexOf(x) >= 0;
      if (c instanceof Set || c instanceof Map) return c.has(x);
      if (Array.isArray(c)) return c.some(function (y) { return assert.isDeepStrictEqual(x, y); });
      return c !== null && typeof c === "object" && Object.prototype.hasOwnProperty.call(c, x);
    },
    slice: function (v, lo, hi, step) {
      if (step !== null && step !== undefined && step !== 1) {
        var xs = list(v), out = [], n = xs.length;
        if (step < 0) {
          lo = lo === null ? n - 1 : lo < 0 ? lo + n : Math.min(lo, n - 1);
          hi = hi === null ? -1 : hi < 0 ? hi + n : hi;
          for (var i = lo; i > hi; i += step) out.push(xs[i]);
        } else {
          lo = lo === null ? 0 : lo < 0 ? lo + n : lo;
          hi = hi === null ? n : hi < 0 ? hi + n : Math.min(hi, n);
          for (var j = lo; j < hi; j += step) out.push(xs[j]);
        }
        return typeof v === "string" ? out.join("") : out;
      }
      return v.slice(lo === null ? 0 : lo, hi === null ? undefined : hi);
    },
    add: function (a, b) { return Array.isArray(a) && Array.isArray(b) ? a.concat(b) : a + b; },
    mul: function (a, b) {
      if (typeof a === "string" && typeof b === "number") return a.repeat(Math.max(b, 0));
      if (Array.isArray(a) && typeof b === "number") { var out = []; for (var i = 0; i < b; i++) out = out.concat(a); return out; }
      return a * b;
    },
    mod: function (a, b) { var r = a % b; return r !== 0 && (r < 0) !== (b < 0) ? r + b : r; },
    method: function (v, name) {
      var f = methods[name];
      if (f === undefined) throw new TypeError("the test calls ." + name + "(), which the shim does not provide");
      return f.apply(null, [v].concat(Array.prototype.slice.call(arguments, 2)));
    },
  });
})();
