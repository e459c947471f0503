// Package rtlink hands package agent's run-time operations to package
// agent/agentrt. agentrt imports agent (its functions take an *agent.Run),
// so agent cannot import agentrt; instead agent's initialisation puts a
// value whose methods do the work in [Ops], and agentrt calls them through
// an interface of its own. Go initialises agent before any package that
// imports agentrt, so agentrt always finds Ops set.
package rtlink

import "errors"

// ErrStopped is package agent's error for a run whose consumer stopped
// reading, exported by agentrt as agentrt.ErrStopped.
var ErrStopped = errors.New("agent: the consumer stopped reading")

// Ops holds package agent's run-time operations. Package agent sets it
// once, while it initialises; nothing else writes it.
var Ops any
