package server

import (
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	conformance "github.com/loomwork/loom/internal/mcpconformance"
)

func TestConformanceServer(t *testing.T) {
	s, err := conformanceServer()
	require.NoError(t, err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.Handler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(l) }()
	defer func() {
		_ = s.Close()
		_ = hs.Close()
	}()
	results := conformance.RunServer(t, "http://"+l.Addr().String()+"/mcp")
	conformance.Require(t, results, nil)
}
