package worker

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// callMsg is a worker's tool call, in a reply line.
type callMsg struct {
	Seq   uint64          `json:"seq"`
	Index int             `json:"index"` // the call's number in its run (jsrt.HostSpec)
	Tool  string          `json:"tool"`
	Args  json.RawMessage `json:"args"`
}

// callAnswer is the parent's answer to a tool call, in a request line.
type callAnswer struct {
	Seq    uint64          `json:"seq"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *jsrt.CallError `json:"error,omitempty"`
}

// workerPipe is a worker's side of one run's tool calls: each call is a
// line to the parent and waits for the parent's answer, which the run's
// router hands over.
type workerPipe struct {
	runID   uint64
	send    func(reply) bool
	next    atomic.Uint64
	mu      sync.Mutex
	waiting map[uint64]chan callAnswer
}

// spec offers the request's tools to the run; calls end with ctx.
func (p *workerPipe) spec(ctx context.Context, req request) jsrt.HostSpec {
	lim, err := jsrt.CallLimitsWithDefaults(req.Calls)
	if err != nil {
		lim, _ = jsrt.CallLimitsWithDefaults(jsrt.CallLimits{})
	}
	return jsrt.HostSpec{Names: req.Tools, Limits: lim, Call: func(index int, name string, args json.RawMessage) (json.RawMessage, error) {
		seq := p.next.Add(1)
		ch := make(chan callAnswer, 1)
		p.mu.Lock()
		p.waiting[seq] = ch
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			delete(p.waiting, seq)
			p.mu.Unlock()
		}()
		if !p.send(reply{ID: p.runID, Call: &callMsg{Seq: seq, Index: index, Tool: name, Args: args}}) {
			return nil, jsrt.CallErr(name, jsrt.CallRefused, "the call could not reach the host")
		}
		select {
		case a := <-ch:
			if a.Error != nil {
				return nil, a.Error
			}
			return a.Result, nil
		case <-ctx.Done():
			return nil, jsrt.CallErr(name, jsrt.CallRefused, "the run's time ran out during the call")
		}
	}}
}

// deliver hands an answer to the call waiting for it; answers for other
// runs, or for calls nobody waits for, are dropped.
func (p *workerPipe) deliver(id uint64, a *callAnswer) {
	if id != p.runID {
		return
	}
	p.mu.Lock()
	ch := p.waiting[a.Seq]
	delete(p.waiting, a.Seq)
	p.mu.Unlock()
	if ch != nil {
		ch <- *a
	}
}

// route passes the answers among lines to p until stop is closed; it
// closes routed when it returns. Other lines are dropped: the parent sends
// no new run while one is in flight.
func (p *workerPipe) route(lines <-chan []byte, stop <-chan struct{}, routed chan<- struct{}) {
	defer close(routed)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				return
			}
			var req request
			if json.Unmarshal(line, &req) == nil && req.Answer != nil {
				p.deliver(req.ID, req.Answer)
			}
		case <-stop:
			return
		}
	}
}

// runWithPipe runs a request that offers tools: the calls go to the parent
// through send, and the answers come in from lines.
func runWithPipe(e *jsrt.InProcess, req request, lines <-chan []byte, send func(reply) bool) (*jsrt.Result, error) {
	p := &workerPipe{runID: req.ID, send: send, waiting: map[uint64]chan callAnswer{}}
	stop, routed := make(chan struct{}), make(chan struct{})
	go p.route(lines, stop, routed)
	defer func() {
		close(stop)
		<-routed
	}()
	return e.RunFor(context.Background(), req.Code, req.Limits.Timeout, func(ctx context.Context) jsrt.HostSpec { return p.spec(ctx, req) })
}

// hostCalls is the parent's side of one isolated run's tool calls.
type hostCalls struct {
	tr      *jsrt.ToolRun
	cancel  context.CancelFunc
	running sync.WaitGroup // the calls' goroutines
}

// serve runs a worker's call on its own goroutine and answers it. It
// returns false when the worker passed the run's call limits, which an
// honest worker never does.
func (h *hostCalls) serve(w *worker, id uint64, c *callMsg) bool {
	if !h.tr.Admit() {
		return false
	}
	h.running.Add(1)
	go func() { // ends when the tool does: its context ends with the run
		defer h.running.Done()
		out, err := h.tr.Invoke(c.Index, c.Tool, c.Args)
		h.tr.Done()
		a := &callAnswer{Seq: c.Seq, Result: out}
		if err != nil {
			a.Error, a.Result = jsrt.AsCallError(c.Tool, err), nil
		}
		_ = w.send(request{ID: id, Answer: a}) // a dead worker's run ends anyway
	}()
	return true
}

// end refuses the run's later calls, cancels those running and waits for
// them to end, for at most grace: a tool that ignores its context's end
// is left to finish on its own.
func (h *hostCalls) end(grace time.Duration) {
	if h == nil {
		return
	}
	h.cancel()
	ended := make(chan struct{})
	go func() {
		h.running.Wait()
		close(ended)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-ended:
	case <-t.C:
	}
}
