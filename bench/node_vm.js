// Times Node's vm module on the snippets of sandbox/bench_test.go, for the
// ratio table in bench/README.md. Run: node bench/node_vm.js
"use strict";
const vm = require("vm");

const snippets = {
  fact: "function f(n){return n<=1?1:n*f(n-1)} f(15)",
  primes: "let s=0; for(let n=2;n<200000;n++){let p=true; for(let d=2;d*d<=n;d++){if(n%d===0){p=false;break}} if(p)s+=n} s",
  join: "const a=[]; for(let i=0;i<100000;i++) a.push('abc'); a.join('').length",
};

// median time of fn in microseconds, over at least minRuns calls and
// minMs milliseconds, after a warm-up.
function median(fn, minRuns, minMs) {
  for (let i = 0; i < 3; i++) fn();
  const times = [];
  const start = process.hrtime.bigint();
  while (times.length < minRuns || Number(process.hrtime.bigint() - start) / 1e6 < minMs) {
    const t0 = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const rows = [];
for (const [name, src] of Object.entries(snippets)) {
  const heavy = name !== "fact";
  const [runs, ms] = heavy ? [5, 2000] : [200, 2000];
  // A fresh context per run, as the Go executors use a fresh runtime.
  rows.push([`${name}: vm.runInNewContext (fresh context)`, median(() => vm.runInNewContext(src), runs, ms)]);
  // A reused context, the fastest Node can do (the snippet in a block, so
  // its let declarations can run again).
  const ctx = vm.createContext({});
  const script = new vm.Script(`{${src}}`);
  rows.push([`${name}: script.runInContext (reused context)`, median(() => script.runInContext(ctx), runs, ms)]);
}
// A fresh context per run with runs 2 ms apart, as BenchmarkInProcessFactSpaced
// spaces its runs: the caches and the CPU's clock cool between runs, so a
// spaced run is compared with a spaced run. The mean, as Go's ns/op is.
{
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let total = 0;
  const n = 1000;
  for (let i = 0; i < n + 3; i++) {
    Atomics.wait(pause, 0, 0, 2);
    const t0 = process.hrtime.bigint();
    vm.runInNewContext(snippets.fact);
    if (i >= 3) total += Number(process.hrtime.bigint() - t0) / 1e3;
  }
  rows.push(["fact: vm.runInNewContext, runs 2 ms apart (mean)", total / n]);
}
console.log(`node ${process.version}`);
for (const [label, us] of rows) {
  console.log(`${label.padEnd(48)} ${us >= 1000 ? (us / 1000).toFixed(1) + " ms" : us.toFixed(1) + " µs"}`);
}
