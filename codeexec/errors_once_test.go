package codeexec_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// TestFailedSnippetErrorOnce: the coder reads a failed snippet's error
// once, with one retry hint, whichever sandbox error it was.
func TestFailedSnippetErrorOnce(t *testing.T) {
	const msg = "ReferenceError: x is not defined at <eval>:1:1"
	sb := &fakeSandbox{
		results: map[string]any{"const x = 6; x * 7": 42},
		errs:    map[string]error{"x * 7": errors.New(msg)},
	}
	m := modeltest.New(t,
		modeltest.ToolCalls(jsCall("c1", "x * 7")),
		modeltest.ToolCalls(jsCall("c2", "const x = 6; x * 7")),
		modeltest.Text("42"),
	)
	ce, err := codeexec.New(codeexec.Config{Model: m, Tool: sb.agent(t)})
	require.NoError(t, err)
	_, err = engine.New(engine.Config{}).Invoke(t.Context(), ce, "6*7")
	require.NoError(t, err)
	fb := errorText(t, toolResult(t, m, 1))
	require.Equal(t, 1, strings.Count(fb, msg), "the error appears once: %q", fb)
	require.Equal(t, 1, strings.Count(fb, "retries left"), "one retry hint: %q", fb)
	require.Equal(t, "Attempt 1 failed: "+msg+"\nFind the cause, fix it and try again (3 retries left).", fb)
}

// TestReviewerErrorNamedOnce: a reviewer called "reviewer" that fails is
// named once in the error, not "reviewer reviewer: …".
func TestReviewerErrorNamedOnce(t *testing.T) {
	for _, name := range []string{"reviewer", "checker"} {
		t.Run(name, func(t *testing.T) {
			rev := testkit.Fn(t, name, func(context.Context, map[string]any) (map[string]any, error) {
				return nil, errors.New("the review service is down")
			})
			m := modeltest.New(t, modeltest.ToolCalls(jsCall("c1", "1+1")), modeltest.Text("gave up"))
			ce, err := codeexec.New(codeexec.Config{Model: m, Tool: (&fakeSandbox{}).agent(t), Reviewer: rev})
			require.NoError(t, err)
			_, runErr := engine.New(engine.Config{}).Invoke(t.Context(), ce, "1+1")
			var text string
			if runErr != nil {
				text = runErr.Error()
			} else {
				text = errorText(t, toolResult(t, m, 1))
			}
			require.NotContains(t, text, "reviewer reviewer")
			require.NotContains(t, text, name+": "+name)
			require.Contains(t, text, "the review service is down")
			if name == "checker" {
				require.Contains(t, text, "reviewer checker")
			}
			t.Log(text)
		})
	}
}
