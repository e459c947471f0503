package playground_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/browsertest"
	"github.com/loomwork/loom/internal/trust"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/playground"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

// commandFile is a file whose mcp entry's command creates marker.
func commandFile(marker string) string {
	return "version: loom/v1\nmodel: scripted\nentry: helper\nagents:\n  tools:\n    type: mcp\n    command: [sh, -c, \"touch " + marker + "\"]\n  helper:\n    type: ai\n    tools: [tools]\n"
}

func trustServer(t *testing.T, src string) (*httptest.Server, string, *trust.Store, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "loom.yaml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	grants := trust.At(filepath.Join(dir, "config", "trust"))
	m := modeltest.New(t, modeltest.Text("done"))
	pg, err := playground.New(playground.Config{
		Path: path, Engine: engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()}), Grants: grants,
		Registry: spec.Registry{Models: func(string) (model.Model, error) { return m, nil }},
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pg.Close()) })
	web := httptest.NewServer(pg.Handler())
	t.Cleanup(web.Close)
	return web, pg.Token(), grants, path
}

func TestRunsWaitForTrust(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	web, tok, grants, path := trustServer(t, commandFile(marker))
	line := `tools: command ["sh","-c","touch ` + marker + `"]`

	code, body := do(t, http.MethodGet, web.URL+"/api/project?token="+tok, "")
	require.Equal(t, http.StatusOK, code, body)
	var v struct {
		Reaches []string
		Trusted bool
	}
	require.NoError(t, json.Unmarshal([]byte(body), &v))
	require.Equal(t, []string{line}, v.Reaches)
	require.False(t, v.Trusted)

	code, body = do(t, http.MethodPost, web.URL+"/api/runs?token="+tok, `{"agent":"helper","input":{"message":"hi"}}`)
	require.Equal(t, http.StatusConflict, code, body)
	require.JSONEq(t, `{"untrusted":true,"reaches":[`+mustJSON(t, line)+`],"message":"the file starts commands or reaches URLs you have not trusted: read them, then trust them to run"}`, body)
	require.NoFileExists(t, marker)

	// Trusting another list than the file's is refused.
	code, body = do(t, http.MethodPost, web.URL+"/api/trust?token="+tok, `{"reaches":["tools: command [\"true\"]"]}`)
	require.Equal(t, http.StatusConflict, code, body)
	ok, err := grants.Trusted(path, []string{line})
	require.NoError(t, err)
	require.False(t, ok)

	code, body = do(t, http.MethodPost, web.URL+"/api/trust?token="+tok, `{"reaches":[`+mustJSON(t, line)+`]}`)
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &v))
	require.True(t, v.Trusted)

	code, body = do(t, http.MethodPost, web.URL+"/api/runs?token="+tok, `{"agent":"helper","input":{"message":"hi"}}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.Eventually(t, func() bool { _, err := os.Stat(marker); return err == nil }, 30*time.Second, 10*time.Millisecond, "the trusted command did not start")

	// Saved with another command: asked again.
	other := filepath.Join(t.TempDir(), "other")
	code, body = do(t, http.MethodPut, web.URL+"/api/yaml?token="+tok, yamlBody(t, commandFile(other)))
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &v))
	require.False(t, v.Trusted)
	code, body = do(t, http.MethodPost, web.URL+"/api/runs?token="+tok, `{"agent":"helper","input":{"message":"hi"}}`)
	require.Equal(t, http.StatusConflict, code, body)
	require.NoFileExists(t, other)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestTrustPromptInTheBrowser: the page lists the file's command, asks
// before the first run, and runs once the user trusts it.
func TestTrustPromptInTheBrowser(t *testing.T) {
	ctx := browsertest.Browser(t)
	shots := browsertest.Artifacts(t, "playground-trust")
	marker := filepath.Join(t.TempDir(), "ran")
	web, tok, grants, path := trustServer(t, commandFile(marker))
	line := `tools: command ["sh","-c","touch ` + marker + `"]`

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(web.URL+"/?token="+tok),
		chromedp.WaitVisible(chromedp.CSS(`#reaches .reach`)),
	))
	require.Equal(t, line, browsertest.Text(t, ctx, "#reaches .reach"))
	require.Contains(t, browsertest.Text(t, ctx, "#trust-state"), "not trusted yet")

	// Cancel: nothing runs.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#run`)),
		chromedp.WaitVisible(chromedp.CSS(`#trust-no`)),
	))
	require.Equal(t, line, browsertest.Text(t, ctx, "#trust .reach"))
	browsertest.Shoot(t, ctx, shots, "1-asked.png")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#trust-no`))))
	browsertest.Poll(t, ctx, `document.getElementById("status").textContent.includes("not trusted")`)
	require.NoFileExists(t, marker)
	ok, err := grants.Trusted(path, []string{line})
	require.NoError(t, err)
	require.False(t, ok)

	// Trust and run.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#field-message`), "hi"),
		chromedp.Click(chromedp.CSS(`#run`)),
		chromedp.WaitVisible(chromedp.CSS(`#trust-yes`)),
		chromedp.Click(chromedp.CSS(`#trust-yes`)),
	))
	browsertest.Poll(t, ctx, `document.getElementById("trust-state").textContent === "trusted"`)
	browsertest.Poll(t, ctx, `["done", "failed"].includes(document.getElementById("status").dataset.status)`)
	browsertest.Shoot(t, ctx, shots, "2-trusted-and-run.png")
	require.FileExists(t, marker, "status: %s; trace: %s", browsertest.Text(t, ctx, "#status"), browsertest.Text(t, ctx, "#trace"))
	ok, err = grants.Trusted(path, []string{line})
	require.NoError(t, err)
	require.True(t, ok)
}
