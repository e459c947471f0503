package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/termtext"
)

// Printer writes a run's events for a person: each tool call and its result
// as they happen (for code: the code, the console lines and the value), and
// the answer's text as it streams.
type Printer struct {
	out io.Writer
	// answer names the agents whose text is the answer; empty means every
	// agent's text is shown, under a header naming the agent.
	answer map[string]bool
	last   string // agent of the last text printed
	midLn  bool   // the last text did not end a line
	text   bool   // some answer text was printed this run
	format func(json.RawMessage) string
	since  strings.Builder // answer text streamed since the last tool call
	log    *slog.Logger    // what the user need not see goes here at DEBUG; nil: nowhere
}

// The bounds of what a tool call shows: the code's lines and the bytes of
// one line of a result or an error.
const (
	maxCodeLines = 40
	maxLineBytes = 300
)

// NewPrinter returns a printer to out. answer names the agents whose text
// deltas are the answer (as "coder"); with none, all text is shown, each
// agent's under a "[name]" header.
func NewPrinter(out io.Writer, answer ...string) *Printer {
	p := &Printer{out: out, answer: map[string]bool{}}
	for _, a := range answer {
		p.answer[a] = true
	}
	return p
}

// Event prints one event.
func (p *Printer) Event(ev agent.Event) {
	switch ev.Kind {
	case agent.EventTextDelta:
		if len(p.answer) > 0 && !p.answer[ev.Agent] {
			return
		}
		if len(p.answer) == 0 && ev.Agent != p.last {
			p.newline()
			fmt.Fprintf(p.out, "[%s] ", ev.Agent)
		}
		p.last = ev.Agent
		io.WriteString(p.out, termtext.Safe(ev.Text))
		p.since.WriteString(ev.Text)
		p.midLn = !strings.HasSuffix(ev.Text, "\n")
		p.text = true
	case agent.EventToolCall:
		p.newline()
		p.since.Reset()
		p.toolCall(ev.ToolCall.Name, ev.ToolCall.Arguments)
	case agent.EventToolResult:
		p.newline()
		if !ev.ToolResult.IsError && p.since.Len() > 0 && Text(ev.ToolResult.Content) == p.since.String() {
			return // a handoff whose answer was just streamed
		}
		p.toolResult(ev.ToolResult.Name, ev.ToolResult.Content, ev.ToolResult.IsError)
	}
}

// End finishes a run: the answer's last line, or the output's text when
// nothing was streamed.
func (p *Printer) End(output json.RawMessage) {
	if p.format != nil && len(output) > 0 {
		p.newline()
		fmt.Fprintln(p.out, termtext.Safe(strings.TrimRight(p.format(output), "\n")))
	} else if !p.text && len(output) > 0 {
		fmt.Fprintln(p.out, termtext.Safe(Text(output)))
	} else {
		p.newline()
	}
	p.text, p.last = false, ""
}

func (p *Printer) newline() {
	if p.midLn {
		io.WriteString(p.out, "\n")
		p.midLn = false
	}
	p.last = ""
}

func (p *Printer) toolCall(name string, args json.RawMessage) {
	var a map[string]json.RawMessage
	_ = json.Unmarshal(args, &a)
	code := stringField(a, "code")
	if code == "" {
		code = stringField(a, "jsCode")
	}
	if code == "" {
		fmt.Fprintf(p.out, "[%s] call %s\n", name, clip(compact(args)))
		return
	}
	fmt.Fprintf(p.out, "[%s] running:\n", name)
	lines := strings.Split(strings.TrimRight(code, "\n"), "\n")
	for _, line := range lines[:min(len(lines), maxCodeLines)] {
		fmt.Fprintf(p.out, "    %s\n", clip(line))
	}
	if n := len(lines) - maxCodeLines; n > 0 {
		fmt.Fprintf(p.out, "    … %d more lines (%d bytes in all; the trace has the whole code)\n", n, len(code))
	}
}

// clip bounds one line of output, made safe for a terminal.
func clip(s string) string {
	s = termtext.Safe(s)
	if len(s) <= maxLineBytes {
		return s
	}
	cut := maxLineBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes)", len(s))
}

func (p *Printer) toolResult(name string, content json.RawMessage, isError bool) {
	var r map[string]json.RawMessage
	_ = json.Unmarshal(content, &r)
	if isError {
		msg := stringField(r, "error")
		if msg == "" {
			msg = compact(content)
		}
		// The first line is the error; what follows is detail and the
		// correction request the workflow sends the model, which the user
		// sees only at DEBUG.
		first, rest, _ := strings.Cut(strings.TrimRight(msg, "\n"), "\n")
		fmt.Fprintf(p.out, "[%s] error: %s\n", name, clip(first))
		if rest != "" && p.log != nil {
			p.log.Debug("tool error detail", "tool", name, "detail", rest)
		}
		return
	}
	for _, l := range logLines(r["logs"]) {
		fmt.Fprintf(p.out, "[%s] console: %s\n", name, clip(l))
	}
	if v, ok := r["result"]; ok {
		fmt.Fprintf(p.out, "[%s] result: %s\n", name, clip(valueText(v)))
		return
	}
	fmt.Fprintf(p.out, "[%s] result: %s\n", name, clip(compact(content)))
}

// logLines reads console lines: [{"level","text"}] or ["text"].
func logLines(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var objs []struct {
		Level string `json:"level"`
		Text  string `json:"text"`
	}
	if json.Unmarshal(raw, &objs) == nil {
		lines := make([]string, 0, len(objs))
		for _, o := range objs {
			t := o.Text
			if o.Level != "" && o.Level != "log" && o.Level != "info" {
				t = o.Level + ": " + t
			}
			lines = append(lines, t)
		}
		return lines
	}
	var strs []string
	if json.Unmarshal(raw, &strs) == nil {
		return strs
	}
	return []string{compact(raw)}
}

// valueText shows a JSON value: a string as itself, anything else as JSON.
func valueText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return compact(raw)
}

func stringField(m map[string]json.RawMessage, key string) string {
	var s string
	if v, ok := m[key]; ok {
		_ = json.Unmarshal(v, &s)
	}
	return s
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// Text returns an output's "message" field when it is a string, else its
// JSON.
func Text(output json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(output, &m) == nil {
		if s := stringField(m, "message"); s != "" {
			return s
		}
	}
	return compact(output)
}
