package mcp

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// callCtx is the context of one tool call's request. It carries the values
// of the context of the run that made the call, none of that run's
// deadline or cancellation (a call whose run stopped to ask a person
// outlives the run and is answered by its resumption), and ends with its
// own cancel.
//
// It is what context.WithCancel(context.WithoutCancel(ctx)) makes, in one
// object that lives in the call's flight: when the transport keeps no
// request's context once the request returned (see holdsNoContext), a
// callCtx never cancelled serves the flight's next call too, Done channel
// included, so a call allocates no context at all.
type callCtx struct {
	values context.Context // the run's context, for Value only
	rej    *rejection      // the value of rejectionKey, on HTTP
	done   chan struct{}   // closed by cancel

	mu     sync.Mutex
	err    error       // context.Canceled once cancelled
	afters []afterFunc // what AfterFunc registered, run when cancelled
	nextID uint64      // of the AfterFunc registrations
}

// afterFunc is one function registered with callCtx.AfterFunc.
type afterFunc struct {
	id uint64
	f  func()
}

// newCallCtx returns a callCtx not cancelled, with no values yet.
func newCallCtx() *callCtx { return &callCtx{done: make(chan struct{})} }

// Deadline reports no deadline: the call ends with cancel or the
// toolset's timeout.
func (c *callCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done returns the channel that cancel closes.
func (c *callCtx) Done() <-chan struct{} { return c.done }

// Err returns context.Canceled once cancel was called, else nil.
func (c *callCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Value returns the call's rejection record for rejectionKey on HTTP, and
// what the run's context holds for any other key, except the run's own
// cancellation: as with context.WithoutCancel, package context must not
// find the run's cancelCtx through c (it looks it up under a private *int
// key), or context.Cause(c) would report the run's cause and not c's.
func (c *callCtx) Value(key any) any {
	if _, ok := key.(rejectionKey); ok && c.rej != nil {
		return c.rej
	}
	if c.values == nil {
		return nil
	}
	v := c.values.Value(key)
	if _, intKey := key.(*int); intKey && v != nil && reflect.TypeOf(v).String() == "*context.cancelCtx" {
		return nil
	}
	return v
}

// AfterFunc arranges for f to run in its own goroutine once c is
// cancelled, as context.AfterFunc does: contexts derived from c (net/http
// derives one for every request) register with it rather than start a
// goroutine each to watch Done.
func (c *callCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		go f()
		return func() bool { return false }
	}
	c.nextID++
	id := c.nextID
	c.afters = append(c.afters, afterFunc{id: id, f: f})
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, a := range c.afters {
			if a.id == id {
				c.afters = slices.Delete(c.afters, i, i+1)
				return true
			}
		}
		return false
	}
}

// cancel ends the call: Done closes, Err reports context.Canceled, and
// the functions registered with AfterFunc start.
func (c *callCtx) cancel() {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = context.Canceled
	close(c.done)
	afters := c.afters
	c.afters = nil
	c.mu.Unlock()
	for _, a := range afters {
		go a.f()
	}
}

// reusable reports whether c may serve another call: it was never
// cancelled and no derived context still waits on it.
func (c *callCtx) reusable() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err == nil && len(c.afters) == 0
}

// holdsNoContext reports whether the transport t is known to keep no
// request's context once the request returned: the SDK's in-memory and
// stdio transports use it only while writing. The streamable HTTP
// transport reads a call's event stream in a goroutine that holds the
// call's context, and other transports are not known, so their calls get
// a fresh context each.
func holdsNoContext(t sdk.Transport) bool {
	switch t.(type) {
	case *sdk.InMemoryTransport, *sdk.CommandTransport, *sdk.IOTransport, *sdk.StdioTransport:
		return true
	}
	return false
}
