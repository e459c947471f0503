package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
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

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/postgres"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/internal/trust"
	mcpserver "github.com/loomwork/loom/mcp/server"
	"github.com/loomwork/loom/model"
	_ "github.com/loomwork/loom/model/providers" // registers every provider with model.Open
	"github.com/loomwork/loom/spec"
)

// runSettings are the flags run and resume share.
type runSettings struct {
	model    string
	logLevel string
	timeout  time.Duration
	db       string
	// clientLog also sends a served run's log lines to its MCP client
	// (loom mcp serve).
	clientLog bool
	// root widens the folder the file's paths may reach (--root).
	root string
	// asker is where a person is asked to trust the file's commands; nil
	// refuses them when they are not trusted yet.
	asker *console
	// pageAsks leaves the trust question to the playground's page.
	pageAsks bool
	// trace records the runs in the trace store (loom run and resume;
	// loom serve sets up its own engine).
	trace string
	// trusted is --trusted-code: consent that the file's in_process
	// sandboxes run the model's code in this process.
	trusted bool
}

// loaded is a project ready to run: its agents built, an engine with the
// checkpoint store.
type loaded struct {
	project *spec.Project
	engine  *engine.Engine
	store   checkpoint.Store
	dbPath  string
	log     *slog.Logger
	// envFiles are the .env.local files looked in, for a missing key's
	// message.
	envFiles []string
	untrace  func() // flushes the traces
}

func (l *loaded) close() {
	_ = l.project.Close()
	_ = l.store.Close()
	if l.untrace != nil {
		l.untrace()
	}
}

// load reads .env.local in the order every command uses
// (cli.DotEnvFiles: the working folder's, the file's folder's, the
// user config folder's; variables already set win), loads the file and
// opens the checkpoint store. Keys come only from the environment.
func load(ctx context.Context, path string, rs runSettings, getenv func(string) string, stderr io.Writer) (*loaded, error) {
	// Opened before .env.local is read: a project cannot move it.
	grants, err := trust.Open()
	if err != nil && !rs.pageAsks {
		return nil, err
	}
	envFiles := cli.DotEnvFiles(projectDir(path))
	if err := cli.LoadDotEnv(envFiles); err != nil {
		return nil, err
	}
	level, err := cli.ParseLevel(rs.logLevel)
	if err != nil {
		return nil, err
	}
	lh := cli.NewHandler(stderr, level)
	if rs.clientLog {
		lh = mcpserver.LogHandler(lh)
	}
	log := slog.New(lh)
	o := rs.options(getenv, stderr)
	d, err := checkFile(path, o)
	if err != nil {
		return nil, err
	}
	if !rs.pageAsks {
		if err := gate(grants, path, d, rs.asker, stderr); err != nil {
			return nil, err
		}
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
	store, err := openCheckpoints(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	p, err := spec.Build(d, spec.Registry{Getenv: getenv, Checkpoints: store, TrustedCode: rs.trusted, Isolated: isolatedConfig(true), Log: log, Models: func(ref string) (model.Model, error) {
		if ref == spec.ClientModel {
			// The model of the MCP client calling loom mcp serve.
			return mcpserver.ClientModel(), nil
		}
		return openModel(ref, getenv, envFiles, log)
	}})
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	cfg := engine.Config{Checkpoints: store, Limits: agent.Limits{Timeout: rs.timeout}, Logger: log,
		Labels: map[string]string{fileLabel: absPath(path)}}
	var untrace func()
	if rs.trace != "" {
		untrace = startTracing(ctx, rs.trace, stderr, &cfg)
	}
	return &loaded{project: p, engine: engine.New(cfg), store: store, dbPath: dbPath, log: log, untrace: untrace, envFiles: envFiles}, nil
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
// entry in it goes on from its journaled steps.
func (l *loaded) resume(ctx context.Context, a agent.Agent, runID string, answers map[string]json.RawMessage) iter.Seq2[agent.Event, error] {
	return l.engine.Resume(ctx, a, runID, answers)
}

// session opens the conversation id (a new one when empty) with a, kept
// in the checkpoint database's session store: its turns reach the model
// in any process, and a turn that stops for an answer is recorded once
// when loom resume finishes it. close closes the session store.
func (l *loaded) session(ctx context.Context, a agent.Agent, id string) (sess *engine.Session, close func(), err error) {
	store, err := openSessions(ctx, l.dbPath)
	if err != nil {
		return nil, nil, err
	}
	if id == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	mem, err := engine.NewStored(store, id)
	if err != nil {
		_ = store.Close()
		return nil, nil, err
	}
	return l.engine.NewSession(a, mem), func() { _ = store.Close() }, nil
}

// pending returns the questions the stopped run runID of a waits for.
func (l *loaded) pending(ctx context.Context, a agent.Agent, runID string) ([]agent.Question, error) {
	return l.engine.Pending(ctx, runID)
}

// openModel opens ref; a missing key gets the message every command
// gives (cli.MissingKey): the variable and the files looked in.
func openModel(ref string, getenv func(string) string, envFiles []string, log *slog.Logger) (model.Model, error) {
	m, err := model.Open(ref)
	if err != nil {
		return nil, cli.MissingKey(err, envFiles)
	}
	log.Debug("model", "ref", ref, "key", cli.KeyLine(m.Provider(), getenv))
	return m, nil
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
	if isPostgres(dbPath) {
		return nil // the run's checkpoints carry its file and agent (readRecord)
	}
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

// readRecord returns what loom resume needs of run runID: the record loom
// run wrote when it stopped the run, else the file and agent labelled on
// the run's checkpoints (a run the playground started, or one whose
// record was lost).
func readRecord(ctx context.Context, dbPath, runID string) (runRecord, error) {
	var r runRecord
	if !isPostgres(dbPath) {
		b, err := os.ReadFile(recordPath(dbPath, runID))
		if err == nil {
			return r, json.Unmarshal(b, &r)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return r, err
		}
	}
	if _, serr := os.Stat(dbPath); serr == nil || isPostgres(dbPath) {
		store, serr := openCheckpoints(ctx, dbPath)
		if serr == nil {
			head, herr := store.Head(ctx, runID)
			_ = store.Close()
			if herr == nil && head.Meta[fileLabel] != "" {
				return runRecord{File: head.Meta[fileLabel], Agent: head.Meta["agent"]}, nil
			}
		}
	}
	where := dbPath
	if isPostgres(dbPath) {
		where = "the PostgreSQL database" // the URL may hold a password
	}
	return r, fmt.Errorf("no stopped run %q in %s: check the id loom run printed, and --db", runID, where)
}

func defaultCheckpointPath() (string, error) { return sqlite.DefaultPath() }

// isPostgres reports whether --db is a PostgreSQL connection URL rather
// than a SQLite file.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// openCheckpoints opens the checkpoint store --db names: PostgreSQL for a
// postgres:// URL, else the SQLite file.
// openSessions opens the session store of the checkpoint database db,
// where loom run --chat keeps its conversations.
func openSessions(ctx context.Context, db string) (checkpoint.SessionStore, error) {
	var store checkpoint.SessionStore
	var err error
	if isPostgres(db) {
		store, err = postgres.OpenSessions(ctx, postgres.Config{DSN: db})
	} else {
		store, err = sqlite.OpenSessions(ctx, sqlite.Config{Path: db})
	}
	if err != nil {
		return nil, fmt.Errorf("the session store: %w", err)
	}
	return store, nil
}

func openCheckpoints(ctx context.Context, db string) (checkpoint.Store, error) {
	if isPostgres(db) {
		return postgres.Open(ctx, postgres.Config{DSN: db})
	}
	return sqlite.Open(ctx, sqlite.Config{Path: db})
}

// defaultFile is the project file a folder argument names when the folder
// holds no AIGNE project.
const defaultFile = "loom.yaml"

// projectArg is the project a command's FILE argument names: a file as
// given (the loader names one that is missing); a folder holding an AIGNE
// project (aigne.yaml), as given, to be imported; any other folder, its
// loom.yaml. A folder holding neither is an error that names both.
func projectArg(arg string) (string, error) {
	st, err := os.Stat(arg)
	if err != nil || !st.IsDir() {
		return arg, nil
	}
	if _, err := os.Stat(filepath.Join(arg, spec.AIGNEProject)); err == nil {
		return arg, nil
	}
	file := filepath.Join(arg, defaultFile)
	if _, err := os.Stat(file); err != nil {
		return "", fmt.Errorf("%s is a folder with neither %s nor %s in it: give the project file, as %s", arg, defaultFile, spec.AIGNEProject, file)
	}
	return file, nil
}

// projectDir is the folder of the project at path: the folder of a file,
// or an AIGNE project's folder itself.
func projectDir(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return path
	}
	return filepath.Dir(path)
}

// checkFile checks a loom/v1 file, or the AIGNE project of a folder
// holding aigne.yaml, imported: spec.Validate, the one check loom validate
// and every command that runs a file make. It lists every problem.
func checkFile(path string, o spec.Options) (*spec.Doc, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		src, err := spec.ImportAIGNEWith(path, o)
		if err != nil {
			return nil, err
		}
		return spec.Validate(filepath.Join(path, "aigne.loom.yaml"), src, spec.Registry{}, o)
	}
	return spec.Validate(path, nil, spec.Registry{}, o)
}

// options are the spec.Options of the settings: the root files may be
// read from (said on stderr when widened), the model flag and the
// default model ($MODEL, else openai).
func (rs runSettings) options(getenv func(string) string, stderr io.Writer) spec.Options {
	if rs.root != "" {
		fmt.Fprintf(stderr, "loom: --root %s: the file may name files anywhere under %s\n", rs.root, rs.root)
	}
	return spec.Options{Root: rs.root, Model: rs.model, DefaultModel: cmp.Or(strings.TrimSpace(getenv("MODEL")), "openai")}
}
