package spec_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

// A sandbox of kind in_process needs the file's trusted: true (checked by
// Parse) and the program's consent (Registry.TrustedCode, checked by
// Build); the default sandbox, isolated, needs neither.
func TestInProcessSandboxNeedsTrust(t *testing.T) {
	const head = "version: loom/v1\nentry: add\nagents:\n  add:\n    type: function\n    code: \"input.a + input.b\"\n"
	tests := []struct {
		name     string
		sandbox  string
		consent  bool
		parseErr string // "" when Parse accepts the file
		buildErr string // "" when Build succeeds
	}{
		{"default is isolated", "", false, "", ""},
		{"isolated", "    sandbox: {kind: isolated}\n", false, "", ""},
		{"in_process without trusted", "    sandbox: {kind: in_process}\n", true, "sandbox kind in_process runs the code in this process", ""},
		{"in_process trusted: false", "    sandbox: {kind: in_process, trusted: false}\n", true, "does not say trusted: true", ""},
		{"in_process trusted, no consent", "    sandbox: {kind: in_process, trusted: true}\n", false, "", "the program must consent as well"},
		{"in_process trusted, consent", "    sandbox: {kind: in_process, trusted: true}\n", true, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, map[string]string{"loom.yaml": head + tc.sandbox})
			d, err := spec.Parse(path)
			if tc.parseErr != "" {
				require.ErrorContains(t, err, tc.parseErr)
				var errs spec.Errors
				require.ErrorAs(t, err, &errs)
				require.Equal(t, "agents.add.sandbox.kind", errs[0].Path)
				require.Equal(t, 7, errs[0].Line, "the error points at the kind")
				require.Contains(t, errs[0].Hint, "trusted: true")
				return
			}
			require.NoError(t, err)
			p, err := spec.Build(d, spec.Registry{TrustedCode: tc.consent})
			if tc.buildErr != "" {
				require.ErrorIs(t, err, spec.ErrInvalid)
				require.ErrorContains(t, err, tc.buildErr)
				require.ErrorContains(t, err, "--trusted-code")
				return
			}
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, p.Close()) })
			out, err := agent.Invoke(t.Context(), p.Entry, json.RawMessage(`{"a":2,"b":3}`))
			require.NoError(t, err)
			require.JSONEq(t, `{"result":5}`, string(out))
		})
	}
}

func TestInProcessEntries(t *testing.T) {
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
agents:
  a: {type: function, code: "1", sandbox: {kind: in_process, trusted: true}}
  b: {type: function, code: "1"}
  c: {type: code_execution, sandbox: {kind: in_process, trusted: true}}
  d: {type: ai}
`})
	d, err := spec.Parse(path)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c"}, d.InProcessEntries())
}

// The loom/v1 schema has the trusted key on a sandbox.
func TestSchemaHasTrusted(t *testing.T) {
	require.Contains(t, string(spec.Schema()), `"trusted"`)
}

// Registry.Isolated reaches every isolated executor an entry starts: a
// worker command that does not exist makes the entry's sandbox fail,
// naming it, and an in-process entry is unaffected.
func TestRegistryIsolatedOptionsReachTheExecutor(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-worker")
	reg := spec.Registry{TrustedCode: true, Isolated: sandbox.IsolatedConfig{WorkerCommand: []string{missing}}}
	for _, tc := range []struct {
		name, sandbox string
		fails         bool
	}{
		{"isolated", "", true},
		{"in_process", "    sandbox: {kind: in_process, trusted: true}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, map[string]string{"loom.yaml": "version: loom/v1\nentry: add\nagents:\n  add:\n    type: function\n    code: \"input.a + input.b\"\n" + tc.sandbox})
			d, err := spec.Parse(path)
			require.NoError(t, err)
			p, err := spec.Build(d, reg)
			if err == nil {
				t.Cleanup(func() { _ = p.Close() })
				_, err = agent.Invoke(t.Context(), p.Entry, json.RawMessage(`{"a":2,"b":3}`))
			}
			if tc.fails {
				require.Error(t, err)
				require.ErrorContains(t, err, "no-such-worker")
				return
			}
			require.NoError(t, err)
		})
	}
}
