// Command graph-code-review is the Coder→Sandbox workflow rebuilt as a
// graph: a coder writes JavaScript for a question, a reviewer checks it, a
// person approves it, an executor runs it in the sandbox, and an error
// handler sends a failure back to the coder. Every step is checkpointed in
// a SQLite file, so the run stops at the approval, the process exits, and a
// later process resumes it with the answer. It spells the loop out as nodes
// to show a graph's branches and checkpoints; package codeexec is the loop
// to use, with the same steps as guards around one sandbox tool call.
//
// Usage:
//
//	graph-code-review ask "What is 15!?"   # stops at the approval (exit status 3)
//	graph-code-review approve              # or: reject "use a loop"
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/graph"
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/model"
	_ "github.com/loomwork/loom/model/providers"
	"github.com/loomwork/loom/sandbox"
)

// Job is the graph's state.
type Job struct {
	Question string   `json:"question"`
	Code     string   `json:"code,omitempty"`
	Feedback string   `json:"feedback,omitempty"` // why the last code was sent back
	Approved bool     `json:"approved,omitempty"`
	Result   string   `json:"result,omitempty"`
	Attempts int      `json:"attempts"`
	Log      []string `json:"log"`
}

// MaxAttempts bounds the trips back to the coder.
const MaxAttempts = 3

const coderPrompt = "You write JavaScript that computes the answer to the user's question. The value of the last expression is the result. Reply with the code only, no prose and no fences."

const reviewerPrompt = "You review JavaScript for correctness and safety. Reply APPROVE if it is fine, otherwise one sentence saying what is wrong."

func build(m model.Model, exec sandbox.Executor) (*graph.Compiled[Job], error) {
	coder, err := agent.NewAI(agent.AIConfig{Name: "coder", Instructions: coderPrompt, Model: m})
	if err != nil {
		return nil, err
	}
	reviewer, err := agent.NewAI(agent.AIConfig{Name: "reviewer", Instructions: reviewerPrompt, Model: m})
	if err != nil {
		return nil, err
	}
	text := func(out json.RawMessage) string {
		var v struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(out, &v)
		return strings.TrimSpace(v.Message)
	}
	g := graph.New[Job](graph.Config{Name: "code_review"}).
		Reducer("log", graph.Append()).
		AgentNode("coder", coder, func(j Job) (any, error) {
			msg := j.Question
			if j.Feedback != "" {
				msg += "\n\nYour previous code:\n" + j.Code + "\n\nFeedback: " + j.Feedback
			}
			return msg, nil
		}, func(j Job, out json.RawMessage) (Job, error) {
			j.Code, j.Feedback = text(out), ""
			j.Log = append(j.Log, "coder wrote code")
			return j, nil
		}).
		AgentNode("reviewer", reviewer, func(j Job) (any, error) { return j.Code, nil },
			func(j Job, out json.RawMessage) (Job, error) {
				review := text(out)
				if !strings.HasPrefix(review, "APPROVE") {
					j.Feedback = "the reviewer says: " + review
					j.Attempts++
				}
				j.Log = append(j.Log, "reviewer: "+review)
				return j, nil
			}).
		Ask("approval", func(j Job) (graph.Question, error) {
			return graph.Question{
				Kind:    "approval",
				Payload: map[string]string{"code": j.Code},
				Schema:  json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string"}},"required":["approved"]}`),
			}, nil
		}, func(j Job, answer json.RawMessage) (Job, error) {
			var a struct {
				Approved bool   `json:"approved"`
				Reason   string `json:"reason"`
			}
			if err := json.Unmarshal(answer, &a); err != nil {
				return j, err
			}
			j.Approved = a.Approved
			if a.Approved {
				j.Log = append(j.Log, "approved")
			} else {
				j.Feedback = "a person declined to run it: " + a.Reason
				j.Attempts++
				j.Log = append(j.Log, "declined: "+a.Reason)
			}
			return j, nil
		}).
		Node("executor", func(ctx context.Context, j Job) (Job, error) {
			// Once: the sandbox run is a journaled run of its own, so a
			// node that runs again (its process died) does not run the
			// same code again.
			res, err := graph.Once(ctx, "run", func(ctx context.Context) (string, error) {
				r, err := exec.Run(ctx, j.Code)
				if err != nil {
					return "error: " + err.Error(), nil
				}
				return string(r.Value), nil
			})
			if err != nil {
				return j, err
			}
			if msg, failed := strings.CutPrefix(res, "error: "); failed {
				j.Feedback = "running it failed: " + msg
				j.Log = append(j.Log, "executor failed: "+msg)
				return j, nil
			}
			j.Result = res
			j.Log = append(j.Log, "executor: "+res)
			return j, nil
		}).
		Node("error_handler", func(_ context.Context, j Job) (Job, error) {
			j.Attempts++
			j.Log = append(j.Log, fmt.Sprintf("error handler: attempt %d of %d", j.Attempts, MaxAttempts))
			return j, nil
		}).
		Edge(graph.START, "coder").Edge("coder", "reviewer").
		Branch("reviewer", func(_ context.Context, j Job) ([]string, error) {
			return route(j, "approval"), nil
		}, "approval", "coder", graph.END).
		Branch("approval", func(_ context.Context, j Job) ([]string, error) {
			return route(j, "executor"), nil
		}, "executor", "coder", graph.END).
		Branch("executor", func(_ context.Context, j Job) ([]string, error) {
			if j.Feedback != "" {
				return []string{"error_handler"}, nil
			}
			return []string{graph.END}, nil
		}, "error_handler", graph.END).
		Branch("error_handler", func(_ context.Context, j Job) ([]string, error) {
			return route(j, graph.END), nil
		}, "coder", graph.END)
	return g.Compile()
}

