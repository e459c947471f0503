package jstool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/invopop/jsonschema"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/internal/config"
	"github.com/loomwork/loom/internal/telemetry"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/internal/jsrt"
)

// Name is the name of the tool New returns.
const Name = "evaluateJs"

// Input is the evaluateJs tool's input.
type Input struct {
	// Code is the JavaScript to run.
	Code string `json:"code,omitempty" jsonschema:"description=The JavaScript to run. The value of its final expression is the result."`
	// JSCode is accepted in place of Code, for compatibility with tools
	// written for the TypeScript framework.
	JSCode string `json:"jsCode,omitempty" jsonschema:"description=Alias of code accepted for compatibility; send code instead."`
}

// JSONSchemaExtend marks code as the field to send.
func (Input) JSONSchemaExtend(s *jsonschema.Schema) {
	s.Description = "Send the JavaScript in code."
}

// Output is the evaluateJs tool's output.
type Output struct {
	// Result is the JSON form of the code's final value; null when it is
	// undefined.
	Result json.RawMessage `json:"result"`
	// Logs are the console lines; lines logged at a level other than log
	// start with the level, as "[warn] …".
	Logs []string `json:"logs"`
	// Note explains an undefined result.
	Note string `json:"note,omitempty"`
}

// JSONSchemaExtend describes result as any JSON value.
func (Output) JSONSchemaExtend(s *jsonschema.Schema) {
	if p, ok := s.Properties.Get("result"); ok {
		*p = jsonschema.Schema{Description: "The JSON form of the code's final value (null when undefined)."}
	}
}

// undefinedNote tells the model why its result is null.
const undefinedNote = "The code's final value was undefined. End the code with the expression whose value you want (for example `total` or `({ sum, count })`), not with a declaration, a loop or a console.log."

// New returns the evaluateJs tool: an agent that runs the code it is
// given with exec and returns {result, logs}. Its description teaches the
// model the sandbox's rules and limits. A sandbox failure is returned as
// the run's error, whose message (the *Error's, followed by the console
// output so far) is written for the model to correct its code; an AI
// agent's tool loop sends it back as an error result.
//
// Each call records a "sandbox.run" span and the loom.sandbox.runs and
// loom.sandbox.duration metrics (see the agent package's tracing and
// metrics).
//
// With [Config.Toolsets], the code may also call the tools of those toolsets
// as tools.<name>(args), each call a nested run of the tool's run.
func New(exec sandbox.Executor, cfg Config) (agent.Agent, error) {
	if exec == nil {
		return nil, errors.New("jstool: New needs an executor (sandbox.NewIsolated or sandbox.NewInProcess)")
	}
	lim := sandbox.DefaultLimits()
	if l, ok := exec.(interface{ Limits() sandbox.Limits }); ok {
		lim = l.Limits()
	}
	if err := config.Check("jstool.Config", cfg); err != nil {
		return nil, fmt.Errorf("jstool: New: %w: %w", agent.ErrInvalidConfig, err)
	}
	t := &tool{exec: exec, kind: executorKind(exec), cfg: cfg}
	if _, err := jsrt.CallLimitsWithDefaults(t.cfg.CallLimits); err != nil {
		return nil, err
	}
	desc := Description(lim)
	if len(t.cfg.Toolsets) > 0 {
		if err := t.codeMode(); err != nil {
			return nil, err
		}
		desc += codeModeNote
	}
	spec, err := agent.NewFunc(Name, desc, t.run)
	if err != nil {
		return nil, err
	}
	t.Func = spec
	return t, nil
}

// Description is the evaluateJs tool's description for the given
// limits: the rules a model must follow to use the sandbox well. Zero
// fields of l stand for their defaults, as in a run.
func Description(l sandbox.Limits) string {
	l, _ = jsrt.LimitsWithDefaults(l) // negative fields are the executor's to refuse
	return fmt.Sprintf(`Run JavaScript in a sandbox and return {result, logs}.
Rules:
- The value of the code's final expression is the result, as in a REPL: end the code with the expression you want (for example `+"`total`"+` or `+"`({ sum, count })`"+`). A returned Promise is awaited, and top-level await works.
- Plain modern JavaScript only: the standard built-ins (Math, JSON, Date, RegExp, Map, Set, BigInt, Promise, typed arrays) and console.log/info/warn/error. No require, import or modules; no network (fetch), files, timers (setTimeout), process, DOM or Intl. eval and Function are disabled.
- Build strings by pushing parts to an array and calling join(''): += on a string in a loop is very slow here. Prefer loops to deep recursion (at most %d nested calls).
- Limits per run: %s of time, %s of memory, %s of code, %s of result. Return summaries or slices of large data, not all of it.
- Result forms: BigInt {"$bigint":"123"}, Map {"$map":[[key,value]]}, Set {"$set":[...]}, Date {"$date":"ISO time"}, NaN/Infinity {"$number":"NaN"}; functions and symbols are described, not exported.
- Errors (syntax, exceptions with their stack, timeouts, limits) come back as the tool's error: read the message, fix the code and call the tool again.`,
		l.CallStack, l.Timeout, jsrt.FormatBytes(l.Memory), jsrt.FormatBytes(int64(l.SourceBytes)), jsrt.FormatBytes(int64(l.ResultBytes)))
}

// executorKind names an executor for traces and metrics.
func executorKind(e sandbox.Executor) string {
	switch e.(type) {
	case *sandbox.InProcess:
		return "goja"
	case *sandbox.Isolated:
		return "isolated"
	default:
		return fmt.Sprintf("%T", e)
	}
}

