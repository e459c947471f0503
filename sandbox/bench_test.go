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

func benchRun(b *testing.B, e Executor, code string) {
	b.Helper()
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Run(ctx, code); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInProcessFact is a fresh hardened runtime per run: prescan,
// compile, lockdown, run, export.
func BenchmarkInProcessFact(b *testing.B) {
	e, err := NewInProcess()
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	benchRun(b, e, benchFact)
}

// BenchmarkIsolatedFact is a run on a warm worker process.
func BenchmarkIsolatedFact(b *testing.B) {
	e, err := NewIsolated(WithConcurrency(1))
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	benchRun(b, e, benchFact)
}

// BenchmarkInProcessPrimes is compute-heavy: the sum of the primes below
// 200 000 by trial division.
func BenchmarkInProcessPrimes(b *testing.B) {
	e, err := NewInProcess(WithTimeout(time.Minute))
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	benchRun(b, e, benchPrimes)
}

// BenchmarkInProcessJoin builds a 300 kB string the recommended way.
func BenchmarkInProcessJoin(b *testing.B) {
	e, err := NewInProcess(WithTimeout(time.Minute))
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	benchRun(b, e, benchJoin)
}