// route goes on to next, or back to the coder when there is feedback, or
// ends when the attempts are spent.
func route(j Job, next string) []string {
	switch {
	case j.Feedback == "":
		return []string{next}
	case j.Attempts >= MaxAttempts:
		return []string{graph.END}
	}
	return []string{"coder"}
}

// usage is the --help text, in the grammar of every loom program.
const usage = `graph-code-review: the Coder→Sandbox workflow as a graph, stopping for your approval

Usage:
  graph-code-review [flags] ask QUESTION   write, review and stop for approval
  graph-code-review [flags] approve        run the approved code
  graph-code-review [flags] reject REASON  send the code back to the coder
  graph-code-review [flags] history        the state after each step
  graph-code-review mermaid                the graph as a Mermaid chart

Flags:
  --db FILE                 the SQLite file that keeps the checkpoints (default code-review.db)
  --thread ID               the run id (default review)
  --model PROVIDER[:MODEL]  PROVIDER[:MODEL], as openai:gpt-5.4-mini or ollama:llama3.2 (default $MODEL, then openai)
  -h, --help                show this help

`

func main() {
	sandbox.ServeWorkerIfChild()
	_, file, _, _ := runtime.Caller(0)
	ctx, stop := cli.NotifyContext(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, cli.DotEnvFiles(filepath.Dir(file)))
	if s := cli.Interrupted(ctx); s != nil {
		fmt.Fprint(os.Stderr, cli.InterruptedMessage("graph-code-review", s, "the run was cancelled"))
		code = s.ExitCode()
	}
	stop()
	os.Exit(code)
}

