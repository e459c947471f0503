package playground_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// TestSaveKeepsFilesInTheProject: a Save naming a file outside the
// project (or one that is not a regular file, or too large) is refused
// with the field, the path and why, and the file on disk is left alone.
func TestSaveKeepsFilesInTheProject(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir string) string
		want  string
	}{
		{"traversal", func(t *testing.T, dir string) string { return "../secret.txt" }, "climbs out: outside the project folder"},
		{"absolute path", func(t *testing.T, dir string) string { return "/etc/hostname" }, "is an absolute path"},
		{"proc", func(t *testing.T, dir string) string { return "/proc/self/environ" }, "is an absolute path"},
		{"symlink out", func(t *testing.T, dir string) string {
			require.NoError(t, os.Symlink(filepath.Join(filepath.Dir(dir), "secret.txt"), filepath.Join(dir, "link.md")))
			return "link.md"
		}, "leads out through a symbolic link"},
		{"device", func(t *testing.T, dir string) string {
			require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.md")))
			return "zero.md"
		}, "outside the project folder"},
		{"fifo", func(t *testing.T, dir string) string {
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o600))
			return "pipe.md"
		}, "is a FIFO: not a regular file"},
		{"oversized", func(t *testing.T, dir string) string {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "big.md"), make([]byte, 1<<20+1), 0o644))
			return "big.md"
		}, "more than the limit of 1048576"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pg, web, path := newServer(t, modeltest.New(t))
			dir := filepath.Dir(path)
			require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(dir), "secret.txt"), []byte("sk-secret"), 0o644))
			p := c.setup(t, dir)
			src := "version: loom/v1\nmodel: scripted\nentry: helper\nagents:\n  helper:\n    type: ai\n    instructions_file: " + p + "\n"
			code, body := do(t, http.MethodPut, web.URL+"/api/yaml?token="+pg.Token(), yamlBody(t, src))
			require.Equal(t, http.StatusUnprocessableEntity, code, body)
			var got struct {
				Errors []struct {
					Line, Col int
					Path, Msg string
				}
			}
			require.NoError(t, json.Unmarshal([]byte(body), &got))
			require.Len(t, got.Errors, 1, body)
			require.Equal(t, 7, got.Errors[0].Line)
			require.Equal(t, "agents.helper.instructions_file", got.Errors[0].Path)
			require.Contains(t, got.Errors[0].Msg, "cannot read "+p)
			require.Contains(t, got.Errors[0].Msg, c.want)
			require.NotContains(t, body, "sk-secret")
			onDisk, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, file, string(onDisk), "nothing saved")
		})
	}
}

// TestSaveChecksAsValidateDoes: the playground's Save refuses each file of
// the bad-file corpus (spec/testdata/bad) with the errors loom validate
// gives, one per "# want:" line.
func TestSaveChecksAsValidateDoes(t *testing.T) {
	files, err := filepath.Glob("../spec/testdata/bad/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		if filepath.Base(f) == "unknown-provider.yaml" {
			continue // the playground's registry opens every model reference
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			pg, web, path := newServer(t, modeltest.New(t))
			helper, err := os.ReadFile("../spec/testdata/bad/helper.md")
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(path), "helper.md"), helper, 0o644))
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			var want []string
			for _, l := range strings.Split(string(src), "\n") {
				if w, ok := strings.CutPrefix(l, "# want: "); ok {
					want = append(want, w)
				}
			}
			code, body := do(t, http.MethodPut, web.URL+"/api/yaml?token="+pg.Token(), yamlBody(t, string(src)))
			require.Equal(t, http.StatusUnprocessableEntity, code, body)
			var got struct {
				Errors []struct {
					Line      int
					Path, Msg string
				}
			}
			require.NoError(t, json.Unmarshal([]byte(body), &got))
			require.Len(t, got.Errors, len(want), body)
			for i, w := range want {
				require.Positive(t, got.Errors[i].Line)
				require.True(t, strings.HasPrefix(got.Errors[i].Path+": "+got.Errors[i].Msg, w), "got %s: %s\nwant %s…", got.Errors[i].Path, got.Errors[i].Msg, w)
			}
		})
	}
}
