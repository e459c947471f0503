package recall_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/checkpoint/sqlite"
	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/recall"
	vsqlite "github.com/loomwork/loom/vector/sqlite"
)

const childRecallEnv = "LOOM_VECTOR_TEST_CHILD_RECALL_DIR"

func openRecallStores(ctx context.Context, dir string) (*sqlite.Sessions, *vsqlite.Store, error) {
	sessions, err := sqlite.OpenSessions(ctx, sqlite.Config{Path: filepath.Join(dir, "sessions.db")})
	if err != nil {
		return nil, nil, err
	}
	e, _ := vector.NewHashEmbedder(512)
	index, err := vsqlite.Open(ctx, vsqlite.Config{Path: filepath.Join(dir, "vectors.db"), MemoryConfig: vector.MemoryConfig{Embedder: e}})
	if err != nil {
		sessions.Close()
		return nil, nil, err
	}
	return sessions, index, nil
}

// TestRecallChildWriter runs only as the child of
// TestRecallMemoryAcrossProcesses: it holds a 199-turn conversation and
// exits without closing anything.
func TestRecallChildWriter(t *testing.T) {
	dir := os.Getenv(childRecallEnv)
	if dir == "" {
		t.Skip("runs as the child of TestRecallMemoryAcrossProcesses")
	}
	ctx := context.Background()
	sessions, index, err := openRecallStores(ctx, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	mem, err := recall.New(recall.Config{Store: index, Sessions: sessions, SessionID: "s", MaxTokens: 400})
	if err != nil {
		os.Exit(4)
	}
	for i := range 199 {
		if err := mem.Add(ctx, conversationTurn(i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(5)
		}
	}
	os.Exit(0)
}

func TestRecallMemoryAcrossProcesses(t *testing.T) {
	if os.Getenv(childRecallEnv) != "" {
		t.Skip("this is the child")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecallChildWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), childRecallEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child: %s", out)

	ctx := context.Background()
	sessions, index, err := openRecallStores(ctx, dir)
	require.NoError(t, err)
	defer sessions.Close()
	defer index.Close()
	mem := newRecall(t, recall.Config{Store: index, Sessions: sessions, SessionID: "s", MaxTokens: 400})
	require.NoError(t, mem.Add(ctx, conversationTurn(199)))
	msgs, err := mem.Messages(ctx, input("What was my locker combination again?"))
	require.NoError(t, err)
	require.True(t, containsText(msgs, "4-8-15-16"), "turn 3, written by the other process, is recalled at turn 200")
	require.True(t, containsText(msgs, "Question 199:"))
	require.Equal(t, 200, index.Len())
}
