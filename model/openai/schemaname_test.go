package openai

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSchemaName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"weather", "weather"},
		{"Weather-Report_2", "Weather-Report_2"},
		{"my schema.v1", "my_schema_v1"},
		{"ünï", "_n_"},
		{"a\xffb", "a_b"},
		{"", "response"},
		{strings.Repeat("x", 70), strings.Repeat("x", 64)},
	} {
		require.Equal(t, tc.want, schemaName(tc.in), "%q", tc.in)
	}
}
