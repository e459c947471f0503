package cli

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	app := &App{Name: "ex", DefaultTimeout: 60_000_000_000}
	tests := []struct {
		name string
		args []string
		want func(f *Flags)
		err  string
	}{
		{name: "input flag", args: []string{"-i", "15!"}, want: func(f *Flags) { require.Equal(t, "15!", f.Input) }},
		{name: "long input and mixed positionals", args: []string{"a", "--input=x", "b", "--chat=false"}, want: func(f *Flags) {
			require.Equal(t, "x", f.Input)
			require.Equal(t, []string{"a", "b"}, f.Args)
		}},
		{name: "double dash", args: []string{"--", "-not-a-flag"}, want: func(f *Flags) { require.Equal(t, []string{"-not-a-flag"}, f.Args) }},
		{name: "interactive alias", args: []string{"--interactive"}, want: func(f *Flags) { require.True(t, f.Chat) }},
		{name: "options", args: []string{"--temperature", "0.5", "--top-p", "1", "x"}, want: func(f *Flags) {
			require.Equal(t, model.Options{Temperature: model.Ptr(0.5), TopP: model.Ptr(1.0)}, f.Options)
		}},
		{name: "temperature out of range", args: []string{"--temperature", "5"}, err: "--temperature 5 is out of range: it must be in [0, 2]"},
		{name: "top-p out of range", args: []string{"--top-p", "1.5"}, err: "--top-p 1.5 is out of range: it must be in [0, 1]"},
		{name: "penalty out of range", args: []string{"--presence-penalty", "-3"}, err: "--presence-penalty -3 is out of range: it must be in [-2, 2]"},
		{name: "frequency penalty out of range", args: []string{"--frequency-penalty", "2.5"}, err: "--frequency-penalty 2.5 is out of range"},
		{name: "not a number", args: []string{"--temperature", "hot"}, err: `"hot" is not a number`},
		{name: "log level", args: []string{"--log-level", "loud"}, err: `--log-level "loud": use ERROR, WARN, INFO, DEBUG or TRACE`},
		{name: "unknown flag", args: []string{"--nope"}, err: "flag provided but not defined: -nope (see --help)"},
		{name: "chat with input", args: []string{"--chat", "-i", "x"}, err: "--chat reads its questions from the prompt"},
		{name: "bad timeout", args: []string{"--timeout", "-1s"}, err: "--timeout -1s: it must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse(app, tc.args, &bytes.Buffer{})
			if tc.err != "" {
				var ue *UsageError
				require.ErrorAs(t, err, &ue)
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			tc.want(f)
		})
	}
}

func TestHelpListsFlags(t *testing.T) {
	var out bytes.Buffer
	_, err := Parse(&App{Name: "ex", Summary: "does things"}, []string{"--help"}, &out)
	require.ErrorIs(t, err, errHelp)
	for _, want := range []string{"ex: does things", "--input", "-i ", "--chat", "--interactive", "--model", "--temperature", "--log-level", "--version"} {
		require.Contains(t, out.String(), want)
	}
}

