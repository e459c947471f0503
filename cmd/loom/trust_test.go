package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/internal/trust"
	"github.com/stretchr/testify/require"
)

// markerFile is a loom file whose mcp entry's command creates marker: the
// command ran when marker exists.
func markerFile(t *testing.T, dir, marker, instructions string) string {
	t.Helper()
	path := filepath.Join(dir, "loom.yaml")
	src := `version: loom/v1
model: openai:gpt-test
entry: assistant
agents:
  tools:
    type: mcp
    command: [sh, -c, "touch ` + marker + `"]
  assistant: {type: ai, instructions: ` + instructions + `, tools: [tools]}
`
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

// loomChild runs loom's main in a child process, its trust grants under
// config, stdin not a terminal.
func loomChild(t *testing.T, config string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1", "XDG_CONFIG_HOME="+config)
	var out, errs testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil {
		require.ErrorAs(t, err, &ee)
	}
	return cmd.ProcessState.ExitCode(), out.String() + errs.String()
}

// TestTrustFlow: an untrusted file's command is not started, a trusted
// one is, an edited one is not until trusted again; editing anything else
// keeps the grant. Each step is a separate loom process.
func TestTrustFlow(t *testing.T) {
	fakeOpenAI(t)
	dir, config := t.TempDir(), t.TempDir()
	db := filepath.Join(dir, "cp.db")
	first, second, third := filepath.Join(dir, "first"), filepath.Join(dir, "second"), filepath.Join(dir, "third")
	file := markerFile(t, dir, first, "Be brief.")

	for _, args := range [][]string{
		{"run", file, "-i", "hi", "--db", db},
		{"mcp", "serve", file, "--db", db},
	} {
		code, out := loomChild(t, config, args...)
		require.NoFileExists(t, first, "%v started the command of an untrusted file", args)
		require.Equal(t, exitInvalid, code, out)
		require.Contains(t, out, "starts commands or reaches URLs you have not trusted:\n  tools: command [\"sh\",\"-c\",\"touch "+first+"\"]\n")
		require.Contains(t, out, "run 'loom trust "+file+"' to allow them")
	}

	code, out := loomChild(t, config, "trust", file)
	require.Equal(t, 0, code, out)
	require.Contains(t, out, `tools: command ["sh","-c","touch `+first+`"]`)
	require.NoFileExists(t, first, "loom trust starts nothing")
	st, err := os.Stat(filepath.Join(config, "loom", "trust"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	code, out = loomChild(t, config, "run", file, "-i", "hi", "--db", db)
	require.FileExists(t, first, "the trusted command did not start: %s", out)
	require.NotEqual(t, exitInvalid, code, out)

	// Instructions edited: the commands are the same, the grant holds.
	markerFile(t, dir, first, "Be very brief.")
	require.NoError(t, os.Remove(first))
	loomChild(t, config, "run", file, "-i", "hi", "--db", db)
	require.FileExists(t, first, "editing the instructions revoked the grant")

	// The command edited: the grant no longer holds.
	markerFile(t, dir, second, "Be very brief.")
	code, out = loomChild(t, config, "run", file, "-i", "hi", "--db", db)
	require.Equal(t, exitInvalid, code, out)
	require.NoFileExists(t, second, "an edited command ran without a new grant")
	require.Contains(t, out, "run 'loom trust "+file+"'")

	// Another file with the trusted command is not trusted by it.
	other := t.TempDir()
	otherFile := markerFile(t, other, third, "Be brief.")
	code, out = loomChild(t, config, "run", otherFile, "-i", "hi", "--db", db)
	require.Equal(t, exitInvalid, code, out)
	require.NoFileExists(t, third)
}

// TestTrustAskedAtATerminal: at a terminal loom run shows the commands
// and asks; yes records the grant, anything else refuses.
func TestTrustAskedAtATerminal(t *testing.T) {
	fakeOpenAI(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	file := markerFile(t, dir, marker, "Be brief.")
	db := filepath.Join(dir, "cp.db")

	res := call(t, true, "n\n", "run", file, "-i", "hi", "--db", db)
	require.Equal(t, exitInvalid, res.code)
	require.Contains(t, res.stderr, file+" starts or reaches, when it runs:\n  tools: command [\"sh\",\"-c\",\"touch "+marker+"\"]\nTrust them and go on? [y/N] ")
	require.NoFileExists(t, marker)

	res = call(t, true, "y\n", "run", file, "-i", "hi", "--db", db)
	require.FileExists(t, marker, res.stderr)
	require.NoError(t, os.Remove(marker))

	// Recorded: not asked again.
	res = call(t, true, "", "run", file, "-i", "hi", "--db", db)
	require.NotContains(t, res.stderr, "Trust them")
	require.FileExists(t, marker, res.stderr)
}

func TestTrustCommand(t *testing.T) {
	nothing := writeFile(t, "loom.yaml", "version: loom/v1\nagents:\n  a: {type: ai}\n")
	var out, errs strings.Builder
	require.Equal(t, 0, runTrust([]string{nothing}, &out, &errs))
	require.Equal(t, nothing+" starts no command and reaches no URL beside its models: nothing to trust\n", out.String())

	bad := writeFile(t, "loom.yaml", "version: loom/v1\nagents:\n  a: {type: mcp, command: x, url: http://127.0.0.1/}\n")
	out.Reset()
	require.Equal(t, exitInvalid, runTrust([]string{bad}, &out, &errs))
	require.Contains(t, errs.String(), "both command and url are given")

	out.Reset()
	require.Equal(t, 0, runTrust([]string{"--help"}, &out, &errs))
	require.Contains(t, out.String(), "Usage: loom trust FILE")

	out.Reset()
	require.Equal(t, 0, run(t.Context(), []string{"help", "trust"}, &out, &errs))
	require.Contains(t, out.String(), "Usage: loom trust FILE")
}

// TestEditedScriptRevokesTrust: a script in the project folder that a
// trusted command runs is part of the grant.
func TestEditedScriptRevokesTrust(t *testing.T) {
	fakeOpenAI(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := filepath.Join(dir, "server.sh")
	require.NoError(t, os.WriteFile(script, []byte("touch "+marker+"\n"), 0o644))
	file := filepath.Join(dir, "loom.yaml")
	require.NoError(t, os.WriteFile(file, []byte("version: loom/v1\nmodel: openai:gpt-test\nentry: a\nagents:\n  tools: {type: mcp, command: [sh, ./server.sh]}\n  a: {type: ai, tools: [tools]}\n"), 0o644))
	trustFile(t, file)
	require.NoError(t, os.WriteFile(script, []byte("touch "+marker+"; echo changed\n"), 0o644))
	res := call(t, false, "", "run", file, "-i", "hi", "--db", filepath.Join(dir, "cp.db"))
	require.Equal(t, exitInvalid, res.code, res.stderr)
	require.Regexp(t, `tools: runs \./server\.sh sha256:[0-9a-f]{64}`, res.stderr)
	require.NoFileExists(t, marker)
}

// TestEnvLocalCannotMoveTheGrants: a project's .env.local cannot point
// loom at a grants file it ships.
func TestEnvLocalCannotMoveTheGrants(t *testing.T) {
	fakeOpenAI(t)
	dir, home := t.TempDir(), t.TempDir()
	marker := filepath.Join(dir, "ran")
	file := markerFile(t, dir, marker, "Be brief.")
	fake := filepath.Join(dir, "fake")
	lines := []string{`tools: command ["sh","-c","touch ` + marker + `"]`}
	require.NoError(t, os.MkdirAll(filepath.Join(fake, "loom"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(fake, "loom", "trust"), []byte(trust.Digest(file, lines)+" "+file+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".env.local"), []byte("XDG_CONFIG_HOME="+fake+"\n"), 0o600))

	cmd := exec.Command(os.Args[0], "run", file, "-i", "hi", "--db", filepath.Join(dir, "cp.db"))
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, childEnv+"=1", "HOME="+home)
	out, _ := cmd.CombinedOutput()
	require.Equal(t, exitInvalid, cmd.ProcessState.ExitCode(), string(out))
	require.Contains(t, string(out), "you have not trusted")
	require.NoFileExists(t, marker)
}
