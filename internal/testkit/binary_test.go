package testkit

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBinaryIsBuiltOnceAndRuns(t *testing.T) {
	first, err := Binary("./testdata/hello")
	require.NoError(t, err)
	second, err := Binary("./testdata/hello")
	require.NoError(t, err)
	require.Equal(t, first, second, "the second call finds the cached executable")

	out, err := exec.Command(first, "a", "b").Output()
	require.NoError(t, err)
	require.Equal(t, "hello [a b]\n", string(out))
}

func TestBinaryNamesWhatFailed(t *testing.T) {
	for _, tc := range []struct{ pkg, want string }{
		{"./testdata/missing", "./testdata/missing"},
		{".", "not a main package"},
	} {
		_, err := Binary(tc.pkg)
		require.ErrorContains(t, err, "go run -exec echo "+tc.pkg)
		require.ErrorContains(t, err, tc.want)
	}
}
