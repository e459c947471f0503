package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
)

// Toolset is the tools of one MCP server as loom agents: an
// [agent.Toolset] for [agent.AIConfig.Toolsets]. It keeps one session to
// the server, dialled again when the server restarted. It is safe for
// concurrent use; Close ends the session (and the server's process).
type Toolset struct {
	cfg     Config
	newT    func() sdk.Transport
	client  *sdk.Client
	timeout time.Duration
	// answerTimeout bounds the wait of a parked call for its run's answer.
	answerTimeout time.Duration

	dialMu sync.Mutex   // serialises dialling: concurrent failures dial once
	free   chan *flight // flights ended and held by nobody, for the next calls
	work   chan *flight // calls for idle workers
	idle   atomic.Int32 // workers waiting on work

	mu       sync.Mutex
	conn     *conn
	closed   bool
	tools    []agent.Agent
	byWire   map[string]string // wire name -> name on the server
	stale    bool              // the server's tool list changed since it was read
	lists    int               // tools/list calls made, for tests
	calls    map[int64]*call   // in-flight calls by progress token
	callSeq  int64
	parked   map[string]*flight // calls whose run stopped to ask a person, by run id
	serving  int                // server requests being answered (elicitation, sampling)
	sampling int                // of those, sampling requests, which name no call
	drained  chan struct{}      // closed when serving drops to zero during Shutdown
	workers  int                // workers running (see launch)
	// workersGone is closed when the last worker ended during Shutdown.
	workersGone chan struct{}

	// life ends when Shutdown begins: server requests still being answered
	// fail at once. finished is closed when Shutdown stopped waiting.
	life     context.Context
	endLife  context.CancelFunc
	finished chan struct{}
}

// ProtocolVersion is the MCP version the client asks for. It is the latest
// released one: the SDK's default, a draft, opens every connection with a
// server/discover request that released servers refuse, a wasted round trip.
const ProtocolVersion = "2025-11-25"

// conn is one session and the signal that it ended.
type conn struct {
	cs      *sdk.ClientSession
	gone    chan struct{} // closed when the session ended
	ctxFree bool          // its transport holds no request's context once it returned
}

// ended reports whether c's session is over.
func (c *conn) ended() bool {
	select {
	case <-c.gone:
		return true
	default:
		return false
	}
}

// Connect dials the server cfg describes and returns its tools as a
// toolset. ctx bounds the dial only.
func Connect(ctx context.Context, cfg Config) (*Toolset, error) {
	newT, err := cfg.transport()
	if err != nil {
		return nil, err
	}
	ts := &Toolset{cfg: cfg, newT: newT, timeout: cfg.Timeout, stale: true, calls: map[int64]*call{}, parked: map[string]*flight{}, finished: make(chan struct{}),
		free: make(chan *flight, freeFlights), work: make(chan *flight)}
	ts.life, ts.endLife = context.WithCancel(context.Background())
	if ts.timeout == 0 {
		ts.timeout = DefaultTimeout
	}
	ts.answerTimeout = cfg.AnswerTimeout
	if ts.answerTimeout == 0 {
		ts.answerTimeout = DefaultAnswerTimeout
	}
	opts := &sdk.ClientOptions{
		ToolListChangedHandler:      func(context.Context, *sdk.ToolListChangedRequest) { ts.markStale() },
		ProgressNotificationHandler: ts.onProgress,
	}
	if !cfg.NoElicitation {
		opts.ElicitationHandler = ts.onElicit
	}
	if cfg.Sampling != nil {
		//lint:ignore SA1019 sampling stays in the protocol during its deprecation window, and the issue asks for it.
		opts.CreateMessageHandler = ts.onSample
	}
	ts.client = sdk.NewClient(&sdk.Implementation{Name: "loom", Version: "1"}, opts)
	if _, err := ts.dial(ctx, nil); err != nil {
		ts.endLife()
		return nil, err
	}
	return ts, nil
}

// dial returns the current session, or dials a new one when there is none,
// it ended, or it is the failed one the caller saw. Concurrent callers that
// saw the same failure dial once.
func (ts *Toolset) dial(ctx context.Context, failed *conn) (*conn, error) {
	ts.mu.Lock()
	c, closed := ts.conn, ts.closed
	ts.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if c != nil && c != failed && !c.ended() {
		return c, nil
	}
	ts.dialMu.Lock()
	defer ts.dialMu.Unlock()
	ts.mu.Lock()
	c, closed = ts.conn, ts.closed
	ts.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if c != nil && c != failed && !c.ended() {
		return c, nil
	}
	if c != nil {
		_ = c.cs.Close() // the old session is over; its error says nothing new
		<-c.gone
	}
	if cc, ok := ctx.(*callCtx); ok {
		// A session keeps the context it was dialled with, for the values
		// of the requests it receives: not a call's, which its flight
		// reuses for the next call. The dial still ends with the call.
		dctx, cancel := context.WithCancel(context.WithoutCancel(cc.values))
		defer cancel()
		defer context.AfterFunc(cc, cancel)()
		ctx = dctx
	}
	t := ts.newT()
	cs, err := ts.client.Connect(ctx, t, &sdk.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrConnection, ts.where(), err)
	}
	nc := &conn{cs: cs, gone: make(chan struct{}), ctxFree: holdsNoContext(t)}
	go func() {
		_ = cs.Wait() // the end of a session is seen by the calls that use it
		close(nc.gone)
	}()
	ts.mu.Lock()
	ts.conn, ts.stale = nc, true
	ts.mu.Unlock()
	return nc, nil
}

// where names the server for error messages.
func (ts *Toolset) where() string {
	switch {
	case ts.cfg.URL != "":
		return ts.cfg.URL
	case len(ts.cfg.Command) > 0:
		return fmt.Sprintf("command %q", ts.cfg.Command[0])
	default:
		return "server"
	}
}

