package userfile

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPath(t *testing.T) {
	const env = "LOOM_USERFILE_TEST_DB"
	t.Run("the variable wins", func(t *testing.T) {
		t.Setenv(env, "/tmp/x.db")
		p, err := Path(env, "x.db")
		require.NoError(t, err)
		require.Equal(t, "/tmp/x.db", p)
	})
	t.Run("the user's cache directory", func(t *testing.T) {
		t.Setenv(env, "")
		t.Setenv("XDG_CACHE_HOME", "/tmp/cache")
		p, err := Path(env, "x.db")
		require.NoError(t, err)
		require.Equal(t, filepath.Join("/tmp/cache", "loom", "x.db"), p)
	})
	t.Run("no directory known", func(t *testing.T) {
		t.Setenv(env, "")
		t.Setenv("XDG_CACHE_HOME", "")
		t.Setenv("XDG_CONFIG_HOME", "")
		t.Setenv("HOME", "")
		_, err := Path(env, "x.db")
		require.Error(t, err)
	})
}
