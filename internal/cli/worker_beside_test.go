package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWorkerIn(t *testing.T) {
	cases := []struct {
		name  string
		setup func(dir string) error
		found bool
	}{
		{"executable", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, WorkerBinary), []byte("#!/bin/sh\n"), 0o755)
		}, true},
		{"not executable", func(dir string) error { return os.WriteFile(filepath.Join(dir, WorkerBinary), []byte("x"), 0o644) }, false},
		{"a directory", func(dir string) error { return os.Mkdir(filepath.Join(dir, WorkerBinary), 0o755) }, false},
		{"missing", func(string) error { return nil }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, c.setup(dir))
			got := workerIn(dir)
			if c.found {
				require.Equal(t, filepath.Join(dir, WorkerBinary), got)
			} else {
				require.Empty(t, got)
			}
		})
	}
}
