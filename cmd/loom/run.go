package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chzyer/readline"
	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/internal/termtext"
	"github.com/loomwork/loom/mcp"
	"github.com/loomwork/loom/sandbox/jstool"
	"github.com/loomwork/loom/spec"
)

const runUsage = `Usage: loom run FILE [-i INPUT | --chat [--session ID]] [flags]

Runs the file's entry agent (or --agent NAME) on INPUT (FILE may also be a
folder: its loom.yaml, or its AIGNE project, aigne.yaml, imported): a JSON
object, or text given as {"message": TEXT}. Without -i the input is read from
stdin.
--chat reads one question a line, the conversation remembered: /help lists
its commands (/clear, /exit); Ctrl-C cancels the answer being written, and
a second Ctrl-C within two seconds exits 130. The conversation is kept in the
checkpoint database under a session id (printed when the chat starts on a
terminal, or when a turn stops): --session ID goes on with it, in any
process, and a turn that stopped for an answer is remembered once when
loom resume finishes it. A turn that fails (a guardrail refused it) is
reported and not remembered; the conversation goes on, and the exit status
is the last failed turn's.

When the run waits for an answer (code to approve, with approval: ask), a
person at a terminal is asked; without a terminal the run stops, its state
kept in the checkpoint database, and loom prints its id: continue it with
'loom resume ID --approve' (or --deny, or --answer JSON).

Flags:
  -i, --input TEXT     the input
  --chat               a conversation: one question a line
  --session ID         with --chat: go on with the conversation ID (default:
                       a new one)
  --agent NAME         the agent to run (default: the file's entry)
  --model ID           provider[:model] for agents that name none (default
                       the file's model:, then $MODEL, then openai)
  --log-level LEVEL    ERROR, WARN, INFO, DEBUG or TRACE (default INFO)
  --timeout D          time limit of one run (default 5m)
  --db PATH            checkpoint database (default $LOOM_CHECKPOINT_DB, else
                       a file under the user cache directory), or a
                       postgres:// URL; loom serve and loom resume share it
  --root DIR           let the file name files anywhere under DIR (default:
                       its own folder only); for trusted setups, said on stderr
  --no-trace           do not record the run to the trace store (loom observe
                       shows what is recorded)
  --allow-truncated    exit 0 even when the answer was cut at the model's
                       output token limit
  --trusted-code       accept that the file's sandboxes of kind in_process
                       (each marked trusted: true) run the model's code in
                       this process, where any snippet can kill it; without
                       it such a file is refused. The default sandbox,
                       isolated, needs no flag.

Keys come from the environment or .env.local, never from the file; see
'loom help' for where .env.local is looked for.

` + cli.ExitTable

// console is where people answer: stdin, and whether it is a terminal.
type console struct {
	in       *bufio.Reader
	terminal bool
	getenv   func(string) string
	// lines, when set, reads answers instead of in: the chat's line
	// editor, which owns the terminal.
	lines func() (string, error)
}

func (c console) line() (string, error) {
	if c.lines != nil {
		return c.lines()
	}
	s, err := c.in.ReadString('\n')
	if err != nil && (s == "" || !errors.Is(err, io.EOF)) {
		return "", err
	}
	return strings.TrimRight(s, "\r\n"), nil
}

func settingsFlags(fs *flag.FlagSet, rs *runSettings) {
	fs.StringVar(&rs.model, "model", "", "provider[:model]")
	fs.StringVar(&rs.logLevel, "log-level", "INFO", "log level")
	fs.DurationVar(&rs.timeout, "timeout", 5*time.Minute, "time limit of one run")
	fs.StringVar(&rs.db, "db", "", "checkpoint database")
	fs.StringVar(&rs.root, "root", "", "the folder the file's paths may reach")
	fs.BoolVar(&rs.trusted, "trusted-code", false, "accept that the file's in_process sandboxes run the model's code with this program's privileges")
}

// allowTruncatedFlag adds --allow-truncated, which exits 0 on an answer
// cut at the output token limit, as the example programs' flag does.
func allowTruncatedFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("allow-truncated", false, "exit 0 on an answer cut at the output token limit")
}

// noTraceFlag adds --no-trace, which keeps a command's runs out of the
// trace store, as the example programs' flag does.
func noTraceFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("no-trace", false, "do not record runs to the trace store")
}

