// Package checkpointtest is the conformance suite every
// [github.com/loomwork/loom/checkpoint] store passes: [Run] for a
// [checkpoint.Store], [RunSessions] for a [checkpoint.SessionStore], and
// [RunProcesses] for stores that several processes share.
//
// A store's own test calls them with a function that opens a fresh, empty
// store (and closes it in t.Cleanup; the suite may close it first, and a
// second Close must not fail). Stores backed by a database pass
// [WithCorrupt] and [WithCorruptTurn] so the suite can damage stored rows
// and check that reading them fails with a clear [checkpoint.ErrCorrupt].
//
// [RunProcesses] re-executes the test binary as child processes; the
// store's TestMain must call [ChildMain] first:
//
//	func TestMain(m *testing.M) {
//		checkpointtest.ChildMain(openBoth)
//		goleak.VerifyTestMain(m)
//	}
package checkpointtest
