package playground

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"sync"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/config"
	"github.com/loomwork/loom/internal/localweb"
	"github.com/loomwork/loom/spec"
)

//go:embed ui/index.html
var indexHTML []byte

// Config configures a [Server].
type Config struct {
	// Path is the loom/v1 file served; it is rewritten when the page saves
	// a valid version.
	Path string
	// Registry lends the file its models, tools and sandbox.
	Registry spec.Registry
	// Engine runs the agents; it needs a checkpoint store
	// (engine.Config.Checkpoints) so runs can wait for approvals.
	Engine *engine.Engine
	// Token is the session token; empty makes a random one.
	Token string
	// Options are how the file is read and checked (spec.Validate): its
	// root, read limit and default model.
	Options spec.Options
	// Grants, when set, gate runs: a file that starts commands or reaches
	// URLs (its mcp entries) runs only once the user trusted them; the
	// page shows them and asks. Nil runs every file.
	Grants Grants
	// Labels select the runs of the engine's checkpoint store the page
	// lists beside the ones this server started: runs another server (or
	// this one before a restart) or loom run left waiting, finished or
	// stopped. loom serve passes the labels its engine puts on every run
	// (engine.Config.Labels), so the page lists the runs of its file. Nil
	// lists every stored run of an agent the file declares.
	Labels map[string]string
	// Sessions is the session store of the conversations whose turns the
	// page may list (a loom run --chat turn waiting for approval): a turn
	// answered from the page is resumed through its session, so the model
	// sees the conversation and the turn is remembered once. Nil refuses
	// to answer such a turn, saying so.
	Sessions checkpoint.SessionStore
}

// Server is the playground over one file.
type Server struct {
	cfg   Config
	token string

	ctx    context.Context // runs' context, cancelled by Close
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup // the runs' goroutines

	mu      sync.Mutex
	project *spec.Project
	// retired are projects a Save replaced while runs still used them;
	// users counts the runs of each project that may still run its agents
	// (going, or waiting for an answer). A retired project is closed, its
	// sandboxes and processes stopped, when its last run ends.
	retired map[*spec.Project]bool
	users   map[*spec.Project]int
	runs    map[string]*run
	order   []string
}

// ErrNoCheckpoints is returned by [New] for an engine without a checkpoint
// store: runs could not wait for approvals.
var ErrNoCheckpoints = errors.New("playground: the engine has no checkpoint store: use engine.Config.Checkpoints")

// New loads the file and returns the server. An invalid file is an error:
// the page edits a file that loaded once.
func New(cfg Config) (*Server, error) {
	if err := config.Check("playground.Config", cfg); err != nil {
		return nil, fmt.Errorf("%w: playground: %w", agent.ErrInvalidConfig, err)
	}
	if cfg.Engine == nil || cfg.Engine.Checkpoints() == nil {
		return nil, ErrNoCheckpoints
	}
	p, err := spec.LoadWith(cfg.Path, cfg.Registry, cfg.Options)
	if err != nil {
		return nil, err
	}
	tok := cfg.Token
	if tok == "" {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		tok = hex.EncodeToString(b)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	return &Server{cfg: cfg, token: tok, project: p, retired: map[*spec.Project]bool{}, users: map[*spec.Project]int{},
		runs: map[string]*run{}, ctx: ctx, cancel: cancel}, nil
}

// Token returns the session token the page's URL carries.
func (s *Server) Token() string { return s.token }

// Close cancels the runs still going, waits for them to end, and stops
// what the loaded file started (its sandboxes). The runs are cancelled as
// the process stopping ([engine.ErrShutdown]), not ended: a server started
// again lists them as stopped, and loom resume --continue (or
// [engine.Engine.Resume] with no answers) finishes them.
func (s *Server) Close() error {
	s.cancel(engine.ErrShutdown)
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	errs := []error{s.project.Close()}
	for p := range s.retired {
		errs = append(errs, p.Close())
	}
	clear(s.retired)
	return errors.Join(errs...)
}

// Handler returns the page and its API, behind the local-web guard the
// trace viewer uses too: every request must carry the token as ?token=…
// (the page passes it on to its API calls) and name a loopback host; a
// request from another origin's page is refused, and so is a
// state-changing one whose body is not application/json.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /api/project", s.getProject)
	mux.HandleFunc("PUT /api/yaml", s.putYAML)
	mux.HandleFunc("POST /api/runs", s.postRun)
	mux.HandleFunc("GET /api/runs", s.listRuns)
	mux.HandleFunc("GET /api/runs/{id}", s.getRun)
	mux.HandleFunc("POST /api/runs/{id}/answers", s.postAnswers)
	mux.HandleFunc("POST /api/trust", s.postTrust)
	guarded := localweb.Guard(mux, localweb.Config{Token: s.token,
		TokenHint: "open the URL loom serve printed, with its token", OpenHint: "open the URL loom serve printed"})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		guarded.ServeHTTP(w, r)
	})
}

func (s *Server) page(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")
	_, _ = w.Write(indexHTML)
}

// projectView is what the page shows of the file.
type projectView struct {
	Path   string      `json:"path"`
	YAML   string      `json:"yaml"`
	Entry  string      `json:"entry"`
	Agents []agentView `json:"agents"`
	Errors []errorView `json:"errors"`
	// Reaches are the commands the file starts and the URLs it reaches;
	// Trusted whether the user trusted them.
	Reaches []string `json:"reaches"`
	Trusted bool     `json:"trusted"`
}

type agentView struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Uses        []string        `json:"uses"`
	// Graph is a graph entry's nodes and edges, for the graph view.
	Graph *graphView `json:"graph,omitempty"`
}

