// Package mcp connects loom to the Model Context Protocol, on the official
// Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// As a client, [Connect] turns the tools of an MCP server (a command spoken
// to over stdio, or a streamable HTTP URL) into loom agents, offered to an
// AI agent through [agent.AIConfig.Toolsets]:
//
//   - names a provider would reject become valid tool names, behind an
//     optional per-server prefix, and [Toolset.Original] maps them back;
//   - a tool with an output schema returns its structuredContent, other
//     tools {"message": their joined text}; image and audio content become
//     the result's parts ([agent.Run.SetResultParts]);
//   - a result marked isError becomes a [*ToolError], which an AI agent
//     sends back to the model;
//   - the tool list is refreshed after notifications/tools/list_changed;
//   - a server that restarted is dialled again once, serialised, and the
//     call is retried only when it never reached the server or the tool is
//     annotated idempotent or read-only;
//   - every call has a timeout (Config.Timeout) and ends with its ctx;
//   - progress notifications become text-delta events of the tool's run;
//   - elicitation requests become questions asked with [agent.Ask], so a
//     person answers them, durable through the engine's checkpoints;
//   - sampling requests are answered by a loom model when Config.Sampling
//     is set (opt-in).
//
// As a server, [NewServer] exposes loom agents as MCP tools, every call run
// through an engine.Engine; serve it with [Server.ServeStdio] or
// [Server.Handler] (streamable HTTP).
//
// Zero config values mean the default; negative ones are an error.
package mcp