// markStale makes the next Tools read the list again.
func (ts *Toolset) markStale() {
	ts.mu.Lock()
	ts.stale = true
	ts.mu.Unlock()
}

// Tools returns the server's tools as agents, read again after the server
// announced a change or a new session began.
func (ts *Toolset) Tools(ctx context.Context) ([]agent.Agent, error) {
	ts.mu.Lock()
	if !ts.stale && ts.tools != nil {
		tools := ts.tools
		ts.mu.Unlock()
		return tools, nil
	}
	ts.mu.Unlock()
	c, err := ts.dial(ctx, nil)
	if err != nil {
		return nil, err
	}
	rej := new(rejection)
	listed, err := ts.list(context.WithValue(ctx, rejectionKey{}, rej), c)
	if err != nil && (gone(err) || rej.Load() || c.ended()) {
		if c, err = ts.dial(ctx, c); err == nil {
			listed, err = ts.list(ctx, c)
		}
	}
	if err != nil {
		return nil, err
	}
	return listed, nil
}

// list reads the tool list over c and caches it.
func (ts *Toolset) list(ctx context.Context, c *conn) ([]agent.Agent, error) {
	ts.mu.Lock()
	ts.stale = false // a change announced from now on marks the new list stale
	ts.lists++
	ts.mu.Unlock()
	var tools []agent.Agent
	byWire := map[string]string{}
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			ts.markStale()
			return nil, fmt.Errorf("mcp: %s: list tools: %w", ts.where(), err)
		}
		if ts.cfg.Filter != nil && !ts.cfg.Filter(t.Name) {
			continue
		}
		tl, err := ts.newTool(t)
		if err != nil {
			return nil, err
		}
		if prev, dup := byWire[tl.wire]; dup {
			return nil, fmt.Errorf("mcp: %s: tools %q and %q are both offered as %q: filter one out", ts.where(), prev, t.Name, tl.wire)
		}
		byWire[tl.wire] = t.Name
		tools = append(tools, tl)
	}
	if ir := c.cs.InitializeResult(); ts.cfg.Resources && ir != nil && ir.Capabilities != nil && ir.Capabilities.Resources != nil {
		for _, rt := range ts.resourceTools() {
			if prev, dup := byWire[rt.Info().Name]; dup {
				return nil, fmt.Errorf("mcp: %s: the server's tool %q is offered as %q, the name of loom's resource tool: filter it out or drop Resources", ts.where(), prev, rt.Info().Name)
			}
			tools = append(tools, rt)
		}
	}
	if tools == nil {
		tools = []agent.Agent{}
	}
	ts.mu.Lock()
	ts.tools, ts.byWire = tools, byWire
	ts.mu.Unlock()
	return tools, nil
}

// Original returns the server's name of the tool offered as wire, from the
// last tool list read.
func (ts *Toolset) Original(wire string) (string, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	n, ok := ts.byWire[wire]
	return n, ok
}

// newTool makes the agent for t.
func (ts *Toolset) newTool(t *sdk.Tool) (*tool, error) {
	in, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("mcp: %s: tool %q: encode its input schema: %w", ts.where(), t.Name, err)
	}
	tl := &tool{ts: ts, name: t.Name, wire: wireName(ts.cfg.Prefix, t.Name), desc: t.Description, in: in, out: json.RawMessage(messageSchema)}
	if t.OutputSchema != nil {
		out, err := json.Marshal(t.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("mcp: %s: tool %q: encode its output schema: %w", ts.where(), t.Name, err)
		}
		tl.out, tl.structured = out, true
	}
	if tl.desc == "" && t.Title != "" {
		tl.desc = t.Title
	}
	if a := t.Annotations; a != nil {
		tl.retryable = a.IdempotentHint || a.ReadOnlyHint
	}
	tl.bodyFn = tl.body
	return tl, nil
}

// messageSchema is the output schema of a tool without its own.
const messageSchema = `{"type":"object","properties":{"message":{"type":"string"}}}`

// gone reports whether err says the session is over.
func gone(err error) bool {
	return errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, sdk.ErrSessionMissing)
}

// park keeps f, whose run stopped to ask a person, for the run's
// resumption. Left unresumed for Config.AnswerTimeout, its question fails
// and the call ends.
func (ts *Toolset) park(runID string, f *flight) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		// Shutdown is under way: the question fails now, and the call is
		// left to end on its own (the server hears the failure) until
		// Shutdown stops waiting.
		f.pending.reply <- elicitAnswer{err: errNoAnswer}
		f.c.parked = true
		go ts.settle(f)
		return
	}
	if old := ts.parked[runID]; old != nil { // cannot happen: a run waits in one call
		old.timer.Stop()
		old.pending.reply <- elicitAnswer{err: errNoAnswer}
		old.ctx.cancel()
	}
	f.c.parked = true
	ts.parked[runID] = f
	f.timer = time.AfterFunc(ts.answerTimeout, func() {
		ts.mu.Lock()
		mine := ts.parked[runID] == f
		if mine {
			delete(ts.parked, runID)
		}
		ts.mu.Unlock()
		if mine {
			f.pending.reply <- elicitAnswer{err: fmt.Errorf("%w within %v", errNoAnswer, ts.answerTimeout)}
			go ts.settle(f)
		}
	})
}

// unpark takes the call parked for the run runID of the tool named name.
func (ts *Toolset) unpark(runID, name string) *flight {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	f := ts.parked[runID]
	if f == nil || f.tool != name {
		return nil
	}
	delete(ts.parked, runID)
	f.c.parked = false
	f.timer.Stop()
	return f
}