func runRun(ctx context.Context, args []string, stdout, stderr io.Writer, con console) int {
	cmd := newCommand("loom run", "run", runUsage, stdout, stderr)
	fs, usageErr := cmd.fs, cmd.usageErr
	var rs runSettings
	settingsFlags(fs, &rs)
	var input, agentName, sessionID string
	var chat bool
	fs.StringVar(&input, "input", "", "the input")
	fs.StringVar(&input, "i", "", "the input")
	fs.BoolVar(&chat, "chat", false, "a conversation")
	fs.StringVar(&agentName, "agent", "", "the agent to run")
	fs.StringVar(&sessionID, "session", "", "the conversation to go on with")
	noTrace := noTraceFlag(fs)
	allowTruncated := allowTruncatedFlag(fs)
	pos, status, quit := cmd.parse(args)
	switch {
	case quit:
		return status
	case len(pos) != 1:
		return usageErr("give one file: loom run FILE")
	case chat && input != "":
		return usageErr("--chat reads its questions from stdin: drop -i, or drop --chat")
	case rs.timeout <= 0:
		return usageErr("--timeout %v: it must be positive, as 2m", rs.timeout)
	case sessionID != "" && !chat:
		return usageErr("--session goes with --chat: loom run FILE --chat --session ID")
	case sessionID != "" && !runIDPattern.MatchString(sessionID):
		return usageErr("--session %q is not a session id: 1 to 128 letters, digits, - or _", sessionID)
	}
	rs.asker = &con
	if !*noTrace {
		rs.trace = "run"
	}
	file, err := projectArg(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "loom run: %v\n", err)
		return exitInvalid
	}
	l, err := load(ctx, file, rs, con.getenv, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "loom run: %v\n", err)
		return exitInvalid
	}
	defer l.close()
	a, err := l.pick(agentName)
	if err != nil {
		return usageErr("%v", err)
	}
	r := newRunner("loom run", l, a, file, con, stdout, stderr)
	r.allowTruncated = *allowTruncated
	if chat {
		return stopped(ctx, "run", r.chat(ctx, sessionID), stderr)
	}
	if input == "" {
		if con.terminal {
			return usageErr("give the input with -i, pipe it on stdin, or use --chat")
		}
		b, err := io.ReadAll(con.in)
		if err != nil {
			return usageErr("reading stdin: %v", err)
		}
		input = strings.TrimSpace(string(b))
	}
	_, code := r.drive(ctx, r.l.engine.Run(ctx, a, inputOf(input)), "")
	return stopped(ctx, "run", code, stderr)
}

// stopped returns code, or 130 (143) with a message when a signal
// cancelled ctx.
func stopped(ctx context.Context, what string, code int, stderr io.Writer) int {
	if c, msg, ok := interrupted(ctx, what, "the run was cancelled and the sandbox workers stopped"); ok {
		fmt.Fprint(stderr, msg)
		return c
	}
	return code
}

// inputOf reads a JSON object as itself and anything else as
// {"message": text}.
func inputOf(s string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &obj) == nil {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(map[string]string{"message": s})
	return b
}

// runner drives runs of one agent: prints them, asks pending questions on
// a terminal or stops with a resumable id.
type runner struct {
	name        string // the command, as "loom run": errors start with it
	l           *loaded
	a           agent.Agent
	file        string
	con         console
	out, errOut io.Writer
	// quiet shows only the final output: the streamed text of a
	// composition's members is not its answer.
	quiet bool
	// state shows the whole output: a graph's final state.
	state bool
	// sess, when set, is the conversation the runs are turns of: a turn
	// that asks is resumed through it, so it is remembered once.
	sess *engine.Session
	// reviewers are the file's code reviewers, whose failure is the run's
	// exit status when no snippet computed a value (cli.Verdict).
	reviewers []string
	// allowTruncated exits 0 on an answer cut at the output token limit
	// (--allow-truncated).
	allowTruncated bool
}

