package playground_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/browsertest"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/playground"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

// TestContinueAStoppedRunInTheBrowser: a run whose process stopped during
// its model call (cancelled as a shutdown) is listed as stopped; the page
// says what that means and offers to continue it, which finishes the run
// with the model called once more.
func TestContinueAStoppedRunInTheBrowser(t *testing.T) {
	ctx := browsertest.Browser(t)
	path := filepath.Join(t.TempDir(), "loom.yaml")
	require.NoError(t, os.WriteFile(path, []byte("version: loom/v1\nmodel: scripted\nentry: helper\nagents:\n  helper: {type: ai}\n"), 0o644))
	store := checkpoint.NewMemory()

	// The process that stops: its model call is cut by the shutdown.
	gate := make(chan struct{})
	started := make(chan struct{})
	cut := modeltest.New(t, modeltest.Func(func(model.Request) modeltest.Turn {
		close(started)
		<-gate
		return modeltest.Text("too late")
	}))
	p, err := spec.Load(path, spec.Registry{Models: func(string) (model.Model, error) { return cut, nil }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	rctx, stop := context.WithCancelCause(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range engine.New(engine.Config{Checkpoints: store}).Run(rctx, p.Agent("helper"), map[string]any{"message": "hi"}) {
		}
	}()
	<-started
	stop(engine.ErrShutdown)
	close(gate)
	<-done

	m := modeltest.New(t, modeltest.Text("continued"))
	pg, err := playground.New(playground.Config{Path: path, Engine: engine.New(engine.Config{Checkpoints: store}),
		Registry: spec.Registry{Models: func(string) (model.Model, error) { return m, nil }}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pg.Close()) })
	web := httptest.NewServer(pg.Handler())
	t.Cleanup(web.Close)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(web.URL+"/?token="+pg.Token()),
		chromedp.WaitVisible(chromedp.CSS(`#runs a[data-status="stopped"]`)),
		chromedp.Click(chromedp.CSS(`#runs a[data-status="stopped"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#continue-run`)),
	))
	require.Contains(t, browsertest.Text(t, ctx, "#continue"), "the process running it stopped")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#continue-run`))))
	browsertest.Poll(t, ctx, `document.getElementById("status").dataset.status === "done"`)
	require.Contains(t, browsertest.Text(t, ctx, "#output"), "continued")
	require.Equal(t, 1, m.Calls(), "the cut call made once more")
	browsertest.Poll(t, ctx, `document.getElementById("continue").hidden`)
}