// tool is the evaluateJs tool, with or without code mode. Its input is
// validated against its schema before any code runs. The Func gives it
// its name, description, schemas and input checking, and lets a guarded
// tool's guardrails read the decoded [Input] (agent.GuardInput Args); its
// Run is the tool's own, which runs code mode's host tools too.
type tool struct {
	*agent.Func[Input, Output]
	exec   sandbox.Executor
	kind   string
	cfg    Config
	runner sandbox.ToolRunner // set in code mode
}

// Run validates the input against the input schema, runs its code and
// returns the tool's output; in code mode the code's calls of the
// toolsets' tools run as nested runs of this run.
func (t *tool) Run(ctx context.Context, input json.RawMessage) iter.Seq2[agent.Event, error] {
	return agentrt.Execute(ctx, t, input, t.body)
}

func (t *tool) body(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
	in, err := t.Input(r)
	if err != nil {
		return nil, err
	}
	var out Output
	if t.runner != nil {
		out, err = t.runCodeMode(ctx, r, in)
	} else {
		out, err = t.run(ctx, in)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// run runs the input's code without host tools.
func (t *tool) run(ctx context.Context, in Input) (Output, error) {
	return t.execute(ctx, in, t.exec.Run)
}

// execute runs the input's code with runCode, under the sandbox.run span
// (runCode's ctx), and makes the tool's output.
func (t *tool) execute(ctx context.Context, in Input, runCode func(ctx context.Context, code string) (*sandbox.Result, error)) (Output, error) {
	code := in.Code
	if code == "" {
		code = in.JSCode
	}
	if strings.TrimSpace(code) == "" {
		return Output{}, errors.New("the input has no code: send the JavaScript to run in the code field, as {\"code\": \"1 + 1\"}")
	}
	ctx, span := telemetry.Tracer(ctx).Start(ctx, "sandbox.run", trace.WithSpanKind(trace.SpanKindInternal))
	defer span.End()
	start := agentrt.Now(ctx)
	res, err := runCode(ctx, code)
	t.record(ctx, span, code, res, err, agentrt.Since(ctx, start))
	if err != nil {
		if res != nil && len(res.Logs) > 0 {
			return Output{}, &toolError{err: err, logs: logTexts(res.Logs)}
		}
		return Output{}, err
	}
	out := Output{Result: res.Value, Logs: logTexts(res.Logs)}
	if res.Undefined {
		out.Note = undefinedNote
	}
	return out, nil
}

// record sets the span's attributes and records the metrics.
func (t *tool) record(ctx context.Context, span trace.Span, code string, res *sandbox.Result, err error, d time.Duration) {
	outcome, kind := "ok", ""
	if err != nil {
		outcome, kind = "error", string(sandbox.ErrorKind(err))
		if kind == "" {
			kind = "other"
		}
	}
	if span.IsRecording() {
		span.SetAttributes(spanAttrs(ctx, t.kind, code, res, err, d, outcome, kind)...)
		telemetry.RecordError(span, err, "sandbox."+kind)
	}
	if ms, ok := instrumentsFrom(ctx); ok {
		set := metric.WithAttributes(attribute.String("loom.sandbox.executor", t.kind),
			attribute.String("loom.sandbox.outcome", outcome), attribute.String("loom.sandbox.error_kind", kind))
		ms.runs.Add(ctx, 1, set)
		ms.duration.Record(ctx, d.Seconds(), set)
	}
}

// logTexts renders console lines for the model.
func logTexts(lines []sandbox.LogLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if l.Level == sandbox.LevelLog || l.Level == "" {
			out[i] = l.Text
		} else {
			out[i] = "[" + string(l.Level) + "] " + l.Text
		}
	}
	return out
}

// toolError is a sandbox error with the console output that came before
// it, for the model.
type toolError struct {
	err  error
	logs []string
}

func (e *toolError) Error() string {
	return e.err.Error() + "\nConsole output before the error:\n" + strings.Join(e.logs, "\n")
}

func (e *toolError) Unwrap() error { return e.err }

// spanAttrs are the sandbox.run span's attributes, content included when ctx
// asks for it.
func spanAttrs(ctx context.Context, executor, code string, res *sandbox.Result, err error, d time.Duration, outcome, kind string) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 4, 9)
	attrs[0] = attribute.String("loom.sandbox.executor", executor)
	attrs[1] = attribute.Int("loom.sandbox.code_bytes", len(code))
	attrs[2] = attribute.Float64("loom.sandbox.duration_ms", float64(d.Microseconds())/1000)
	attrs[3] = attribute.String("loom.sandbox.outcome", outcome)
	if res != nil {
		attrs = append(attrs, attribute.Int("loom.sandbox.log_lines", len(res.Logs)))
	}
	if kind != "" {
		attrs = append(attrs, attribute.String("loom.sandbox.error_kind", kind))
	}
	if telemetry.CaptureContent(ctx) {
		attrs = append(attrs, attribute.String("loom.sandbox.code", telemetry.Truncate(code)))
		if res != nil {
			lines := res.Logs
			if lines == nil {
				lines = []sandbox.LogLine{} // "[]", not "null", when nothing was printed
			}
			if logs, e := json.Marshal(lines); e == nil {
				attrs = append(attrs, attribute.String("loom.sandbox.logs", telemetry.Truncate(string(logs))))
			}
			if err == nil {
				attrs = append(attrs, attribute.String("loom.sandbox.result", telemetry.Truncate(string(res.Value))))
			}
		}
	}
	return attrs
}
