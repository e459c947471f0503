package viewer_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/loomwork/loom/internal/browsertest"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/observe/internal/coderrun"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// startLoomObserve runs `loom observe --port 0 --db db` from the go
// command's cached build of cmd/loom, returning the URL it serves; the
// process is stopped when the test ends.
func startLoomObserve(t *testing.T, db string) string {
	t.Helper()
	bin, err := testkit.Binary("github.com/loomwork/loom/cmd/loom")
	require.NoError(t, err)

	cmd := exec.Command(bin, "observe", "--port", "0", "--db", db)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		re := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
		for sc.Scan() {
			if u := re.FindString(sc.Text()); u != "" {
				urls <- u
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("loom observe did not print the address it serves within 30s")
		return ""
	}
}

// TestBrowserRealWorkflow records a real Coder→Sandbox run (scripted model,
// in-process sandbox) into a temporary store, serves it with the loom
// observe command, and checks in headless Chromium that the run and its span
// tree, down to the sandboxed code and its result, are shown.
func TestBrowserRealWorkflow(t *testing.T) {
	ctx := browsertest.Browser(t)
	dir := browsertest.Artifacts(t, "observe")

	db := filepath.Join(t.TempDir(), "traces.db")
	st, err := store.Open(context.Background(), store.Config{Path: db})
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(store.NewExporter(st)))
	code := `const xs = [1, 2, 3, 4, 5].map(n => n * n); console.log('squares', xs.join(',')); ` + coderrun.Factorial
	coderrun.Run(t, tp, true,
		modeltest.ToolCalls(modeltest.Call("call_1", "evaluateJs", fmt.Sprintf(`{"code":%q}`, code))).WithUsage(320, 45),
		modeltest.Text("15! = 1307674368000").WithUsage(410, 14),
	)
	require.NoError(t, tp.Shutdown(context.Background()), "flushes the batch to the store")
	require.NoError(t, st.Close())

	url := startLoomObserve(t, db)
	row := `tbody tr[data-trace]`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible(chromedp.CSS(row)),
	))
	rows := texts(t, ctx, "tbody tr")
	require.Len(t, rows, 1)
	require.Contains(t, rows[0], "code_execution")
	require.Contains(t, rows[0], "Calculate 15!")
	require.Contains(t, rows[0], "OK")
	browsertest.Shoot(t, ctx, dir, "observe-real-list.png")

	require.NoError(t, clickInPage(ctx, row))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#waterfall .wf-row[data-type="sandbox"]`))))
	labels := strings.Join(texts(t, ctx, "#waterfall .wf-row .wf-label"), " | ")
	for _, want := range []string{"code_execution", "coder", "scripted", "evaluateJs", "sandbox.run"} {
		require.Contains(t, labels, want)
	}
	require.Len(t, texts(t, ctx, `#waterfall .wf-row[data-type="chat"]`), 2, "two model calls")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#waterfall .wf-row[data-type="sandbox"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="code"]`)),
	))
	src, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="code"] .src`)))
	require.NoError(t, err)
	require.Contains(t, src, "function f(n)")
	result, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="sandbox-result"]`)))
	require.NoError(t, err)
	require.Contains(t, result, "1307674368000")
	console, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="console"]`)))
	require.NoError(t, err)
	require.Contains(t, console, "squares 1,4,9,16,25")
	browsertest.Shoot(t, ctx, dir, "observe-real-sandbox.png")
}
