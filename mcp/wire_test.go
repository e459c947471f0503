package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// methodLog records the JSON-RPC method of every message POSTed to an
// HTTP MCP server.
type methodLog struct {
	mu      sync.Mutex
	methods []string
}

func (l *methodLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method != "" {
				l.mu.Lock()
				l.methods = append(l.methods, msg.Method)
				l.mu.Unlock()
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (l *methodLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.methods...)
}

// sdkHTTPServer serves srv over streamable HTTP on a loopback httptest
// server, with every POSTed method recorded in the returned log.
func sdkHTTPServer(t *testing.T, srv *sdk.Server) (*httptest.Server, *methodLog) {
	t.Helper()
	log := &methodLog{}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	hs := httptest.NewServer(log.wrap(h))
	t.Cleanup(hs.Close)
	return hs, log
}

func TestConnectStartsWithInitialize(t *testing.T) {
	// The first message is initialize: no draft server/discover probe.
	srv := sdk.NewServer(&sdk.Implementation{Name: "fixture", Version: "1"}, nil)
	hs, log := sdkHTTPServer(t, srv)
	ts := connect(t, Config{URL: hs.URL})
	_, err := ts.Tools(context.Background())
	require.NoError(t, err)
	methods := log.list()
	require.NotEmpty(t, methods)
	require.Equal(t, "initialize", methods[0], "methods: %v", methods)
	require.NotContains(t, methods, "server/discover")
	require.Equal(t, ProtocolVersion, ts.current().cs.InitializeResult().ProtocolVersion)
}
