// Package rtlink hands package agent's run-time operations to package
// agent/agentrt. agentrt imports agent (its functions take an *agent.Run),
// so agent cannot import agentrt; instead agent's initialisation puts a
// value whose methods do the work in [Ops], and agentrt calls them through
// an interface of its own. Go initialises agent before any package that
// imports agentrt, so agentrt always finds Ops set.
package rtlink

// Ops holds package agent's run-time operations. Package agent sets it
// once, while it initialises; nothing else writes it.
var Ops any
