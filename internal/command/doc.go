// Package command is the command-line grammar loom's commands (cmd/loom)
// and the example programs share, so they behave alike: one table of exit
// statuses, one way to stop on a signal (a server exits 130 on Ctrl-C; in
// a chat the first Ctrl-C cancels the turn and a second within two seconds
// exits 130), one .env.local search order, one missing-key message, the
// nearest command name for a typo, and the chat's commands.
package command
