// Package jsrt is the sandbox's JavaScript runtime on goja: admission and
// compilation (the nesting prescan, the AST pass), a fresh hardened runtime
// per run (lockdown, intrinsics, allocation guards, Date, number
// formatting, polyfills, named groups, console, the kit), the exporter that
// turns the final value into JSON, host tool calls as Promises, and the
// in-process executor with its heap watchdog.
//
// It declares the types of the sandbox's contract (Limits, Result, Error
// and its kinds, the host tool types), which package sandbox re-exports:
// both executors build on them, and sandbox imports this package.
package jsrt
