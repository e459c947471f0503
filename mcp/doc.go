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
//     the result's parts ([agentrt.SetResultParts]);
//   - a result marked isError becomes a [*ToolError], which an AI agent
//     sends back to the model;
//   - the tool list is refreshed after notifications/tools/list_changed;
//   - a server that restarted is dialled again once, serialised, and the
//     call is retried only when it never reached the server or the tool is
//     annotated idempotent or read-only;
//   - a stdio server starts with only the variables a program needs to
//     run ([ServerEnv]) and Config.Env, so the keys in loom's environment
//     stay out of reach of its tools, and so of the model (Config.InheritEnv
//     passes everything);
//   - every call has a timeout (Config.Timeout) and ends with its ctx;
//   - progress notifications become text-delta events of the tool's run;
//   - elicitation requests are answered in the call that made them, so
//     the tool runs once: by Config.Elicit, or as questions asked with
//     [agent.Ask], the call kept open while the run waits for a person and
//     answered when it is resumed ([AskTerminal] asks on a terminal);
//   - image, audio and embedded-resource content reaches the model;
//     Config.Resources offers the server's resources as tools, and
//     [Toolset.Instructions] turns a prompt into an agent's instructions;
//   - sampling requests are answered by a loom model when Config.Sampling
//     is set (opt-in);
//   - HTTP servers that require OAuth are logged in to (Config.OAuth: PKCE,
//     dynamic registration, a loopback redirect, tokens kept in the user's
//     config directory and refreshed), given a caller's tokens
//     (Config.TokenSource), as a machine client (OAuth.ClientCredentials),
//     or through the organisation's identity provider ([Enterprise]);
//   - sessions use protocol version [ProtocolVersion], opening with
//     initialize.
//
// The server, which exposes loom agents as MCP tools, is package
// mcp/server; this package, the client, does not depend on the engine.
//
// Zero config values mean the default; negative ones are an error.
package mcp
