package viewer_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/observe/viewer"
)

func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	var out strings.Builder
	db := filepath.Join(t.TempDir(), "traces.db")
	go func() {
		errc <- viewer.Serve(ctx, viewer.Config{Port: -1, DBPath: db, Ready: func(u string) { ready <- u }, Out: &out})
	}()
	var url string
	select {
	case url = <-ready:
	case err := <-errc:
		t.Fatal(err)
	}
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)
	res, err := http.Get(url + "api/traces")
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusOK, res.StatusCode)
	cancel()
	require.NoError(t, <-errc)
	require.Contains(t, out.String(), "serving "+db)
	_, err = os.Stat(db)
	require.NoError(t, err, "serving creates the database")
}

func TestServeBadDatabase(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o600))
	err := viewer.Serve(context.Background(), viewer.Config{Port: -1, DBPath: filepath.Join(blocker, "traces.db")})
	require.Error(t, err)
}
