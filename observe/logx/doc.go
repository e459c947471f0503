// Package logx adds two things to log/slog for loom: a TRACE level below
// DEBUG, and a handler that stamps each record with the trace and span ids
// of the OpenTelemetry span active in its context, so log lines can be
// matched with the spans `loom observe` shows.
//
//	logger := slog.New(logx.NewHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{
//		Level:       logx.LevelTrace,
//		ReplaceAttr: logx.ReplaceLevelNames,
//	})))
//	logger.Log(ctx, logx.LevelTrace, "model request", "bytes", n)
//	// time=… level=TRACE msg="model request" bytes=812 trace_id=4bf9… span_id=00f0…
package logx
