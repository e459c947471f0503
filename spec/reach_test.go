package spec_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

func TestReaches(t *testing.T) {
	path := write(t, map[string]string{
		"loom.yaml": `version: loom/v1
model: openai:gpt-4o-mini
agents:
  local: {type: mcp, command: [sh, ./server.sh, --stdio]}
  remote:
    type: mcp
    url: https://mcp.example.com/mcp
    headers: {Authorization: "Bearer ${env:TOKEN}"}
    headers_env: {X-Key: KEY}
  split: {type: mcp, command: npx -y server}
  outside: {type: mcp, command: [sh, ../server.sh]}
  helper: {type: ai, model: anthropic:claude, tools: [local, remote, split, outside]}
  router: {type: route, model: openai:gpt-4o-mini, agents: [helper]}
`,
		"server.sh": "echo one\n",
	})
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(filepath.Dir(path)), "server.sh"), []byte("echo outside\n"), 0o644))
	d, err := spec.Parse(path)
	require.NoError(t, err)
	var lines []string
	for _, r := range d.Reaches() {
		lines = append(lines, r.String())
	}
	require.Equal(t, []string{
		`local: command ["sh","./server.sh","--stdio"]`,
		`remote: url https://mcp.example.com/mcp headers ["Authorization: Bearer ${env:TOKEN}","X-Key: $KEY"]`,
		`split: command ["npx","-y","server"]`,
		`outside: command ["sh","../server.sh"]`,
	}, lines)
	require.Equal(t, 4, d.Reaches()[0].Line)
	require.Equal(t, []string{"anthropic:claude", "openai:gpt-4o-mini"}, d.Models())

	trust := d.TrustLines()
	require.Equal(t, `local: command ["sh","./server.sh","--stdio"]`, trust[0])
	require.Regexp(t, `^local: runs \./server\.sh sha256:[0-9a-f]{64}$`, trust[1])
	require.Len(t, trust, 5, "a script in the folder is hashed; one outside it is not read")

	// Editing the script changes what is trusted.
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(path), "server.sh"), []byte("echo two\n"), 0o644))
	d2, err := spec.Parse(path)
	require.NoError(t, err)
	require.NotEqual(t, trust, d2.TrustLines())
	require.Equal(t, trust[0], d2.TrustLines()[0])
}

func TestNothingToTrust(t *testing.T) {
	d, err := spec.Parse(write(t, map[string]string{"loom.yaml": "version: loom/v1\nagents:\n  a: {type: function, code: input}\n"}))
	require.NoError(t, err)
	require.Empty(t, d.Reaches())
	require.Empty(t, d.TrustLines())
	require.Empty(t, d.Models())
}
