package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/openai"
	"github.com/loomwork/loom/sandbox"
	lt "github.com/loomwork/loom/temporal"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// BenchLoopWorkflow makes n model calls, or n sandbox runs when sandbox is
// set, one after the other.
func BenchLoopWorkflow(w workflow.Context, n int, runSandbox bool) error {
	ctx := lt.Context(w)
	if runSandbox {
		tool, err := lt.SandboxTool(sandbox.DefaultLimits(), lt.ActivityOptions{})
		if err != nil {
			return err
		}
		for i := range n {
			if _, err := agent.Invoke(ctx, tool, map[string]string{"code": fmt.Sprintf("%d * 2", i)}); err != nil {
				return err
			}
		}
		return nil
	}
	m := lt.NewModel(ModelRef, lt.ActivityOptions{})
	for i := range n {
		if _, err := model.Generate(ctx, m, model.Request{Messages: []model.Message{model.UserMessage(fmt.Sprint("hi ", i))}}); err != nil {
			return err
		}
	}
	return nil
}

// textServer answers every chat completion with "ok".
func textServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
}

// BenchmarkOverhead measures a model call and a sandbox run made directly
// and as activities of a workflow on a real dev server: the difference is
// Temporal's per-activity cost (scheduling, history writes, the worker's
// poll). It needs LOOM_TEMPORAL_CLI.
func BenchmarkOverhead(b *testing.B) {
	bin := os.Getenv(CLIEnv)
	if bin == "" {
		b.Skipf("%s is not set", CLIEnv)
	}
	srvModel := textServer()
	defer srvModel.Close()
	b.Setenv("OPENAI_BASE_URL", srvModel.URL+"/v1")
	b.Setenv("OPENAI_API_KEY", "sk-bench")
	b.Setenv("LOOM_MODEL", "gpt-test")
	acts, exec, err := newActivities()
	if err != nil {
		b.Fatal(err)
	}
	defer exec.Close()
	direct, err := openai.New("gpt-test", model.WithBaseURL(srvModel.URL+"/v1"), model.WithAPIKey("sk-bench"), model.WithMaxRetries(0))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("model/direct", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := model.Generate(ctx, direct, model.Request{Messages: []model.Message{model.UserMessage(fmt.Sprint("hi ", i))}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sandbox/direct", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := exec.Run(ctx, fmt.Sprintf("%d * 2", i)); err != nil {
				b.Fatal(err)
			}
		}
	})

	srv := &devServer{bin: bin, db: filepath.Join(b.TempDir(), "bench.db")}
	srv.port, srv.http, srv.metrics = freePort(b), freePort(b), freePort(b)
	srv.start(b)
	defer func() { _ = srv.cmd.Process.Kill(); _ = srv.cmd.Wait() }()
	c := dial(b, srv.addr())
	defer c.Close()
	w := worker.New(c, TaskQueue, worker.Options{})
	w.RegisterWorkflow(BenchLoopWorkflow)
	acts.Register(w)
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	for _, kind := range []string{"model", "sandbox"} {
		b.Run(kind+"/temporal", func(b *testing.B) {
			n := b.N
			r, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: TaskQueue}, BenchLoopWorkflow, n, kind == "sandbox")
			if err != nil {
				b.Fatal(err)
			}
			if err := r.Get(ctx, nil); err != nil {
				b.Fatal(err)
			}
		})
	}
}
