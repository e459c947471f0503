// Package yamlcodeexecution tests the Coder→Sandbox workflow declared in
// loom.yaml, run by the loom command against a local OpenAI-format server.
package yamlcodeexecution

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/loomwork/loom/sandbox"
	"github.com/stretchr/testify/require"
)

var loom string

// TestMain builds the loom command for the tests.
func TestMain(m *testing.M) {
	sandbox.ServeWorkerIfChild() // the playground test's isolated sandbox runs this binary
	os.Exit(exampletest.MainOf(m, "../../cmd/loom", &loom))
}

func file(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("loom.yaml")
	require.NoError(t, err)
	return p
}

func TestValidates(t *testing.T) {
	res := exampletest.Run(t, loom, nil, "", "validate", file(t))
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Equal(t, file(t)+": valid\nmodels: openai (each reached at its provider's API)\n", res.Stdout)
}

func TestStopsForApprovalThenResumes(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Coder)
	dir := t.TempDir()
	env := append(exampletest.OpenAIEnv(srv.BaseURL()), "LOOM_CHECKPOINT_DB="+filepath.Join(dir, "checkpoints.db"))

	res := exampletest.RunIn(t, dir, loom, env, "", "run", file(t), "-i", "Calculate 15!")
	require.Equal(t, 3, res.Code, "no terminal: the run stops for the approval\nstderr: %s", res.Stderr)
	runID := strings.TrimSpace(res.Stdout)
	require.Regexp(t, `^[0-9a-f]+$`, runID)
	require.Contains(t, res.Stderr, "The agent wants to run this code:\n    let f = 1;\n")
	require.Contains(t, res.Stderr, "continue it with: loom resume "+runID+" --approve (or --deny)\n")
	require.Len(t, srv.Requests(), 1)

	res = exampletest.RunIn(t, dir, loom, env, "", "resume", runID, "--approve")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Equal(t, "15! = 1307674368000\n", res.Stdout)
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "the first model call is not repeated")
	require.Equal(t, []string{`{"result":1307674368000,"logs":[]}`}, reqs[1].ToolResults())

	res = exampletest.RunIn(t, dir, loom, env, "", "resume", runID, "--approve")
	require.Equal(t, 1, res.Code, "a run resumes once")
	require.Contains(t, res.Stderr, "already")
}

func TestResumeUnknownRun(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Coder)
	dir := t.TempDir()
	env := append(exampletest.OpenAIEnv(srv.BaseURL()), "LOOM_CHECKPOINT_DB="+filepath.Join(dir, "checkpoints.db"))
	res := exampletest.RunIn(t, dir, loom, env, "", "resume", "abc", "--deny")
	require.Equal(t, 2, res.Code)
	require.Contains(t, res.Stderr, `no stopped run "abc"`)
}

func TestSchemaFileIsCurrent(t *testing.T) {
	res := exampletest.Run(t, loom, nil, "", "schema")
	require.Equal(t, 0, res.Code)
	want, err := os.ReadFile("loom.schema.json")
	require.NoError(t, err)
	require.Equal(t, string(want), res.Stdout, "regenerate it: go run ./cmd/loom schema > examples/yaml-code-execution/loom.schema.json")
}
