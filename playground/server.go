package playground

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
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
	// (engine.WithCheckpoints) so runs can wait for approvals.
	Engine *engine.Engine
	// Token is the session token; empty makes a random one.
	Token string
	// Labels select the runs of the engine's checkpoint store the page
	// lists beside the ones this server started: runs another server (or
	// this one before a restart) or loom run left waiting, finished or
	// stopped. loom serve passes the labels its engine puts on every run
	// (engine.WithLabels), so the page lists the runs of its file. Nil
	// lists every stored run of an agent the file declares.
	Labels map[string]string
}

// Server is the playground over one file.
type Server struct {
	cfg   Config
	token string

	ctx    context.Context // runs' context, cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the runs' goroutines

	mu      sync.Mutex
	project *spec.Project
	retired []*spec.Project
	runs    map[string]*run
	order   []string
}

// ErrNoCheckpoints is returned by [New] for an engine without a checkpoint
// store: runs could not wait for approvals.
var ErrNoCheckpoints = errors.New("playground: the engine has no checkpoint store: use engine.WithCheckpoints")

// New loads the file and returns the server. An invalid file is an error:
// the page edits a file that loaded once.
func New(cfg Config) (*Server, error) {
	if cfg.Engine == nil || cfg.Engine.Checkpoints() == nil {
		return nil, ErrNoCheckpoints
	}
	p, err := spec.Load(cfg.Path, cfg.Registry)
	if err != nil {
		return nil, err
	}
	tok := cfg.Token
	if tok == "" {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		tok = hex.EncodeToString(b)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{cfg: cfg, token: tok, project: p, runs: map[string]*run{}, ctx: ctx, cancel: cancel}, nil
}

// Token returns the session token the page's URL carries.
func (s *Server) Token() string { return s.token }

// Close cancels the runs still going, waits for them to end, and stops
// what the loaded file started (its sandboxes).
func (s *Server) Close() error {
	s.cancel()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	errs := []error{s.project.Close()}
	for _, p := range s.retired {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

// Handler returns the page and its API. Every request must carry the
// token as ?token=… (the page passes it on to its API calls).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /api/project", s.getProject)
	mux.HandleFunc("PUT /api/yaml", s.putYAML)
	mux.HandleFunc("POST /api/runs", s.postRun)
	mux.HandleFunc("GET /api/runs", s.listRuns)
	mux.HandleFunc("GET /api/runs/{id}", s.getRun)
	mux.HandleFunc("POST /api/runs/{id}/answers", s.postAnswers)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.URL.Query().Get("token")
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
			http.Error(w, "forbidden: open the URL loom serve printed, with its token", http.StatusForbidden)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		mux.ServeHTTP(w, r)
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
	src, err := os.ReadFile(s.cfg.Path)
	if err != nil {
		return projectView{}, err
	}
	s.mu.Lock()
	p := s.project
	s.mu.Unlock()
	v := projectView{Path: s.cfg.Path, YAML: string(src), Entry: p.Doc.File.Entry, Errors: []errorView{}}
	for _, e := range p.Doc.Agents {
		a := p.Agent(e.Name)
		if a == nil {
			// An mcp entry is a set of tools, drawn but not run.
			v.Agents = append(v.Agents, agentView{Name: e.Name, Type: e.Type, Uses: e.Uses()})
			continue
		}
		v.Agents = append(v.Agents, agentView{Name: e.Name, Type: e.Type, Description: a.Description(), InputSchema: a.InputSchema(), Uses: e.Uses(), Graph: graphOf(e)})
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

// putYAML checks the page's text like the loader does and, when it is
// valid, writes it to the file and reloads the agents. Otherwise it answers
// 422 with every error, and the file is left alone.
func (s *Server) putYAML(w http.ResponseWriter, r *http.Request) {
	src, err := readBody(w, r, 1<<20)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
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
	// Runs still going use the old agents: their sandboxes stay open until
	// Close.
	s.retired = append(s.retired, s.project)
	s.project = p
	s.mu.Unlock()
	s.getProject(w, r)
}

func (s *Server) load(src []byte) (*spec.Project, error) {
	d, err := spec.ParseBytes(s.cfg.Path, src)
	if err != nil {
		return nil, err
	}
	if err := spec.Check(d, s.cfg.Registry); err != nil {
		return nil, err
	}
	return spec.Build(d, s.cfg.Registry)
}

func (s *Server) agent(name string) agent.Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.project.Agent(name)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}
