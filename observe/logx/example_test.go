package logx_test

import (
	"context"
	"log/slog"
	"os"

	"github.com/loomwork/loom/observe/logx"
)

func Example() {
	h := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: logx.LevelTrace,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{} // drop the time so the output is stable
			}
			return logx.ReplaceLevelNames(groups, a)
		},
	})
	logger := slog.New(logx.NewHandler(h))
	logx.Trace(context.Background(), logger, "model request", "bytes", 812)
	// Output:
	// level=TRACE msg="model request" bytes=812
}