// newRunner returns a runner of a, streaming text only for agents whose
// streamed text is their answer.
func newRunner(name string, l *loaded, a agent.Agent, file string, con console, out, errOut io.Writer) *runner {
	quiet, state := false, false
	if e := l.project.Doc.Entry(a.Info().Name); e != nil {
		quiet = e.Type != "ai" && e.Type != "code_execution" && e.Type != "route"
		state = e.Type == "graph"
	}
	var reviewers []string
	for _, e := range l.project.Doc.Agents {
		if c, ok := e.Config.(*spec.CodeExecution); ok && c.Reviewer != "" {
			reviewers = append(reviewers, c.Reviewer)
		}
	}
	return &runner{name: name, l: l, a: a, file: file, con: con, out: out, errOut: errOut, quiet: quiet, state: state, reviewers: reviewers}
}

// drive prints a run, resuming it with a person's answers while it asks
// and there is a terminal. It returns the root run's end and the exit
// status, decided as the example programs decide it (cli.Verdict): a run
// whose snippets all failed, were declined or rejected, or whose answer
// was cut, has no computed answer and says so.
func (r *runner) drive(ctx context.Context, stream iter.Seq2[agent.Event, error], runID string) (agent.Event, int) {
	v := cli.NewVerdict(jstool.Name, r.reviewers...)
	for {
		end, err := r.print(stream, &runID, &v)
		var ie *agent.InterruptedError
		var ot *engine.OpenTurnError
		switch {
		case err == nil:
			code := v.Status(nil, r.allowTruncated)
			if msg := cli.StatusMessage(code); msg != "" {
				fmt.Fprintf(r.errOut, "%s: %s\n", r.name, msg)
			}
			return end, code
		case errors.As(err, &ot):
			return end, r.openTurn(ot)
		case !errors.As(err, &ie):
			fmt.Fprintf(r.errOut, "%s: %s\n", r.name, termtext.Safe(err.Error()))
			return end, v.Status(err, r.allowTruncated)
		case !r.con.terminal:
			return end, r.stop(runID, ie.Questions)
		}
		answers, err := r.ask(ie.Questions)
		if err != nil {
			fmt.Fprintf(r.errOut, "%s: %v\n", r.name, err)
			return end, r.stop(runID, ie.Questions)
		}
		if r.sess != nil {
			stream = r.sess.Resume(ctx, runID, answers)
		} else {
			stream = r.l.resume(ctx, r.a, runID, answers)
		}
	}
}

// openTurn says how to finish the session's unfinished turn, which keeps
// a new turn from starting.
func (r *runner) openTurn(ot *engine.OpenTurnError) int {
	if len(ot.Questions) > 0 {
		how := answerFlags(ot.Questions)
		fmt.Fprintf(r.errOut, "%s: session %s: its turn run %s waits for %s %s: continue it with: loom resume %s %s; then go on with the conversation\n",
			r.name, ot.SessionID, ot.RunID, ot.Questions[0].Kind, ot.Questions[0].ID, ot.RunID, how)
		return exitWaiting
	}
	fmt.Fprintf(r.errOut, "%s: session %s: its turn run %s stopped before it ended: send the same input again, or finish it with: loom resume %s --continue\n",
		r.name, ot.SessionID, ot.RunID, ot.RunID)
	return exitFailed
}

// print writes the run's text as it streams and returns the root run's
// end and error.
func (r *runner) print(stream iter.Seq2[agent.Event, error], runID *string, v *cli.Verdict) (agent.Event, error) {
	var end agent.Event
	var runErr error
	streamed := false
	// root is this stream's root run: the stopped run itself, or a new run
	// that continues it (a graph resumed from its checkpoint).
	root := ""
	for ev, err := range stream {
		v.Event(ev)
		switch {
		case ev.Kind == agent.EventRunStart && root == "":
			root = ev.RunID
			if *runID == "" {
				*runID = ev.RunID
			}
		case ev.Kind == agent.EventTextDelta && !ev.Replayed && !r.quiet:
			fmt.Fprint(r.out, termtext.Safe(ev.Text))
			streamed = true
		case ev.Kind == agent.EventRunEnd && ev.RunID == root:
			end = ev
		}
		if err != nil {
			runErr = err
		}
	}
	switch {
	case runErr != nil:
		if streamed {
			fmt.Fprintln(r.out)
		}
	case streamed:
		fmt.Fprintln(r.out)
	case r.state:
		fmt.Fprintln(r.out, termtext.Safe(string(end.Output)))
	default:
		fmt.Fprintln(r.out, termtext.Safe(flow.TextOf(end.Output)))
	}
	return end, runErr
}

