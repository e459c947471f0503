package logx_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/loomwork/loom/observe/logx"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func newLogger(buf *bytes.Buffer, level slog.Level) *slog.Logger {
	return slog.New(logx.NewHandler(slog.NewJSONHandler(buf, &slog.HandlerOptions{
		Level: level, ReplaceAttr: logx.ReplaceLevelNames,
	})))
}

func records(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		out = append(out, m)
	}
	return out
}

func TestHandlerAddsSpanIDs(t *testing.T) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
	defer tp.Shutdown(context.Background()) //nolint:errcheck // in-memory
	ctx, span := tp.Tracer("test").Start(context.Background(), "work")
	defer span.End()

	var buf bytes.Buffer
	log := newLogger(&buf, logx.LevelTrace)
	log.InfoContext(ctx, "inside", "n", 1)
	log.InfoContext(context.Background(), "outside")
	log.With("component", "agent").WithGroup("g").InfoContext(ctx, "grouped", "k", "v")

	recs := records(t, &buf)
	require.Len(t, recs, 3)
	sc := span.SpanContext()
	require.Equal(t, sc.TraceID().String(), recs[0][logx.TraceIDKey])
	require.Equal(t, sc.SpanID().String(), recs[0][logx.SpanIDKey])
	require.NotContains(t, recs[1], logx.TraceIDKey)
	require.Equal(t, "agent", recs[2]["component"])
	g := recs[2]["g"].(map[string]any)
	require.Equal(t, "v", g["k"])
	require.Equal(t, sc.TraceID().String(), g[logx.TraceIDKey])
}

func TestTraceLevel(t *testing.T) {
	tests := []struct {
		name    string
		enabled slog.Level
		logged  bool
	}{
		{"shown at trace", logx.LevelTrace, true},
		{"hidden at debug", slog.LevelDebug, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := newLogger(&buf, tc.enabled)
			logx.Trace(context.Background(), log, "wire", "bytes", 812)
			log.Debug("debug")
			recs := records(t, &buf)
			if !tc.logged {
				require.Len(t, recs, 1)
				require.Equal(t, "DEBUG", recs[0]["level"])
				return
			}
			require.Len(t, recs, 2)
			require.Equal(t, "TRACE", recs[0]["level"])
			require.Equal(t, "wire", recs[0]["msg"])
		})
	}
	require.Less(t, logx.LevelTrace, slog.LevelDebug)
}

func TestLevelNames(t *testing.T) {
	tests := []struct {
		level slog.Level
		name  string
	}{
		{logx.LevelTrace, "TRACE"},
		{logx.LevelTrace + 1, "TRACE+1"},
		{slog.LevelDebug, "DEBUG"},
		{slog.LevelInfo, "INFO"},
		{slog.LevelError + 2, "ERROR+2"},
		{logx.LevelTrace - 1, "DEBUG-5"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.name, logx.LevelName(tc.level))
	}
	var buf bytes.Buffer
	h := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: logx.LevelTrace, ReplaceAttr: logx.ReplaceLevelNames})
	slog.New(h).Log(context.Background(), logx.LevelTrace, "x", slog.Group("g", slog.String("level", "keep")))
	require.Contains(t, buf.String(), "level=TRACE")
	require.Contains(t, buf.String(), "g.level=keep", "only the top-level level key is renamed")
}

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in   string
		want slog.Level
		err  bool
	}{
		{"trace", logx.LevelTrace, false},
		{"TRACE", logx.LevelTrace, false},
		{"trace+1", logx.LevelTrace + 1, false},
		{"debug", slog.LevelDebug, false},
		{" Info ", slog.LevelInfo, false},
		{"warning", slog.LevelWarn, false},
		{"warn", slog.LevelWarn, false},
		{"error", slog.LevelError, false},
		{"loud", 0, true},
		{"trace+x", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := logx.ParseLevel(tc.in)
			if tc.err {
				require.Error(t, err)
				require.Contains(t, err.Error(), "use trace, debug, info, warn or error")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
