package yamlcodeexecution

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	_ "github.com/loomwork/loom/model/providers"
	"github.com/loomwork/loom/playground"
	"github.com/stretchr/testify/require"
)

const chromiumPath = "/usr/bin/chromium"

// browser starts headless Chromium and returns a tab; the test fails if the
// page throws or logs an error.
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: CI must install the Debian chromium package", chromiumPath)
		}
		t.Skipf("browser test skipped: %s not found (apt-get install -y chromium)", chromiumPath)
	}
	profile := t.TempDir()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-crash-reporter", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1440, 1000),
	)
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	var mu sync.Mutex
	var pageErrors []string
	t.Cleanup(func() {
		cancelTimeout()
		_ = chromedp.Cancel(ctx)
		cancelTab()
		cancelAlloc()
		mu.Lock()
		defer mu.Unlock()
		require.Empty(t, pageErrors, "the page reported errors")
	})
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = (&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error()
		case *runtime.EventConsoleAPICalled:
			if ev.Type != runtime.ConsoleAPICalledTypeError {
				return
			}
			msg = "console.error"
		default:
			return
		}
		mu.Lock()
		pageErrors = append(pageErrors, msg)
		mu.Unlock()
	}))
	return ctx
}

func artifacts(t *testing.T) string {
	if dir := os.Getenv("LOOM_ARTIFACTS"); dir != "" {
		dir = filepath.Join(dir, "playground")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		return dir
	}
	return t.TempDir()
}

func shoot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), png, 0o644))
}

func text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	require.NoError(t, err)
	return s
}

func poll(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err, "waiting for %s", expr)
}

// setYAML replaces the editor's text as typing would.
func setYAML(t *testing.T, ctx context.Context, src string) {
	t.Helper()
	js, _ := json.Marshal(src)
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const t = document.getElementById("yaml"); t.value = %s; t.dispatchEvent(new Event("input")); return true })()`, js)))
	require.NoError(t, err)
}

func TestPlaygroundInTheBrowser(t *testing.T) {
	ctx := browser(t)
	shots := artifacts(t)
	srv := fakeopenai.New(t, fakeopenai.Coder)
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")

	dir := t.TempDir()
	src, err := os.ReadFile("loom.yaml")
	require.NoError(t, err)
	path := filepath.Join(dir, "loom.yaml")
	require.NoError(t, os.WriteFile(path, src, 0o644))
	store, err := sqlite.Open(t.Context(), filepath.Join(dir, "checkpoints.db"))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, store.Close()) })
	pg, err := playground.New(playground.Config{Path: path, Engine: engine.New(engine.WithCheckpoints(store))})
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
	setYAML(t, ctx, broken)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#save")),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#errors .error[data-line="%d"]`, line))),
	))
	require.Contains(t, text(t, ctx, fmt.Sprintf(`#errors .error[data-line="%d"]`, line)), `unknown key "max_retrys"; did you mean max_retries?`)
	require.Equal(t, fmt.Sprint(line), text(t, ctx, "#lines .bad"))
	shoot(t, ctx, shots, "1-inline-error.png")
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(src), string(onDisk), "an invalid file is not saved")

	// Fixed: saved.
	fixed := strings.Replace(string(src), "max_retries: 3", "max_retries: 2", 1)
	setYAML(t, ctx, fixed)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#save"))))
	poll(t, ctx, `document.getElementById("save-status").textContent === "saved"`)
	require.Empty(t, text(t, ctx, "#errors"))
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
	require.Contains(t, text(t, ctx, ".question pre.code"), "for (let i = 2; i <= 15; i++) f *= i;")
	require.Equal(t, "waiting", text(t, ctx, "#status"))
	shoot(t, ctx, shots, "2-approval.png")

	// Reload mid-approval: the run is still there, and still waits.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(".question .approve")),
	))
	require.Len(t, srv.Requests(), 1)

	// Approve from the page: the answer streams beside the trace.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(".question .approve"))))
	poll(t, ctx, `document.getElementById("status").dataset.status === "done"`)
	require.Equal(t, "15! = 1307674368000", strings.TrimSpace(text(t, ctx, "#output")))
	trace := text(t, ctx, "#trace")
	require.Contains(t, trace, "▶ coder")
	require.Contains(t, trace, "→ evaluateJs")
	require.Contains(t, trace, "← evaluateJs")
	require.Contains(t, trace, "■ coder")
	require.Empty(t, text(t, ctx, "#approvals"))
	shoot(t, ctx, shots, "3-done.png")
	require.Len(t, srv.Requests(), 2, "the first model call is not repeated after the approval")
}