// stop records the stopped run for loom resume and says how to continue.
func (r *runner) stop(runID string, qs []agent.Question) int {
	if err := saveRecord(r.l.dbPath, runID, runRecord{File: absPath(r.file), Agent: r.a.Info().Name}); err != nil {
		fmt.Fprintf(r.errOut, "%s: cannot record the stopped run: %v\n", r.name, err)
		return exitFailed
	}
	for _, q := range qs {
		fmt.Fprintf(r.errOut, "run %s waits for %s %s:\n%s\n", runID, q.Kind, q.ID, describeQuestion(q))
	}
	how := answerFlags(qs)
	fmt.Fprintf(r.errOut, "continue it with: loom resume %s %s\n", runID, how)
	if r.sess != nil {
		fmt.Fprintf(r.errOut, "then go on with the conversation: loom run %s --chat --session %s\n", r.file, r.sess.ID())
	}
	fmt.Fprintf(r.out, "%s\n", runID)
	return exitWaiting
}

// ask asks each question on the terminal.
func (r *runner) ask(qs []agent.Question) (map[string]json.RawMessage, error) {
	answers := map[string]json.RawMessage{}
	for _, q := range qs {
		if q.Kind == mcp.ElicitationKind {
			var e mcp.Elicitation
			if err := json.Unmarshal(q.Payload, &e); err != nil {
				return nil, fmt.Errorf("the MCP server's question cannot be read: %w", err)
			}
			a, err := mcp.AskTerminal(e, r.con.line, r.errOut)
			if err != nil {
				return nil, fmt.Errorf("reading the answer: %w", err)
			}
			b, err := json.Marshal(a)
			if err != nil {
				return nil, fmt.Errorf("encoding the answer: %w", err)
			}
			answers[q.ID] = b
			continue
		}
		fmt.Fprintln(r.errOut, describeQuestion(q))
		if q.Kind == codeexec.ApprovalKind {
			if _, ok := promptOf(q); ok {
				fmt.Fprint(r.errOut, "[y/N] ")
			} else {
				fmt.Fprint(r.errOut, "Run it? [y/N] ")
			}
			line, err := r.con.line()
			if err != nil {
				return nil, fmt.Errorf("reading the answer: %w", err)
			}
			answers[q.ID] = approvalAnswer(strings.TrimSpace(line))
			continue
		}
		fmt.Fprint(r.errOut, "Answer (JSON): ")
		line, err := r.con.line()
		if err != nil {
			return nil, fmt.Errorf("reading the answer: %w", err)
		}
		if !json.Valid([]byte(line)) {
			return nil, fmt.Errorf("the answer %q is not JSON", line)
		}
		answers[q.ID] = json.RawMessage(line)
	}
	return answers, nil
}

// approvalAnswer reads y/yes as approval; anything else declines, with
// the text as the reason when it is not a plain no.
func approvalAnswer(line string) json.RawMessage {
	a := codeexec.Approval{}
	switch strings.ToLower(line) {
	case "y", "yes":
		a.Approved = true
	case "", "n", "no":
		a.Reason = codeexec.DeclinedReason
	default:
		a.Reason = line
	}
	b, _ := json.Marshal(a)
	return b
}

// describeQuestion is the text a person reads of q.
func describeQuestion(q agent.Question) string {
	// The question's text comes from a model, sandboxed code, an MCP
	// server or a graph's state: all of it is shown through termtext.Safe.
	return termtext.Safe(questionText(q))
}

// questionText is what describeQuestion shows, before it is made safe.
func questionText(q agent.Question) string {
	if q.Kind == codeexec.ApprovalKind {
		var req codeexec.ApprovalRequest
		if json.Unmarshal(q.Payload, &req) == nil && req.Code != "" {
			return "The agent wants to run this code:\n" + indent(req.Code)
		}
	}
	if q.Kind == mcp.ElicitationKind {
		var e mcp.Elicitation
		if json.Unmarshal(q.Payload, &e) == nil && e.Message != "" {
			text := "The MCP tool " + e.Tool + " asks: " + e.Message
			if len(e.Schema) > 0 {
				text += "\nAnswer {\"action\": \"accept\", \"content\": {...}} with content matching " + string(e.Schema) + ", or {\"action\": \"decline\"}."
			}
			return text
		}
	}
	if p, ok := promptOf(q); ok {
		return p
	}
	return "Question " + q.Kind + ": " + string(q.Payload)
}

