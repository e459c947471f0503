package jsrt

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// heapMetric counts the bytes of heap objects, live or not yet swept. It is
// cheap to read (about a quarter of a microsecond) and stops no goroutine.
const heapMetric = "/memory/classes/heap/objects:bytes"

// watchdogInterval is how often the heap is polled while runs are active.
const watchdogInterval = 10 * time.Millisecond

// watchdog interrupts runs when the process heap grows past a run's memory
// limit since the run started. Go cannot attribute heap to goroutines, so
// with concurrent runs every run whose limit is passed is interrupted: it
// is a best-effort guard, not an exact limit. Its goroutine runs only
// while there are runs to watch.
type watchdog struct {
	mu      sync.Mutex
	jobs    map[*job]uint64 // the heap when the run started
	running bool
}

func newWatchdog() *watchdog {
	return &watchdog{jobs: map[*job]uint64{}}
}

func HeapBytes() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// add watches j until remove.
func (w *watchdog) add(j *job) {
	base := HeapBytes()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.jobs[j] = base
	if !w.running {
		w.running = true
		go w.loop()
	}
}

func (w *watchdog) remove(j *job) {
	w.mu.Lock()
	delete(w.jobs, j)
	w.mu.Unlock()
}

// over returns the runs whose growth passes their limit at heap h.
func (w *watchdog) over(h uint64) []*job {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []*job
	for j, base := range w.jobs {
		if h > base && int64(h-base) > j.lim.Memory {
			out = append(out, j)
		}
	}
	return out
}

func (w *watchdog) loop() {
	t := time.NewTicker(watchdogInterval)
	defer t.Stop()
	for range t.C {
		w.mu.Lock()
		if len(w.jobs) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		if len(w.over(HeapBytes())) == 0 {
			continue
		}
		// The metric counts garbage not yet swept: collect, then look again,
		// so that a run that only churns is not stopped.
		runtime.GC()
		for _, j := range w.over(HeapBytes()) {
			j.stop(KindMemory, nil)
		}
	}
}
