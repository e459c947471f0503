package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/model"
	_ "github.com/loomwork/loom/model/providers"
	"github.com/loomwork/loom/sandbox"
	"github.com/stretchr/testify/require"
)

func TestExitStatuses(t *testing.T) {
	end := func(name string, err error) agent.Event {
		return agent.Event{Kind: agent.EventRunEnd, Agent: name, Err: err}
	}
	cut := agent.Event{Kind: agent.EventRunEnd, Agent: "coder", FinishReason: model.FinishLength}
	snippet := fmt.Errorf("evaluateJs: %w", sandbox.ErrTimeout)
	cases := []struct {
		name   string
		events []agent.Event
		runErr error
		allow  bool
		want   int
	}{
		{"answer", []agent.Event{end("evaluateJs", nil), end("coder", nil)}, nil, false, ExitOK},
		{"no code run", []agent.Event{end("coder", nil)}, nil, false, ExitOK},
		{"snippet failed", []agent.Event{end("evaluateJs", snippet), end("evaluateJs", snippet), end("coder", nil)}, nil, false, ExitSnippetFailed},
		{"failed then computed", []agent.Event{end("evaluateJs", snippet), end("evaluateJs", nil)}, nil, false, ExitOK},
		{"declined", []agent.Event{end("evaluateJs", fmt.Errorf("%w: no", codeexec.ErrDenied))}, nil, false, ExitDeclined},
		{"rejected", []agent.Event{end("evaluateJs", fmt.Errorf("%w: unsafe", codeexec.ErrRejected))}, nil, false, ExitRejected},
		{"reviewer failed", []agent.Event{end("reviewer", errors.New("boom")), end("evaluateJs", errors.New("reviewer reviewer: boom"))}, nil, false, ExitReviewerFailed},
		{"retries spent", nil, &compose.RetriesError{Last: snippet}, false, ExitRetriesSpent},
		{"cut answer", []agent.Event{cut}, nil, false, ExitTruncated},
		{"cut answer allowed", []agent.Event{cut}, nil, true, ExitOK},
		{"model error", nil, &model.APIError{Provider: "openai", StatusCode: 500}, false, ExitFailed},
		{"rejected key", nil, &model.APIError{Provider: "openai", StatusCode: 401}, false, ExitUsage},
		{"unsupported option", nil, fmt.Errorf("anthropic: %w: temperature with top_p", model.ErrUnsupported), false, ExitUsage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := NewVerdict("evaluateJs", "reviewer")
			for _, ev := range c.events {
				v.Event(ev)
			}
			require.Equal(t, c.want, v.Status(c.runErr, c.allow))
		})
	}
}

func TestSignaled(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	require.Nil(t, Interrupted(ctx))
	cancel(&Signaled{Signal: syscall.SIGTERM})
	s := Interrupted(ctx)
	require.NotNil(t, s)
	require.Equal(t, ExitTerminated, s.ExitCode())
	require.Equal(t, ExitInterrupted, (&Signaled{Signal: syscall.SIGINT}).ExitCode())
	require.Contains(t, InterruptedMessage("ex", s, runCancelled), "ex: interrupted by SIGTERM: the run was cancelled")
}

func TestDotEnvSearchOrder(t *testing.T) {
	wd, src, cfg := t.TempDir(), t.TempDir(), t.TempDir()
	t.Chdir(wd)
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", cfg)
	files := DotEnvFiles(src)
	require.Len(t, files, 3)
	require.Equal(t, filepath.Join(wd, DotEnvName), files[0])
	require.Equal(t, filepath.Join(src, DotEnvName), files[1])
	require.Contains(t, files[2], filepath.Join("loom", DotEnvName))

	require.NoError(t, os.WriteFile(files[1], []byte("LOOM_T_A=src\nLOOM_T_B=src\n"), 0o600))
	require.NoError(t, os.WriteFile(files[0], []byte("LOOM_T_A=wd\n"), 0o600))
	t.Setenv("LOOM_T_A", "")
	t.Setenv("LOOM_T_B", "")
	os.Unsetenv("LOOM_T_A")
	os.Unsetenv("LOOM_T_B")
	require.NoError(t, LoadDotEnv(files))
	require.Equal(t, "wd", os.Getenv("LOOM_T_A"), "the working directory wins")
	require.Equal(t, "src", os.Getenv("LOOM_T_B"), "the file beside the sources is read too")

	t.Setenv("OPENAI_API_KEY", "")
	_, err := OpenModel("openai", files)
	require.ErrorIs(t, err, model.ErrMissingKey)
	for _, f := range files {
		require.Contains(t, err.Error(), f, "the missing-key message names every file looked in")
	}
	require.NotContains(t, err.Error(), "pass the key as an option")
}
