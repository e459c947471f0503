package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
)

// A stdio server sees the variables a program needs and those its Config
// gives, never the rest of the host's environment (a provider key), unless
// the Config inherits it; checked with server-everything's get-env tool,
// which a model's snippet could call as well.
func TestServerEnvKeepsTheHostsSecretsOut(t *testing.T) {
	const secret = "sk-loom-test-secret-0123456789"
	t.Setenv("OPENAI_API_KEY", secret)
	t.Setenv("LOOM_TEST_UNLISTED", "unlisted")
	cases := []struct {
		name       string
		env        []string
		inherit    bool
		wantSecret bool
		wantGiven  string
	}{
		{name: "default", wantSecret: false},
		{name: "given", env: []string{"GITHUB_TOKEN=gh-given"}, wantSecret: false, wantGiven: "gh-given"},
		{name: "inherit", inherit: true, wantSecret: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := stdioConfig(t, "")
			cfg.Env, cfg.InheritEnv = tc.env, tc.inherit
			ts := connect(t, cfg)
			out, err := agent.Invoke(context.Background(), toolNamed(t, ts, "get-env"), json.RawMessage(`{}`))
			require.NoError(t, err)
			var res struct{ Message string }
			require.NoError(t, json.Unmarshal(out, &res), string(out))
			var env map[string]string
			require.NoError(t, json.Unmarshal([]byte(res.Message), &env), res.Message)
			require.NotEmpty(t, env["PATH"], "the server finds its programs")
			if tc.wantSecret {
				require.Equal(t, secret, env["OPENAI_API_KEY"])
				require.Equal(t, "unlisted", env["LOOM_TEST_UNLISTED"])
			} else {
				require.NotContains(t, res.Message, secret, "the host's key reached the server")
				require.NotContains(t, env, "LOOM_TEST_UNLISTED")
			}
			if tc.wantGiven != "" {
				require.Equal(t, tc.wantGiven, env["GITHUB_TOKEN"])
			}
		})
	}
}

func TestServerEnv(t *testing.T) {
	vars := map[string]string{"PATH": "/bin", "HOME": "/home/u", "SHELL": "() { :; }", "OPENAI_API_KEY": "sk-x", "LANG": "C.UTF-8"}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	got := ServerEnv(lookup)
	require.Contains(t, got, "PATH=/bin")
	require.Contains(t, got, "HOME=/home/u")
	require.Contains(t, got, "LANG=C.UTF-8")
	require.NotContains(t, got, "SHELL=() { :; }", "an exported shell function is left out")
	for _, kv := range got {
		require.NotContains(t, kv, "OPENAI_API_KEY")
	}
}
