// Package spec loads agents and workflows declared in YAML, in the strict,
// versioned loom/v1 format, and builds them with loom's constructors.
//
// A file names its version, an optional default model, its agents by name
// and an optional entry agent:
//
//	# yaml-language-server: $schema=./loom.schema.json
//	version: loom/v1
//	model: openai:gpt-4o-mini
//	entry: coder
//	agents:
//	  coder:
//	    type: code_execution
//	    reviewer: reviewer
//	    approval: ask
//	  reviewer:
//	    type: ai
//	    instructions_file: ./reviewer.md
//	    output_schema: ./review.schema.json
//
// Every entry maps one to one onto a Go constructor: ai onto agent.NewAI,
// code_execution onto codeexec.New, sequence, parallel, map, reflect,
// route and coordinator onto the compose package's constructors, and
// function onto JavaScript that runs in loom's sandbox, never in the host,
// retriever onto vector.NewSearchTool over a store Go code registers, and
// mcp onto mcp.Connect: a server started as a command or reached at a URL,
// whose tools an ai or code_execution entry is offered by naming the entry
// in its tools (a code_execution entry's sandbox_tools offer them to its
// snippets instead, as async functions: await tools.name(args)). The server is reached when a run first asks for its tools,
// never while a file is loaded or validated; header values come from the
// environment only ("Bearer ${env:API_TOKEN}", or headers_env); a command
// server starts with only the variables a program needs to run plus those
// its env lists by name (env: [GITHUB_TOKEN]), so loom's provider keys never
// reach it, and
// auth: oauth logs in with OAuth 2.1, its tokens kept in the user's config
// directory; auth: client_credentials (a machine client) and auth:
// enterprise (through the organisation's identity provider, idp) use
// client_id and the secret client_secret_env names.
//
// A graph entry builds a graph (package graph) over a state that is a JSON
// object: the run's input, then each node's output under its name (or its
// output key). A node runs an agent (on the whole state, or on the value
// of its input expression) or asks a person (human: input or approval).
// Edges lead from node to node, from start and to end; a branch picks
// among its targets with a JavaScript expression over state, run in
// loom's sandbox, or with a Go function of [Registry].Branches. Every step
// is a nested run that the engine running the graph checkpoints
// (engine.Config.Checkpoints); a run that stops at a human node, or at an
// agent's approval, is continued from there by the engine's resume of the
// run (the graph may be the entry or nested in it), and no node that
// ended runs again. The loader checks the graph's names and paths (unknown
// nodes, edges to nowhere, nodes no path reaches or that never lead to
// end) and compiles its expressions.
// Code (a coder's snippets, a function's code, a graph's expressions) runs
// in the isolated sandbox, worker processes with OS limits, unless an
// entry's sandbox says kind: in_process. Any snippet can kill a process
// that runs it in process, so such a sandbox must also say trusted: true
// (Parse refuses it otherwise), and the program must consent
// ([Registry].TrustedCode, which loom's --trusted-code flag sets; Build
// refuses it otherwise): a file cannot grant itself the host's trust.
//
// Tools, models and Go functions are named, and Go code supplies them in a
// [Registry]; the file never carries host code, keys or secrets (models
// read their keys from the environment). Under loom mcp serve, the model
// "client" is the model of the MCP client calling (sampling), so a served
// file needs no key of its own; [Project.AddTo] offers the server what the
// file declares for MCP clients: resources (a fixed uri or a
// uri_template, with text or a project file, and completions of the
// template's variables), knowledge (glob patterns of project documents,
// each a resource, all searchable through [KnowledgeTemplate]), each
// retriever entry's store searched at [RetrieverTemplate], and
// prompts (arguments with completion values; messages of text, image,
// audio or an embedded resource), besides the files the entries name and
// each AI entry's instructions as a prompt. A function entry with
// returns: content answers with MCP content parts (text, image, audio,
// resource, resource_link); its console lines go to [Registry].Log, which
// loom mcp serve sends to the client as log notifications, and its code
// may await tools.log({message, level}) to log a line at once and
// tools.progress({progress, total, message}) to send progress.
//
// The loader is strict. [Validate] is the one check of a file, made alike
// by loom validate and by everything that loads a file to run it ([Load],
// loom run, serve, mcp serve, the playground): [Parse], [Check] and every
// constructor, reporting every unknown key (with the nearest valid one),
// wrong type, bad duration or range, missing file, unknown reference,
// reference cycle and constructor complaint, each as an [*Error] with
// file:line:col, its YAML path and a hint, all at once, before anything
// runs. [Schema] is the JSON Schema of the same Go types, with
// additionalProperties false, for editors.
//
// A file cannot reach outside its folder: every path it names is
// relative and read inside the file's folder ([Options].Root widens it)
// through os.Root, so neither ".." nor a symbolic link leads out; it must
// be a regular file (a device or FIFO is refused, a FIFO without
// blocking) of at most [DefaultMaxFileBytes]; the files resources and
// knowledge name are read again, by the same rules, when a client asks.
// The AIGNE import reads its
// files the same way. [Doc.Reaches] lists the commands a file starts and
// the URLs it reaches (its mcp entries), for a person to trust before
// they run.
package spec
