package observe_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// storedShape is a stored trace with what differs between two recordings of
// the same run left out: ids (run ids too), times and durations.
func storedShape(t *testing.T, s *store.Store) (store.TraceSummary, []string) {
	t.Helper()
	p, err := s.Traces(context.Background(), store.Query{})
	require.NoError(t, err)
	require.Len(t, p.Traces, 1)
	d, err := s.Trace(context.Background(), p.Traces[0].TraceID)
	require.NoError(t, err)
	byID := map[string]store.Span{}
	for _, sp := range d.Spans {
		byID[sp.SpanID] = sp
	}
	var spans []string
	for _, sp := range d.Spans {
		require.Equal(t, d.Summary.TraceID, sp.TraceID)
		attrs := make([]string, 0, len(sp.Attributes))
		for k, v := range sp.Attributes {
			if strings.Contains(k, "duration") || strings.HasPrefix(k, "loom.run.") {
				continue
			}
			attrs = append(attrs, fmt.Sprintf("%s=%v", k, v))
		}
		sort.Strings(attrs)
		var events []string
		for _, e := range sp.Events {
			events = append(events, fmt.Sprintf("%s %v", e.Name, e.Attributes))
		}
		parent := ""
		if sp.ParentSpanID != "" {
			p, ok := byID[sp.ParentSpanID]
			require.True(t, ok, "the parent of %s is stored", sp.Name)
			parent = p.Name
		}
		spans = append(spans, fmt.Sprintf("%s<-%s kind=%s status=%s %q scope=%s attrs=%v events=%v",
			sp.Name, parent, sp.Kind, sp.Status, sp.StatusMessage, sp.Scope, attrs, events))
	}
	sort.Strings(spans)
	sum := d.Summary
	sum.TraceID, sum.Start, sum.End, sum.DurationMS, sum.Seq, sum.RunID = "", time.Time{}, time.Time{}, 0, 0, "" // run ids differ per run, as loom.run.* above
	return sum, spans
}

// TestTracerProviderStoresWhatTheSDKWould records the same Coder→Sandbox
// runs (content on, a failing snippet and a retry) through the SDK and the
// store's exporter, and through loom's own tracer provider: the stored
// spans (names, kinds, parents, statuses, attributes, events) and the
// trace summaries are the same.
func TestTracerProviderStoresWhatTheSDKWould(t *testing.T) {
	ctx := context.Background()
	turns := func() []modeltest.Turn {
		return []modeltest.Turn{
			modeltest.ToolCalls(modeltest.Call("call_1", "evaluateJs", `{"code":"throw new RangeError('bad n')"}`)).WithUsage(300, 40),
			modeltest.ToolCalls(modeltest.Call("call_2", "evaluateJs", `{"code":"`+factorial+`"}`)).WithUsage(350, 30),
			modeltest.Text("15! = 1307674368000").WithUsage(400, 12),
		}
	}

	sdkStore, err := store.Open(ctx, store.Config{Path: filepath.Join(t.TempDir(), "sdk.db")})
	require.NoError(t, err)
	defer sdkStore.Close()
	bp, err := observe.NewBatchProcessor(store.NewExporter(sdkStore), observe.BatchConfig{})
	require.NoError(t, err)
	sdk := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(bp))
	coderRun(t, sdk, true, turns()...)
	require.NoError(t, sdk.Shutdown(ctx))

	loomStore, err := store.Open(ctx, store.Config{Path: filepath.Join(t.TempDir(), "loom.db")})
	require.NoError(t, err)
	defer loomStore.Close()
	tp, err := observe.NewTracerProvider(loomStore, observe.BatchConfig{}, false)
	require.NoError(t, err)
	coderRun(t, tp, true, turns()...)
	require.NoError(t, tp.Shutdown(ctx))
	require.Zero(t, tp.Dropped())

	wantSum, wantSpans := storedShape(t, sdkStore)
	gotSum, gotSpans := storedShape(t, loomStore)
	require.Equal(t, wantSpans, gotSpans)
	require.Equal(t, wantSum, gotSum)
	require.Equal(t, "ok", gotSum.Status)
	require.Equal(t, int64(3), gotSum.ModelCalls)
	require.Equal(t, int64(2), gotSum.ToolCalls)
}

