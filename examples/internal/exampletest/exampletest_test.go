package exampletest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBinaryIsBuiltOnceAndRuns(t *testing.T) {
	first, err := Binary("./testdata/hello")
	require.NoError(t, err)
	second, err := Binary("./testdata/hello")
	require.NoError(t, err)
	require.Equal(t, first, second, "the second call finds the cached executable")

	res := Run(t, first, nil, "", "a", "b")
	require.Zero(t, res.Code, res.Stderr)
	require.Equal(t, "hello [a b]\n", res.Stdout)
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
