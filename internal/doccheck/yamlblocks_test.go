package doccheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/loomwork/loom/model/providers" // the providers the blocks name
	"github.com/loomwork/loom/spec"
)

var yamlBlock = regexp.MustCompile("(?ms)^```ya?ml\n(.*?)^```")

// yamlBlocks returns the loom/v1 examples the docs show: the READMEs'
// yaml blocks and the YAML of the spec package's doc, by where they are.
func yamlBlocks(t *testing.T, root string) map[string]string {
	t.Helper()
	blocks := map[string]string{}
	for _, path := range readmes(t, root) {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, path)
		for i, m := range yamlBlock.FindAllStringSubmatch(string(b), -1) {
			blocks[fmt.Sprintf("%s yaml block %d", rel, i+1)] = m[1]
		}
	}
	doc, err := os.ReadFile(filepath.Join(root, "spec", "doc.go"))
	require.NoError(t, err)
	var lines []string
	for _, l := range strings.Split(string(doc), "\n") {
		if y, ok := strings.CutPrefix(l, "//\t"); ok {
			lines = append(lines, y)
		} else if len(lines) > 0 {
			break
		}
	}
	require.NotEmpty(t, lines, "the spec package's doc shows a file")
	blocks["spec/doc.go"] = strings.Join(lines, "\n") + "\n"
	return blocks
}

// missingFile reports whether e is only about a file the block names that
// is not beside it: the docs show files, not the projects around them.
func missingFile(e *spec.Error) bool {
	return strings.Contains(e.Msg, "no such file or directory") || strings.Contains(e.Msg, "matches no file")
}

// validateBlock checks a doc's YAML as loom validate checks a file, a
// fragment (no version:, or no agents:) completed with what every file
// has, and returns its problems but missing files.
func validateBlock(t *testing.T, src string) []string {
	t.Helper()
	if !regexp.MustCompile(`(?m)^agents:`).MatchString(src) {
		src = "agents: {a: {type: ai}}\n" + src
	}
	if !regexp.MustCompile(`(?m)^version:`).MatchString(src) {
		src = "version: loom/v1\n" + src
	}
	path := filepath.Join(t.TempDir(), "loom.yaml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o600))
	_, err := spec.Validate(path, nil, spec.Registry{}, spec.Options{DefaultModel: "openai"})
	var errs spec.Errors
	if err != nil && !errors.As(err, &errs) {
		return []string{err.Error()}
	}
	var problems []string
	for _, e := range errs {
		if !missingFile(e) {
			problems = append(problems, e.Error())
		}
	}
	return problems
}

// TestYAMLBlocksValidate: every loom/v1 file or fragment the READMEs and
// the spec package's doc show passes loom validate's check (spec.Validate),
// but for the files it names, which the docs do not show.
func TestYAMLBlocksValidate(t *testing.T) {
	blocks := yamlBlocks(t, moduleRoot(t))
	require.GreaterOrEqual(t, len(blocks), 3)
	for name, src := range blocks {
		t.Run(name, func(t *testing.T) {
			require.Empty(t, validateBlock(t, src), "the block no longer matches the loom/v1 format:\n%s", src)
		})
	}
	// The check catches what it is for: an unknown key, a wrong
	// combination, a bad reference.
	for _, stale := range []string{
		"agents:\n  a: {type: ai, instrutions: hi}\n",
		"agents:\n  fs: {type: mcp, command: [x], headers: {A: b}}\n",
		"agents:\n  a: {type: ai, tools: [nobody]}\n",
	} {
		require.NotEmpty(t, validateBlock(t, stale), "a stale block passes:\n%s", stale)
	}
}
