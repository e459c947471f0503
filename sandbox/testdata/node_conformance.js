// Runs each snippet of the JSON array on stdin in a fresh Node context and
// writes, as a JSON array, the JSON form of its final value (awaited when
// it is a Promise) or "throws:" and the error's name. Used by
// TestNodeConformance.
"use strict";
const vm = require("vm");
let input = "";
process.stdin.on("data", d => { input += d; });
process.stdin.on("end", async () => {
  const out = [];
  for (const code of JSON.parse(input)) {
    try {
      let v = vm.runInNewContext(code, {console: {log() {}}}, {timeout: 5000});
      if (v !== null && typeof v === "object" && typeof v.then === "function") v = await v;
      const s = JSON.stringify(v);
      out.push(s === undefined ? "null" : s);
    } catch (e) {
      out.push("throws:" + (e && e.name));
    }
  }
  process.stdout.write(JSON.stringify(out));
});
