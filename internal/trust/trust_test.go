package trust_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomwork/loom/internal/trust"
	"github.com/stretchr/testify/require"
)

func TestGrants(t *testing.T) {
	dir := t.TempDir()
	s := trust.At(filepath.Join(dir, "cfg", "loom", "trust"))
	file := filepath.Join(dir, "loom.yaml")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	reaches := []string{`fs: command ["npx","server"]`}

	ok, err := s.Trusted(file, reaches)
	require.NoError(t, err)
	require.False(t, ok, "nothing is trusted at first")

	ok, err = s.Trusted(file, nil)
	require.NoError(t, err)
	require.True(t, ok, "a file that starts nothing needs no grant")

	require.NoError(t, s.Allow(file, reaches))
	ok, err = s.Trusted(file, reaches)
	require.NoError(t, err)
	require.True(t, ok)

	for name, other := range map[string][]string{
		"changed argument": {`fs: command ["npx","server2"]`},
		"added command":    {`fs: command ["npx","server"]`, `git: command ["git"]`},
	} {
		ok, err := s.Trusted(file, other)
		require.NoError(t, err)
		require.False(t, ok, name)
	}
	copyPath := filepath.Join(dir, "other.yaml")
	ok, err = s.Trusted(copyPath, reaches)
	require.NoError(t, err)
	require.False(t, ok, "a grant is for one file")

	st, err := os.Stat(s.Path())
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	st, err = os.Stat(filepath.Dir(s.Path()))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())

	// Allowing twice records once.
	require.NoError(t, s.Allow(file, reaches))
	b, err := os.ReadFile(s.Path())
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(b), "\n"))
}

func TestAStoreOthersCanWriteIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := trust.At(filepath.Join(dir, "trust"))
	file := filepath.Join(dir, "loom.yaml")
	reaches := []string{`fs: command ["sh"]`}
	require.NoError(t, os.WriteFile(s.Path(), []byte(trust.Digest(file, reaches)+" "+file+"\n"), 0o600))
	require.NoError(t, os.Chmod(s.Path(), 0o666))
	ok, err := s.Trusted(file, reaches)
	require.Error(t, err)
	require.False(t, ok)
}

func TestOpenUsesTheConfigDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	s, err := trust.Open()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "loom", "trust"), s.Path())
}
