package spec

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	mcpserver "github.com/loomwork/loom/mcp/server"
	"github.com/loomwork/loom/sandbox"
)

// maxToolCalls bounds the tools.progress and tools.log calls of one
// function run.
const maxToolCalls = 1000

// progressTool is offered to a function's code as tools.progress({progress,
// total, message}): under loom mcp serve, a progress notification to the
// client that asked for them; elsewhere nothing. It resolves to true when
// the notification was sent.
var progressTool = sandbox.HostTool{
	Name:        "progress",
	Description: "Reports how far the function got: progress out of total (optional), with a message (optional).",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"progress":{"type":"number"},"total":{"type":"number","exclusiveMinimum":0},"message":{"type":"string"}},"required":["progress"],"additionalProperties":false}`),
	Call: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		var p struct {
			Progress, Total float64
			Message         string
		}
		if err := json.Unmarshal(args, &p); err != nil {
			return nil, err
		}
		return json.Marshal(mcpserver.ReportProgress(ctx, p.Progress, p.Total, p.Message))
	},
}

// logLevels maps the levels tools.log takes to log levels.
var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warning": slog.LevelWarn, "error": slog.LevelError}

// logTool is offered to a function's code as tools.log({message, level}):
// the line goes to the registry's log at once, where console lines wait
// for the code to end (under loom mcp serve, a log notification while the
// call runs). level is debug, info (the default), warning or error.
func (f *function) logTool() sandbox.HostTool {
	return sandbox.HostTool{
		Name:        "log",
		Description: "Logs a line now: message, at level debug, info (the default), warning or error.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"},"level":{"enum":["debug","info","warning","error"]}},"required":["message"],"additionalProperties":false}`),
		Call: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			var l struct{ Message, Level string }
			if err := json.Unmarshal(args, &l); err != nil {
				return nil, err
			}
			if f.log != nil {
				lvl, ok := logLevels[l.Level]
				if !ok {
					lvl = slog.LevelInfo
				}
				f.log.Log(ctx, lvl, l.Message, "function", f.name)
			}
			return json.RawMessage("null"), nil
		},
	}
}

// consoleLevels maps a console method's level to a log level.
var consoleLevels = map[sandbox.Level]slog.Level{
	sandbox.LevelDebug: slog.LevelDebug,
	sandbox.LevelLog:   slog.LevelInfo,
	sandbox.LevelInfo:  slog.LevelInfo,
	sandbox.LevelWarn:  slog.LevelWarn,
	sandbox.LevelError: slog.LevelError,
}

// logLines logs the code's console lines, in order.
func (f *function) logLines(ctx context.Context, lines []sandbox.LogLine) {
	if f.log == nil {
		return
	}
	for _, l := range lines {
		lvl, ok := consoleLevels[l.Level]
		if !ok {
			lvl = slog.LevelInfo
		}
		f.log.Log(ctx, lvl, l.Text, "function", f.name)
	}
}

// contentOutput reads a returns: content function's value: its parts
// become the run's result parts and, for the run a client called over
// MCP, the call's content in their order; its output is {"result": the
// text of its text parts}.
func (f *function) contentOutput(ctx context.Context, r *agent.Run, value json.RawMessage) (json.RawMessage, error) {
	c, err := decodeContent(value)
	if err != nil {
		return nil, fmt.Errorf("function %s (returns: content): %w", f.name, err)
	}
	agentrt.SetResultParts(r, c.parts...)
	if agentrt.Parent(r) == nil {
		mcpserver.SetResultContent(ctx, c.mcp...)
	}
	return json.Marshal(map[string]string{"result": c.text})
}
