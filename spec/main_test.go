package spec_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/sandbox"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	sandbox.ServeWorkerIfChild()
	goleak.VerifyTestMain(m)
}

// write writes files (name → content) into a new folder and returns the
// path of the first one, loom.yaml.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return filepath.Join(dir, "loom.yaml")
}

// inProcess returns an in-process sandbox, closed when the test ends.
func inProcess(t *testing.T) sandbox.Executor {
	t.Helper()
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, exec.Close()) })
	return exec
}