// run is the program, with the .env.local files it reads keys from.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, envFiles []string) int {
	fs := flag.NewFlagSet("graph-code-review", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	db := fs.String("db", "code-review.db", "")
	thread := fs.String("thread", "review", "")
	modelID := fs.String("model", "", "")
	help := fs.Bool("help", false, "")
	fs.BoolVar(help, "h", false, "")
	pos, err := cli.ParseInterleaved(fs, args)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "graph-code-review: %v (see --help)\n", err)
		return cli.ExitUsage
	case *help:
		fmt.Fprint(stdout, usage+cli.DotEnvOrder+"\n\n"+cli.ExitTable)
		return cli.ExitOK
	case len(pos) == 0:
		fmt.Fprint(stderr, usage)
		return cli.ExitUsage
	case !slices.Contains([]string{"ask", "approve", "reject", "history", "mermaid"}, pos[0]):
		fmt.Fprintf(stderr, "graph-code-review: unknown command %q: use ask, approve, reject, history or mermaid (see --help)\n", pos[0])
		return cli.ExitUsage
	}
	if err := cli.LoadDotEnv(envFiles); err != nil {
		fmt.Fprintln(stderr, "graph-code-review:", err)
		return cli.ExitUsage
	}
	var m model.Model // history and mermaid need none
	if cmd := pos[0]; cmd == "ask" || cmd == "approve" || cmd == "reject" {
		var err error
		if m, err = cli.OpenModel(cli.ModelID(*modelID, os.Getenv), envFiles); err != nil {
			fmt.Fprintln(stderr, "graph-code-review:", err)
			return cli.ExitUsage
		}
	}
	store, err := sqlite.Open(ctx, sqlite.Config{Path: *db})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer store.Close()
	exec, err := sandbox.NewIsolated(sandbox.IsolatedConfig{})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer exec.Close()
	c, err := build(m, exec)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	// The engine saves the run, its steps and its questions in the store:
	// the one way a run is saved and resumed.
	e := engine.New(engine.Config{Checkpoints: store})
	var res *engine.Result
	switch cmd := pos[0]; cmd {
	case "ask":
		ctx := agentrt.WithIDs(ctx, func() string { return *thread })
		res, err = e.Invoke(ctx, c, Job{Question: strings.Join(pos[1:], " ")})
	case "approve", "reject":
		qs, perr := e.Pending(ctx, *thread)
		if perr != nil || len(qs) == 0 {
			fmt.Fprintf(stderr, "run %q waits for no approval (%v)\n", *thread, perr)
			return 1
		}
		a, _ := json.Marshal(map[string]any{"approved": cmd == "approve", "reason": strings.Join(pos[1:], " ")})
		res, err = e.ResumeInvoke(ctx, c, *thread, map[string]json.RawMessage{qs[0].ID: a})
	case "history":
		hist, herr := c.History(ctx, e, *thread)
		if herr != nil {
			fmt.Fprintln(stderr, herr)
			return 1
		}
		for _, h := range hist {
			fmt.Fprintf(stdout, "checkpoint %d step %d next %v\n", h.Seq, h.Step, h.Next)
		}
		return 0
	case "mermaid":
		fmt.Fprint(stdout, c.Mermaid())
		return 0
	}
	if errors.Is(err, agent.ErrInterrupted) {
		hist, herr := c.History(ctx, e, *thread)
		if herr != nil || len(hist) == 0 {
			fmt.Fprintln(stderr, "history:", herr)
			return 1
		}
		snap := hist[len(hist)-1]
		for _, l := range snap.State.Log {
			fmt.Fprintln(stdout, l)
		}
		fmt.Fprintf(stdout, "\nWaiting for approval of:\n%s\n\nResume with: graph-code-review approve (or reject REASON)\n", indent(snap.State.Code))
		return cli.ExitWaiting
	}
	var out Job
	if err == nil {
		err = res.Decode(&out)
	}
	for _, l := range out.Log {
		fmt.Fprintln(stdout, l)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		if errors.Is(err, agent.ErrInvalidAnswer) {
			return 2
		}
		return 1
	}
	if out.Result == "" {
		fmt.Fprintf(stdout, "\nNo result after %d attempts.\n", out.Attempts)
		return 1
	}
	fmt.Fprintf(stdout, "\nResult: %s\n", out.Result)
	return 0
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }
