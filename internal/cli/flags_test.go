package cli

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseInterleaved(t *testing.T) {
	cases := []struct {
		name      string
		args      []string
		pos       []string
		input     string
		chat      bool
		wantError string
	}{
		{name: "nothing", args: nil},
		{name: "flags only", args: []string{"-i", "x", "--chat"}, input: "x", chat: true},
		{name: "positional first", args: []string{"file.yaml", "-i", "x"}, pos: []string{"file.yaml"}, input: "x"},
		{name: "positional between flags", args: []string{"--chat", "a", "-i", "x", "b"}, pos: []string{"a", "b"}, input: "x", chat: true},
		{name: "-- ends the flags", args: []string{"a", "--", "-i", "x"}, pos: []string{"a", "-i", "x"}},
		{name: "-- first", args: []string{"--", "--chat"}, pos: []string{"--chat"}},
		{name: "a flag after -- is positional, one before is not", args: []string{"--chat", "--", "--chat"}, pos: []string{"--chat"}, chat: true},
		{name: "unknown flag", args: []string{"a", "--nope"}, wantError: "flag provided but not defined: -nope"},
		{name: "missing value", args: []string{"a", "-i"}, wantError: "flag needs an argument: -i"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			input := fs.String("i", "", "")
			chat := fs.Bool("chat", false, "")
			pos, err := ParseInterleaved(fs, c.args)
			if c.wantError != "" {
				require.ErrorContains(t, err, c.wantError)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.pos, pos)
			require.Equal(t, c.input, *input)
			require.Equal(t, c.chat, *chat)
		})
	}
}
