package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// script is a chat's input: each read returns the next line or error,
// then io.EOF.
type script []any

func (s *script) read(string) (string, error) {
	if len(*s) == 0 {
		return "", io.EOF
	}
	x := (*s)[0]
	*s = (*s)[1:]
	if err, ok := x.(error); ok {
		return "", err
	}
	return x.(string), nil
}

func TestChatLoop(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name     string
		input    script
		codes    map[string]int  // a turn's status, by question; 0 when absent
		stops    map[string]bool // whether that turn ends the chat
		want     int
		asked    []string
		cleared  int
		out, err string // what Out and Err must contain
	}{
		{name: "questions until EOF", input: script{"one", "  two  "}, want: ExitOK, asked: []string{"one", "two"}},
		{name: "/exit ends it", input: script{"one", "/exit", "two"}, want: ExitOK, asked: []string{"one"}},
		{name: "empty lines are skipped", input: script{"", "   ", "one"}, want: ExitOK, asked: []string{"one"}},
		{name: "/help", input: script{"/help"}, want: ExitOK, out: "loom/hist.history"},
		{name: "/clear", input: script{"one", "/clear", "/reset"}, want: ExitOK, asked: []string{"one"}, cleared: 2, out: "(conversation cleared)"},
		{name: "unknown command", input: script{"/nope"}, want: ExitOK, out: "unknown command /nope; type /help"},
		{name: "a failed turn is the status", input: script{"bad", "good"}, codes: map[string]int{"bad": ExitSnippetFailed}, want: ExitSnippetFailed, asked: []string{"bad", "good"}},
		{name: "a turn that stops", input: script{"bad", "good"}, codes: map[string]int{"bad": ExitFailed}, stops: map[string]bool{"bad": true}, want: ExitFailed, asked: []string{"bad"}},
		{name: "a read error", input: script{boom}, want: ExitFailed, err: "chat: error: reading input: boom"},
		{name: "Ctrl-C at the prompt once", input: script{ErrInterrupt, "one"}, want: ExitOK, asked: []string{"one"}, err: "(Ctrl-C again to leave, or type /exit)"},
		{name: "Ctrl-C at the prompt twice", input: script{ErrInterrupt, ErrInterrupt, "one"}, want: ExitInterrupted, err: "chat: interrupted by Ctrl-C"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			var asked []string
			cleared := 0
			in := c.input
			loop := ChatLoop{
				Name: "chat", HistoryName: "hist", Prompt: "> ", Read: in.read, Out: &out, Err: &errs,
				Clear: func(context.Context) { cleared++ },
				Turn: func(_ context.Context, line string) (int, bool) {
					asked = append(asked, line)
					return c.codes[line], c.stops[line]
				},
			}
			require.Equal(t, c.want, loop.Run(t.Context()))
			require.Equal(t, c.asked, asked)
			require.Equal(t, c.cleared, cleared)
			require.Contains(t, out.String(), c.out)
			require.Contains(t, errs.String(), c.err)
		})
	}
}

func TestChatLoopCancelledTurnGoesOn(t *testing.T) {
	// A turn whose ctx was cancelled (Ctrl-C during the answer) is
	// withdrawn: its status does not count and the chat goes on.
	loop, asked := quietLoop(script{"slow", "next"}, func(ctx context.Context, line string) (int, bool) {
		if line == "slow" {
			cancelTurn(ctx)
			return ExitFailed, true
		}
		return ExitOK, false
	})
	ctx, stop := NotifyContext(t.Context())
	defer stop()
	require.Equal(t, ExitOK, loop.Run(ctx))
	require.Equal(t, []string{"slow", "next"}, *asked)
}

// quietLoop is a chat reading in, whose turns are turn, with its notes
// discarded; asked collects the questions its turns were given.
func quietLoop(in script, turn func(context.Context, string) (int, bool)) (loop ChatLoop, asked *[]string) {
	asked = new([]string)
	return ChatLoop{
		Name: "chat", Read: in.read, Out: io.Discard, Err: io.Discard, Clear: func(context.Context) {},
		Turn: func(ctx context.Context, line string) (int, bool) {
			*asked = append(*asked, line)
			return turn(ctx, line)
		},
	}, asked
}

// cancelTurn cancels the chat turn of ctx as a first Ctrl-C does.
func cancelTurn(ctx context.Context) {
	ctx.Value(signalsKey{}).(*signals).deliver(syscall.SIGINT)
}

func TestChatLoopEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	loop, asked := quietLoop(script{"one", "two"}, func(context.Context, string) (int, bool) {
		cancel()
		return ExitSnippetFailed, false
	})
	require.Equal(t, ExitOK, loop.Run(ctx), "a signal's status is the caller's to give")
	require.Equal(t, []string{"one"}, *asked)
}
