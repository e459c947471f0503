package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/joho/godotenv"
	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	_ "github.com/loomwork/loom/model/providers" // registers every provider with model.Open
	"github.com/loomwork/loom/observe/logx"
	"github.com/loomwork/loom/spec"
)

// runSettings are the flags run and resume share.
type runSettings struct {
	model    string
	logLevel string
	timeout  time.Duration
	db       string
	// trusted is --trusted-code: consent that the file's in_process
	// sandboxes run the model's code in this process.
	trusted bool
}

// loaded is a project ready to run: its agents built, an engine with the
// checkpoint store.
type loaded struct {
	project *spec.Project
	engine  *engine.Engine
	store   *sqlite.Store
	dbPath  string
	log     *slog.Logger
}

func (l *loaded) close() {
	_ = l.project.Close()
	_ = l.store.Close()
}

// load reads .env.local (the working folder's, then the file's folder's;
// variables already set win), loads the file and opens the checkpoint
// store. Keys come only from the environment.
func load(ctx context.Context, path string, rs runSettings, getenv func(string) string, stderr io.Writer) (*loaded, error) {
	for _, env := range []string{".env.local", filepath.Join(filepath.Dir(path), ".env.local")} {
		if _, err := os.Stat(env); err != nil {
			continue
		}
		if err := godotenv.Load(env); err != nil {
			return nil, fmt.Errorf("reading %s: %w", env, err)
		}
	}
	level, err := parseLevel(rs.logLevel)
	if err != nil {
		return nil, err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	d, err := parseFile(path)
	if err != nil {
		return nil, err
	}
	if rs.model != "" {
		d.File.Model = rs.model
	}
	if d.File.Model == "" {
		d.File.Model = strings.TrimSpace(getenv("MODEL"))
	}
	if d.File.Model == "" {
		d.File.Model = "openai"
	}
	if err := spec.Check(d, spec.Registry{}); err != nil {
		return nil, err
	}
	if err := checkTrust(d, rs.trusted); err != nil {
		return nil, err
	}
	dbPath := rs.db
	if dbPath == "" {
		if dbPath, err = defaultCheckpointPath(); err != nil {
			return nil, err
		}
	}
	store, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	p, err := spec.Build(d, spec.Registry{Getenv: getenv, Checkpoints: store, TrustedCode: rs.trusted, Models: func(ref string) (model.Model, error) { return openModel(ref, getenv, log) }})
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	e := engine.New(engine.WithCheckpoints(store), engine.WithRunLimits(agent.Limits{Timeout: rs.timeout}), engine.WithLogger(log))
	return &loaded{project: p, engine: e, store: store, dbPath: dbPath, log: log}, nil
}

// checkTrust refuses a file whose sandboxes run code in this process
// (kind: in_process, which the file must also mark trusted: true) unless
// the user consented with --trusted-code.
func checkTrust(d *spec.Doc, trusted bool) error {
	names := d.InProcessEntries()
	if len(names) == 0 || trusted {
		return nil
	}
	return fmt.Errorf("%s: %s run the model's code in this process (sandbox kind in_process), where any snippet can kill it: it is for trusted code only; pass --trusted-code to accept that, or use kind: isolated", d.Path, strings.Join(names, ", "))
}

// resume continues the stopped run runID of a through the engine; a graph
// entry in it goes on from the graph's own checkpoint.
func (l *loaded) resume(ctx context.Context, a agent.Agent, runID string, answers map[string]json.RawMessage) iter.Seq2[agent.Event, error] {
	return l.engine.Resume(ctx, a, runID, answers)
}

// pending returns the questions the stopped run runID of a waits for.
func (l *loaded) pending(ctx context.Context, a agent.Agent, runID string) ([]agent.Question, error) {
	if g, ok := a.(spec.Resumable); ok {
		return g.Pending(ctx, runID)
	}
	return l.engine.Pending(ctx, runID)
}

// openModel opens ref; a missing key says where keys are read from.
func openModel(ref string, getenv func(string) string, log *slog.Logger) (model.Model, error) {
	m, err := model.Open(ref)
	var mk *model.MissingKeyError
	if errors.As(err, &mk) {
		return nil, fmt.Errorf("%w: set %s in the environment or in .env.local (keys are never read from the loom file)", err, strings.Join(mk.Vars, " or "))
	}
	if err != nil {
		return nil, err
	}
	log.Debug("model", "ref", ref, "key", keyLine(m.Provider(), getenv))
	return m, nil
}

// keyLine names the key a provider uses, masked.
func keyLine(provider string, getenv func(string) string) string {
	for _, p := range model.Providers() {
		if p.ID != provider {
			continue
		}
		for _, v := range p.KeyVars {
			if k := getenv(v); k != "" {
				return v + "=" + mask(k)
			}
		}
	}
	return "no key"
}

func mask(s string) string {
	if len(s) < 12 {
		return strings.Repeat("*", len(s))
	}
	return s[:3] + "…" + s[len(s)-4:]
}

// parseLevel reads a --log-level value as logx.ParseLevel does, naming the
// flag when it is wrong.
func parseLevel(s string) (slog.Level, error) {
	lvl, err := logx.ParseLevel(s)
	if err != nil {
		return 0, fmt.Errorf("--log-level %q: use ERROR, WARN, INFO, DEBUG or TRACE", s)
	}
	return lvl, nil
}

// pick returns the agent to run: name, else the file's entry, else its
// only agent.
func (l *loaded) pick(name string) (agent.Agent, error) {
	p := l.project
	switch {
	case name != "":
		return agentNamed(p, "--agent", name)
	case p.Entry != nil:
		return p.Entry, nil
	case len(p.Doc.Agents) == 1 && p.Agent(p.Doc.Agents[0].Name) != nil:
		return p.Agent(p.Doc.Agents[0].Name), nil
	}
	return nil, errors.New("the file has no entry and several agents: set entry: in the file, or pass --agent NAME")
}

// agentNamed returns the declared agent called name, or an error that
// says what name is when it is not an agent.
func agentNamed(p *spec.Project, flag, name string) (agent.Agent, error) {
	if a := p.Agent(name); a != nil {
		return a, nil
	}
	if e := p.Doc.Entry(name); e != nil {
		return nil, fmt.Errorf("%s %s: it is an %s entry, a set of tools: run an agent that names it in its tools", flag, name, e.Type)
	}
	return nil, fmt.Errorf("%s %s: the file declares no such agent", flag, name)
}

// runRecord is what loom resume needs to rebuild a stopped run's agent.
type runRecord struct {
	File  string `json:"file"`
	Agent string `json:"agent"`
}

func recordPath(dbPath, runID string) string {
	return filepath.Join(filepath.Dir(dbPath), "runs", runID+".json")
}

func saveRecord(dbPath, runID string, r runRecord) error {
	p := recordPath(dbPath, runID)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o600)
}

func readRecord(dbPath, runID string) (runRecord, error) {
	var r runRecord
	b, err := os.ReadFile(recordPath(dbPath, runID))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return r, fmt.Errorf("no stopped run %q in %s: check the id loom run printed, and --db", runID, dbPath)
		}
		return r, err
	}
	return r, json.Unmarshal(b, &r)
}

func defaultCheckpointPath() (string, error) { return sqlite.DefaultPath() }

// parseFile parses a loom/v1 file, or imports the AIGNE project of a
// folder holding aigne.yaml.
func parseFile(path string) (*spec.Doc, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		src, err := spec.ImportAIGNE(path)
		if err != nil {
			return nil, err
		}
		return spec.ParseBytes(filepath.Join(path, "aigne.loom.yaml"), src)
	}
	return spec.Parse(path)
}
