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

const (
	buggy = "```js\nconst add = (a, b) => a - b;\n```"
	fixed = "```js\nconst add = (a, b) => a + b;\n```"
)

// server plays a coder that fixes its bug after one review, and a reviewer
// that approves only the fixed version (or never, when strict).
func server(t *testing.T, strict bool) *fakeopenai.Server {
	return fakeopenai.New(t, func(req fakeopenai.Request) fakeopenai.Reply {
		last := req.Last().Content
		if strings.HasPrefix(req.Messages[0].Content, "You are a strict code reviewer") {
			if strings.Contains(last, "a + b") && !strict {
				return fakeopenai.Reply{Text: `{"approved":true}`}
			}
			return fakeopenai.Reply{Text: `{"approved":false,"feedback":"it subtracts instead of adding"}`}
		}
		if strings.Contains(last, "A reviewer rejected it") {
			return fakeopenai.Reply{Text: fixed}
		}
		return fakeopenai.Reply{Text: buggy}
	})
}

func TestReflectionUntilApproved(t *testing.T) {
	srv := server(t, false)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "Write add(a, b).")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Equal(t, "[coder] "+buggy+"\n"+
		`[reviewer] {"approved":false,"feedback":"it subtracts instead of adding"}`+"\n"+
		"[coder] "+fixed+"\n"+
		`[reviewer] {"approved":true}`+"\n", res.Stdout)
	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	require.Contains(t, reqs[2].Last().Content, "A reviewer rejected it: it subtracts instead of adding")
	require.NotNil(t, reqs[1].Body["response_format"], "the reviewer answers with the Review schema")
}

func TestReflectionBound(t *testing.T) {
	srv := server(t, true)
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--max-rounds", "2", "Write add(a, b).")
	require.Equal(t, 1, res.Code)
	require.Contains(t, res.Stderr, "code_review: not approved after 2 rounds; last feedback: it subtracts instead of adding")
	require.Len(t, srv.Requests(), 4)

	res = exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "--max-rounds", "1", "--return-last", "Write add(a, b).")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
}
