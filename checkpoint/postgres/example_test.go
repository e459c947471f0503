package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/checkpoint/postgres"
)

// Open the store on a server and save a run's first checkpoint. (Not run
// as a test: it needs a server; the package's tests use
// LOOM_TEST_POSTGRES_DSN.)
func ExampleOpen() {
	ctx := context.Background()
	store, err := postgres.Open(ctx, postgres.Config{DSN: os.Getenv("DATABASE_URL"), Schema: "loom"})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	err = store.Put(ctx, checkpoint.Checkpoint{
		RunID: "run-1", Seq: 1, Kind: "start", Time: time.Now(),
		State: json.RawMessage(`{"messages":[]}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	head, err := store.Head(ctx, "run-1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(head.Seq, head.Kind)
}
