package store

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys the store reads to build trace summaries (see the loom
// tracing contract).
const (
	keyOperation       = "gen_ai.operation.name"
	keyAgentName       = "gen_ai.agent.name"
	keyAgentInput      = "loom.agent.input"
	keyAgentOutput     = "loom.agent.output"
	keyInputTokens     = "gen_ai.usage.input_tokens"
	keyOutputTokens    = "gen_ai.usage.output_tokens"
	keyCachedTokens    = "gen_ai.usage.cache_read.input_tokens"
	keyCost            = "loom.cost.usd"
	keyProvider        = "gen_ai.provider.name"
	keyLegacySystem    = "gen_ai.system"
	keyRequestModel    = "gen_ai.request.model"
	keyOutcome         = "loom.outcome"
	keyWorkflowOutcome = "loom.workflow.outcome"
	keyQuestions       = "loom.questions"
	keyRunID           = "loom.run.id"
	keyResumed         = "loom.run.resumed"
	// An evaluation's root span (package evals) carries these.
	keyEvalDataset  = "loom.eval.dataset"
	keyEvalModel    = "loom.eval.model"
	keyEvalSolver   = "loom.eval.solver"
	keyEvalProblems = "loom.eval.problems"
	keyEvalPerProb  = "loom.eval.samples_per_problem"
	keyEvalChecked  = "loom.eval.samples_checked"
	keyEvalPassed   = "loom.eval.samples_passed"
	keyEvalPassAt   = "loom.eval.pass_at_"
)

// Operation names of the GenAI conventions that the summaries count.
const (
	opInvokeAgent = "invoke_agent"
	opChat        = "chat"
	opExecuteTool = "execute_tool"
)

// previewRunes bounds the input and output previews of a trace summary.
const previewRunes = 240

// row is a span ready to insert: ids, times and encoded JSON, plus the facts
// the trace summary needs.
type row struct {
	traceID, spanID, parentID string
	root                      bool
	name, kind                string
	startNS, endNS            int64
	statusCode, statusMessage string
	attrs, events             string
	scope                     string
	facts                     facts
}

// facts are the attributes that feed a trace summary.
type facts struct {
	op, agent, input, output string
	inTok, outTok, cachedTok int64
	cost                     float64
	hasCost                  bool
	provider, model          string
	outcome, wfOutcome       string
	questions                string       // loom.questions: what a paused run waits for
	runID                    string       // loom.run.id
	resumed                  bool         // loom.run.resumed: the run went on from its checkpoints
	eval                     *EvalSummary // an evaluation's root span: its scores
}

// evalFacts returns f.eval, made on first use.
func (f *facts) evalFacts() *EvalSummary {
	if f.eval == nil {
		f.eval = &EvalSummary{}
	}
	return f.eval
}

func (f *facts) set(key string, v attribute.Value) {
	switch key {
	case keyOperation:
		f.op = v.AsString()
	case keyAgentName:
		f.agent = v.AsString()
	case keyAgentInput:
		f.input = v.AsString()
	case keyAgentOutput:
		f.output = v.AsString()
	case keyInputTokens:
		f.inTok = asInt(v)
	case keyOutputTokens:
		f.outTok = asInt(v)
	case keyCachedTokens:
		f.cachedTok = asInt(v)
	case keyCost:
		switch v.Type() {
		case attribute.FLOAT64:
			f.cost, f.hasCost = v.AsFloat64(), true
		case attribute.INT64:
			f.cost, f.hasCost = float64(v.AsInt64()), true
		}
	case keyProvider:
		f.provider = v.AsString()
	case keyLegacySystem:
		if f.provider == "" {
			f.provider = v.AsString()
		}
	case keyRequestModel:
		f.model = v.AsString()
	case keyOutcome:
		f.outcome = v.AsString()
	case keyWorkflowOutcome:
		f.wfOutcome = v.AsString()
	case keyQuestions:
		f.questions = v.AsString()
	case keyRunID:
		f.runID = v.AsString()
	case keyResumed:
		f.resumed = v.Type() == attribute.BOOL && v.AsBool()
	case keyEvalDataset:
		f.evalFacts().Dataset = v.AsString()
	case keyEvalModel:
		f.evalFacts().Model = v.AsString()
	case keyEvalSolver:
		f.evalFacts().Solver = v.AsString()
	case keyEvalProblems:
		f.evalFacts().Problems = asInt(v)
	case keyEvalPerProb:
		f.evalFacts().SamplesPerProblem = asInt(v)
	case keyEvalChecked:
		f.evalFacts().Samples = asInt(v)
	case keyEvalPassed:
		f.evalFacts().Passed = asInt(v)
	default:
		if k, ok := strings.CutPrefix(key, keyEvalPassAt); ok && v.Type() == attribute.FLOAT64 {
			if n, err := strconv.Atoi(k); err == nil && n > 0 {
				e := f.evalFacts()
				if e.PassAt == nil {
					e.PassAt = map[string]float64{}
				}
				e.PassAt[k] = v.AsFloat64()
			}
		}
	}
}

func asInt(v attribute.Value) int64 {
	switch v.Type() {
	case attribute.INT64:
		return v.AsInt64()
	case attribute.FLOAT64:
		return int64(v.AsFloat64())
	case attribute.STRING:
		n, _ := strconv.ParseInt(v.AsString(), 10, 64)
		return n
	}
	return 0
}

// rowFromReadOnly converts an exported span; buf is scratch space reused
// across calls, and the returned row owns its own byte slices.
func rowFromReadOnly(s sdktrace.ReadOnlySpan, buf []byte) (row, []byte) {
	sc, parent := s.SpanContext(), s.Parent()
	r := row{
		traceID: sc.TraceID().String(),
		spanID:  sc.SpanID().String(),
		name:    s.Name(),
		kind:    kindString(s.SpanKind()),
		startNS: s.StartTime().UnixNano(),
		endNS:   s.EndTime().UnixNano(),
		scope:   s.InstrumentationScope().Name,
	}
	if parent.SpanID().IsValid() {
		r.parentID = parent.SpanID().String()
	}
	r.root = !parent.SpanID().IsValid() || parent.IsRemote()
	st := s.Status()
	r.statusCode, r.statusMessage = codeString(st.Code), st.Description
	attrs := s.Attributes()
	for _, kv := range attrs {
		r.facts.set(string(kv.Key), kv.Value)
	}
	buf = appendAttrsJSON(buf[:0], attrs)
	n := len(buf)
	buf = appendEventsJSON(buf, s.Events())
	// One allocation for both encodings.
	all := string(buf)
	r.attrs, r.events = all[:n], all[n:]
	return r, buf
}

// rowFromSpan converts a span given to [Store.Write].
func rowFromSpan(s *Span) row {
	r := row{
		traceID:       strings.ToLower(s.TraceID),
		spanID:        strings.ToLower(s.SpanID),
		parentID:      strings.ToLower(s.ParentSpanID),
		root:          s.IsRoot(),
		name:          s.Name,
		kind:          s.Kind,
		startNS:       s.Start.UnixNano(),
		endNS:         s.End.UnixNano(),
		statusCode:    s.Status,
		statusMessage: s.StatusMessage,
		attrs:         string(mapJSON(s.Attributes)),
		scope:         s.Scope,
	}
	if r.statusCode == "" {
		r.statusCode = "unset"
	}
	for k, v := range s.Attributes {
		r.facts.set(k, anyValue(v))
	}
	events := make([]rawEvent, len(s.Events))
	for i, e := range s.Events {
		events[i] = rawEvent{Name: e.Name, TimeNS: e.Time.UnixNano(), Attributes: e.Attributes}
	}
	r.events = "[]"
	if len(events) > 0 {
		b, err := json.Marshal(events)
		if err != nil { // an event attribute JSON cannot hold
			b = []byte("[]")
		}
		r.events = string(b)
	}
	return r
}

// anyValue turns a JSON-ish value into an attribute value for facts.set.
func anyValue(v any) attribute.Value {
	switch v := v.(type) {
	case string:
		return attribute.StringValue(v)
	case bool:
		return attribute.BoolValue(v)
	case int:
		return attribute.IntValue(v)
	case int64:
		return attribute.Int64Value(v)
	case float64:
		return attribute.Float64Value(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return attribute.Int64Value(n)
		}
		f, _ := v.Float64()
		return attribute.Float64Value(f)
	}
	return attribute.StringValue("")
}

func kindString(k trace.SpanKind) string {
	switch k {
	case trace.SpanKindServer:
		return "server"
	case trace.SpanKindClient:
		return "client"
	case trace.SpanKindProducer:
		return "producer"
	case trace.SpanKindConsumer:
		return "consumer"
	}
	return "internal"
}

func codeString(c codes.Code) string {
	switch c {
	case codes.Error:
		return "error"
	case codes.Ok:
		return "ok"
	}
	return "unset"
}

// preview shortens a captured agent input or output for the traces list:
// a JSON string becomes its text, an object with a single string field
// becomes that string, anything else stays compact JSON; whitespace runs
// become single spaces and the result is cut to previewRunes.
func preview(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if strings.HasPrefix(s, `"`) {
		var str string
		if json.Unmarshal([]byte(s), &str) == nil {
			s = str
		}
	} else if strings.HasPrefix(s, "{") {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &obj) == nil && len(obj) == 1 {
			for _, v := range obj {
				var str string
				if json.Unmarshal(v, &str) == nil {
					s = str
				}
			}
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= previewRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == previewRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
