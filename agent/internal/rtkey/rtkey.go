// Package rtkey holds the context keys that package agent/agentrt and
// package agent share: agent's values answer them (a run's context
// answers from the run), agentrt reads them through interfaces of the
// exported methods of agent's unexported types, so that run-time queries
// live in agentrt without agent exporting their plumbing.
package rtkey

// Budget is the key of the budget of a run tree: the nearest
// agent.WithLimits's, or the one of the run a context belongs to.
type Budget struct{}