func TestTracerProviderSpans(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, store.Config{Path: filepath.Join(t.TempDir(), "traces.db")})
	require.NoError(t, err)
	defer s.Close()
	tp, err := observe.NewTracerProvider(s, observe.BatchConfig{}, false)
	require.NoError(t, err)
	tr := tp.Tracer("github.com/loomwork/loom")

	t.Run("status, errors and events behave as the SDK's", func(t *testing.T) {
		rctx, root := tr.Start(ctx, "invoke_agent a", trace.WithAttributes(attribute.String("gen_ai.operation.name", "invoke_agent")))
		require.True(t, root.IsRecording())
		require.True(t, root.SpanContext().IsSampled())
		_, child := tr.Start(rctx, "chat m", trace.WithSpanKind(trace.SpanKindClient))
		require.Equal(t, root.SpanContext().TraceID(), child.SpanContext().TraceID())
		child.RecordError(errors.New("boom"))
		child.SetStatus(codes.Error, "boom")
		child.SetStatus(codes.Unset, "ignored")
		child.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", 1), attribute.Int64("gen_ai.usage.input_tokens", 2))
		child.End()
		require.False(t, child.IsRecording())
		child.SetAttributes(attribute.String("late", "x")) // after End: ignored
		root.SetStatus(codes.Ok, "dropped description")
		root.SetStatus(codes.Error, "Ok is final")
		root.End()
		root.End() // twice: once recorded
		require.NoError(t, tp.ForceFlush(ctx))

		d, err := s.Trace(ctx, root.SpanContext().TraceID().String())
		require.NoError(t, err)
		require.Len(t, d.Spans, 2)
		require.Equal(t, "ok", d.Spans[0].Status)
		require.Empty(t, d.Spans[0].StatusMessage)
		c := d.Spans[1]
		require.Equal(t, root.SpanContext().SpanID().String(), c.ParentSpanID)
		require.Equal(t, "client", c.Kind)
		require.Equal(t, "error", c.Status)
		require.Equal(t, "boom", c.StatusMessage)
		require.Equal(t, int64(2), c.Attributes["gen_ai.usage.input_tokens"], "a later value of a key wins")
		require.NotContains(t, c.Attributes, "late")
		require.Len(t, c.Events, 1)
		require.Equal(t, "exception", c.Events[0].Name)
		require.Equal(t, map[string]any{"exception.type": "*errors.errorString", "exception.message": "boom"}, c.Events[0].Attributes)
		require.Equal(t, "ok", d.Summary.Status)
		require.Equal(t, int64(2), d.Summary.Spans)
	})
	t.Run("a remote parent starts a part of its trace; an unsampled one records nothing", func(t *testing.T) {
		remote := trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled, Remote: true,
		})
		_, sp := tr.Start(trace.ContextWithRemoteSpanContext(ctx, remote), "invoke_agent served")
		require.Equal(t, remote.TraceID(), sp.SpanContext().TraceID())
		sp.End()

		unsampled := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9}, SpanID: trace.SpanID{9}, Remote: true})
		_, skipped := tr.Start(trace.ContextWithRemoteSpanContext(ctx, unsampled), "invoke_agent skipped")
		require.False(t, skipped.IsRecording())
		skipped.End()
		require.NoError(t, tp.ForceFlush(ctx))

		d, err := s.Trace(ctx, remote.TraceID().String())
		require.NoError(t, err)
		require.Len(t, d.Spans, 1)
		require.Equal(t, remote.SpanID().String(), d.Spans[0].ParentSpanID)
		require.Equal(t, "ok", d.Summary.Status, "the local root of a remote parent ends the part's run")
		_, err = s.Trace(ctx, unsampled.TraceID().String())
		require.ErrorIs(t, err, store.ErrNotFound)

		// The span context propagates as the SDK's does.
		carrier := propagation.MapCarrier{}
		propagation.TraceContext{}.Inject(trace.ContextWithSpan(ctx, sp), carrier)
		require.Contains(t, carrier["traceparent"], remote.TraceID().String())
	})
	t.Run("a span that ends after its root is stored on its own", func(t *testing.T) {
		rctx, root := tr.Start(ctx, "invoke_agent a")
		_, late := tr.Start(rctx, "execute_tool t", trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool")))
		root.End()
		late.End()
		require.NoError(t, tp.ForceFlush(ctx))
		d, err := s.Trace(ctx, root.SpanContext().TraceID().String())
		require.NoError(t, err)
		require.Len(t, d.Spans, 2)
		require.Equal(t, int64(2), d.Summary.Spans)
		require.Equal(t, int64(1), d.Summary.ToolCalls)
	})
	t.Run("a run still going shows as running with the spans that ended", func(t *testing.T) {
		rctx, root := tr.Start(ctx, "invoke_agent long", trace.WithAttributes(attribute.String("gen_ai.operation.name", "invoke_agent")))
		_, first := tr.Start(rctx, "chat m", trace.WithAttributes(attribute.String("gen_ai.operation.name", "chat")))
		first.End()
		require.NoError(t, tp.ForceFlush(ctx))
		id := root.SpanContext().TraceID().String()
		d, err := s.Trace(ctx, id)
		require.NoError(t, err)
		require.Equal(t, "running", d.Summary.Status)
		require.Len(t, d.Spans, 1)
		root.End()
		require.NoError(t, tp.ForceFlush(ctx))
		d, err = s.Trace(ctx, id)
		require.NoError(t, err)
		require.Equal(t, "ok", d.Summary.Status)
		require.Len(t, d.Spans, 2)
		require.Equal(t, int64(1), d.Summary.ModelCalls)
	})
	t.Run("concurrent runs and spans", func(t *testing.T) {
		var wg sync.WaitGroup
		ids := make([]trace.TraceID, 8)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rctx, root := tr.Start(ctx, "invoke_agent p")
				var inner sync.WaitGroup
				for range 4 {
					inner.Add(1)
					go func() {
						defer inner.Done()
						_, sp := tr.Start(rctx, "execute_tool t", trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool")))
						sp.SetAttributes(attribute.Bool("loom.tool.is_error", false))
						sp.End()
					}()
				}
				inner.Wait()
				root.End()
				ids[i] = root.SpanContext().TraceID()
			}()
		}
		wg.Wait()
		require.NoError(t, tp.ForceFlush(ctx))
		for _, id := range ids {
			d, err := s.Trace(ctx, id.String())
			require.NoError(t, err)
			require.Len(t, d.Spans, 5)
			require.Equal(t, int64(4), d.Summary.ToolCalls)
		}
	})
	require.NoError(t, tp.Shutdown(ctx))
	_, sp := tr.Start(ctx, "after shutdown")
	sp.End()
	require.Equal(t, uint64(1), tp.Dropped(), "spans after shutdown are dropped and counted")
}

