package viewer_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/evals"
	"github.com/loomwork/loom/internal/browsertest"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/store"
	"github.com/loomwork/loom/observe/viewer"
	"github.com/loomwork/loom/sandbox"
	"github.com/stretchr/testify/require"
)

// TestBrowserEvalRun records an evaluation of three hand-written problems
// (a scripted solver answers two right and one wrong, checked in the
// in-process sandbox) beside an agent run, with loom's own tracer, and
// checks in headless Chromium that the list shows it as an eval with its
// scores, not as a run of its solver and not in the success rate, and
// that its page lists the samples with their problem, class and score,
// each leading to its spans.
func TestBrowserEvalRun(t *testing.T) {
	ctx := browsertest.Browser(t)
	dir := browsertest.Artifacts(t, "observe")

	s, err := store.Open(context.Background(), store.Config{Path: filepath.Join(t.TempDir(), "traces.db")})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	tp, err := observe.NewTracerProvider(s, observe.BatchConfig{}, false)
	require.NoError(t, err)

	probs := []evals.Problem{
		{ID: "Hand/0", EntryPoint: "add", Prompt: "// Return a + b.\nfunction add(a, b) {\n", Tests: "assert.deepStrictEqual(candidate(2, 3), 5);"},
		{ID: "Hand/1", EntryPoint: "double", Prompt: "// Return 2 * x.\nfunction double(x) {\n", Tests: "assert.deepStrictEqual(candidate(4), 8);"},
		{ID: "Hand/2", EntryPoint: "negate", Prompt: "// Return -x.\nfunction negate(x) {\n", Tests: "assert.deepStrictEqual(candidate(7), -7);"},
	}
	answers := map[string]string{
		"add":    "function add(a, b) { return a + b; }",
		"double": "function double(x) { return x + 2; }", // wrong: 6 for 4
		"negate": "function negate(x) { return -x; }",
	}
	turns := make([]modeltest.Turn, len(probs))
	for i := range turns {
		turns[i] = modeltest.Func(func(req model.Request) modeltest.Turn {
			prompt := req.Messages[len(req.Messages)-1].Text()
			for name, code := range answers {
				if strings.Contains(prompt, "function "+name+"(") {
					return modeltest.Text("```javascript\n" + code + "\n```")
				}
			}
			return modeltest.Text("no idea")
		})
	}
	solver, err := agent.NewAI(agent.AIConfig{Name: "solver", Model: modeltest.New(t, turns...)})
	require.NoError(t, err)
	ex, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ex.Close() })
	rep, err := evals.Run(t.Context(), probs, evals.Config{
		Solver: solver, Executor: ex, Concurrency: 1, K: []int{1},
		Dataset: "hand-js", Model: "modeltest:scripted", SolverName: "solver", TracerProvider: tp,
	})
	require.NoError(t, err)
	require.InDelta(t, 2.0/3, rep.PassAt[1], 1e-12)
	require.NoError(t, tp.Shutdown(context.Background()))

	page, err := s.Traces(context.Background(), store.Query{Status: store.StatusEval})
	require.NoError(t, err)
	require.Len(t, page.Traces, 1)
	ev := page.Traces[0]
	require.Equal(t, &store.EvalSummary{Dataset: "hand-js", Model: "modeltest:scripted", Solver: "solver",
		Problems: 3, SamplesPerProblem: 1, Samples: 3, Passed: 2, PassAt: map[string]float64{"1": rep.PassAt[1]}}, ev.Eval)
	stats, err := s.Stats(context.Background(), store.Query{})
	require.NoError(t, err)
	require.Equal(t, int64(1), stats.Evals)
	require.Zero(t, stats.OK+stats.Errors, "the evaluation is not an agent run")

	srv := httptest.NewServer(viewer.NewHandler(s, viewer.HandlerConfig{}))
	defer srv.Close()
	row := `tr[data-trace="` + ev.TraceID + `"]`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(row)),
	))
	require.Equal(t, []string{"Eval"}, texts(t, ctx, row+" .pill"))
	require.Equal(t, []string{"Eval hand-js"}, texts(t, ctx, row+" .run-agent span:first-child"))
	require.Equal(t, []string{"pass@1 66.7% · 2 of 3 samples passed"}, texts(t, ctx, row+` [data-testid="eval-score"]`))
	require.Empty(t, texts(t, ctx, row+" .run-error"), "failed samples are scores, not the run's error")
	statsText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="stats"]`)))
	require.NoError(t, err)
	require.Contains(t, statsText, "1 eval")
	require.Contains(t, statsText, "0 ok · 0 failed", "not counted as an agent run")
	browsertest.Shoot(t, ctx, dir, "observe-eval-list.png")

	require.NoError(t, clickInPage(ctx, row))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="eval-samples"] tbody tr`))))
	head, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".trace-head")))
	require.NoError(t, err)
	require.Contains(t, head, "Eval hand-js")
	require.Contains(t, head, "pass@1 66.7%")
	require.Contains(t, head, "3 problems × 1 sample")
	samples, err := chromedp.Run(ctx, chromedp.Evaluate[[][]string](`[...document.querySelectorAll('[data-testid="eval-samples"] tbody tr')]
		.map((tr) => [...tr.querySelectorAll("td")].slice(0, 4).map((td) => td.textContent))`))
	require.NoError(t, err)
	require.Equal(t, [][]string{
		{"Hand/0", "1", "passed", "1"},
		{"Hand/1", "1", "assertion", "0"},
		{"Hand/2", "1", "passed", "1"},
	}, samples)
	browsertest.Shoot(t, ctx, dir, "observe-eval-trace.png")

	// A sample leads to its span, under which the solver ran.
	require.NoError(t, clickInPage(ctx, `[data-testid="eval-samples"] tbody tr:nth-child(2)`))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#waterfall .wf-row.selected`))))
	selected, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#waterfall .wf-row.selected`)))
	require.NoError(t, err)
	require.Contains(t, selected, "Hand/1")
	detail, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#detail-scroll`)))
	require.NoError(t, err)
	require.Contains(t, detail, "assertion")
}
