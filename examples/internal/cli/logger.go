package cli

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/observe/logx"
)

// ParseLevel reads ERROR, WARN, INFO, DEBUG or TRACE, in any case.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "ERROR":
		return slog.LevelError, nil
	case "WARN", "WARNING":
		return slog.LevelWarn, nil
	case "INFO":
		return slog.LevelInfo, nil
	case "DEBUG":
		return slog.LevelDebug, nil
	case "TRACE":
		return engine.LevelTrace, nil
	}
	return 0, fmt.Errorf("--log-level %q: use ERROR, WARN, INFO, DEBUG or TRACE", s)
}

// NewLogger returns a text logger to w at level, naming the TRACE level;
// records logged inside a traced run carry its trace_id and span_id.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(logx.NewHandler(slog.NewTextHandler(w, &slog.HandlerOptions{
		Level:       level,
		ReplaceAttr: logx.ReplaceLevelNames,
	})))
}
