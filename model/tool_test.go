package model_test

import (
	"strings"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

func TestToolNameFor(t *testing.T) {
	long := strings.Repeat("x", 70)
	for _, tc := range []struct{ in, want string }{
		{"get_weather", "get_weather"},
		{"server.tool", "server_tool"},
		{"fs/read file", "fs_read_file"},
		{"9lives", "_9lives"},
		{"-x", "_-x"},
		{"", "_"},
		{"café", "caf__"},
	} {
		require.Equal(t, tc.want, model.ToolNameFor(tc.in), tc.in)
		require.True(t, model.ValidToolName(model.ToolNameFor(tc.in)))
	}
	got := model.ToolNameFor(long)
	require.Len(t, got, 64)
	require.True(t, model.ValidToolName(got))
	require.NotEqual(t, got, model.ToolNameFor(long+"y"), "long names keep a hash of the whole")
}

func TestValidToolName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"a", true},
		{"_", true},
		{"get_weather-2", true},
		{"A" + strings.Repeat("b", 63), true},
		{"A" + strings.Repeat("b", 64), false},
		{"", false},
		{"2fast", false},
		{"-x", false},
		{"has space", false},
		{"dot.name", false},
		{"ünicode", false},
		{"new\nline", false},
		{"trailing\n", false},
	} {
		require.Equal(t, tc.want, model.ValidToolName(tc.name), "%q", tc.name)
	}
}
