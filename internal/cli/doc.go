// Package cli is the command line loom's commands (cmd/loom) and its
// example programs share, so they behave alike: one table of exit
// statuses ([ExitTable]), one way to stop on a signal (a server exits 130
// on Ctrl-C; in a chat the first Ctrl-C cancels the turn and a second
// within two seconds exits 130), one .env.local search order and loader,
// one missing-key message and key masking, --log-level with a TRACE level,
// the sandbox flags and the trust rule for the in-process sandbox
// ([SandboxFlags], [SandboxKind]: --sandbox, --trusted-code), trace
// recording (--no-trace), the nearest command name for a typo, and the
// chat's commands.
//
// On top of that grammar it runs an example program ([App], [Run]): flags,
// model selection with clear errors for missing keys, input from a flag,
// arguments or piped stdin, a printer that shows tool calls and streams
// the answer, and a chat loop with memory. Every example is run the same
// way:
//
//	example [flags] [question]
//	example --chat
//
// Exit status: 0 on an answer, 1 when a run fails (a model or workflow
// error), 2 on a configuration error (bad flag, missing key); the rest of
// [ExitTable] for snippets that failed, were declined or rejected.
package cli
