package viewer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/viewer"
)

// Serve the viewer's pages and JSON API from your own HTTP server.
func ExampleNewHandler() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "loom-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tel, shutdown, err := observe.Setup(ctx, observe.Config{Exporter: observe.ExporterStore, StorePath: filepath.Join(dir, "traces.db")})
	if err != nil {
		log.Fatal(err)
	}
	defer shutdown(ctx) //nolint:errcheck // example

	srv := httptest.NewServer(viewer.NewHandler(tel.Store, viewer.HandlerConfig{}))
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + "/api/traces?status=error")
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	var page struct {
		Traces []json.RawMessage `json:"traces"`
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.StatusCode, len(page.Traces))
	// Output:
	// 200 0
}
