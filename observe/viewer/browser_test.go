package viewer_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/loomwork/loom/internal/browsertest"
	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/viewer"
	"github.com/stretchr/testify/require"
)

// clickInPage clicks the first element sel selects, from the page's own
// script. The viewer's list re-renders (filters and rows) when runs arrive
// or a filter's page loads, so a node chromedp.Click found may be gone by
// its next DevTools call ("Could not find node with given id"); a click
// made in the page cannot miss. It waits up to 10 s for the element.
func clickInPage(ctx context.Context, sel string) error {
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](
		fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.click(); return true; })()`, sel),
		chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		return fmt.Errorf("click %s: %w", sel, err)
	}
	return nil
}

// texts returns the text of every element matching the CSS selector.
// textInPage reads an element's text from the page's script in one call:
// the list re-renders when runs arrive, and a node one DevTools call found
// may be gone at the next (chromedp.Text makes two).
func textInPage(ctx context.Context, css string) (string, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(
		`(() => { const e = document.querySelector(%q); if (!e) throw new Error("no element " + %q); return e.innerText; })()`, css, css)))
}

func texts(t *testing.T, ctx context.Context, css string) []string {
	t.Helper()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		fmt.Sprintf(`Array.from(document.querySelectorAll(%q), e => e.textContent)`, css)))
	require.NoError(t, err)
	return out
}

func TestBrowserViewer(t *testing.T) {
	ctx := browsertest.Browser(t)
	dir := browsertest.Artifacts(t, "observe")

	now := time.Now()
	s := newStore(t,
		fixture.Run{Seed: 11, Start: now.Add(-3 * time.Hour), Agent: "analyst", Question: "What is the median of [3, 1, 4, 1, 5, 9, 2, 6]?"},
		fixture.Run{Seed: 12, Start: now.Add(-47 * time.Minute), Outcome: fixture.Failed, Question: "Sum the primes below 1000"},
		fixture.Run{Seed: 13, Start: now.Add(-12 * time.Minute), Outcome: fixture.SandboxError, Question: "Compute 20! exactly"},
		fixture.Run{Seed: 14, Start: now.Add(-2 * time.Minute)},
	)
	srv := httptest.NewServer(viewer.NewHandler(s, viewer.HandlerConfig{}))
	defer srv.Close()
	require.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"))

	// The list shows the runs, newest first, with agent and input.
	okRun := fixture.IDs(14).String()
	row := fmt.Sprintf(`tr[data-trace="%s"]`, okRun)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(row)),
	))
	rowText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(row)))
	require.NoError(t, err)
	require.Contains(t, rowText, "coder")
	require.Contains(t, rowText, "10! = ?")
	require.Contains(t, rowText, "OK")
	require.Contains(t, rowText, "1.41 s")
	require.Len(t, texts(t, ctx, "tbody tr"), 4)
	failedText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(fmt.Sprintf(`tr[data-trace="%s"]`, fixture.IDs(12)))))
	require.NoError(t, err)
	require.Contains(t, failedText, "Error")
	require.Contains(t, failedText, "503 Service Unavailable")

	// A run recorded while the page is open appears without a reload, and
	// the filters stay the same elements (an open drop-down stays open),
	// their counts updated in place.
	require.Contains(t, texts(t, ctx, "select.agent-filter option"), "coder (3)")
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.filtersBefore = [document.querySelector("select.agent-filter"), document.querySelector('button[data-status="error"]')], true)`))
	require.NoError(t, err)
	exportRuns(t, s, fixture.Run{Seed: 15, Start: time.Now(), Question: "How many days until 2030?"})
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`tr[data-trace="%s"]`, fixture.IDs(15))))))
	require.Len(t, texts(t, ctx, "tbody tr"), 5)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`[...document.querySelector("select.agent-filter").options].some((o) => o.text === "coder (4)")`, chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err, "the agent's count follows")
	same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.filtersBefore[0] === document.querySelector("select.agent-filter") && window.filtersBefore[1] === document.querySelector('button[data-status="error"]') && window.filtersBefore.every((e) => e.isConnected)`))
	require.NoError(t, err)
	require.True(t, same, "the filters were not rebuilt")
	// The figures above the list follow.
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](
		`(document.querySelector('[data-testid="stats"] .kpi .v') || {}).textContent === "5"`, chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err)
	stats, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="stats"]`)))
	require.NoError(t, err)
	require.Contains(t, strings.ToLower(stats), "success rate")
	// 3 of 5: run 12 failed, and run 13 answered with no computed value
	// (its only snippet threw).
	require.Contains(t, stats, "60%")
	browsertest.Shoot(t, ctx, dir, "observe-list.png")

	// Filtering by status keeps the failed run only.
	require.NoError(t, clickInPage(ctx, `button[data-status="error"]`))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS(row))))
	require.Len(t, texts(t, ctx, "tbody tr"), 1)
	require.NoError(t, clickInPage(ctx, `button[data-status=""]`))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(row))))

	// Click into the run: the span tree shows the agent, both model calls,
	// the evaluateJs tool call and agent, and the sandbox run.
	require.NoError(t, clickInPage(ctx, row))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#waterfall .wf-row[data-type="sandbox"]`))))
	labels := texts(t, ctx, "#waterfall .wf-row .wf-label")
	types := texts(t, ctx, "#waterfall .wf-row .chip")
	require.Equal(t, []string{"coder", "gpt-4o-mini", "evaluateJs", "evaluateJs", "sandbox.run", "gpt-4o-mini"}, labels)
	require.Equal(t, []string{"agent", "LLM", "tool", "agent", "sandbox", "LLM"}, types)
	header, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".trace-head")))
	require.NoError(t, err)
	require.Contains(t, header, "coder")
	require.Contains(t, header, "10! = 3628800")

	// The sandbox run shows its code, result and console.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#waterfall .wf-row[data-type="sandbox"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="code"]`)),
	))
	code, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="code"] .src`)))
	require.NoError(t, err)
	require.Contains(t, code, "function fact(n)")
	require.Contains(t, code, "fact(10);")
	result, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="sandbox-result"]`)))
	require.NoError(t, err)
	require.Contains(t, result, "3628800")
	console, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="console"]`)))
	require.NoError(t, err)
	require.Contains(t, console, "computing 10!")
	browsertest.Shoot(t, ctx, dir, "observe-trace-sandbox.png")

	// The first model call shows the prompt and the tool call it made.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#waterfall .wf-row[data-type="chat"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.detail .msgs`)),
	))
	chat, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.detail`)))
	require.NoError(t, err)
	require.Contains(t, chat, "10! = ?")
	require.Contains(t, chat, "calls evaluateJs")
	require.Contains(t, chat, "120 in · 42 out")
	browsertest.Shoot(t, ctx, dir, "observe-trace-chat.png")

	// A run whose sandboxed code threw: the failed spans are marked, and the
	// sandbox span shows the exception with the code that raised it.
	failed := fixture.IDs(13).String()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/#/trace/"+failed),
		chromedp.WaitVisible(chromedp.CSS(`#waterfall .wf-row[data-type="sandbox"]`)),
		chromedp.Click(chromedp.CSS(`#waterfall .wf-row[data-type="sandbox"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.detail .callout.error`)),
	))
	require.Len(t, texts(t, ctx, "#waterfall .wf-err"), 3, "sandbox run, tool agent and tool call failed")
	detail, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.detail`)))
	require.NoError(t, err)
	require.Contains(t, detail, "ReferenceError: fact is not defined")
	require.Contains(t, detail, "exception")
	require.Contains(t, detail, "function fact(n)")
	browsertest.Shoot(t, ctx, dir, "observe-trace-error.png")

	// The dark theme follows the system setting.
	_, err = chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
	})
	require.NoError(t, err)
	bg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`))
	require.NoError(t, err)
	require.Equal(t, "rgb(14, 17, 23)", bg)
	browsertest.Shoot(t, ctx, dir, "observe-trace-error-dark.png")
}
