// Package cli is the command line shared by loom's examples: flags, .env.local
// loading, model selection with clear errors for missing keys, logging with a
// TRACE level, input from a flag, arguments or piped stdin, a printer that
// shows tool calls and streams the answer, and a chat loop with memory.
//
// Every example is run the same way:
//
//	example [flags] [question]
//	example --chat
//
// Exit status: 0 on an answer, 1 when a run fails (a model or workflow
// error), 2 on a configuration error (bad flag, missing key).
package cli
