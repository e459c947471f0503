package jsrt

import (
	"sync"
	"time"
)

// A runtime's setup (lockdown, the captured built-ins, the allocation
// guards, polyfills, console and kit) is most of a short run's cost. The
// in-process executor therefore sets up runtimes ahead, off the critical
// path: once when it is made, and after each run, the goroutine that ran it
// sets up a spare, which the next run takes. A spare has never run any code
// of a caller, and a runtime is used for one run only, so nothing one run
// does (globals, prototype changes, frozen built-ins) reaches another.

// spares holds the runtimes set up ahead of the runs.
type spares struct {
	ready chan *job // set up, never run

	mu        sync.Mutex
	idle      sync.Cond // signalled when preparing drops to 0
	preparing int       // setups in progress
	closed    bool
	taken     int64 // runs that took a spare (for tests and figures)
}

func newSpares(n int) *spares {
	s := &spares{ready: make(chan *job, n)}
	s.idle.L = &s.mu
	return s
}

// take returns the run's job: a spare when one is ready, else a fresh one
// that execute sets up itself.
func (s *spares) take(cfg *Config, code string, timeout time.Duration) *job {
	select {
	case j := <-s.ready:
		s.mu.Lock()
		s.taken++
		s.mu.Unlock()
		j.code, j.timeout = code, timeout
		return j
	default:
		return newJob(cfg, code, timeout)
	}
}

// prepare sets up one spare unless the spares are closed, or enough are
// ready or being set up. Setup runs no code of a caller, so it ends
// quickly; close waits for it.
func (s *spares) prepare(cfg *Config) {
	s.mu.Lock()
	if s.closed || len(s.ready)+s.preparing >= cap(s.ready) {
		s.mu.Unlock()
		return
	}
	s.preparing++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.preparing--
		if s.preparing == 0 {
			s.idle.Broadcast()
		}
		s.mu.Unlock()
	}()
	j := newJob(cfg, "", 0)
	if err := j.setup(); err != nil {
		return // the run that would have taken it sets up its own, and reports why that failed
	}
	j.ready = true
	select {
	case s.ready <- j:
	default:
	}
}

// close stops the setting up of spares, waits for the setups in progress
// and drops the spares.
func (s *spares) close() {
	s.mu.Lock()
	s.closed = true
	for s.preparing > 0 {
		s.idle.Wait()
	}
	s.mu.Unlock()
	for {
		select {
		case <-s.ready:
		default:
			return
		}
	}
}

// takenCount is how many runs took a spare.
func (s *spares) takenCount() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.taken
}
