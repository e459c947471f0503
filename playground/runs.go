package playground

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/spec"
)

// run is one run the page started, kept by the server: its events so far,
// and the questions it waits for.
type run struct {
	agent agent.Agent
	// project is the version of the file whose agent runs: it stays open
	// while the run may still go on.
	project *spec.Project
	// stored marks a run read back from the checkpoint store, which
	// another process (or this server before a restart) ran.
	stored bool

	mu      sync.Mutex
	id      string
	status  string // running, waiting, stopped (its process died), done, failed; moved once replaced by its stored view
	events  []eventView
	pending []agent.Question
	output  json.RawMessage
	err     string
	idReady chan struct{}
	head    int64 // a stored or waiting run's head checkpoint when read
	// session is the conversation a stored run is a turn of, or "".
	session string
	// created is when the run started: the page lists runs in this order,
	// which a restarted server reads back from the run's first checkpoint.
	created time.Time
	// started holds when each run began, for the durations of the trace.
	started map[string]time.Time
}

// eventView is an event as the page shows it.
type eventView struct {
	Kind   string          `json:"kind"`
	RunID  string          `json:"run_id"`
	Parent string          `json:"parent,omitempty"`
	Agent  string          `json:"agent"`
	Text   string          `json:"text,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
	Err    string          `json:"error,omitempty"`
	// DurationMS is how long a run took, on its end.
	DurationMS *int64 `json:"duration_ms,omitempty"`
}

func viewOf(ev agent.Event) (eventView, bool) {
	v := eventView{RunID: ev.RunID, Parent: ev.ParentID, Agent: ev.Agent}
	switch ev.Kind {
	case agent.EventRunStart:
		v.Kind, v.Data = "start", ev.Input
	case agent.EventTextDelta:
		v.Kind, v.Text = "text", ev.Text
	case agent.EventToolCall:
		v.Kind, v.Tool, v.Data = "tool_call", ev.ToolCall.Name, ev.ToolCall.Arguments
	case agent.EventToolResult:
		v.Kind, v.Tool, v.Data = "tool_result", ev.ToolResult.Name, ev.ToolResult.Content
	case agent.EventInterrupt:
		v.Kind, v.Data = "question", ev.Question.Payload
	case agent.EventRunEnd:
		v.Kind, v.Data = "end", ev.Output
		if ev.Err != nil {
			v.Err = ev.Err.Error()
		}
	default:
		return v, false
	}
	return v, true
}

// follow records a stream in the background. It returns once the root
// run's id is known. head reads the run's head checkpoint, noted when the
// run stops to wait: another process may answer it, and the page then
// reads it again (Server.refresh).
func (r *run) follow(stream iter.Seq2[agent.Event, error], wg *sync.WaitGroup, head func(runID string) int64) {
	r.mu.Lock()
	r.status = "running"
	r.pending = nil
	r.mu.Unlock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		var runErr error
		// root is this stream's root run: the run itself, or a new run that
		// continues it (a graph resumed from its checkpoint).
		root := ""
		for ev, err := range stream {
			r.mu.Lock()
			if ev.Kind == agent.EventRunStart && root == "" {
				root = ev.RunID
				if r.id == "" {
					r.id = ev.RunID
					if !ev.Time.IsZero() {
						r.created = ev.Time
					}
					close(r.idReady)
				}
			}
			if v, ok := viewOf(ev); ok && !ev.Replayed {
				r.timed(ev, &v)
				r.events = append(r.events, v)
			}
			if ev.Kind == agent.EventRunEnd && ev.RunID == root {
				r.output = ev.Output
			}
			r.mu.Unlock()
			if err != nil {
				runErr = err
			}
		}
		var ie *agent.InterruptedError
		waits := errors.As(runErr, &ie)
		var seq int64
		if waits && root != "" {
			seq = head(root)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		switch {
		case runErr == nil:
			r.status = "done"
		case waits:
			r.status, r.pending, r.head = "waiting", ie.Questions, seq
		case errors.Is(runErr, engine.ErrAlreadyResumed) || errors.Is(runErr, engine.ErrRunEnded):
			// Another process answered first and runs it: the page reads
			// it from the store again (Server.find), as a run of another
			// process. Its project was released with the stream's end.
			r.status, r.stored, r.head, r.project = "running", true, -1, nil
		default:
			r.status, r.err = "failed", runErr.Error()
		}
		if r.id == "" {
			close(r.idReady)
		}
	}()
	<-r.idReady
}

// timed notes when a run starts and sets the duration on its end.
func (r *run) timed(ev agent.Event, v *eventView) {
	if ev.Time.IsZero() {
		return
	}
	switch ev.Kind {
	case agent.EventRunStart:
		if r.started == nil {
			r.started = map[string]time.Time{}
		}
		r.started[ev.RunID] = ev.Time
	case agent.EventRunEnd:
		if t0, ok := r.started[ev.RunID]; ok {
			ms := ev.Time.Sub(t0).Milliseconds()
			v.DurationMS = &ms
			delete(r.started, ev.RunID)
		}
	}
}

type runView struct {
	ID      string           `json:"id"`
	Agent   string           `json:"agent"`
	Status  string           `json:"status"`
	Events  []eventView      `json:"events"`
	Pending []agent.Question `json:"pending"`
	Output  json.RawMessage  `json:"output,omitempty"`
	Error   string           `json:"error,omitempty"`
}

func (r *run) view(after int) runView {
	r.mu.Lock()
	defer r.mu.Unlock()
	after = min(max(after, 0), len(r.events))
	return runView{ID: r.id, Agent: r.agent.Info().Name, Status: r.status, Events: append([]eventView{}, r.events[after:]...),
		Pending: append([]agent.Question{}, r.pending...), Output: r.output, Error: r.err}
}

func (s *Server) postRun(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Agent string          `json:"agent"`
		Input json.RawMessage `json:"input"`
	}
	body, err := readBody(w, r, 1<<20)
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, "want {agent, input}: "+err.Error(), http.StatusBadRequest)
		return
	}
	a, p := s.hold(req.Agent)
	if a == nil {
		http.Error(w, "no agent "+req.Agent, http.StatusNotFound)
		return
	}
	if s.untrusted(w, p) {
		s.release(p)
		return
	}
	rn := &run{agent: a, project: p, idReady: make(chan struct{}), created: time.Now()}
	// The run belongs to the server: it goes on when the page is closed.
	rn.follow(s.releasing(p, s.cfg.Engine.Run(s.ctx, a, req.Input)), &s.wg, s.headSeq)
	s.mu.Lock()
	s.runs[rn.id] = rn
	s.order = append(s.order, rn.id)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]string{"id": rn.id})
}

func (s *Server) find(id string) *run {
	s.mu.Lock()
	rn := s.runs[id]
	s.mu.Unlock()
	switch {
	case rn == nil:
		s.sync(s.ctx)
	case rn.isStored() || rn.isWaiting():
		// Another process may have moved it: loom resume, another server.
		s.refresh(s.ctx, rn)
	default:
		return rn
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[id]
}

func (r *run) startedAt() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.created
}

// isWaiting reports whether the run waits for answers here: no goroutine
// of this server runs it.
func (r *run) isWaiting() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status == "waiting"
}

// headSeq returns run runID's head checkpoint, or 0 when it cannot be read.
func (s *Server) headSeq(runID string) int64 {
	head, err := s.cfg.Engine.Checkpoints().Head(s.ctx, runID)
	if err != nil {
		return 0
	}
	return head.Seq
}

func (r *run) isStored() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stored
}

// refresh reads a stored run, or one that waits here, again when another
// process moved it, and puts the fresh view in its place. A replaced run
// that waited here gives up its hold on its project.
func (s *Server) refresh(ctx context.Context, rn *run) {
	head, err := s.cfg.Engine.Checkpoints().Head(ctx, rn.id)
	rn.mu.Lock()
	same := err != nil || head.Seq == rn.head
	rn.mu.Unlock()
	if same {
		return
	}
	fresh, err := s.readStored(ctx, rn.agent, checkpoint.RunInfo{RunID: rn.id, Head: head.Seq, Kind: head.Kind, Meta: head.Meta})
	if err != nil {
		return
	}
	// The old view is retired only while no one here runs it: an answer
	// posted meanwhile wins, and one posted after finds it moved.
	rn.mu.Lock()
	retire := rn.stored || rn.status == "waiting"
	var p *spec.Project
	if retire {
		rn.status, p = "moved", rn.project
		fresh.created = rn.created
	}
	rn.mu.Unlock()
	if !retire {
		return
	}
	s.mu.Lock()
	if s.runs[rn.id] == rn {
		s.runs[rn.id] = fresh
	}
	s.mu.Unlock()
	if p != nil {
		s.release(p)
	}
}

// storedRuns is the most runs the page lists from the checkpoint store.
const storedRuns = 200

// sync reads the runs of the checkpoint store that the page lists and
// this server is not running: runs a restarted server or loom run left
// waiting, stopped or ended, with their recorded events. A run it read
// before is read again, since another process may have resumed it.
func (s *Server) sync(ctx context.Context) {
	store := s.cfg.Engine.Checkpoints()
	infos, err := store.Runs(ctx, checkpoint.RunFilter{Meta: s.cfg.Labels, Limit: storedRuns})
	if err != nil {
		return
	}
	slices.Reverse(infos) // oldest first, as the page's own runs
	for _, info := range infos {
		s.mu.Lock()
		known := s.runs[info.RunID]
		s.mu.Unlock()
		if known != nil && !known.isStored() {
			continue // this server runs it, and knows better
		}
		if known != nil {
			known.mu.Lock()
			same := known.head == info.Head
			known.mu.Unlock()
			if same {
				continue
			}
		}
		a := s.agent(info.Meta["agent"])
		if a == nil {
			continue // not an agent of this file
		}
		rn, err := s.readStored(ctx, a, info)
		if err != nil {
			continue
		}
		s.mu.Lock()
		if cur := s.runs[info.RunID]; cur == nil || cur == known {
			if cur == nil {
				s.order = append(s.order, info.RunID)
			}
			s.runs[info.RunID] = rn
		}
		s.mu.Unlock()
	}
}

// readStored rebuilds the page's view of a stored run from its
// checkpoints.
func (s *Server) readStored(ctx context.Context, a agent.Agent, info checkpoint.RunInfo) (*run, error) {
	cps, err := s.cfg.Engine.Checkpoints().List(ctx, info.RunID)
	if err != nil {
		return nil, err
	}
	rn := &run{agent: a, stored: true, id: info.RunID, head: info.Head, created: info.Created, session: info.Meta[engine.MetaSession],
		idReady: make(chan struct{})}
	close(rn.idReady)
	var end agent.Event
	for _, cp := range cps {
		var evs []agent.Event
		if len(cp.Events) > 0 && json.Unmarshal(cp.Events, &evs) != nil {
			return nil, fmt.Errorf("run %s: checkpoint %d holds no events", info.RunID, cp.Seq)
		}
		for _, ev := range evs {
			if v, ok := viewOf(ev); ok {
				rn.timed(ev, &v)
				rn.events = append(rn.events, v)
			}
			if ev.Kind == agent.EventRunEnd && ev.RunID == info.RunID {
				end = ev
			}
		}
	}
	switch info.Kind {
	case engine.CheckpointInterrupt:
		qs, err := s.cfg.Engine.Pending(ctx, info.RunID)
		if err != nil {
			return nil, err
		}
		rn.status, rn.pending = "waiting", qs
	case engine.CheckpointEnd:
		rn.status, rn.output = "done", end.Output
		if info.Meta["status"] == "failed" {
			rn.status = "failed"
			if end.Err != nil {
				rn.err = end.Err.Error()
			}
		}
	default:
		rn.status = "stopped"
	}
	return rn, nil
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	s.sync(r.Context())
	s.mu.Lock()
	ids := append([]string{}, s.order...)
	s.mu.Unlock()
	runs := make([]*run, 0, len(ids))
	for _, id := range ids {
		if rn := s.find(id); rn != nil {
			runs = append(runs, rn)
		}
	}
	// In the order they started, as a restarted server lists them too:
	// not in the order the store last updated them.
	slices.SortStableFunc(runs, func(a, b *run) int { return a.startedAt().Compare(b.startedAt()) })
	out := make([]runView, 0, len(runs))
	for _, rn := range runs {
		v := rn.view(0)
		v.Events = nil
		out = append(out, v)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	rn := s.find(r.PathValue("id"))
	if rn == nil {
		http.Error(w, "no such run", http.StatusNotFound)
		return
	}
	var after int
	_ = json.Unmarshal([]byte(r.URL.Query().Get("after")), &after)
	writeJSON(w, http.StatusOK, rn.view(after))
}

// postAnswers resumes a waiting run with the page's answers.
func (s *Server) postAnswers(w http.ResponseWriter, r *http.Request) {
	rn := s.find(r.PathValue("id"))
	if rn == nil {
		http.Error(w, "no such run", http.StatusNotFound)
		return
	}
	var answers map[string]json.RawMessage
	body, err := readBody(w, r, 1<<20)
	if err == nil {
		err = json.Unmarshal(body, &answers)
	}
	if err != nil {
		http.Error(w, "want {question id: answer}: "+err.Error(), http.StatusBadRequest)
		return
	}
	rn.mu.Lock()
	// A stopped run (its process died) is resumed with no answers.
	waiting := rn.status == "waiting" || rn.status == "stopped"
	bad := checkAnswers(rn.pending, answers)
	session := rn.session
	if waiting && bad == nil && session != "" && s.cfg.Sessions == nil {
		rn.mu.Unlock()
		http.Error(w, "run "+rn.id+" is a turn of session "+session+", and this playground has no session store (playground.Config.Sessions): answer it where the conversation is kept, as loom resume "+rn.id, http.StatusConflict)
		return
	}
	a, p := rn.agent, rn.project
	if waiting && bad == nil && p == nil {
		// A run read back from the store goes on with the file's current
		// version, held like a run started here.
		a, p = s.hold(rn.agent.Info().Name)
		if a == nil {
			rn.mu.Unlock()
			http.Error(w, "the file no longer declares the run's agent "+rn.agent.Info().Name+": restore it to resume the run", http.StatusConflict)
			return
		}
		rn.agent, rn.project = a, p
	}
	if waiting && bad == nil {
		rn.status = "running"
		rn.stored = false // this server runs it now
	}
	rn.mu.Unlock()
	switch {
	case !waiting:
		http.Error(w, "the run is not waiting for answers", http.StatusConflict)
		return
	case bad != nil:
		// Checked here, so that a wrong answer leaves the run waiting.
		http.Error(w, bad.Error(), http.StatusUnprocessableEntity)
		return
	}
	stream, err := s.resumeStream(a, rn.id, session, answers)
	if err != nil {
		// Nothing ran: the run still waits, as the store says.
		s.release(p)
		rn.mu.Lock()
		rn.status, rn.stored = "waiting", true
		rn.mu.Unlock()
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	rn.follow(s.releasing(p, stream), &s.wg, s.headSeq)
	writeJSON(w, http.StatusAccepted, map[string]string{"id": rn.id})
}

// resumeStream resumes run id of a with answers: a turn of a session
// through its session, so that the model sees the conversation and the
// turn is remembered once; any other run through the engine.
func (s *Server) resumeStream(a agent.Agent, id, session string, answers map[string]json.RawMessage) (iter.Seq2[agent.Event, error], error) {
	if session == "" {
		return s.cfg.Engine.Resume(s.ctx, a, id, answers), nil
	}
	mem, err := engine.NewStored(s.cfg.Sessions, session)
	if err != nil {
		return nil, err
	}
	return s.cfg.Engine.NewSession(a, mem).Resume(s.ctx, id, answers), nil
}

// checkAnswers checks each answer against the pending question it answers.
func checkAnswers(pending []agent.Question, answers map[string]json.RawMessage) error {
	for id, a := range answers {
		i := slices.IndexFunc(pending, func(q agent.Question) bool { return q.ID == id })
		if i < 0 {
			return fmt.Errorf("the run asks no question %q", id)
		}
		if err := agentrt.CheckAnswer(pending[i], a); err != nil {
			return err
		}
	}
	return nil
}
