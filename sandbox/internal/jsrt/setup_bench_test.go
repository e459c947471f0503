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