// promptOf returns the text of a graph's human node: its prompt, and the
// state it shows.
func promptOf(q agent.Question) (string, bool) {
	var p struct {
		Prompt string                     `json:"prompt"`
		State  map[string]json.RawMessage `json:"state"`
	}
	if json.Unmarshal(q.Payload, &p) != nil || p.Prompt == "" {
		return "", false
	}
	text := p.Prompt
	for _, k := range slices.Sorted(maps.Keys(p.State)) {
		text += "\n  " + k + ": " + flow.TextOf(p.State[k])
	}
	return text, true
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// answerFlags are the flags of loom resume that answer qs.
func answerFlags(qs []agent.Question) string {
	if allApprovals(qs) {
		return "--approve (or --deny)"
	}
	return "--answer JSON"
}

func allApprovals(qs []agent.Question) bool {
	for _, q := range qs {
		if q.Kind != codeexec.ApprovalKind {
			return false
		}
	}
	return true
}

// chat runs one turn a line, each a turn of the durable session id (a
// new one when empty) with the earlier turns as history. The chat's
// commands (/help, /clear, /exit) are the example programs'; on a
// terminal, lines are edited with history. Ctrl-C cancels the turn going
// on; a second within two seconds exits 130.
func (r *runner) chat(ctx context.Context, id string) int {
	sess, closeSess, err := r.l.session(ctx, r.a, id)
	if err != nil {
		fmt.Fprintf(r.errOut, "%s: %v\n", r.name, err)
		return exitInvalid
	}
	defer closeSess()
	r.sess = sess
	read := func(prompt string) (string, error) {
		if r.con.terminal {
			fmt.Fprint(r.errOut, prompt)
		}
		return r.con.line()
	}
	if r.con.terminal {
		if rl, err := newChatReadline(r.errOut); err == nil {
			defer rl.Close()
			read = func(prompt string) (string, error) {
				rl.SetPrompt(prompt)
				return rl.Readline()
			}
			// Questions a run asks (approvals) are answered on the same
			// line editor, so stdin has one reader.
			r.con.lines = func() (string, error) { rl.SetPrompt(""); return rl.Readline() }
		}
		fmt.Fprintf(r.errOut, "Session %s: go on with it later with --session %s.\n", sess.ID(), sess.ID())
		fmt.Fprintln(r.errOut, "Type /help for commands, /exit to leave.")
	}
	loop := cli.ChatLoop{
		Name: r.name, HistoryName: "loom-run", Prompt: "> ",
		Read: func(prompt string) (string, error) {
			line, err := read(prompt)
			if errors.Is(err, readline.ErrInterrupt) {
				return "", cli.ErrInterrupt
			}
			return line, err
		},
		Out: r.errOut, Err: r.errOut,
		Clear: func(cctx context.Context) {
			if err := sess.Memory().Clear(cctx); err != nil {
				fmt.Fprintf(r.errOut, "%s: %v\n", r.name, err)
			}
		},
		Turn: func(tctx context.Context, line string) (int, bool) {
			// The session records the turn once its run ends, and hands the
			// earlier turns to the run as its history.
			_, code := r.drive(tctx, sess.Run(tctx, inputOf(line)), "")
			if tctx.Err() != nil {
				return code, false // the question was withdrawn, or a signal: runRun reports it
			}
			// A turn that waits for an answer with no one to ask ends the
			// chat (loom resume continues it); a failed turn (a tripped
			// guardrail, a model error) is not remembered, and the
			// conversation goes on, the failure its exit status.
			return code, code == exitWaiting
		},
	}
	return loop.Run(ctx)
}

// newChatReadline opens the terminal's line editor for --chat, its history
// kept in loom/loom-run.history under the user cache folder.
func newChatReadline(errOut io.Writer) (*readline.Instance, error) {
	cfg := &readline.Config{Prompt: "> ", InterruptPrompt: "^C", EOFPrompt: "/exit", Stdout: errOut, Stderr: errOut}
	if dir, err := os.UserCacheDir(); err == nil {
		hist := filepath.Join(dir, "loom", "loom-run.history")
		if os.MkdirAll(filepath.Dir(hist), 0o700) == nil {
			cfg.HistoryFile = hist
		}
	}
	return readline.NewEx(cfg)
}
