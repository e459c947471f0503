package evals

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
)

func result(id string, classes ...Class) Result {
	r := Result{ID: id}
	for _, c := range classes {
		r.Samples = append(r.Samples, Sample{Class: c})
		if c == Passed {
			r.Passed++
		}
	}
	return r
}

func TestDiff(t *testing.T) {
	a := &Report{Format: ReportFormat, Samples: 2, Results: []Result{
		result("p/0", Passed, Passed), result("p/1", Assertion, Assertion), result("p/2", Passed, Passed),
		result("p/3", Passed, Syntax), result("p/4", Passed, Timeout), result("p/5", Passed, Passed),
	}}
	b := &Report{Format: ReportFormat, Samples: 2, Results: []Result{
		result("p/0", Passed, Passed), result("p/1", Passed, Passed), result("p/2", Exception, NoCode),
		result("p/3", Passed, Passed), result("p/4", Timeout, Timeout), result("p/6", Passed, Passed),
	}}
	a.summarize([]int{1}, 0)
	b.summarize([]int{1}, 0)
	changes := Diff(a, b)
	status := map[string]string{}
	for _, c := range changes {
		status[c.ID] = c.Status
	}
	require.Equal(t, map[string]string{"p/0": "same", "p/1": "fixed", "p/2": "regressed", "p/3": "fixed", "p/4": "regressed", "p/5": "removed", "p/6": "added"}, status)
	require.True(t, Regressed(changes))
	require.False(t, Regressed(Diff(a, a)))
	require.Equal(t, Exception, changes[2].AfterClass)

	var out bytes.Buffer
	require.NoError(t, WriteDiff(&out, a, b, changes))
	require.Contains(t, out.String(), "regressed  p/2                    100% → 0% (exception)")
	require.Contains(t, out.String(), "pass@1 66.7% → 66.7% (+0.0 points)")
	require.Contains(t, out.String(), "7 problems: 2 fixed, 1 same, 2 regressed, 1 added, 1 removed")
}

func TestReadReport(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "a.json")
	r := &Report{Dataset: "d", Samples: 1, Results: []Result{result("p/0", Passed)}}
	r.summarize([]int{1}, 0)
	var buf bytes.Buffer
	require.NoError(t, r.WriteJSON(&buf))
	require.NoError(t, os.WriteFile(good, buf.Bytes(), 0o644))
	back, err := ReadReport(good)
	require.NoError(t, err)
	require.Equal(t, r.Results, back.Results)

	other := filepath.Join(dir, "b.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"results":[]}`), 0o644))
	_, err = ReadReport(other)
	require.ErrorContains(t, err, "not a loom eval report")
	badClass := filepath.Join(dir, "c.json")
	require.NoError(t, os.WriteFile(badClass, []byte(`{"format":"loom.eval/v1","results":[{"id":"x","samples":[{"class":"meh"}]}]}`), 0o644))
	_, err = ReadReport(badClass)
	require.ErrorContains(t, err, `unknown sample class "meh"`)
	_, err = ReadReport(filepath.Join(dir, "missing.json"))
	require.ErrorContains(t, err, "reading the report")
}

func TestWriteTable(t *testing.T) {
	r := &Report{Dataset: "humaneval-js", Model: "openai:gpt-4o-mini", Samples: 1, Results: []Result{
		result("HumanEval/0", Passed), {ID: "HumanEval/1", Samples: []Sample{{Class: Assertion, Message: "expected 14,\n got 0"}}},
	}}
	r.summarize([]int{1, 10}, 0)
	r.Overridden = 1
	var out bytes.Buffer
	require.NoError(t, r.WriteTable(&out))
	s := out.String()
	require.Contains(t, s, "HumanEval/1              0/1    assertion 1  expected 14, got 0")
	require.NotContains(t, s, "HumanEval/0 ")
	require.Contains(t, s, "humaneval-js: 2 problems × 1 samples, model openai:gpt-4o-mini")
	require.Contains(t, s, "pass@1      50.0%")
	require.NotContains(t, s, "pass@10")
	require.Contains(t, s, "(1 of the problems have hand-written tests or helpers: evals.Overrides)")
	require.Contains(t, s, "outcomes   passed 1, assertion 1")
}

func TestTelemetry(t *testing.T) {
	probs, ref := loadHandwritten(t)
	probs = probs[:3]
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }()

	solver, _ := newSolver(t, 3, func(prompt string) modeltest.Turn {
		p := problemFor(t, probs, prompt)
		if p.ID == probs[1].ID {
			return modeltest.Text("no code")
		}
		return modeltest.Text(fenced(ref[p.ID]))
	})
	rep, err := Run(context.Background(), probs, Config{Solver: solver, Executor: newExecutor(t, sandbox.InProcessConfig{}), TracerProvider: tp, MeterProvider: mp})
	require.NoError(t, err)
	require.InDelta(t, 2.0/3, rep.PassAt[1], 1e-12)

	spans := rec.Ended()
	var root sdktrace.ReadOnlySpan
	samples := map[string]string{}
	agentRuns := 0
	for _, s := range spans {
		if s.Name() == "eval humaneval-js" {
			root = s
		}
	}
	require.NotNil(t, root)
	for _, s := range spans {
		switch {
		case s == root:
		case s.InstrumentationScope().Name == scope:
			for _, a := range s.Attributes() {
				if a.Key == "loom.eval.class" {
					samples[s.Name()] = a.Value.AsString()
				}
			}
		default:
			agentRuns++
			require.Equal(t, root.SpanContext().TraceID(), s.SpanContext().TraceID(), "the solver's spans are in the eval's trace")
		}
	}
	require.Equal(t, map[string]string{"eval.sample " + probs[0].ID: "passed", "eval.sample " + probs[1].ID: "no_code", "eval.sample " + probs[2].ID: "passed"}, samples)
	require.Positive(t, agentRuns)
	require.Contains(t, root.Attributes(), attribute.Float64("loom.eval.pass_at_1", rep.PassAt[1]))
	require.Contains(t, root.Attributes(), attribute.Int("loom.eval.samples_checked", 3))
	require.Contains(t, root.Attributes(), attribute.Int("loom.eval.samples_passed", 2))

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	counts := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "loom.eval.samples" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				c, _ := dp.Attributes.Value("loom.eval.class")
				counts[c.AsString()] += dp.Value
			}
		}
	}
	require.Equal(t, map[string]int64{"passed": 2, "no_code": 1}, counts)
}
