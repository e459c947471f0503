package sandbox

import (
	"context"
	"testing"
	"time"
)

// Snippets shared with bench/node_vm.js (at the repository root).
const (
	benchFact   = `function f(n){return n<=1?1:n*f(n-1)} f(15)`
	benchPrimes = `let s=0; for(let n=2;n<200000;n++){let p=true; for(let d=2;d*d<=n;d++){if(n%d===0){p=false;break}} if(p)s+=n} s`
	benchJoin   = `const a=[]; for(let i=0;i<100000;i++) a.push('abc'); a.join('').length`
)

// benchExecutor is an executor, isolated or in process, closed when the
// benchmark ends.
func benchExecutor(b *testing.B, isolated bool, lim Limits) Executor {
	b.Helper()
	var e Executor
	var err error
	if isolated {
		e, err = NewIsolated(IsolatedConfig{Limits: lim, Concurrency: 1})
	} else {
		e, err = NewInProcess(InProcessConfig{Limits: lim})
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	return e
}

func benchRun(b *testing.B, e Executor, code string) {
	b.Helper()
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Run(ctx, code); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSpaced times runs separated by idle time, as an agent's runs are
// (by a model call): the pause, untimed, is when an executor sets up the
// next run's runtime. It is the latency a caller sees; the back-to-back
// benchmarks measure the whole cost of a run, setup included.
func benchSpaced(b *testing.B, e Executor, code string) {
	b.Helper()
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		time.Sleep(2 * time.Millisecond)
		b.StartTimer()
		if _, err := e.Run(ctx, code); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInProcessFactSpaced is a fresh runtime per run, runs 2 ms
// apart.
func BenchmarkInProcessFactSpaced(b *testing.B) {
	benchSpaced(b, benchExecutor(b, false, Limits{}), benchFact)
}

// BenchmarkIsolatedFactSpaced is a run on a warm worker, runs 2 ms apart.
func BenchmarkIsolatedFactSpaced(b *testing.B) {
	benchSpaced(b, benchExecutor(b, true, Limits{}), benchFact)
}

// BenchmarkInProcessFact is a fresh hardened runtime per run: prescan,
// compile, lockdown, run, export; back to back.
func BenchmarkInProcessFact(b *testing.B) {
	benchRun(b, benchExecutor(b, false, Limits{}), benchFact)
}

// BenchmarkIsolatedFact is a run on a warm worker process.
func BenchmarkIsolatedFact(b *testing.B) {
	benchRun(b, benchExecutor(b, true, Limits{}), benchFact)
}

// BenchmarkInProcessPrimes is compute-heavy: the sum of the primes below
// 200 000 by trial division.
func BenchmarkInProcessPrimes(b *testing.B) {
	benchRun(b, benchExecutor(b, false, Limits{Timeout: time.Minute}), benchPrimes)
}

// BenchmarkInProcessJoin builds a 300 kB string the recommended way.
func BenchmarkInProcessJoin(b *testing.B) {
	benchRun(b, benchExecutor(b, false, Limits{Timeout: time.Minute}), benchJoin)
}
