package mcp

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	conformance "github.com/loomwork/loom/internal/mcpconformance"
)

// nodeModules is where .ci/mcp.sh installs the pinned npm packages.
func nodeModules(t testing.TB) string { return conformance.NodeModules(t) }

// everythingScript is server-everything's entry point.
func everythingScript(t testing.TB) string {
	return filepath.Join(nodeModules(t), "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

// stdioConfig starts server-everything over stdio; pidFile, when set,
// receives the server's process id at each start.
func stdioConfig(t *testing.T, pidFile string) Config {
	script := everythingScript(t)
	if pidFile == "" {
		return Config{Command: []string{"node", script, "stdio"}}
	}
	return Config{Command: []string{"sh", "-c", `echo $$ > "$0"; exec node "$1" stdio`, pidFile, script}}
}

// httpServer is server-everything over streamable HTTP on a free port.
type httpServer struct {
	t      *testing.T
	script string
	port   int
	cmd    *exec.Cmd
}

// startHTTP starts server-everything over streamable HTTP and waits until
// it answers.
func startHTTP(t *testing.T) *httpServer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	s := &httpServer{t: t, script: everythingScript(t), port: port}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *httpServer) url() string { return fmt.Sprintf("http://127.0.0.1:%d/mcp", s.port) }

func (s *httpServer) start() {
	s.cmd = exec.Command("node", s.script, "streamableHttp")
	s.cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", s.port))
	require.NoError(s.t, s.cmd.Start())
	require.Eventually(s.t, func() bool {
		resp, err := http.Get(s.url())
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return true
	}, 30*time.Second, 50*time.Millisecond, "server-everything did not start listening")
}

func (s *httpServer) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// transports runs fn over stdio and over streamable HTTP.
func transports(t *testing.T, fn func(t *testing.T, cfg Config)) {
	t.Run("stdio", func(t *testing.T) { fn(t, stdioConfig(t, "")) })
	t.Run("http", func(t *testing.T) { fn(t, Config{URL: startHTTP(t).url()}) })
}

// connect dials cfg and closes the toolset at the test's end.
func connect(t *testing.T, cfg Config) *Toolset {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ts, err := Connect(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ts.Close() })
	return ts
}

// listCount is how many times ts read the tool list.
func (ts *Toolset) listCount() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.lists
}

// current is ts's session.
func (ts *Toolset) current() *conn {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.conn
}
