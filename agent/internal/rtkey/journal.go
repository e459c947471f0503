package rtkey

// Journal is the key of the journal a resumed run follows
// (agentrt.WithJournal).
type Journal struct{}

// Run is the key a run's context answers with the run-time view of the
// run (agentrt.SkipEnded).
type Run struct{}
