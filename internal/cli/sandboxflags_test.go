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
		{[]string{"--sandbox", "inprocess"}, SandboxFlags{Kind: SandboxInProcess}, "pass --trusted-code to accept that"},
		{[]string{"--sandbox", "inprocess", "--trusted-code"}, SandboxFlags{Kind: SandboxInProcess, Trusted: true}, ""},
		{[]string{"--sandbox", "docker"}, SandboxFlags{Kind: "docker"}, `--sandbox "docker": use isolated or inprocess`},
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
