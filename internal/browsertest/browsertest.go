// Package browsertest drives loom's browser pages (the playground, the
// trace viewer) in headless Chromium for tests.
package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// ChromiumPath is where CI installs Debian's chromium package.
const ChromiumPath = "/usr/bin/chromium"

// Browser starts headless Chromium and returns a tab; the test fails if
// the page throws or logs an error. Without Chromium the test is skipped,
// except on CI (CI=true), where it fails.
func Browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: CI must install the Debian chromium package (apt-get install -y chromium)", ChromiumPath)
		}
		t.Skipf("browser test skipped: %s not found (apt-get install -y chromium to run it)", ChromiumPath)
	}
	profile, err := os.MkdirTemp("", "loom-chromium-")
	require.NoError(t, err)
	t.Cleanup(func() {
		// Chromium's helpers may still write for a moment after it exits.
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(ChromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		// No crash handler: it outlives the browser and can hold the test's
		// output pipes open.
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-crash-reporter", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1440, 1000),
	)
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	var mu sync.Mutex
	var pageErrors []string
	t.Cleanup(func() {
		cancelTimeout()
		_ = chromedp.Cancel(ctx) // closes the browser gracefully
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
			msg = "console.error:"
			for _, a := range ev.Args {
				msg += " " + string(a.Value) + a.Description
			}
		default:
			return
		}
		mu.Lock()
		pageErrors = append(pageErrors, msg)
		mu.Unlock()
	}))
	return ctx
}

// Artifacts returns the folder screenshots go to: $LOOM_ARTIFACTS/name
// when set (kept after the test), else a temporary one.
func Artifacts(t *testing.T, name string) string {
	t.Helper()
	if dir := os.Getenv("LOOM_ARTIFACTS"); dir != "" {
		dir = filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		return dir
	}
	return t.TempDir()
}

// Shoot saves a screenshot of the tab as dir/name and logs its path.
func Shoot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot: %s", path)
}

// Text returns the text of the first element css selects.
func Text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	require.NoError(t, err)
	return s
}

// Poll waits until the JavaScript expression is true.
func Poll(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err, "waiting for %s", expr)
}

// SetYAML replaces the playground editor's text as typing would.
func SetYAML(t *testing.T, ctx context.Context, src string) {
	t.Helper()
	js, _ := json.Marshal(src)
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const t = document.getElementById("yaml"); t.value = %s; t.dispatchEvent(new Event("input")); return true })()`, js)))
	require.NoError(t, err)
}
