package cli

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSandboxFlags: the sandbox flags every code-running example takes,
// isolated by default, in process only with --trusted-code.
func TestSandboxFlags(t *testing.T) {
	tests := []struct {
		args    []string
		want    SandboxFlags
		refused string
	}{
		{nil, SandboxFlags{Kind: SandboxIsolated}, ""},
		{[]string{"--sandbox-timeout", "2s"}, SandboxFlags{Kind: SandboxIsolated, Timeout: 2 * time.Second}, ""},
		{[]string{"--sandbox-timeout", "-1s"}, SandboxFlags{Kind: SandboxIsolated, Timeout: -time.Second}, "--sandbox-timeout -1s: use 0 for the default or a positive duration, as 2s"},
		{[]string{"--sandbox", "inprocess"}, SandboxFlags{Kind: SandboxInProcess}, "pass --trusted-code to accept that"},
		{[]string{"--sandbox", "inprocess", "--trusted-code"}, SandboxFlags{Kind: SandboxInProcess, Trusted: true}, ""},
		{[]string{"--sandbox", "docker"}, SandboxFlags{Kind: "docker"}, `--sandbox "docker": use isolated or inprocess`},
		{[]string{"--sandbox", "in_process"}, SandboxFlags{Kind: "in_process"}, "pass --trusted-code to accept that"},
	}
	for _, tc := range tests {
		var s SandboxFlags
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		s.Register(fs, "")
		require.NoError(t, fs.Parse(tc.args))
		require.Equal(t, tc.want, s, "%v", tc.args)
		if tc.refused == "" {
			continue
		}
		env := &Env{Log: NewLogger(io.Discard, 0)}
		_, err := s.Executor(env)
		require.ErrorContains(t, err, tc.refused, "%v", tc.args)
		_, err = s.Tool(env)
		require.ErrorContains(t, err, tc.refused, "%v", tc.args)
		env.cleanup()
	}
}

// TestSandboxKind: a loom file's spelling, in_process, names the in-process
// sandbox on the command line too.
func TestSandboxKind(t *testing.T) {
	for _, in := range []string{"inprocess", "in_process", "in-process"} {
		kind, err := SandboxKind(in, true)
		require.NoError(t, err)
		require.Equal(t, SandboxInProcess, kind)
	}
	kind, err := SandboxKind("isolated", false)
	require.NoError(t, err)
	require.Equal(t, SandboxIsolated, kind)
	_, err = SandboxKind("in_process", false)
	require.ErrorContains(t, err, "--sandbox inprocess runs the model's code in this process")
}
