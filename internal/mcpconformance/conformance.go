// Package mcpconformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, installed by .ci/mcp.sh with the
// Node 22 it needs) against a server, for the tests of mcp, mcp/server and
// cmd/loom, and finds the npm packages those tests run ([NodeModules]).
package mcpconformance

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// suite returns Node 22 and the conformance suite's entry point: from
// $LOOM_NODE22 and $LOOM_MCP_CONFORMANCE when set, else as .ci/mcp.sh
// installs them in .ci/mcp/node_modules. It skips the test when they are
// missing, except in CI.
func suite(t *testing.T) (node, script string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", ".ci", "mcp", "node_modules")
	node = cmp.Or(os.Getenv("LOOM_NODE22"), filepath.Join(dir, ".bin", "node"))
	script = cmp.Or(os.Getenv("LOOM_MCP_CONFORMANCE"), filepath.Join(dir, "@modelcontextprotocol", "conformance", "dist", "index.js"))
	for _, f := range []string{node, script} {
		if _, err := os.Stat(f); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the MCP conformance suite is missing (%v): .ci/mcp.sh installs it with npm ci in .ci/mcp", err)
			}
			t.Skipf("MCP conformance suite not installed (%s missing): run `npm ci --prefix .ci/mcp`, or set LOOM_MCP_CONFORMANCE to the suite's dist/index.js and LOOM_NODE22 to a Node 22 binary, to run this test", f)
		}
	}
	return node, script
}

// NodeModules is where .ci/mcp.sh installs the pinned npm packages
// (server-everything, the TypeScript SDK and client). It skips the test
// when they or node are missing, except in CI.
func NodeModules(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", ".ci", "mcp", "node_modules")
	_, err := os.Stat(filepath.Join(dir, "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	_, nodeErr := exec.LookPath("node")
	if err != nil || nodeErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the MCP test servers are missing (%v, %v): .ci/mcp.sh runs npm ci in .ci/mcp", err, nodeErr)
		}
		t.Skip("MCP test servers not installed: run `npm ci --prefix .ci/mcp` to run this test")
	}
	return dir
}

// Check is one check of a scenario, as the suite writes it.
type Check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// RunServer runs every server scenario of the suite against url and
// returns each scenario's checks.
func RunServer(t *testing.T, url string) map[string][]Check {
	t.Helper()
	return run(t, "server", []string{"--url", url}, func(rel, s string) bool {
		name := filepath.Base(rel)
		return strings.HasPrefix(name, "server-"+s) || strings.HasPrefix(name, s)
	})
}

// RunClient runs every client scenario of the suite, auth included (the
// suite runs its own authorization servers), with the client program
// command, and returns each scenario's checks.
func RunClient(t *testing.T, command string) map[string][]Check {
	t.Helper()
	return run(t, "client", []string{"--command", command}, func(rel, s string) bool {
		return strings.HasPrefix(rel, s+"-")
	})
}

// run lists the suite's scenarios of a kind (server or client), runs them
// all with args, and reads each scenario's checks.json from the folder
// whose path (relative to the results) matches it.
func run(t *testing.T, kind string, args []string, matches func(rel, scenario string) bool) map[string][]Check {
	t.Helper()
	node, script := suite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	list, err := exec.CommandContext(ctx, node, script, "list", "--"+kind).Output()
	require.NoError(t, err)
	var scenarios []string
	for _, l := range strings.Split(string(list), "\n") {
		if l, ok := strings.CutPrefix(strings.TrimSpace(l), "- "); ok {
			scenarios = append(scenarios, strings.Fields(l)[0])
		}
	}
	require.NotEmpty(t, scenarios)
	dir := t.TempDir()
	out := filepath.Join(dir, "results")
	cmd := exec.CommandContext(ctx, node, append(append([]string{script, kind}, args...), "--suite", "all", "-o", out)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.Dir = dir
	log, _ := cmd.CombinedOutput() // failing scenarios exit non-zero; the results say which
	results := map[string][]Check{}
	err = filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var checks []Check
		if err := json.Unmarshal(b, &checks); err != nil {
			return err
		}
		rel, err := filepath.Rel(out, filepath.Dir(path))
		if err != nil {
			return err
		}
		best := "" // the longest name that matches: a scenario's name may begin another's
		for _, s := range scenarios {
			if len(s) > len(best) && matches(filepath.ToSlash(rel), s) {
				best = s
			}
		}
		if best != "" {
			results[best] = checks
		}
		return nil
	})
	require.NoError(t, err)
	for _, s := range scenarios {
		if _, ok := results[s]; !ok {
			t.Errorf("scenario %s wrote no results; suite output:\n%s", s, log)
		}
	}
	return results
}

// Require fails for every scenario with a failed check, except those in
// known, each named with the reason it cannot pass; a known scenario that
// passes fails too, so the list stays true.
func Require(t *testing.T, results map[string][]Check, known map[string]string) {
	t.Helper()
	names := make([]string, 0, len(results))
	for n := range results {
		names = append(names, n)
	}
	sort.Strings(names)
	passed := 0
	for _, n := range names {
		var failed []string
		for _, c := range results[n] {
			switch c.Status {
			case "FAILURE":
				failed = append(failed, c.ID+": "+cmp.Or(c.ErrorMessage, c.Description))
			case "WARNING":
				t.Logf("scenario %s: warning %s: %s", n, c.ID, c.ErrorMessage)
			}
		}
		switch why, ok := known[n]; {
		case len(failed) == 0:
			passed++
			if ok {
				t.Errorf("scenario %s passes but is listed as unable to (%s): remove it from the list", n, why)
			}
		case ok:
			t.Logf("scenario %s fails, as listed: %s", n, why)
		default:
			t.Errorf("scenario %s fails:\n  %s", n, strings.Join(failed, "\n  "))
		}
	}
	t.Logf("%d of %d scenarios pass", passed, len(names))
}
