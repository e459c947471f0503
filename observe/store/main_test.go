package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/loomwork/loom/observe/internal/fixture"
	"github.com/loomwork/loom/observe/store"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// Environment of a child writer process (see TestConcurrentProcesses).
const (
	childDBEnv    = "LOOM_STORE_TEST_CHILD_DB"
	childSeedEnv  = "LOOM_STORE_TEST_CHILD_SEED"
	childCountEnv = "LOOM_STORE_TEST_CHILD_COUNT"
	childGoEnv    = "LOOM_STORE_TEST_CHILD_GO"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(childDBEnv); path != "" {
		os.Exit(childWriter(path))
	}
	if path := os.Getenv(childSpoolEnv); path != "" {
		os.Exit(childSpooler(path))
	}
	if path := os.Getenv(childReaderEnv); path != "" {
		os.Exit(childReader(path))
	}
	goleak.VerifyTestMain(m)
}

// childWriter is the body of a writer process: it exports count runs, each
// in its own transaction, to the database at path.
func childWriter(path string) int {
	seed, err1 := strconv.ParseUint(os.Getenv(childSeedEnv), 10, 64)
	count, err2 := strconv.Atoi(os.Getenv(childCountEnv))
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "child writer: bad seed or count", err1, err2)
		return 2
	}
	ctx := context.Background()
	exp, err := store.OpenExporter(ctx, store.Config{Path: path})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child writer:", err)
		return 1
	}
	defer exp.Shutdown(ctx) //nolint:errcheck // best effort in a child
	// Say ready, then wait for the go signal so that every writer starts at once.
	goFile := os.Getenv(childGoEnv)
	if err := os.WriteFile(goFile+".ready."+os.Getenv(childSeedEnv), nil, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "child writer:", err)
		return 1
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(2 * time.Millisecond) {
		if _, err := os.Stat(goFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "child writer: no go signal within a minute")
			return 1
		}
	}
	start := time.Now()
	if err := writeRuns(ctx, exp, seed, count); err != nil {
		fmt.Fprintln(os.Stderr, "child writer:", err)
		return 1
	}
	fmt.Printf("window %d %d\n", start.UnixNano(), time.Now().UnixNano())
	if err := exp.Shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "child writer: shutdown:", err)
		return 1
	}
	return 0
}

// writeRuns writes count synthetic runs with seeds seed, seed+1, …, each
// in its own transaction: one through the exporter (a row per span), the
// next as loom's own tracer provider writes it (a part), and so on.
func writeRuns(ctx context.Context, exp *store.Exporter, seed uint64, count int) error {
	for i := range count {
		spans := fixture.CoderSandbox(fixture.Run{Seed: seed + uint64(i)}).Snapshots()
		var err error
		if i%2 == 0 {
			err = exp.ExportSpans(ctx, spans)
		} else {
			err = exp.Store().WriteParts(ctx, partsOf(spans))
		}
		if err != nil {
			return fmt.Errorf("run %d: %w", i, err)
		}
	}
	return nil
}

// openTemp opens a store in a fresh temporary folder and closes it at the
// end of the test.
func openTemp(t testing.TB, cfg store.Config) *store.Store {
	t.Helper()
	cfg.Path = filepath.Join(t.TempDir(), "traces.db")
	s, err := store.Open(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// export writes the spans of runs to s through an exporter.
func export(t testing.TB, s *store.Store, runs ...fixture.Run) {
	t.Helper()
	exp := store.NewExporter(s)
	for _, r := range runs {
		require.NoError(t, exp.ExportSpans(context.Background(), fixture.CoderSandbox(r).Snapshots()))
	}
}
