package evals

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/loomwork/loom/model"
)

// DefaultTaskInstructions precede each loom-tasks prompt in the solver's
// input.
const DefaultTaskInstructions = "Solve the task below; compute the answer rather than guess it. " +
	"End your reply with the answer alone on its last line, in the form the task asks for " +
	"(a number, a JSON value, or the text), with no other words on that line."

//go:embed data/loom-tasks.json
var tasksJSON []byte

// Task is one loom-tasks task: a request of the kind users give the
// Coder→Sandbox workflow, with its checked answer.
type Task struct {
	ID string `json:"id"`
	// Kind is arithmetic, dates, strings, lists, async or json.
	Kind   string `json:"kind"`
	Prompt string `json:"prompt"`
	// Check says how the answer is compared: "number" (the last number of
	// the reply, within Tolerance; without one, an integer answer exactly
	// and a decimal one within 1e-9 of it), "exact" (the reply's last line,
	// without surrounding quotes, backticks, bold or a final period) or
	// "json" (the last JSON value of the reply, compared as values).
	Check     string          `json:"check"`
	Answer    json.RawMessage `json:"answer"`
	Tolerance float64         `json:"tolerance,omitempty"`
}

// Tasks returns loom-tasks, the 40 tasks written for loom (MIT).
func Tasks() ([]Task, error) {
	var ts []Task
	if err := json.Unmarshal(tasksJSON, &ts); err != nil {
		return nil, fmt.Errorf("evals: the embedded loom-tasks do not parse: %w", err)
	}
	return ts, nil
}

// Verify checks a reply against the task's answer; the message says what
// was expected and what was read.
func (t Task) Verify(reply string) (bool, string) {
	switch t.Check {
	case "number":
		var want float64
		if err := json.Unmarshal(t.Answer, &want); err != nil {
			return false, "the task's answer is not a number"
		}
		got, ok := lastNumber(reply)
		if !ok {
			return false, fmt.Sprintf("expected %s, found no number in the reply", t.Answer)
		}
		tol := t.Tolerance
		if tol == 0 && want != math.Trunc(want) {
			tol = 1e-9 * math.Abs(want) // a decimal answer within rounding; an integer exactly
		}
		if math.Abs(got-want) > tol {
			return false, fmt.Sprintf("expected %s, got %v", t.Answer, got)
		}
		return true, ""
	case "exact":
		var want string
		if err := json.Unmarshal(t.Answer, &want); err != nil {
			return false, "the task's answer is not a string"
		}
		got := lastLine(reply)
		if got != want {
			return false, fmt.Sprintf("expected %q, got %q", want, oneLine(got, 80))
		}
		return true, ""
	case "json":
		var want any
		if err := json.Unmarshal(t.Answer, &want); err != nil {
			return false, "the task's answer is not JSON"
		}
		got, ok := lastJSON(reply)
		if !ok {
			return false, fmt.Sprintf("expected %s, found no JSON value in the reply", t.Answer)
		}
		if !reflect.DeepEqual(got, want) {
			b, _ := json.Marshal(got)
			return false, fmt.Sprintf("expected %s, got %s", t.Answer, oneLine(string(b), 120))
		}
		return true, ""
	}
	return false, fmt.Sprintf("unknown check %q", t.Check)
}

var number = regexp.MustCompile(`-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?`)

func lastNumber(s string) (float64, bool) {
	all := number.FindAllString(s, -1)
	for i := len(all) - 1; i >= 0; i-- {
		if v, err := strconv.ParseFloat(strings.ReplaceAll(all[i], ",", ""), 64); err == nil {
			return v, true
		}
	}
	return 0, false
}

// lastLine is the reply's last non-blank line (or a fenced block's),
// without markdown emphasis, quotes and a final period.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if m := fence.FindAllStringSubmatch(s, -1); len(m) > 0 && strings.HasSuffix(s, "```") {
		s = strings.TrimSpace(m[len(m)-1][2])
	}
	lines := strings.Split(s, "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	l = strings.TrimSuffix(l, ".")
	for _, q := range []string{"**", "`", `"`, "'"} {
		if len(l) >= 2*len(q) && strings.HasPrefix(l, q) && strings.HasSuffix(l, q) {
			l = l[len(q) : len(l)-len(q)]
		}
	}
	return strings.TrimSpace(l)
}

// lastJSON is the reply's last fenced block that is JSON, else the reply
// itself, else its last line, else the longest JSON value ending at its
// last closing bracket.
func lastJSON(s string) (any, bool) {
	try := func(t string) (any, bool) {
		var v any
		dec := json.NewDecoder(strings.NewReader(strings.TrimSpace(t)))
		dec.UseNumber()
		if dec.Decode(&v) != nil || dec.More() {
			return nil, false
		}
		return normalize(v), true
	}
	m := fence.FindAllStringSubmatch(s, -1)
	for i := len(m) - 1; i >= 0; i-- {
		if v, ok := try(m[i][2]); ok {
			return v, true
		}
	}
	if v, ok := try(s); ok {
		return v, true
	}
	if v, ok := try(lastLine(s)); ok {
		return v, true
	}
	end := strings.LastIndexAny(s, "]}")
	if end < 0 {
		return nil, false
	}
	for i := 0; i < end; i++ {
		if s[i] == '[' || s[i] == '{' {
			if v, ok := try(s[i : end+1]); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// normalize turns json.Numbers into float64, as the expected answers are
// decoded.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalize(x[k])
		}
	}
	return v
}

// RunTasks evaluates the solver on tasks (normally the Coder→Sandbox
// workflow, since they measure its answer): each sample's reply is checked
// against the task's answer. cfg.Executor is not used.
func RunTasks(ctx context.Context, tasks []Task, cfg Config) (*Report, error) {
	instr := cfg.Instructions
	if instr == "" {
		instr = DefaultTaskInstructions
	}
	items := make([]item, len(tasks))
	for i, t := range tasks {
		items[i] = item{id: t.ID, prompt: instr + "\n\nTask: " + t.Prompt, check: func(_ context.Context, out json.RawMessage, _ []model.Message) (Class, string, string) {
			reply := AnswerText(out)
			if strings.TrimSpace(reply) == "" {
				return NoCode, "the reply is empty", ""
			}
			if ok, msg := t.Verify(reply); !ok {
				return WrongAnswer, msg, cut(reply)
			}
			return Passed, "", cut(reply)
		}}
	}
	if cfg.Dataset == "" {
		cfg.Dataset = "loom-tasks"
	}
	return run(ctx, items, cfg)
}
