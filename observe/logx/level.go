package logx

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// LevelTrace is below slog.LevelDebug: wire-level detail such as request
// and response bodies.
const LevelTrace = slog.Level(-8)

// ReplaceLevelNames is a slog.HandlerOptions.ReplaceAttr function that names
// LevelTrace "TRACE" (slog itself would print "DEBUG-4"). Use it as
// HandlerOptions.ReplaceAttr, or call it from your own.
func ReplaceLevelNames(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 || a.Key != slog.LevelKey {
		return a
	}
	if lvl, ok := a.Value.Any().(slog.Level); ok {
		a.Value = slog.StringValue(LevelName(lvl))
	}
	return a
}

// LevelName names lvl as loom prints it: "TRACE" for LevelTrace and levels
// just above it, slog's own names otherwise.
func LevelName(lvl slog.Level) string {
	if lvl >= LevelTrace && lvl < slog.LevelDebug {
		if lvl == LevelTrace {
			return "TRACE"
		}
		return fmt.Sprintf("TRACE+%d", int(lvl-LevelTrace))
	}
	return lvl.String()
}

// ParseLevel parses a level name as users type it on a command line or in
// an environment variable: trace, debug, info, warn (or warning), error, in
// any case, optionally with an offset such as "debug+2".
func ParseLevel(s string) (slog.Level, error) {
	name := strings.ToUpper(strings.TrimSpace(s))
	if name == "WARNING" {
		name = "WARN"
	}
	if rest, ok := strings.CutPrefix(name, "TRACE"); ok {
		var lvl slog.Level
		if err := lvl.UnmarshalText([]byte("DEBUG" + rest)); err != nil {
			return 0, fmt.Errorf("logx: log level %q: use trace, debug, info, warn or error", s)
		}
		return lvl - slog.LevelDebug + LevelTrace, nil
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(name)); err != nil {
		return 0, fmt.Errorf("logx: log level %q: use trace, debug, info, warn or error", s)
	}
	return lvl, nil
}

// Trace logs at LevelTrace.
func Trace(ctx context.Context, l *slog.Logger, msg string, args ...any) {
	l.Log(ctx, LevelTrace, msg, args...)
}
