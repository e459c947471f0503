package viewer_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/browsertest"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/loomwork/loom/observe/viewer"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestBrowserWaitingRun records a run that pauses for an approval and one
// that answers, and checks in headless Chromium that the paused run shows
// as Waiting with its question, not as a red Error, and is left out of
// the success rate.
func TestBrowserWaitingRun(t *testing.T) {
	ctx := browsertest.Browser(t)
	dir := browsertest.Artifacts(t, "observe")

	s, err := store.Open(context.Background(), store.Config{Path: filepath.Join(t.TempDir(), "traces.db")})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	// loom's own tracer, as loom run and loom serve record with.
	tp, err := observe.NewTracerProvider(s, observe.BatchConfig{}, false)
	require.NoError(t, err)
	deploy := testkit.Fn(t, "deploy", func(ctx context.Context, in map[string]any) (map[string]any, error) {
		if _, err := agent.Ask(ctx, "approval", in, nil); err != nil {
			return nil, err
		}
		return map[string]any{"deployed": true}, nil
	})
	ops := testkit.NewAI(t, agent.AIConfig{Name: "ops", Model: modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "deploy", `{"env":"prod"}`))), Tools: []agent.Agent{deploy}})
	e := engine.New(engine.Config{Checkpoints: checkpoint.NewMemory(), TracerProvider: tp})
	_, err = e.Invoke(t.Context(), ops, "Deploy to prod.")
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	_, err = e.Invoke(t.Context(), testkit.Constant(t, "echo", map[string]any{"message": "pong"}), "ping")
	require.NoError(t, err)
	require.NoError(t, tp.Shutdown(context.Background()))

	page, err := s.Traces(context.Background(), store.Query{Status: store.StatusWaiting})
	require.NoError(t, err)
	require.Len(t, page.Traces, 1)
	require.Equal(t, "waits for approval "+ie.Questions[0].ID, page.Traces[0].Error)
	require.Zero(t, page.Traces[0].Errors, "no step of a paused run failed")
	stats, err := s.Stats(context.Background(), store.Query{})
	require.NoError(t, err)
	require.Equal(t, store.Stats{Traces: 2, OK: 1, Waiting: 1}, store.Stats{Traces: stats.Traces, OK: stats.OK, Errors: stats.Errors, Waiting: stats.Waiting})
	require.Zero(t, stats.ErrorRate)

	srv := httptest.NewServer(viewer.NewHandler(s, viewer.HandlerConfig{}))
	defer srv.Close()
	row := `tr[data-trace="` + page.Traces[0].TraceID + `"]`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(row)),
	))
	rowText, err := textInPage(ctx, row)
	require.NoError(t, err)
	require.Contains(t, rowText, "Waiting")
	require.NotContains(t, rowText, "Error")
	require.Contains(t, rowText, "waits for approval")
	require.Empty(t, texts(t, ctx, row+" .run-error"), "not shown as a failure")
	statsText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="stats"]`)))
	require.NoError(t, err)
	require.Contains(t, statsText, "100%", "the paused run is not a failure")
	require.Contains(t, statsText, "1 waiting")
	browsertest.Shoot(t, ctx, dir, "observe-waiting-list.png")

	require.NoError(t, clickInPage(ctx, row))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.trace-waiting`))))
	head, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".trace-head")))
	require.NoError(t, err)
	require.Contains(t, head, "Waiting")
	require.Contains(t, head, "waits for approval "+ie.Questions[0].ID)
	require.Empty(t, texts(t, ctx, "#waterfall .wf-err"), "no span of the paused run is marked failed")
	browsertest.Shoot(t, ctx, dir, "observe-waiting-trace.png")
}

