// The sandbox's safe exporter, run inside every run's runtime, under the
// run's deadline. It walks a value and writes its JSON form through host
// functions, which quote strings, format numbers and enforce the size,
// depth and cycle limits on the Go side. It reads properties through their
// descriptors, so it calls no getter, no toString, no toJSON and no Proxy
// trap of the value; Maps, Sets, typed arrays and RegExps are read by the
// host through built-ins it took before the code ran. Every built-in it uses is taken
// when the run starts, before the code can replace it. It is compiled once
// and created per run; the host function is passed in, never put on the
// global object.
(function (host) {
  "use strict";
  // The host's operations, through one host function (hostOp in kit.go):
  // a native function costs every runtime about ten allocations.
  const CLASS_OF = 0, TOK = 1, STR = 2, NUM = 3, BIG = 4, SYM = 5, DATE = 6, ENTER = 7, LEAVE = 8,
    PROMISE_STATE = 9, ERROR_INFO = 10, ENTRIES = 11, TYPED = 12, REGEXP = 13;
  const keys = Object.keys, gopd = Object.getOwnPropertyDescriptor, getProto = Object.getPrototypeOf,
    hasOwn = Object.hasOwn;

  // dataProp reads k from o or its prototypes, only where it is a data
  // property, and never through a Proxy.
  function dataProp(o, k) {
    for (let i = 0; o !== null && o !== undefined && i < 64; i++) {
      if (host(CLASS_OF, o) === "proxy") return undefined;
      const d = gopd(o, k);
      if (d !== undefined) return hasOwn(d, "value") ? d.value : undefined;
      o = getProto(o);
    }
    return undefined;
  }

  // plainField reports whether reading k from o (as the engine does when
  // it writes an Error's stack text) runs no code: k is found, if at all,
  // as a data property holding a primitive that is not a symbol.
  function plainField(o, k) {
    for (let i = 0; o !== null && o !== undefined && i < 64; i++) {
      if (host(CLASS_OF, o) === "proxy") return false;
      const d = gopd(o, k);
      if (d !== undefined) {
        if (!hasOwn(d, "value")) return false;
        const t = typeof d.value;
        return d.value === null || (t !== "object" && t !== "function" && t !== "symbol");
      }
      o = getProto(o);
    }
    return o === null;
  }

  function stringProp(o, k) {
    const v = dataProp(o, k);
    return typeof v === "string" ? v : undefined;
  }

  function tagged(t, s) {
    host(TOK, "{");
    host(STR, t);
    host(TOK, ":");
    host(STR, s);
    host(TOK, "}");
  }

  function accessor(d) {
    const g = hasOwn(d, "get") && d.get !== undefined, s = hasOwn(d, "set") && d.set !== undefined;
    tagged("$accessor", g && s ? "get/set" : g ? "get" : "set");
  }

  function property(d, k) {
    if (hasOwn(d, "value")) value(d.value, k);
    else accessor(d);
  }

  function array(v, k) {
    host(ENTER, v, k);
    host(TOK, "[");
    const n = dataProp(v, "length");
    for (let i = 0; i < n; i++) {
      if (i > 0) host(TOK, ",");
      const d = gopd(v, i);
      if (d === undefined) host(TOK, "null");
      else property(d, i);
    }
    host(TOK, "]");
    host(LEAVE);
  }

  function object(v, k) {
    host(ENTER, v, k);
    host(TOK, "{");
    const ks = keys(v);
    let first = true;
    for (let i = 0; i < ks.length; i++) {
      const key = ks[i], d = gopd(v, key);
      if (d === undefined || (hasOwn(d, "value") && d.value === undefined)) continue;
      if (!first) host(TOK, ",");
      first = false;
      host(STR, key);
      host(TOK, ":");
      property(d, key);
    }
    host(TOK, "}");
    host(LEAVE);
  }

  // entries writes a Map or a Set from a fresh array the host fills from
  // its internal slots: [key, value, key, value…] for a Map, the values for
  // a Set.
  function entries(v, k, t) {
    host(ENTER, v, k);
    host(TOK, "{");
    host(STR, t);
    host(TOK, ":[");
    const e = host(ENTRIES, v), step = t === "$map" ? 2 : 1;
    for (let i = 0, n = 0; i < e.length; i += step, n++) {
      if (n > 0) host(TOK, ",");
      if (step === 2) {
        host(TOK, "[");
        value(e[i], n);
        host(TOK, ",");
        value(e[i + 1], n);
        host(TOK, "]");
      } else {
        value(e[i], n);
      }
    }
    host(TOK, "]}");
    host(LEAVE);
  }

  function error(v) {
    host(TOK, "{");
    host(STR, "$error");
    host(TOK, ":{");
    host(STR, "name");
    host(TOK, ":");
    host(STR, stringProp(v, "name") || "Error");
    host(TOK, ",");
    host(STR, "message");
    host(TOK, ":");
    host(STR, stringProp(v, "message") || "");
    host(TOK, "}}");
  }

  function value(v, k) {
    switch (typeof v) {
      case "string": host(STR, v); return;
      case "number": host(NUM, v); return;
      case "boolean": host(TOK, v ? "true" : "false"); return;
      case "undefined": host(TOK, "null"); return;
      case "bigint": host(BIG, v); return;
      case "symbol": host(SYM, v); return;
    }
    if (v === null) {
      host(TOK, "null");
      return;
    }
    const c = host(CLASS_OF, v);
    switch (c) {
      case "proxy": tagged("$object", "Proxy"); return;
      case "Function": case "AsyncFunction": case "GeneratorFunction":
        tagged("$function", stringProp(v, "name") || ""); return;
      case "Date": host(DATE, v); return;
      case "RegExp": tagged("$regexp", host(REGEXP, v)); return;
      case "Error": error(v); return;
      case "Promise": tagged("$promise", host(PROMISE_STATE, v)); return;
      case "Array": array(v, k); return;
      case "Map": entries(v, k, "$map"); return;
      case "Set": entries(v, k, "$set"); return;
      case "TypedArray": host(TYPED, v); return;
      case "Object": object(v, k); return;
      default: tagged("$object", c); return;
    }
  }

  // describe reports a thrown value: an Error's name, message and stack
  // from the host (ERROR_INFO), anything else as
  // its JSON form.
  function describe(v) {
    if (v !== null && typeof v === "object" && host(CLASS_OF, v) === "Error") {
      // The stack text is made on first read from the name and message.
      const stack = plainField(v, "name") && plainField(v, "message") ? stringProp(v, "stack") : undefined;
      host(ERROR_INFO, v, stringProp(v, "name") || "Error", stringProp(v, "message") || "", stack);
      return;
    }
    value(v, "");
  }

  return [function exportValue(v) { value(v, ""); }, describe];
})
