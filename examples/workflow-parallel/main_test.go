package main

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

var bin string

func TestMain(m *testing.M) { os.Exit(exampletest.Main(m, &bin)) }

func TestParallelEndToEnd(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]string{}
	srv := fakeopenai.New(t, func(req fakeopenai.Request) fakeopenai.Reply {
		sys := req.Messages[0].Content
		mu.Lock()
		asked[strings.Fields(sys)[3]] = req.Last().Content
		mu.Unlock()
		switch {
		case strings.Contains(sys, "optimist"):
			return fakeopenai.Reply{Text: "- no commute"}
		case strings.Contains(sys, "skeptic"):
			return fakeopenai.Reply{Text: "- isolation"}
		default:
			return fakeopenai.Reply{Text: "It spread in 2020."}
		}
	})
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "Remote work\n", "--concurrency", "2")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Equal(t, "## benefits\n- no commute\n\n## risks\n- isolation\n\n## background\nIt spread in 2020.\n", res.Stdout)
	require.Equal(t, map[string]string{"optimist.": "Remote work", "skeptic.": "Remote work", "historian.": "Remote work"}, asked, "every analyst gets the same input")
}

func TestParallelBadConcurrency(t *testing.T) {
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv("http://127.0.0.1:1/v1"), "", "--concurrency", "-1", "x")
	require.Equal(t, 2, res.Code)
	require.Contains(t, res.Stderr, "MaxConcurrency is -1")
}
