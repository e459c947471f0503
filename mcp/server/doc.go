// Package server is loom's MCP server, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk); package mcp is the client.
//
// [New] exposes loom agents as MCP tools, every call run
// through an engine.Engine; serve it with [Server.ServeStdio] or
// [Server.Handler] (streamable HTTP). A served run's result parts become
// the call's content, or the content it sets with [SetResultContent] (in
// its own order), with [AddContent]'s after; [ReportProgress] sends its
// own progress (always increasing), and [LogHandler] its log lines.
// [Server.AddResource], [Server.AddResourceTemplate] and [Server.AddPrompt]
// offer the rest, with completions; spec's Project.AddTo offers what a
// loom/v1 file declares.
//
// Zero config values mean the default; negative ones are an error.
package server
