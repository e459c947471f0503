package bench

import (
	"context"
	"testing"
)

// TestContenders checks, on a small corpus, that every store answers k
// matches and that loom's stores and chromem-go agree on the best one, so
// the benchmarks compare stores that do the same work.
func TestContenders(t *testing.T) {
	ctx := context.Background()
	d := getData(500)
	for _, c := range contenders() {
		s := c.open(t)
		if err := s.ingest(ctx, d.docs); err != nil {
			t.Fatal(err)
		}
		for _, q := range d.queries[:20] {
			n, err := s.query(ctx, q)
			if err != nil || n != k {
				t.Fatalf("%s: %d matches, %v", c.name, n, err)
			}
		}
		s.close()
	}
	ls, cs := openLoom(t, false).(loomStore), openChromem(t).(chromemStore)
	defer ls.close()
	if err := ls.ingest(ctx, d.docs); err != nil {
		t.Fatal(err)
	}
	if err := cs.ingest(ctx, d.docs); err != nil {
		t.Fatal(err)
	}
	for i, q := range d.queries[:20] {
		a, err := ls.topID(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		b, err := cs.c.QueryEmbedding(ctx, q, 1, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a != b[0].ID {
			t.Errorf("query %d: loom's best is %s, chromem-go's %s", i, a, b[0].ID)
		}
	}
}
