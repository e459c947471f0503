package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/evals"
	"github.com/loomwork/loom/internal/cli"
)

func TestProgressBar(t *testing.T) {
	var out bytes.Buffer
	b := newProgressBar(&out)
	b.finish()
	require.Empty(t, out.String(), "an unused bar draws nothing")
	b.update(1, 4, "HumanEval/0", evals.Sample{Class: evals.Passed})
	b.update(2, 4, "HumanEval/1", evals.Sample{Class: evals.Assertion})
	b.update(4, 4, "HumanEval/3", evals.Sample{Class: evals.Passed})
	b.finish()
	lines := strings.Split(out.String(), "\r")
	require.Len(t, lines, 4)
	require.Equal(t, "[#######.......................] 1/4  passed 1  HumanEval/0             ", lines[1])
	require.Contains(t, lines[2], "2/4  passed 1  HumanEval/1")
	require.True(t, strings.HasPrefix(lines[3], "["+strings.Repeat("#", barWidth)+"] 4/4  passed 2"))
	require.True(t, strings.HasSuffix(lines[3], "\n"))
}

func TestIsTerminal(t *testing.T) {
	require.False(t, cli.IsTerminal(&bytes.Buffer{}))
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	require.False(t, cli.IsTerminal(f), "a file is not a terminal")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	require.False(t, cli.IsTerminal(w), "a pipe is not a terminal")
}
