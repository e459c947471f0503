package yamlcodeexecution

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/internal/browsertest"
	_ "github.com/loomwork/loom/model/providers"
	"github.com/loomwork/loom/playground"
	"github.com/stretchr/testify/require"
)

func TestPlaygroundInTheBrowser(t *testing.T) {
	ctx := browsertest.Browser(t)
	shots := browsertest.Artifacts(t, "playground")
	srv := fakeopenai.New(t, fakeopenai.Coder)
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")

	dir := t.TempDir()
	src, err := os.ReadFile("loom.yaml")
	require.NoError(t, err)
	path := filepath.Join(dir, "loom.yaml")
	require.NoError(t, os.WriteFile(path, src, 0o644))
	store, err := sqlite.Open(t.Context(), sqlite.Config{Path: filepath.Join(dir, "checkpoints.db")})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, store.Close()) })
	pg, err := playground.New(playground.Config{Path: path, Engine: engine.New(engine.Config{Checkpoints: store})})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pg.Close()) })
	web := httptest.NewServer(pg.Handler())
	t.Cleanup(web.Close)
	url := web.URL + "/?token=" + pg.Token()

	// The declared agent and its tree.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`.agent[data-name="coder"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#graph li[data-node="coder"]`)),
	))

	// A typo: the error shows at its line, and the file is not saved.
	lines := strings.Split(string(src), "\n")
	line := 0
	for i, l := range lines {
		if strings.Contains(l, "max_retries:") {
			line = i + 1
		}
	}
	require.Positive(t, line)
	broken := strings.Replace(string(src), "max_retries:", "max_retrys:", 1)
	browsertest.SetYAML(t, ctx, broken)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#save")),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#errors .error[data-line="%d"]`, line))),
	))
	require.Contains(t, browsertest.Text(t, ctx, fmt.Sprintf(`#errors .error[data-line="%d"]`, line)), `unknown key "max_retrys"; did you mean max_retries?`)
	require.Equal(t, fmt.Sprint(line), browsertest.Text(t, ctx, "#lines .bad"))
	browsertest.Shoot(t, ctx, shots, "1-inline-error.png")
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(src), string(onDisk), "an invalid file is not saved")

	// Fixed: saved.
	fixed := strings.Replace(string(src), "max_retries: 3", "max_retries: 2", 1)
	browsertest.SetYAML(t, ctx, fixed)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#save"))))
	browsertest.Poll(t, ctx, `document.getElementById("save-status").textContent === "saved"`)
	require.Empty(t, browsertest.Text(t, ctx, "#errors"))
	onDisk, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, fixed, string(onDisk))

	// Run the coder from its form: it waits for approval.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`.agent[data-name="coder"]`)),
		chromedp.SendKeys(chromedp.CSS("#field-message"), "Calculate 15!"),
		chromedp.Click(chromedp.CSS("#run")),
		chromedp.WaitVisible(chromedp.CSS(".question .approve")),
	))
	require.Contains(t, browsertest.Text(t, ctx, ".question pre.code"), "for (let i = 2; i <= 15; i++) f *= i;")
	require.Equal(t, "waiting", browsertest.Text(t, ctx, "#status"))
	browsertest.Shoot(t, ctx, shots, "2-approval.png")

	// Reload mid-approval: the run is still there, and still waits.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(".question .approve")),
	))
	require.Len(t, srv.Requests(), 1)

	// Approve from the page: the answer streams beside the trace.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(".question .approve"))))
	browsertest.Poll(t, ctx, `document.getElementById("status").dataset.status === "done"`)
	require.Equal(t, "15! = 1307674368000", strings.TrimSpace(browsertest.Text(t, ctx, "#output")))
	trace := browsertest.Text(t, ctx, "#trace")
	require.Contains(t, trace, "▶ coder")
	require.Contains(t, trace, "→ evaluateJs")
	require.Contains(t, trace, "← evaluateJs")
	require.Contains(t, trace, "■ coder")
	require.Empty(t, browsertest.Text(t, ctx, "#approvals"))
	browsertest.Shoot(t, ctx, shots, "3-done.png")
	require.Len(t, srv.Requests(), 2, "the first model call is not repeated after the approval")
}
