package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// proseName finds a qualified name in a README's text, as agent.NewAI,
// sandbox.IsolatedConfig.WorkerCommand or mcpserver.New; not a path's
// tail (vector/sqlite.Open is a package of its own) nor a name cut short
// (model.With… stands for a family).
var proseName = regexp.MustCompile(`(?:^|[^\w/.])([a-z][a-z0-9]*)\.([A-Z]\w*(?:\.[A-Z]\w*)?)\b([^…\w]|$)`)

// aliases are the names the READMEs import packages under.
var aliases = map[string]string{"mcpserver": modulePath + "/mcp/server"}

// TestREADMENamesExist: every loom name the READMEs and the packages'
// doc.go overviews mention in their prose and examples (pkg.Name,
// pkg.Type.Method, pkg.Type.Field; a doc link is TestDocLinksResolve's) is
// one the package declares, so a rename leaves no doc behind.
func TestREADMENamesExist(t *testing.T) {
	root := moduleRoot(t)
	dirs := packageDirs(t, root)
	pkgs := loomPackages(dirs)
	for alias, ip := range aliases {
		pkgs[alias] = ip
	}
	names := map[string]map[string]bool{}
	var bad []string
	checked := 0
	overviews, err := filepath.Glob(filepath.Join(root, "*", "doc.go"))
	require.NoError(t, err)
	more, err := filepath.Glob(filepath.Join(root, "*", "*", "doc.go"))
	require.NoError(t, err)
	for _, path := range append(append(readmes(t, root), overviews...), more...) {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, path)
		for _, m := range proseName.FindAllStringSubmatch(string(b), -1) {
			ip, ok := pkgs[m[1]]
			if !ok || strings.Contains(ip, "/internal/") || strings.Contains(ip, "/examples/") {
				continue
			}
			if names[ip] == nil {
				p := parsedPackage(t, dirs[ip], ip)
				require.NotNil(t, p, ip)
				names[ip] = declared(p)
			}
			checked++
			if !names[ip][m[2]] {
				bad = append(bad, rel+": "+m[1]+"."+m[2]+" names nothing in "+ip)
			}
		}
	}
	require.Greater(t, checked, 50, "the READMEs' names are found")
	require.Empty(t, bad, "README names that no longer exist")
}

// TestProseNameFinder: what the finder takes for a name.
func TestProseNameFinder(t *testing.T) {
	var got []string
	for _, m := range proseName.FindAllStringSubmatch("`agent.NewAI`, sandbox.IsolatedConfig.WorkerCommand; vector/sqlite.Open, model.With…, x.agent.Y, e.g. mcpserver.New(", -1) {
		got = append(got, m[1]+"."+m[2])
	}
	require.Equal(t, []string{"agent.NewAI", "sandbox.IsolatedConfig.WorkerCommand", "mcpserver.New"}, got)
}
