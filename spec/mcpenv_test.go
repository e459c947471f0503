package spec_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/spec"
)

// An mcp entry's env names variables of loom's environment given to a
// command server; names only, never values, and only for a command.
func TestMCPEntryEnv(t *testing.T) {
	head := "version: loom/v1\nmodel: openai:m\nentry: helper\nagents:\n  helper:\n    type: ai\n    tools: [docs]\n  docs:\n    type: mcp\n"
	cases := []struct {
		name, entry, parseErr string
	}{
		{"names", "    command: [node, server.js]\n    env: [GITHUB_TOKEN, LOOM_X]\n", ""},
		{"with url", "    url: http://127.0.0.1:1/mcp\n    env: [GITHUB_TOKEN]\n", "env without command"},
		{"a value, not a name", "    command: [node, server.js]\n    env: [\"GITHUB_TOKEN=ghp_123\"]\n", `"GITHUB_TOKEN=ghp_123" is not an environment variable name`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, map[string]string{"loom.yaml": head + tc.entry})
			_, err := spec.Parse(path)
			if tc.parseErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.parseErr)
		})
	}
	t.Run("missing variable named before the server starts", func(t *testing.T) {
		path := write(t, map[string]string{"loom.yaml": head + "    command: [loom-test-no-such-program]\n    env: [DOCS_TOKEN]\n"})
		m := modeltest.New(t)
		p, err := spec.Load(path, spec.Registry{
			Models: func(string) (model.Model, error) { return m, nil },
			Getenv: func(string) string { return "" },
		})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, p.Close()) })
		_, err = engine.New(engine.Config{}).Invoke(t.Context(), p.Entry, "hi")
		require.ErrorIs(t, err, spec.ErrMissingEnv)
		require.ErrorContains(t, err, "set DOCS_TOKEN in the environment or in .env.local")
	})
}
