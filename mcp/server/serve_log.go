//lint:file-ignore SA1019 logging stays in the protocol through its deprecation window, and clients of 2025-06-18 and 2025-11-25 use it.

package server

import (
	"context"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// LogHandler returns a [slog.Handler] that sends the records logged with
// the context of a served run to the client of its call, as
// notifications/message at or above the level the client set with
// logging/setLevel (none before it sets one), and passes every record to
// next as well (nil: to nothing else). Give it to the server's engine
// (engine.Config.Logger) so a run's log lines reach the client, or log with
// it from a served agent.
func LogHandler(next slog.Handler) slog.Handler {
	if next == nil {
		next = slog.DiscardHandler
	}
	return &logHandler{next: next}
}

type logHandler struct {
	next slog.Handler
	with []func(slog.Handler) slog.Handler // WithAttrs and WithGroup, in order
}

// client is the session's handler for ctx's served call, or nil.
func (h *logHandler) client(ctx context.Context) slog.Handler {
	c := callFrom(ctx)
	if c == nil || c.req.Session == nil {
		return nil
	}
	c.mu.Lock()
	if c.log == nil {
		c.log = sdk.NewLoggingHandler(c.req.Session, &sdk.LoggingHandlerOptions{LoggerName: "loom"})
	}
	var out slog.Handler = c.log
	c.mu.Unlock()
	for _, w := range h.with {
		out = w(out)
	}
	return out
}

func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool {
	if h.next.Enabled(ctx, l) {
		return true
	}
	c := h.client(ctx)
	return c != nil && c.Enabled(ctx, l)
}

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.next.Enabled(ctx, r.Level) {
		err = h.next.Handle(ctx, r.Clone())
	}
	if c := h.client(ctx); c != nil && c.Enabled(ctx, r.Level) {
		_ = c.Handle(ctx, r) // a notification that cannot be sent never fails the run
	}
	return err
}

func (h *logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return h.derive(h.next.WithAttrs(as), func(x slog.Handler) slog.Handler { return x.WithAttrs(as) })
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	return h.derive(h.next.WithGroup(name), func(x slog.Handler) slog.Handler { return x.WithGroup(name) })
}

func (h *logHandler) derive(next slog.Handler, w func(slog.Handler) slog.Handler) slog.Handler {
	with := append(append([]func(slog.Handler) slog.Handler(nil), h.with...), w)
	return &logHandler{next: next, with: with}
}
