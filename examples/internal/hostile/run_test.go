//go:build linux

package hostile

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

// coderYAML is a code-execution agent on the default (isolated) sandbox,
// with short limits so that the catalogue runs fast.
const coderYAML = `version: loom/v1
model: openai:gpt-test
entry: coder
agents:
  coder:
    type: code_execution
    max_retries: 2
    sandbox: {timeout: 2s, memory_mb: 64}
`

// limited is a project file with s's time limit in place of the 2 s one.
func limited(t *testing.T, yaml string, s snippet) string {
	t.Helper()
	from := "timeout: " + longLimit + ","
	require.Contains(t, yaml, from, "the file's sandbox has the long limit to replace")
	return strings.Replace(yaml, from, "timeout: "+s.limit()+",", 1)
}

// Every class of the catalogue, sent by the model of a loom run on a YAML
// file, is contained by the default sandbox: the command ends as a run
// does, the model is told what happened, its next snippet runs cleanly,
// and no worker outlives the command.
func TestLoomRunContainsTheCatalogue(t *testing.T) {
	cases := catalogue()
	srv := fakeopenai.New(t, twoSnippets(cases))
	for _, s := range cases {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := projectFile(t, dir, limited(t, coderYAML, s))
			r := run(t, dir, env(dir, srv.BaseURL()), "", loom, "run", file, "-i", s.name, "--db", filepath.Join(dir, "cp.db"))
			requireEndedAsARun(t, r, exitOK)
			first := line(t, r.stdout, "FIRST ")
			t.Logf("told: %s", first)
			requireTold(t, s, first, line(t, r.stdout, "SECOND "))
		})
	}
}
