package main

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// historyFile is a history recorded on a real dev server by
// TestDevServerKillsAndRestarts (with LOOM_TEMPORAL_RECORD set): a worker
// killed during the model call, a retry on another worker, an approval
// signal after a server restart, a sandbox run and the answer. Its
// workflow id matters: run and question ids derive from it.
const historyFile = "testdata/coder_history.json"

func replay(t *testing.T, r worker.WorkflowReplayer) error {
	t.Helper()
	f, err := os.Open(historyFile)
	require.NoError(t, err)
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)
	return r.ReplayWorkflowHistoryWithOptions(quietLogger(), h, worker.ReplayWorkflowHistoryOptions{
		OriginalExecution: workflow.Execution{ID: integrationID},
	})
}

func TestReplayRecordedHistory(t *testing.T) {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflow(CoderWorkflow)
	require.NoError(t, replay(t, r), "the workflow code replays its recorded history deterministically")
}

// changedCoder does other work than the recorded run did: a timer before
// anything else.
func changedCoder(w workflow.Context, task string) (string, error) {
	if err := workflow.Sleep(w, 1); err != nil {
		return "", err
	}
	return CoderWorkflow(w, task)
}

func TestReplayDetectsChangedWorkflow(t *testing.T) {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(changedCoder, workflow.RegisterOptions{Name: "CoderWorkflow"})
	err := replay(t, r)
	// TMPRL1100 is Temporal's code for a nondeterministic replay.
	require.ErrorContains(t, err, "TMPRL1100", "a changed workflow does not replay the recorded history")
}

func TestReplayRecordsNoSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	prev := otel.GetTracerProvider()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	otel.SetTracerProvider(tp)
	defer func() {
		otel.SetTracerProvider(prev)
		require.NoError(t, tp.Shutdown(context.Background()))
	}()
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflow(CoderWorkflow)
	require.NoError(t, replay(t, r))
	require.Empty(t, rec.Ended(), "a replayed run records no spans")
}
