package main

import (
	"os"
	"strings"
	"testing"

	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/examples/internal/exampletest"
	"github.com/loomwork/loom/examples/internal/fakeopenai"
	"github.com/stretchr/testify/require"
)

var bin string

func TestMain(m *testing.M) { os.Exit(exampletest.Main(m, &bin)) }

func TestRouterHandsOff(t *testing.T) {
	srv := fakeopenai.New(t, func(req fakeopenai.Request) fakeopenai.Reply {
		switch sys := req.Messages[0].Content; {
		case sys == compose.DefaultRouterInstructions:
			return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "call_1", Name: "translator", Arguments: `{"message":"good morning -> French"}`}}}
		case strings.HasPrefix(sys, "You are a translator"):
			return fakeopenai.Reply{Text: "Bonjour"}
		}
		return fakeopenai.Reply{Status: 500, Error: "the wrong agent was called"}
	})
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "-i", "Translate 'good morning' into French.")
	require.Equal(t, 0, res.Code, "stderr: %s", res.Stderr)
	require.Equal(t, "[translator] call {\"message\":\"good morning -> French\"}\nBonjour\n", res.Stdout)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	require.Equal(t, []string{"translator", "poet", "explainer"}, reqs[0].Tools)
	require.Equal(t, "required", reqs[0].Body["tool_choice"], "the router must choose an agent")
	require.Equal(t, "Translate 'good morning' into French.", reqs[1].Last().Content, "the chosen agent gets the user's own words")
}

func TestRouterNoChoiceFails(t *testing.T) {
	srv := fakeopenai.New(t, func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Text: "I will answer myself."} })
	res := exampletest.Run(t, bin, exampletest.OpenAIEnv(srv.BaseURL()), "", "hello")
	require.Equal(t, 1, res.Code)
	require.Contains(t, res.Stderr, "router chose no agent")
}
