package cli

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/loomwork/loom/observe/logx"
)

// ParseLevel reads a --log-level value as logx.ParseLevel does (ERROR, WARN,
// INFO, DEBUG or TRACE, in any case), naming the flag when it is wrong.
func ParseLevel(s string) (slog.Level, error) {
	lvl, err := logx.ParseLevel(s)
	if err != nil {
		return 0, fmt.Errorf("--log-level %q: use ERROR, WARN, INFO, DEBUG or TRACE", s)
	}
	return lvl, nil
}

// NewLogger returns a text logger to w at level, naming the TRACE level;
// records logged inside a traced run carry its trace_id and span_id.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger { return slog.New(NewHandler(w, level)) }

// NewHandler is [NewLogger]'s handler, for a command that wraps it.
func NewHandler(w io.Writer, level slog.Level) slog.Handler {
	return logx.NewHandler(slog.NewTextHandler(w, &slog.HandlerOptions{
		Level:       level,
		ReplaceAttr: logx.ReplaceLevelNames,
	}))
}
