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

// Browser returns a tab of headless Chromium; the test fails if the page
// throws or logs an error. Under [Shared] the tab is a new one, in a
// browser context of its own (its own cookies and storage), of the
// package's one Chromium; else a Chromium of its own is started and closed
// with the test. Without Chromium the test is skipped, except on CI
// (CI=true), where it fails.
func Browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: CI must install the Debian chromium package (apt-get install -y chromium)", ChromiumPath)
		}
		t.Skipf("browser test skipped: %s not found (apt-get install -y chromium to run it)", ChromiumPath)
	}
	var ctx context.Context
	var closeTab func()
	if shared.on {
		browser, err := shared.browser()
		require.NoError(t, err, "starting the shared Chromium")
		tab, cancelTab := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
		ctx, closeTab = tab, func() {
			_ = chromedp.Cancel(tab) // closes the tab and its browser context
			cancelTab()
		}
	} else {
		b := start(t.Logf)
		tab, cancelTab := chromedp.NewContext(b.alloc, chromedp.WithLogf(t.Logf))
		ctx, closeTab = tab, func() {
			_ = chromedp.Cancel(tab) // closes the browser gracefully
			cancelTab()
			b.close()
		}
	}
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	var mu sync.Mutex
	var pageErrors []string
	t.Cleanup(func() {
		cancelTimeout()
		closeTab()
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

// TestingM is what a package's TestMain runs: *testing.M, or what
// goleak.VerifyTestMain takes.
type TestingM interface{ Run() int }

// Shared returns m whose Run gives the package's browser tests tabs of one
// Chromium, started by the first [Browser] and closed when the tests end,
// instead of starting a Chromium for each test: each tab still has a
// browser context of its own. Use it in TestMain, inside the leak check:
//
//	goleak.VerifyTestMain(browsertest.Shared(m))
func Shared(m TestingM) TestingM { return sharedM{m} }

type sharedM struct{ m TestingM }

func (s sharedM) Run() int {
	shared.on = true
	defer shared.close()
	return s.m.Run()
}

// shared is the package's one Chromium under [Shared]: process-wide, as
// the test binary is; set only by Shared's Run.
var shared sharedBrowser

type sharedBrowser struct {
	on   bool
	once sync.Once
	b    *chromium
	ctx  context.Context // the browser's first tab, which holds it open
	stop context.CancelFunc
	err  error
}

// browser returns the context of the shared Chromium, starting it first.
func (s *sharedBrowser) browser() (context.Context, error) {
	s.once.Do(func() {
		s.b = start(func(string, ...any) {})
		s.ctx, s.stop = chromedp.NewContext(s.b.alloc)
		s.err = chromedp.Do(s.ctx) // starts the browser
	})
	return s.ctx, s.err
}

func (s *sharedBrowser) close() {
	if s.b == nil {
		return
	}
	_ = chromedp.Cancel(s.ctx) // closes the browser gracefully
	s.stop()
	s.b.close()
}

// chromium is a headless Chromium being started: its allocator and its
// profile folder.
type chromium struct {
	alloc   context.Context
	cancel  context.CancelFunc
	profile string
}

// start prepares a Chromium with a fresh profile; the first tab made
// from its alloc starts it.
func start(logf func(string, ...any)) *chromium {
	profile, err := os.MkdirTemp("", "loom-chromium-")
	if err != nil {
		logf("browsertest: no profile folder: %v", err)
	}
	alloc, cancel := chromedp.NewExecAllocator(context.Background(),
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
	return &chromium{alloc: alloc, cancel: cancel, profile: profile}
}

// close stops the browser and removes its profile.
func (c *chromium) close() {
	c.cancel()
	// Chromium's helpers may still write for a moment after it exits.
	for range 50 {
		if c.profile == "" || os.RemoveAll(c.profile) == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
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
