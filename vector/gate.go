package vector

import (
	"fmt"
	"sync"
)

// Gate tracks a store's calls in flight, for adapters: Close waits for
// them, and calls after it fail with [ErrClosed]. The zero value is open.
type Gate struct {
	mu     sync.RWMutex
	closed bool
}

// Enter starts a call. When it returns nil, [Gate.Exit] must follow; after
// [Gate.Close] it returns an error, prefixed with store's name, that wraps
// [ErrClosed].
func (g *Gate) Enter(store string) error {
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return fmt.Errorf("%s: %w", store, ErrClosed)
	}
	return nil
}

// Exit ends a call [Gate.Enter] started.
func (g *Gate) Exit() { g.mu.RUnlock() }

// Close waits for the calls in flight and closes the gate. It reports
// whether this call closed it, so a store releases what it owns once.
func (g *Gate) Close() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.closed = true
	return true
}
