package jsrt

import "testing"

// BenchmarkSetup is one runtime's setup, as an in-process executor (every
// guard) and as a worker does it (OS memory limits: the typed array
// constructors are not wrapped). It is what a spare costs.
func BenchmarkSetup(b *testing.B) {
	for _, c := range []struct {
		name   string
		worker bool
	}{{"inprocess", false}, {"worker", true}} {
		b.Run(c.name, func(b *testing.B) {
			cfg, err := Config{OSMemoryLimit: c.worker}.WithDefaults()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := newJob(cfg, "", 0).setup(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadyRun is what a run costs once its runtime is set up (the
// spare a run takes): compile, run and export of fact(15), on the
// caller's goroutine. It is the floor of a spaced in-process run, which
// adds the executor's hand-offs.
func BenchmarkReadyRun(b *testing.B) {
	cfg, err := Config{}.WithDefaults()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		j := newJob(cfg, "", 0)
		if err := j.setup(); err != nil {
			b.Fatal(err)
		}
		j.ready = true
		j.code, j.timeout = `function f(n){return n<=1?1:n*f(n-1)} f(15)`, cfg.Limits.Timeout
		b.StartTimer()
		if _, err := j.execute(); err != nil {
			b.Fatal(err)
		}
	}
}
