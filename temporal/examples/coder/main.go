// Command coder runs loom's Coder→Sandbox workflow on Temporal: a model
// writes JavaScript, a person approves it, and the sandbox runs it on a
// worker. See README.md.
//
//	coder worker                 run a worker (model calls and sandbox runs)
//	coder start [-id ID] [-auto] TASK
//	                             start a run and print its workflow id
//	                             (-auto: run the snippets without approval)
//	coder status -id ID          show the questions the run waits for
//	coder approve -id ID         approve the pending snippet (-deny REASON to deny)
//	coder result -id ID          wait for the run's answer and print it
//
// The worker reads OPENAI_API_KEY, OPENAI_BASE_URL (optional) and
// LOOM_MODEL (default gpt-4o-mini); every command reads TEMPORAL_ADDRESS
// (default 127.0.0.1:7233).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/openai"
	"github.com/loomwork/loom/sandbox"
	lt "github.com/loomwork/loom/temporal"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

func main() {
	sandbox.ServeWorkerIfChild() // the worker's sandbox re-executes this program
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "coder:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: coder worker | start [-id ID] [-auto] TASK | status -id ID | approve -id ID [-deny REASON] | result -id ID")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	id := fs.String("id", "", "the run's workflow id")
	deny := fs.String("deny", "", "deny the snippet with this reason instead of approving it")
	auto := fs.Bool("auto", false, "start: run the snippets without asking for approval (SolveWorkflow)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	addr := os.Getenv("TEMPORAL_ADDRESS")
	if addr == "" {
		addr = "127.0.0.1:7233"
	}
	c, err := client.Dial(client.Options{HostPort: addr, Logger: quietLogger()})
	if err != nil {
		return fmt.Errorf("connect to Temporal at %s (set TEMPORAL_ADDRESS): %w", addr, err)
	}
	defer c.Close()
	switch args[0] {
	case "worker":
		return runWorker(ctx, c)
	case "start":
		if fs.NArg() != 1 {
			return errors.New("start: give the task as one argument")
		}
		if *id == "" {
			*id = "coder-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		}
		var wf any = CoderWorkflow
		if *auto {
			wf = SolveWorkflow
		}
		r, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: *id, TaskQueue: TaskQueue}, wf, fs.Arg(0))
		if err != nil {
			return err
		}
		fmt.Fprintln(out, r.GetID())
		return nil
	case "status":
		st, err := status(ctx, c, *id)
		if err != nil {
			return err
		}
		b, _ := json.MarshalIndent(st.Pending, "", "  ")
		fmt.Fprintf(out, "events: %d, done: %v, pending:\n%s\n", st.Next, st.Done, b)
		return nil
	case "approve":
		return approve(ctx, c, *id, codeexec.Approval{Approved: *deny == "", Reason: *deny})
	case "result":
		var s string
		if err := c.GetWorkflow(ctx, *id, "").Get(ctx, &s); err != nil {
			return err
		}
		fmt.Fprintln(out, s)
		return nil
	}
	return fmt.Errorf("unknown command %q: use worker, start, status, approve or result", args[0])
}

// status queries the run's pending questions.
func status(ctx context.Context, c client.Client, id string) (lt.Status, error) {
	var st lt.Status
	v, err := c.QueryWorkflow(ctx, id, "", lt.StatusQuery, 0)
	if err != nil {
		return st, err
	}
	return st, v.Get(&st)
}

// approve answers the run's pending approval with a signal.
func approve(ctx context.Context, c client.Client, id string, a codeexec.Approval) error {
	st, err := status(ctx, c, id)
	if err != nil {
		return err
	}
	for _, q := range st.Pending {
		if q.Kind != codeexec.ApprovalKind {
			continue
		}
		ans, _ := json.Marshal(a)
		return c.SignalWorkflow(ctx, id, "", lt.AnswerSignal, lt.Answer{QuestionID: q.ID, Answer: ans})
	}
	return fmt.Errorf("run %s waits for no approval: check `coder status -id %s`", id, id)
}

// newActivities builds the worker's side: the model from this worker's
// environment (its key never enters the history) with the SDK's retries
// off, and the sandbox.
func newActivities() (*lt.Activities, sandbox.Executor, error) {
	tool, exec, err := lt.WorkerSandboxTool(sandbox.IsolatedConfig{})
	if err != nil {
		return nil, nil, err
	}
	name := os.Getenv("LOOM_MODEL")
	if name == "" {
		name = "gpt-4o-mini"
	}
	acts, err := lt.NewActivities(lt.Config{
		Models: map[string]func(context.Context) (model.Model, error){
			ModelRef: func(context.Context) (model.Model, error) {
				opts := []model.ClientOption{model.WithMaxRetries(0)}
				if u := os.Getenv("OPENAI_BASE_URL"); u != "" {
					opts = append(opts, model.WithBaseURL(u))
				}
				return openai.New(name, opts...)
			},
		},
		Tools: []agent.Agent{tool},
	})
	if err != nil {
		return nil, nil, errors.Join(err, exec.Close())
	}
	return acts, exec, nil
}

func runWorker(ctx context.Context, c client.Client) error {
	acts, exec, err := newActivities()
	if err != nil {
		return err
	}
	defer exec.Close()
	w := worker.New(c, TaskQueue, worker.Options{})
	w.RegisterWorkflow(CoderWorkflow)
	w.RegisterWorkflow(SolveWorkflow)
	acts.Register(w)
	stop := make(chan any)
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		select {
		case <-sig:
		case <-ctx.Done():
		}
		close(stop)
	}()
	fmt.Fprintln(os.Stderr, "coder: worker ready on task queue", TaskQueue)
	return w.Run(stop)
}
