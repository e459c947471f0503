package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"time"

	"github.com/chzyer/readline"
	"github.com/joho/godotenv"
	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
)

// Exit statuses.
const (
	ExitOK     = 0 // an answer
	ExitFailed = 1 // a run failed: a model or workflow error
	ExitConfig = 2 // a configuration error: a bad flag, a missing key
)

// App describes an example program.
type App struct {
	// Name is the program's name, as in its usage line.
	Name string
	// Summary says what it does, in one line.
	Summary string
	// Welcome is printed when a chat starts on a terminal.
	Welcome string
	// DefaultQuestion is asked when no input is given.
	DefaultQuestion string
	// DefaultTimeout is the default of --timeout (default 5 minutes).
	DefaultTimeout time.Duration
	// Answer names the agents whose streamed text is the answer; empty
	// shows every agent's text under its name.
	Answer []string
	// Format, when set, shows the output at the end instead of streaming
	// the agents' text.
	Format func(output json.RawMessage) string
	// Flags adds the program's own flags.
	Flags func(fs *flag.FlagSet)
	// Build returns the agent to run, once the flags are read and the
	// model is open. An error is a configuration error.
	Build func(ctx context.Context, env *Env) (agent.Agent, error)
}

// Stdio is the program's surroundings.
type Stdio struct {
	In         io.Reader
	Out, Err   io.Writer
	InTerminal bool                     // In is a terminal
	Getenv     func(string) string      // the environment
	OpenTTY    func() (*os.File, error) // opens the controlling terminal; nil: none
}

// Env is what Build gets.
type Env struct {
	App   *App
	Flags *Flags
	Model model.Model
	Log   *slog.Logger
	Stdio Stdio
	// Ask asks the person at the terminal a question and returns the answer
	// line; nil when there is no terminal to ask on.
	Ask func(ctx context.Context, question string) (string, error)

	cleanups []func()
}

// Defer registers f to run when the program ends, as closing a sandbox.
func (e *Env) Defer(f func()) { e.cleanups = append(e.cleanups, f) }

func (e *Env) cleanup() {
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
}

// Main runs the program with args and returns its exit status.
func Main(ctx context.Context, app *App, args []string, sio Stdio) int {
	if app.DefaultTimeout == 0 {
		a := *app
		a.DefaultTimeout = 5 * time.Minute
		app = &a
	}
	if sio.Getenv == nil {
		sio.Getenv = os.Getenv
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(sio.Err, "%s: error: %v\n", app.Name, err)
		return code
	}
	if err := loadDotEnv(".env.local"); err != nil {
		return fail(ExitConfig, err)
	}
	f, err := Parse(app, args, sio.Out)
	switch {
	case errors.Is(err, errHelp):
		return ExitOK
	case err != nil:
		return fail(ExitConfig, err)
	}
	if f.Version {
		fmt.Fprintln(sio.Out, Version(app.Name))
		return ExitOK
	}
	level, _ := ParseLevel(f.LogLevel)
	log := NewLogger(sio.Err, level)
	id := ModelID(f.Model, sio.Getenv)
	m, err := OpenModel(id)
	if err != nil {
		return fail(ExitConfig, err)
	}
	log.Debug("model", "provider", m.Provider(), "name", m.Name(), "key", KeyLine(m.Provider(), sio.Getenv))

	env := &Env{App: app, Flags: f, Model: m, Log: log, Stdio: sio}
	var lines lineReader
	if f.Chat {
		if lines, err = newLineReader(app, sio); err != nil {
			return fail(ExitConfig, err)
		}
		defer lines.Close()
	}
	env.Ask = asker(sio, lines, f)
	defer env.cleanup()
	a, err := app.Build(ctx, env)
	if err != nil {
		return fail(ExitConfig, err)
	}
	opts := []engine.Option{
		engine.WithModel(m),
		engine.WithRunLimits(agent.Limits{Timeout: f.Timeout}),
		engine.WithLogger(log),
	}
	if !f.NoTrace {
		traced, shutdown := startTracing(ctx, log, sio.Getenv)
		defer shutdown()
		opts = append(opts, traced...)
	}
	engine := engine.New(opts...)
	if f.Chat {
		return chat(ctx, env, engine, a, lines)
	}
	input, err := ReadInput(f, sio, app.DefaultQuestion)
	if err != nil {
		return fail(ExitConfig, err)
	}
	if _, err := runOnce(ctx, env, engine.Run(ctx, a, input)); err != nil {
		return fail(ExitFailed, err)
	}
	return ExitOK
}

// runOnce prints a run's events and returns its output.
func runOnce(_ context.Context, env *Env, stream func(func(agent.Event, error) bool)) (json.RawMessage, error) {
	p := NewPrinter(env.Stdio.Out, env.App.Answer...)
	if env.App.Format != nil {
		p = NewPrinter(env.Stdio.Out, "\x00")
		p.format = env.App.Format
	}
	var root string
	var out json.RawMessage
	var runErr error
	for ev, err := range stream {
		if ev.Kind == agent.EventRunStart && root == "" {
			root = ev.RunID
		}
		if ev.Kind == agent.EventRunEnd && ev.RunID == root {
			out = ev.Output
		}
		p.Event(ev)
		if err != nil {
			runErr = err
		}
	}
	if runErr != nil {
		p.End(nil)
		return nil, runErr
	}
	p.End(out)
	return out, nil
}

// Run runs app as the program: with the process's arguments, stdio and
// environment, cancelled by an interrupt. It returns the exit status for
// os.Exit.
func Run(app *App) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return Main(ctx, app, os.Args[1:], Stdio{
		In:         os.Stdin,
		Out:        os.Stdout,
		Err:        os.Stderr,
		InTerminal: readline.IsTerminal(int(os.Stdin.Fd())),
		Getenv:     os.Getenv,
		OpenTTY:    func() (*os.File, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) },
	})
}

// loadDotEnv loads path into the environment when it exists; variables
// already set win.
func loadDotEnv(path string) error {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	if err := godotenv.Load(path); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return nil
}