func TestReadInput(t *testing.T) {
	tests := []struct {
		name     string
		flags    Flags
		stdin    string
		terminal bool
		want     string
		err      string
	}{
		{name: "flag wins", flags: Flags{Input: " a "}, stdin: "b", want: "a"},
		{name: "arguments", flags: Flags{Args: []string{"Calculate", "15!"}}, stdin: "b", want: "Calculate 15!"},
		{name: "piped stdin trimmed", stdin: "  Calculate 15!\n\n", want: "Calculate 15!"},
		{name: "terminal stdin is not read", stdin: "x", terminal: true, want: "default"},
		{name: "empty stdin", stdin: "\n", want: "default"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadInput(&tc.flags, Stdio{In: strings.NewReader(tc.stdin), InTerminal: tc.terminal}, "default")
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	_, err := ReadInput(&Flags{}, Stdio{In: strings.NewReader("")}, "")
	require.ErrorContains(t, err, "no question")
}

func TestModelIDAndMask(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	require.Equal(t, "ollama", ModelID("ollama", env(map[string]string{"MODEL": "x"})))
	require.Equal(t, "anthropic:claude", ModelID("", env(map[string]string{"MODEL": " anthropic:claude "})))
	require.Equal(t, "openai", ModelID("", env(nil)))
	require.Equal(t, "sk-…7890", Mask("sk-abcdefgh1234567890"))
	require.Equal(t, "*****", Mask("short"))
}

func TestPrinterShowsCodeResultsAndStreamsAnswer(t *testing.T) {
	var out, logs bytes.Buffer
	p := NewPrinter(&out, "coder")
	p.log = NewLogger(&logs, slog.LevelDebug)
	call := model.ToolCall{ID: "c1", Name: "evaluateJs", Arguments: json.RawMessage(`{"code":"let f = 1n;\nf"}`)}
	ok := model.ToolResult{CallID: "c1", Name: "evaluateJs", Content: json.RawMessage(`{"result":"1307674368000","logs":[{"level":"log","text":"hi"},{"level":"warn","text":"careful"}]}`)}
	bad := model.ToolResult{CallID: "c2", Name: "evaluateJs", Content: json.RawMessage(`{"error":"timeout\nAttempt 1 failed"}`), IsError: true}
	for _, ev := range []agent.Event{
		{Kind: agent.EventTextDelta, Agent: "coder", Text: "Let me run it."},
		{Kind: agent.EventToolCall, ToolCall: &call},
		{Kind: agent.EventToolResult, ToolResult: &ok},
		{Kind: agent.EventToolResult, ToolResult: &bad},
		{Kind: agent.EventTextDelta, Agent: "reviewer", Text: `{"approved":true}`},
		{Kind: agent.EventTextDelta, Agent: "coder", Text: "15! = "},
		{Kind: agent.EventTextDelta, Agent: "coder", Text: "1307674368000"},
	} {
		p.Event(ev)
	}
	p.End(json.RawMessage(`{"message":"15! = 1307674368000"}`))
	require.Equal(t, "Let me run it.\n"+
		"[evaluateJs] running:\n    let f = 1n;\n    f\n"+
		"[evaluateJs] console: hi\n[evaluateJs] console: warn: careful\n[evaluateJs] result: 1307674368000\n"+
		"[evaluateJs] error: timeout\n"+
		"15! = 1307674368000\n", out.String(), "the error is shown once, its detail (the correction request) only at DEBUG")
	require.Contains(t, logs.String(), "Attempt 1 failed")
}

func TestPrinterBoundsWhatItShows(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, "coder")
	code := strings.Repeat("x = 1;\n", 100_000) + strings.Repeat("y", 5000)
	args, err := json.Marshal(map[string]string{"code": code})
	require.NoError(t, err)
	p.Event(agent.Event{Kind: agent.EventToolCall, ToolCall: &model.ToolCall{Name: "evaluateJs", Arguments: args}})
	long := model.ToolResult{Name: "evaluateJs", Content: json.RawMessage(`{"error":"` + strings.Repeat("e", 10_000) + `"}`), IsError: true}
	p.Event(agent.Event{Kind: agent.EventToolResult, ToolResult: &long})
	require.Less(t, out.Len(), 2*maxCodeLines*maxLineBytes, "a huge snippet is not echoed in full")
	require.Contains(t, out.String(), "… 99961 more lines")
	require.Contains(t, out.String(), "(10000 bytes)")
}

func TestPrinterHeadersAndUnstreamedOutput(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out)
	p.Event(agent.Event{Kind: agent.EventTextDelta, Agent: "a", Text: "one"})
	p.Event(agent.Event{Kind: agent.EventTextDelta, Agent: "b", Text: "two\n"})
	p.End(nil)
	p.End(json.RawMessage(`{"n":1}`))
	require.Equal(t, "[a] one\n[b] two\n{\"n\":1}\n", out.String())
}

func TestLevels(t *testing.T) {
	var out bytes.Buffer
	lvl, err := ParseLevel("trace")
	require.NoError(t, err)
	log := NewLogger(&out, lvl)
	log.Log(t.Context(), lvl, "deep")
	require.Contains(t, out.String(), "level=TRACE msg=deep")
}

// What a model or its code writes reaches the terminal as text: escape
// sequences in the code, its console lines, its value, its error, the
// streamed answer and an unstreamed output are shown, not obeyed.
func TestPrinterShowsTerminalControlsAsText(t *testing.T) {
	tests := []struct {
		name  string
		event agent.Event
		end   json.RawMessage
	}{
		{name: "streamed answer", event: agent.Event{Kind: agent.EventTextDelta, Agent: "coder", Text: "done\x1b]0;pwned\x07"}},
		{name: "code", event: agent.Event{Kind: agent.EventToolCall, ToolCall: &model.ToolCall{Name: "evaluateJs", Arguments: json.RawMessage(`{"code":"1 // \u001b[8m"}`)}}},
		{name: "console", event: agent.Event{Kind: agent.EventToolResult, ToolResult: &model.ToolResult{Name: "evaluateJs", Content: json.RawMessage(`{"result":1,"logs":["\u001b[2J"]}`)}}},
		{name: "value", event: agent.Event{Kind: agent.EventToolResult, ToolResult: &model.ToolResult{Name: "evaluateJs", Content: json.RawMessage(`{"result":"\u001b]52;c;eA==\u0007"}`)}}},
		{name: "error", event: agent.Event{Kind: agent.EventToolResult, ToolResult: &model.ToolResult{Name: "evaluateJs", Content: json.RawMessage(`{"error":"Uncaught N\u001b[31m: x\u202e"}`), IsError: true}}},
		{name: "call of another tool", event: agent.Event{Kind: agent.EventToolCall, ToolCall: &model.ToolCall{Name: "search", Arguments: json.RawMessage("{\"q\":\"\u202e\u009b\"}")}}},
		{name: "unstreamed output", end: json.RawMessage(`{"message":"\u001b[H"}`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			p := NewPrinter(&out, "coder")
			if tc.end == nil {
				p.Event(tc.event)
			}
			p.End(tc.end)
			for _, c := range []string{"\x1b", "\x07", "\u202e", "\u009b"} {
				require.NotContains(t, out.String(), c)
			}
			require.Regexp(t, `\\(x1b|u202e|x9b)`, out.String(), "the control is shown as an escape")
		})
	}
}
