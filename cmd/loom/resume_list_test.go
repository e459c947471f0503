package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestResumeListsWaitingRuns: loom resume --list shows every run of the
// database that waits, whoever stopped it (a coder's approval, a graph's
// human node, a chat's turn), with its questions and how to answer, and
// not the runs that ended; an answered run leaves the list.
func TestResumeListsWaitingRuns(t *testing.T) {
	fakeOpenAI(t)
	db := filepath.Join(t.TempDir(), "cp.db")
	file := writeFile(t, "loom.yaml", restartYAML)

	code, _, stderr := loomProcess(t, "resume", "--list", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stderr, "no run waits for an answer")

	stop := func(stdin string, args ...string) string {
		code, stdout, stderr := loomProcessIn(t, stdin, args...)
		require.Equal(t, exitWaiting, code, stderr)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		return lines[len(lines)-1]
	}
	coder := stop("", "run", file, "-i", "Calculate 15!", "--db", db)
	graphRun := stop("", "run", file, "--agent", "review", "-i", "otters", "--db", db)
	turn := stop("Calculate 15!\n", "run", file, "--chat", "--session", "s7", "--db", db)
	code, _, stderr = loomProcess(t, "run", file, "-i", "hello", "--db", db)
	require.Equal(t, exitOK, code, stderr)

	code, stdout, stderr := loomProcess(t, "resume", "--list", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, 3, strings.Count(stdout, "continue it with: "), stdout)
	for _, want := range []string{
		"run " + coder + " (agent coder of " + file,
		"  continue it with: loom resume " + coder + " --approve (or --deny)\n",
		"run " + graphRun + " (agent review of " + file,
		"  waits for approval " + graphRun + ".1.2.1?1:\n    Publish?\n      draft: user messages: 1\n",
		"run " + turn + " (agent coder of " + file + ", a turn of session s7",
		"        let f = 1;\n",
	} {
		require.Contains(t, stdout, want)
	}

	code, _, stderr = loomProcess(t, "resume", graphRun, "--approve", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	code, stdout, stderr = loomProcess(t, "resume", "--list", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, 2, strings.Count(stdout, "continue it with: "), stdout)
	require.NotContains(t, stdout, graphRun)

	code, _, stderr = loomProcess(t, "resume", "--list", coder, "--db", db)
	require.Equal(t, exitInvalid, code)
	require.Contains(t, stderr, "--list takes no run id")
}
