// The sandbox's safe exporter, run inside every run's runtime, under the
// run's deadline. It walks a value and writes its JSON form through host
// functions, which quote strings, format numbers and enforce the size,
// depth and cycle limits on the Go side. It reads properties through their
// descriptors, so it calls no getter, no toString, no toJSON and no Proxy
// trap of the value; Maps, Sets, typed arrays and RegExps are read by the
// host through built-ins it took before the code ran. Every built-in it uses is taken
// when the run starts, before the code can replace it. It is compiled once
// and created per run; the host functions are passed in, never put on the
// global object.
(function (host) {
  "use strict";
  const classOf = host.classOf, tok = host.tok, str = host.str, num = host.num, big = host.big,
    sym = host.sym, date = host.date, enter = host.enter, leave = host.leave,
    promiseState = host.promiseState, errorInfo = host.errorInfo, entriesOf = host.entries,
    typed = host.typed, regexpText = host.regexp;
  const keys = Object.keys, gopd = Object.getOwnPropertyDescriptor, getProto = Object.getPrototypeOf,
    hasOwn = Object.hasOwn;

  // dataProp reads k from o or its prototypes, only where it is a data
  // property, and never through a Proxy.
  function dataProp(o, k) {
    for (let i = 0; o !== null && o !== undefined && i < 64; i++) {
      if (classOf(o) === "proxy") return undefined;
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
      if (classOf(o) === "proxy") return false;
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
    tok("{");
    str(t);
    tok(":");
    str(s);
    tok("}");
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
    enter(v, k);
    tok("[");
    const n = dataProp(v, "length");
    for (let i = 0; i < n; i++) {
      if (i > 0) tok(",");
      const d = gopd(v, i);
      if (d === undefined) tok("null");
      else property(d, i);
    }
    tok("]");
    leave();
  }

  function object(v, k) {
    enter(v, k);
    tok("{");
    const ks = keys(v);
    let first = true;
    for (let i = 0; i < ks.length; i++) {
      const key = ks[i], d = gopd(v, key);
      if (d === undefined || (hasOwn(d, "value") && d.value === undefined)) continue;
      if (!first) tok(",");
      first = false;
      str(key);
      tok(":");
      property(d, key);
    }
    tok("}");
    leave();
  }

  // entries writes a Map or a Set from a fresh array the host fills from
  // its internal slots: [key, value, key, value…] for a Map, the values for
  // a Set.
  function entries(v, k, t) {
    enter(v, k);
    tok("{");
    str(t);
    tok(":[");
    const e = entriesOf(v), step = t === "$map" ? 2 : 1;
    for (let i = 0, n = 0; i < e.length; i += step, n++) {
      if (n > 0) tok(",");
      if (step === 2) {
        tok("[");
        value(e[i], n);
        tok(",");
        value(e[i + 1], n);
        tok("]");
      } else {
        value(e[i], n);
      }
    }
    tok("]}");
    leave();
  }

  function error(v) {
    tok("{");
    str("$error");
    tok(":{");
    str("name");
    tok(":");
    str(stringProp(v, "name") || "Error");
    tok(",");
    str("message");
    tok(":");
    str(stringProp(v, "message") || "");
    tok("}}");
  }

  function value(v, k) {
    switch (typeof v) {
      case "string": str(v); return;
      case "number": num(v); return;
      case "boolean": tok(v ? "true" : "false"); return;
      case "undefined": tok("null"); return;
      case "bigint": big(v); return;
      case "symbol": sym(v); return;
    }
    if (v === null) {
      tok("null");
      return;
    }
    const c = classOf(v);
    switch (c) {
      case "proxy": tagged("$object", "Proxy"); return;
      case "Function": case "AsyncFunction": case "GeneratorFunction":
        tagged("$function", stringProp(v, "name") || ""); return;
      case "Date": date(v); return;
      case "RegExp": tagged("$regexp", regexpText(v)); return;
      case "Error": error(v); return;
      case "Promise": tagged("$promise", promiseState(v)); return;
      case "Array": array(v, k); return;
      case "Map": entries(v, k, "$map"); return;
      case "Set": entries(v, k, "$set"); return;
      case "TypedArray": typed(v); return;
      case "Object": object(v, k); return;
      default: tagged("$object", c); return;
    }
  }

  // describe reports a thrown value: an Error's name, message and stack
  // through errorInfo, anything else as
  // its JSON form.
  function describe(v) {
    if (v !== null && typeof v === "object" && classOf(v) === "Error") {
      // The stack text is made on first read from the name and message.
      const stack = plainField(v, "name") && plainField(v, "message") ? stringProp(v, "stack") : undefined;
      errorInfo(v, stringProp(v, "name") || "Error", stringProp(v, "message") || "", stack);
      return;
    }
    value(v, "");
  }

  return [function exportValue(v) { value(v, ""); }, describe];
})
