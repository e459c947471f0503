//go:build linux

package hostile

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// functionYAML is a function agent whose code (from the project file, not
// from a model) is hostile, on the default sandbox; its input names the
// code to run, so the file is the same for every case.
const functionYAML = `version: loom/v1
entry: f
agents:
  f:
    type: function
    code: CODE
    sandbox: {timeout: 2s, memory_mb: 64}
`

// A project file's hostile function code is contained as a model's is:
// loom run ends as a failed (or finished) run, names what happened on
// stderr without Go runtime text, and leaves no worker.
func TestLoomRunContainsHostileFunctionCode(t *testing.T) {
	for _, s := range handful() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			code, _ := json.Marshal(s.code)
			file := projectFile(t, dir, limited(t, strings.Replace(functionYAML, "CODE", string(code), 1), s))
			r := run(t, dir, env(dir, "http://127.0.0.1:1/v1"), "", loom, "run", file, "-i", "{}", "--db", filepath.Join(dir, "cp.db"))
			if s.value != "" {
				requireEndedAsARun(t, r, exitOK)
				require.Contains(t, r.stdout, s.value)
				return
			}
			requireEndedAsARun(t, r, exitFailed)
			found := false
			for _, w := range s.told {
				found = found || strings.Contains(strings.ToLower(r.stderr), w)
			}
			require.True(t, found, "stderr must name one of %q: %s", s.told, r.stderr)
		})
	}
}