// TestBrowserResumedRunIsOneRun records a run that pauses for an approval
// in one engine and is approved in another (as in a second process): two
// traces of one loom run. The store marks the first part continued and
// links the parts; Chromium shows the resumed part tagged, and each part's
// page links to the other.
func TestBrowserResumedRunIsOneRun(t *testing.T) {
	ctx := browsertest.Browser(t)
	dir := browsertest.Artifacts(t, "observe")

	s, err := store.Open(context.Background(), store.Config{Path: filepath.Join(t.TempDir(), "traces.db")})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	runs := checkpoint.NewMemory()
	record := func(f func(e *engine.Engine)) {
		tp, err := observe.NewTracerProvider(s, observe.BatchConfig{}, false)
		require.NoError(t, err)
		f(engine.New(engine.Config{Checkpoints: runs, TracerProvider: tp}))
		require.NoError(t, tp.Shutdown(context.Background()))
	}
	deploy := testkit.Fn(t, "deploy", func(ctx context.Context, in map[string]any) (map[string]any, error) {
		if _, err := agent.Ask(ctx, "approval", in, nil); err != nil {
			return nil, err
		}
		return map[string]any{"deployed": true}, nil
	})
	m := modeltest.New(t, modeltest.ToolCalls(modeltest.Call("c1", "deploy", `{"env":"prod"}`)), modeltest.Text("Deployed."))
	ops := testkit.NewAI(t, agent.AIConfig{Name: "ops", Model: m, Tools: []agent.Agent{deploy}})
	var ie *agent.InterruptedError
	record(func(e *engine.Engine) {
		_, err := e.Invoke(t.Context(), ops, "Deploy to prod.")
		require.ErrorAs(t, err, &ie)
	})
	record(func(e *engine.Engine) {
		res, err := e.ResumeInvoke(t.Context(), ops, ie.Questions[0].Run, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`true`)})
		require.NoError(t, err)
		require.Equal(t, "Deployed.", res.Text())
	})

	page, err := s.Traces(context.Background(), store.Query{})
	require.NoError(t, err)
	require.Len(t, page.Traces, 2)
	second, first := page.Traces[0], page.Traces[1] // newest first
	require.Equal(t, ie.Questions[0].Run, first.RunID)
	require.Equal(t, first.RunID, second.RunID, "one run")
	require.Equal(t, store.StatusContinued, first.Status, "the paused part went on elsewhere: it no longer waits")
	require.False(t, first.Resumed)
	require.Equal(t, store.StatusOK, second.Status)
	require.True(t, second.Resumed)
	stats, err := s.Stats(context.Background(), store.Query{})
	require.NoError(t, err)
	require.Equal(t, int64(1), stats.OK)
	require.Zero(t, stats.Waiting)
	require.Zero(t, stats.ErrorRate)
	d, err := s.Trace(context.Background(), second.TraceID)
	require.NoError(t, err)
	require.Len(t, d.Parts, 2)
	require.Equal(t, first.TraceID, d.Parts[0].TraceID)

	srv := httptest.NewServer(viewer.NewHandler(s, viewer.HandlerConfig{}))
	defer srv.Close()
	row := `tr[data-trace="` + second.TraceID + `"]`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(row)),
	))
	require.Equal(t, []string{"resumed"}, texts(t, ctx, row+" .resumed"))
	firstRow, err := textInPage(ctx, `tr[data-trace="`+first.TraceID+`"]`)
	require.NoError(t, err)
	require.Contains(t, firstRow, "Continued")
	require.NotContains(t, firstRow, "Error")
	statsText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="stats"]`)))
	require.NoError(t, err)
	require.Contains(t, statsText, "100%")
	browsertest.Shoot(t, ctx, dir, "observe-resumed-list.png")

	require.NoError(t, clickInPage(ctx, row))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="run-parts"]`))))
	nav, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="run-parts"]`)))
	require.NoError(t, err)
	require.Contains(t, nav, "part 2 of 2")
	require.Contains(t, nav, "part 1 (continued)")
	browsertest.Shoot(t, ctx, dir, "observe-resumed-trace.png")
	// The link leads to the first part, which links back.
	require.NoError(t, clickInPage(ctx, `[data-testid="run-parts"] a[data-part="1"]`))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="run-parts"] a[data-part="2"]`))))
	head, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".trace-head")))
	require.NoError(t, err)
	require.Contains(t, head, "part 1 of 2")
	require.Contains(t, head, "Continued")
}

// TestBrowserFailedSnippetCountsOnce: a snippet that threw fails its
// sandbox run, its tool agent and its tool call; the list counts one
// failed step, whether the spans were written together or apart.
func TestBrowserFailedSnippetCountsOnce(t *testing.T) {
	ctx := browsertest.Browser(t)
	s := newStore(t, fixture.Run{Seed: 31, Outcome: fixture.SandboxError, Question: "Compute 20! exactly"})
	// The same run's spans written one export each, as a live trace's
	// spans reach the store in several writes.
	exp := store.NewExporter(s)
	for _, sp := range fixture.CoderSandbox(fixture.Run{Seed: 32, Outcome: fixture.SandboxError}).Snapshots() {
		require.NoError(t, exp.ExportSpans(context.Background(), []sdktrace.ReadOnlySpan{sp}))
	}
	for _, seed := range []uint64{31, 32} {
		d, err := s.Trace(context.Background(), fixture.IDs(seed).String())
		require.NoError(t, err)
		require.Equal(t, int64(1), d.Summary.Errors, "seed %d", seed)
	}

	srv := httptest.NewServer(viewer.NewHandler(s, viewer.HandlerConfig{}))
	defer srv.Close()
	row := `tr[data-trace="` + fixture.IDs(31).String() + `"]`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(row)),
	))
	text, err := textInPage(ctx, row+" .recovered")
	require.NoError(t, err)
	require.Equal(t, "1 failed step", text)
}

// TestBrowserNoComputedAnswer: a run whose only snippet threw, and whose
// model answered anyway, has no computed answer (the CLIs exit with 4):
// the list shows it as such, not OK, and it is not a success.
func TestBrowserNoComputedAnswer(t *testing.T) {
	ctx := browsertest.Browser(t)
	s := newStore(t, fixture.Run{Seed: 41, Outcome: fixture.SandboxError}, fixture.Run{Seed: 42})
	srv := httptest.NewServer(viewer.NewHandler(s, viewer.HandlerConfig{}))
	defer srv.Close()
	row := `tr[data-trace="` + fixture.IDs(41).String() + `"]`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(row)),
	))
	text, err := textInPage(ctx, row)
	require.NoError(t, err)
	require.Contains(t, text, "No computed answer")
	require.Contains(t, text, "ReferenceError: fact is not defined")
	require.Equal(t, []string{"No computed answer"}, texts(t, ctx, row+" .pill"))
	stats, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="stats"]`)))
	require.NoError(t, err)
	require.Contains(t, stats, "50%")
	require.Contains(t, stats, "1 ok · 1 failed")
}
