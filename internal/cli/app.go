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
	"path/filepath"
	"runtime"
	"time"

	"github.com/chzyer/readline"
	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/termtext"
	"github.com/loomwork/loom/model"
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
	// SourceDir is the directory of the program's sources, searched for
	// .env.local after the working directory; [Run] sets it.
	SourceDir string
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

	canAsk   func() bool
	verdict  Verdict
	cleanups []func()
}

// CanAsk reports whether Ask can get an answer: there is a terminal, or
// the scripted answers piped on stdin are not empty. A program that cannot
// work without answers refuses at once when it is false.
func (e *Env) CanAsk() bool { return e.Ask != nil && e.canAsk != nil && e.canAsk() }

// Reviewer names the agent that reviews snippets, so a run whose reviewer
// failed exits with [ExitReviewerFailed].
func (e *Env) Reviewer(name string) { e.verdict.reviewers = []string{name} }

// Defer registers f to run when the program ends, as closing a sandbox.
func (e *Env) Defer(f func()) { e.cleanups = append(e.cleanups, f) }

func (e *Env) cleanup() {
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
}

// runCancelled is what a signal did to an example's run.
const runCancelled = "the run was cancelled, the sandbox workers stopped and the traces flushed"

// Main runs the program with args and returns its exit status. A ctx
// cancelled by [NotifyContext]'s signal ends the run, stops the sandbox
// workers, flushes the traces and returns 130 (SIGINT) or 143 (SIGTERM).
func Main(ctx context.Context, app *App, args []string, sio Stdio) int {
	code := mainRun(ctx, app, args, sio)
	if s := Interrupted(ctx); s != nil {
		fmt.Fprint(sio.Err, InterruptedMessage(app.Name, s, runCancelled))
		return s.ExitCode()
	}
	return code
}

func mainRun(ctx context.Context, app *App, args []string, sio Stdio) int {
	if app.DefaultTimeout == 0 {
		a := *app
		a.DefaultTimeout = 5 * time.Minute
		app = &a
	}
	if sio.Getenv == nil {
		sio.Getenv = os.Getenv
	}
	fail := func(code int, err error) int {
		if Interrupted(ctx) == nil {
			fmt.Fprintf(sio.Err, "%s: error: %s\n", app.Name, termtext.Safe(err.Error()))
		}
		return code
	}
	envFiles := DotEnvFiles(app.SourceDir)
	if err := LoadDotEnv(envFiles); err != nil {
		return fail(ExitUsage, err)
	}
	f, err := Parse(app, args, sio.Out)
	switch {
	case errors.Is(err, errHelp):
		return ExitOK
	case err != nil:
		return fail(ExitUsage, err)
	}
	if f.Version {
		fmt.Fprintln(sio.Out, Version(app.Name))
		return ExitOK
	}
	level, _ := ParseLevel(f.LogLevel)
	log := NewLogger(sio.Err, level)
	// The providers log error bodies at DEBUG through the default logger.
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(log)
	var tracing *tracingStart
	if !f.NoTrace {
		tracing = startTracingAsync(ctx, log, sio.Getenv)
		defer tracing.stop()
	}
	id := ModelID(f.Model, sio.Getenv)
	m, err := OpenModel(id, envFiles)
	if err != nil {
		return fail(ExitUsage, err)
	}
	log.Debug("model", "provider", m.Provider(), "name", m.Name(), "key", KeyLine(m.Provider(), sio.Getenv))

	env := &Env{App: app, Flags: f, Model: m, Log: log, Stdio: sio}
	var lines lineReader
	if f.Chat {
		if lines, err = newLineReader(app, sio); err != nil {
			return fail(ExitUsage, err)
		}
		defer lines.Close()
	}
	env.Ask, env.canAsk = asker(sio, lines, f)
	defer env.cleanup()
	a, err := app.Build(ctx, env)
	if err != nil {
		return fail(ExitUsage, err)
	}
	cfg := engine.Config{Model: m, Limits: agent.Limits{Timeout: f.Timeout}, Logger: log}
	if tracing != nil {
		tracing.apply(&cfg)
	}
	engine := engine.New(cfg)
	if f.Chat {
		return chat(ctx, env, engine, a, lines)
	}
	input, err := ReadInput(f, sio, app.DefaultQuestion)
	if err != nil {
		return fail(ExitUsage, err)
	}
	code, err := runOnce(ctx, env, engine.Run(ctx, a, input))
	if err != nil {
		return fail(code, err)
	}
	if msg := StatusMessage(code); msg != "" {
		fmt.Fprintf(sio.Err, "%s: %s (exit status %d)\n", app.Name, msg, code)
	}
	return code
}

// runOnce prints a run's events and returns its exit status, with the
// run's error when it failed.
func runOnce(ctx context.Context, env *Env, stream func(func(agent.Event, error) bool)) (int, error) {
	p := NewPrinter(env.Stdio.Out, env.App.Answer...)
	p.log = env.Log
	if env.App.Format != nil {
		p = NewPrinter(env.Stdio.Out, "\x00")
		p.log = env.Log
		p.format = env.App.Format
	}
	v := env.verdict // a fresh verdict for each run, with the program's names
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
		v.Event(ev)
		if ctx.Err() != nil && ev.Kind == agent.EventToolResult && ev.ToolResult.IsError {
			// The run is being cancelled: a tool's account of its own
			// cancellation is not news, and Main says what happened.
			continue
		}
		p.Event(ev)
		if err != nil {
			runErr = err
		}
	}
	if runErr != nil {
		p.End(nil)
		return v.Status(runErr, env.Flags.AllowTruncated), runErr
	}
	p.End(out)
	return v.Status(nil, env.Flags.AllowTruncated), nil
}

// Run runs app as the program: with the process's arguments, stdio and
// environment, cancelled by SIGINT or SIGTERM ([NotifyContext]). It returns
// the exit status for os.Exit. Call it from main directly: the directory of
// its caller's source file is where .env.local is looked for second.
func Run(app *App) int {
	if app.SourceDir == "" {
		if _, file, _, ok := runtime.Caller(1); ok {
			a := *app
			a.SourceDir = filepath.Dir(file)
			app = &a
		}
	}
	ctx, stop := NotifyContext(context.Background())
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
