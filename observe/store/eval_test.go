package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// evalSpans is an evaluation's trace as package evals records it: a root
// span with the scores, a span per sample, and the solver's agent run
// under each sample.
func evalSpans(rootStatus codes.Code) []*store.Record {
	base := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	id := func(n byte) trace.SpanID { return trace.SpanID{0, 0, 0, 0, 0, 0, 0xe, n} }
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	sample := func(n byte, problem string, class string, from int) []*store.Record {
		agent := &store.Record{SpanID: id(10 + n), ParentID: id(n), Name: "invoke_agent solver", Start: at(from + 1), End: at(from + 8),
			Attributes: []attribute.KeyValue{attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "solver")}}
		s := &store.Record{SpanID: id(n), ParentID: id(1), Name: "eval.sample " + problem, Start: at(from), End: at(from + 10),
			Attributes: []attribute.KeyValue{attribute.String("loom.eval.problem", problem), attribute.Int("loom.eval.sample", 0),
				attribute.String("loom.eval.class", class), attribute.Bool("loom.eval.passed", class == "passed")}}
		if class != "passed" {
			s.Status, s.StatusMessage = codes.Error, class+": expected 14, got 0"
		}
		return []*store.Record{agent, s}
	}
	spans := append(sample(2, "LoomEval/0", "passed", 0), sample(3, "LoomEval/1", "assertion", 20)...)
	root := &store.Record{Name: "eval humaneval-js", SpanID: id(1), Start: at(0), End: at(40), Status: rootStatus,
		Attributes: []attribute.KeyValue{
			attribute.String("loom.eval.dataset", "humaneval-js"), attribute.String("loom.eval.model", "modeltest:scripted"),
			attribute.String("loom.eval.solver", "solver"), attribute.Int("loom.eval.problems", 2), attribute.Int("loom.eval.samples_per_problem", 1),
			attribute.Float64("loom.eval.pass_at_1", 0.5), attribute.Int("loom.eval.samples_checked", 2), attribute.Int("loom.eval.samples_passed", 1),
			attribute.Float64("loom.eval.error_rate", 0),
		}}
	if rootStatus == codes.Error {
		root.StatusMessage = "evals: stopped: context canceled"
	}
	return append(spans, root)
}

// TestEvalRunIsAnEval: an evaluation's trace is listed as an eval with its
// scores, not as a run of the solver's agent, and is counted in neither
// the success nor the error rate; one that failed is an error. The spans
// are written in one part, and one part each, as a live evaluation's
// reach the store in several writes.
func TestEvalRunIsAnEval(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name       string
		rootStatus codes.Code
		apart      bool
		status     string
		errMsg     string
	}{
		{"together", codes.Unset, false, store.StatusEval, ""},
		{"apart", codes.Unset, true, store.StatusEval, ""},
		{"stopped", codes.Error, true, store.StatusError, "evals: stopped: context canceled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openTemp(t, store.Config{})
			export(t, s, fixture.Run{Seed: 7}) // an agent run beside it
			tid := trace.TraceID{0xe, 0xa, 1}
			spans := evalSpans(tc.rootStatus)
			if tc.apart {
				for _, sp := range spans {
					require.NoError(t, s.WriteParts(ctx, []store.Part{{TraceID: tid, Spans: []*store.Record{sp}}}))
				}
			} else {
				require.NoError(t, s.WriteParts(ctx, []store.Part{{TraceID: tid, Spans: spans}}))
			}

			d, err := s.Trace(ctx, tid.String())
			require.NoError(t, err)
			require.Equal(t, tc.status, d.Summary.Status)
			require.Equal(t, tc.errMsg, d.Summary.Error)
			require.Equal(t, &store.EvalSummary{
				Dataset: "humaneval-js", Model: "modeltest:scripted", Solver: "solver",
				Problems: 2, SamplesPerProblem: 1, Samples: 2, Passed: 1, PassAt: map[string]float64{"1": 0.5},
			}, d.Summary.Eval)
			require.Len(t, d.Spans, 5)

			page, err := s.Traces(ctx, store.Query{Status: tc.status})
			require.NoError(t, err)
			require.Equal(t, []string{tid.String()}, ids(page))
			run, err := s.Trace(ctx, fixture.IDs(7).String())
			require.NoError(t, err)
			require.Nil(t, run.Summary.Eval, "an agent run is no eval")

			st, err := s.Stats(ctx, store.Query{})
			require.NoError(t, err)
			require.Equal(t, int64(2), st.Traces)
			require.Equal(t, int64(1), st.OK)
			if tc.status == store.StatusEval {
				require.Equal(t, int64(1), st.Evals)
				require.Zero(t, st.ErrorRate, "an evaluation's failed samples are not failed runs")
			} else {
				require.Zero(t, st.Evals)
				require.InDelta(t, 0.5, st.ErrorRate, 1e-12)
			}
		})
	}
}
