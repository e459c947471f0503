package yamlgraph

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/browsertest"
	_ "github.com/loomwork/loom/model/providers"
	"github.com/loomwork/loom/playground"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

// TestGraphInThePlayground runs the graph from the playground: its nodes and
// edges drawn, the running node lit, the approval answered from the page
// after a reload, and the trace of the run's nested steps.
func TestGraphInThePlayground(t *testing.T) {
	ctx := browsertest.Browser(t)
	shots := browsertest.Artifacts(t, "playground-graph")
	// The first review waits until the test has seen its node lit.
	gate := make(chan struct{})
	reply := team()
	srv := fakeopenai.New(t, func(req fakeopenai.Request) fakeopenai.Reply {
		if req.Index == 1 {
			select {
			case <-gate:
			case <-time.After(time.Minute):
			}
		}
		return reply(req)
	})
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")

	dir := t.TempDir()
	src, err := os.ReadFile("loom.yaml")
	require.NoError(t, err)
	// The expressions run in the in-process sandbox: the test binary is no
	// sandbox worker.
	src = []byte(strings.Replace(string(src), "sandbox: {kind: isolated, timeout: 2s}", "sandbox: {kind: in_process, trusted: true, timeout: 2s}", 1))
	path := filepath.Join(dir, "loom.yaml")
	require.NoError(t, os.WriteFile(path, src, 0o644))
	store, err := sqlite.Open(t.Context(), sqlite.Config{Path: filepath.Join(dir, "checkpoints.db")})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, store.Close()) })
	pg, err := playground.New(playground.Config{Path: path, Engine: engine.New(engine.Config{Checkpoints: store}), Registry: spec.Registry{Checkpoints: store, TrustedCode: true}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pg.Close()) })
	web := httptest.NewServer(pg.Handler())
	t.Cleanup(web.Close)
	url := web.URL + "/?token=" + pg.Token()

	// The graph view: every node, start and end, and the six ways between.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`#graph-view svg[data-graph="notes"]`)),
	))
	for _, n := range []string{"start", "draft", "review", "approve", "end"} {
		require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#graph-view .gnode[data-node="`+n+`"]`))))
	}
	sub, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#graph-view .gnode[data-node="approve"] text.sub').textContent`))
	require.NoError(t, err)
	require.Equal(t, "asks you", sub)
	edges, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#graph-view .gedge").length`))
	require.NoError(t, err)
	branches, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#graph-view .gedge.branch").length`))
	require.NoError(t, err)
	require.Equal(t, 6, edges)
	require.Equal(t, 4, branches)

	// Run it from its form: the review's node is lit while the reviewer works.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#field-input"), `{"message": "Exports now stream instead of loading all rows."}`),
		chromedp.Click(chromedp.CSS("#run")),
	))
	browsertest.Poll(t, ctx, `document.querySelector('#graph-view .gnode[data-node="review"]').classList.contains("running")`)
	browsertest.Shoot(t, ctx, shots, "1-review-running.png")
	close(gate)

	// The approval, shown with the draft; its node waits.
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(".question .approve"))))
	require.Equal(t, "Publish these release notes?", browsertest.Text(t, ctx, ".question strong"))
	require.Contains(t, browsertest.Text(t, ctx, ".question pre"), "Draft 2: exports are faster.")
	browsertest.Poll(t, ctx, `document.querySelector('#graph-view .gnode[data-node="approve"]').classList.contains("waiting")`)
	browsertest.Shoot(t, ctx, shots, "2-approval.png")

	// Reload mid-approval: it still waits, and is approved from the page.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(".question .approve")),
		chromedp.Click(chromedp.CSS(".question .approve")),
	))
	browsertest.Poll(t, ctx, `document.getElementById("status").dataset.status === "done"`)
	browsertest.Poll(t, ctx, `!document.querySelector('#graph-view .gnode.waiting')`)
	require.Contains(t, browsertest.Text(t, ctx, "#output"), `"approved": true`, "a graph's output is its final state")
	trace := browsertest.Text(t, ctx, "#trace")
	for _, want := range []string{"▶ notes", "▶ step", "▶ draft", "▶ writer", "▶ review", "▶ reviewer", "? approve waits for an answer", " ms"} {
		require.Contains(t, trace, want)
	}
	require.Regexp(t, `■ approve \d+ ms`, trace, "the resumed run's steps are traced with their durations")
	browsertest.Shoot(t, ctx, shots, "3-done.png")
	require.Len(t, srv.Requests(), 4, "no node runs again after the approval")
}
