package main

import (
	"os"
	"strings"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

var bin string

func TestMain(m *testing.M) { os.Exit(exampletest.Main(m, &bin)) }

func TestSequenceEndToEnd(t *testing.T) {
	srv := fakeopenai.New(t, func(req fakeopenai.Request) fakeopenai.Reply {
		switch sys := req.Messages[0].Content; {
		case strings.HasPrefix(sys, "You are a researcher"):
			return fakeopenai.Reply{Text: "Sunlight scatters off air molecules.\nBlue light scatters most."}
		case strings.HasPrefix(sys, "You are a writer"):
			return fakeopenai.Reply{Text: "Sunlight scatters off the molecules of the air, and blue light, with its short wavelength, scatters the most."}
		default:
			return fakeopenai.Reply{Text: "Air scatters blue sunlight most."}
		}
	})
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "-i", "Why is the sky blue?")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Equal(t, "[researcher] Sunlight scatters off air molecules.\nBlue light scatters most.\n"+
		"[writer] Sunlight scatters off the molecules of the air, and blue light, with its short wavelength, scatters the most.\n"+
		"[editor] Air scatters blue sunlight most.\n", res.Stdout)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	require.Equal(t, "Why is the sky blue?", reqs[0].Last().Content)
	require.Equal(t, "Sunlight scatters off air molecules.\nBlue light scatters most.", reqs[1].Last().Content, "the writer reads the researcher's answer")
	require.True(t, strings.HasPrefix(reqs[2].Last().Content, "Sunlight scatters off the molecules"), "the editor reads the writer's answer")
}