func TestTracerProviderWritesRunningTracesEachInterval(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, store.Config{Path: filepath.Join(t.TempDir(), "traces.db")})
	require.NoError(t, err)
	defer s.Close()
	tp, err := observe.NewTracerProvider(s, observe.BatchConfig{Interval: 10 * time.Millisecond}, false)
	require.NoError(t, err)
	defer func() { require.NoError(t, tp.Shutdown(ctx)) }()
	tr := tp.Tracer("github.com/loomwork/loom")
	rctx, root := tr.Start(ctx, "invoke_agent long")
	_, sp := tr.Start(rctx, "execute_tool t")
	sp.End()
	require.Eventually(t, func() bool {
		d, err := s.Trace(ctx, root.SpanContext().TraceID().String())
		return err == nil && len(d.Spans) == 1 && d.Summary.Status == "running"
	}, 30*time.Second, 5*time.Millisecond, "the ended span of a running trace is written within an interval")
	root.End()
}

// TestTracerProviderReusesAttributesOnlyOfEncodedSpans ends traces one
// after the other, so that each span's attribute buffer is a reused one,
// while ended spans keep being called: every stored span has exactly its
// own attributes.
func TestTracerProviderReusesAttributesOnlyOfEncodedSpans(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, store.Config{Path: filepath.Join(t.TempDir(), "traces.db")})
	require.NoError(t, err)
	defer s.Close()
	tp, err := observe.NewTracerProvider(s, observe.BatchConfig{}, false)
	require.NoError(t, err)
	tr := tp.Tracer("github.com/loomwork/loom")

	var ended []trace.Span
	var ids []string
	for i := range 50 {
		// Some spans outgrow the buffer they start with.
		attrs := make([]attribute.KeyValue, 0, 40)
		for j := range 1 + i%40 {
			attrs = append(attrs, attribute.Int(fmt.Sprintf("k%d", j), i))
		}
		rctx, root := tr.Start(ctx, fmt.Sprintf("root %d", i), trace.WithAttributes(attrs...))
		_, child := tr.Start(rctx, fmt.Sprintf("child %d", i))
		child.SetAttributes(attribute.Int("child", i))
		child.End()
		root.SetAttributes(attribute.Int("last", i))
		root.End()
		for _, sp := range ended {
			sp.SetAttributes(attribute.String("late", "x"))
			sp.SetName("renamed")
		}
		ended = append(ended, root, child)
		ids = append(ids, root.SpanContext().TraceID().String())
	}
	require.NoError(t, tp.ForceFlush(ctx))

	for i, id := range ids {
		d, err := s.Trace(ctx, id)
		require.NoError(t, err)
		require.Len(t, d.Spans, 2)
		for _, sp := range d.Spans {
			want := map[string]any{"child": int64(i)}
			if sp.Name == fmt.Sprintf("root %d", i) {
				want = map[string]any{"last": int64(i)}
				for j := range 1 + i%40 {
					want[fmt.Sprintf("k%d", j)] = int64(i)
				}
			} else {
				require.Equal(t, fmt.Sprintf("child %d", i), sp.Name)
			}
			require.Equal(t, want, sp.Attributes, "span %s", sp.Name)
		}
	}
	require.NoError(t, tp.Shutdown(ctx))
}
