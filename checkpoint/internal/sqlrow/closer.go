package sqlrow

import "sync"

// Closer is a store's closed state; the zero value is open.
type Closer struct {
	mu     sync.Mutex
	closed bool
}

// Close marks the store closed and runs release once; closing again does
// nothing and returns nil.
func (c *Closer) Close(release func() error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return release()
}

// Closed reports whether Close was called.
func (c *Closer) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}
