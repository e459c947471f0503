package main

import (
	"log/slog"
	"os"

	tlog "go.temporal.io/sdk/log"
)

// quietLogger logs the Temporal client's warnings and errors only.
func quietLogger() tlog.Logger {
	return tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}
