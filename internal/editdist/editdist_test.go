package editdist

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"serve", "serve", 0},
		{"serv", "serve", 1},
		{"instrutions", "instructions", 1},
		{"vlaidate", "validate", 2},
		{"kitten", "sitting", 3},
	} {
		require.Equal(t, tc.want, Distance(tc.a, tc.b), "%q %q", tc.a, tc.b)
		require.Equal(t, tc.want, Distance(tc.b, tc.a), "symmetric: %q %q", tc.b, tc.a)
	}
}