type errorView struct {
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Path string `json:"path"`
	Msg  string `json:"msg"`
}

func (s *Server) view() (projectView, error) {
	// The file is shown as read: a regular file, bounded like the files
	// it names.
	limit := int64(spec.DefaultMaxFileBytes)
	if s.cfg.Options.MaxFileBytes > 0 {
		limit = s.cfg.Options.MaxFileBytes
	}
	if st, err := os.Stat(s.cfg.Path); err != nil {
		return projectView{}, err
	} else if !st.Mode().IsRegular() || st.Size() > limit {
		return projectView{}, fmt.Errorf("%s is not a regular file of at most %d bytes", s.cfg.Path, limit)
	}
	src, err := os.ReadFile(s.cfg.Path)
	if err != nil {
		return projectView{}, err
	}
	s.mu.Lock()
	p := s.project
	s.mu.Unlock()
	v := projectView{Path: s.cfg.Path, YAML: string(src), Entry: p.Doc.File.Entry, Errors: []errorView{}}
	if v.Reaches, v.Trusted, err = s.reaches(p); err != nil {
		return projectView{}, err
	}
	for _, e := range p.Doc.Agents {
		a := p.Agent(e.Name)
		if a == nil {
			// An mcp entry is a set of tools, drawn but not run.
			v.Agents = append(v.Agents, agentView{Name: e.Name, Type: e.Type, Uses: e.Uses()})
			continue
		}
		info := a.Info()
		v.Agents = append(v.Agents, agentView{Name: e.Name, Type: e.Type, Description: info.Description, InputSchema: info.InputSchema, Uses: e.Uses(), Graph: graphOf(e)})
	}
	return v, nil
}

func (s *Server) getProject(w http.ResponseWriter, _ *http.Request) {
	v, err := s.view()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// putYAML checks the page's text ({"yaml": TEXT}) like the loader does
// and, when it is valid, writes it to the file and reloads the agents.
// Otherwise it answers 422 with every error, and the file is left alone.
func (s *Server) putYAML(w http.ResponseWriter, r *http.Request) {
	var req struct {
		YAML *string `json:"yaml"`
	}
	body, err := readBody(w, r, 1<<20)
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err == nil && req.YAML == nil {
		err = errors.New("no yaml field")
	}
	if err != nil {
		http.Error(w, "want {\"yaml\": TEXT}: "+err.Error(), http.StatusBadRequest)
		return
	}
	src := []byte(*req.YAML)
	p, err := s.load(src)
	if err != nil {
		var errs spec.Errors
		if !errors.As(err, &errs) {
			errs = spec.Errors{{Msg: err.Error()}}
		}
		out := make([]errorView, len(errs))
		for i, e := range errs {
			msg := e.Msg
			if e.Hint != "" {
				msg += "; " + e.Hint
			}
			out[i] = errorView{Line: e.Line, Col: e.Col, Path: e.Path, Msg: msg}
		}
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"errors": out})
		return
	}
	if err := os.WriteFile(s.cfg.Path, src, 0o644); err != nil {
		_ = p.Close()
		http.Error(w, fmt.Sprintf("cannot save %s: %v", s.cfg.Path, err), http.StatusInternalServerError)
		return
	}
	s.mu.Lock()
	old := s.project
	s.project = p
	s.mu.Unlock()
	// Runs still going (or waiting) use the old agents: the old project is
	// closed when the last of them ends.
	if err := s.retire(old); err != nil {
		http.Error(w, fmt.Sprintf("saved, but closing the previous version's sandboxes failed: %v", err), http.StatusInternalServerError)
		return
	}
	s.getProject(w, r)
}

// retire closes p now when no run uses it, else when its last run ends.
func (s *Server) retire(p *spec.Project) error {
	s.mu.Lock()
	if s.users[p] > 0 {
		s.retired[p] = true
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	return p.Close()
}

// hold returns the current project's agent called name and counts the run
// about to start as a user of the project; release ends that use.
func (s *Server) hold(name string) (agent.Agent, *spec.Project) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.project.Agent(name)
	if a == nil {
		return nil, nil
	}
	s.users[s.project]++
	return a, s.project
}

// agent returns the current project's agent called name, or nil.
func (s *Server) agent(name string) agent.Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.project.Agent(name)
}

// release ends a run's use of p, closing p if a Save retired it and this
// was its last run.
func (s *Server) release(p *spec.Project) {
	s.mu.Lock()
	s.users[p]--
	last := s.users[p] <= 0
	if last {
		delete(s.users, p)
	}
	closeIt := last && s.retired[p]
	if closeIt {
		delete(s.retired, p)
	}
	s.mu.Unlock()
	if closeIt {
		_ = p.Close() // nothing to tell: the run that used it has ended
	}
}

// releasing passes stream on and releases p after it, unless the run stops
// to wait for an answer: then the run still needs p's agents to resume.
func (s *Server) releasing(p *spec.Project, stream iter.Seq2[agent.Event, error]) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		var last error
		defer func() {
			if !errors.Is(last, agent.ErrInterrupted) {
				s.release(p)
			}
		}()
		for ev, err := range stream {
			if err != nil {
				last = err
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// load checks src as loom validate and loom run do (spec.Validate: files
// it names are read inside the project, bounded) and builds it.
func (s *Server) load(src []byte) (*spec.Project, error) {
	d, err := spec.Validate(s.cfg.Path, src, s.cfg.Registry, s.cfg.Options)
	if err != nil {
		return nil, err
	}
	return spec.Build(d, s.cfg.Registry)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}
