package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// fileEscapes are the ways an instructions_file may try to leave the
// project: each prepares the project folder (an outside folder with a
// secret beside it) and returns the path to write, extra flags and what
// the error says.
var fileEscapes = []struct {
	name  string
	setup func(t *testing.T, project, outside string) (path string, flags []string)
	want  string
}{
	{"traversal", func(t *testing.T, project, outside string) (string, []string) {
		return "../outside/secret.txt", nil
	}, "climbs out: outside the project folder"},
	{"absolute path", func(t *testing.T, project, outside string) (string, []string) {
		return filepath.Join(outside, "secret.txt"), nil
	}, "is an absolute path: outside the project folder"},
	{"proc", func(t *testing.T, project, outside string) (string, []string) {
		return "/proc/self/environ", nil
	}, "is an absolute path: outside the project folder"},
	{"symlink out", func(t *testing.T, project, outside string) (string, []string) {
		require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(project, "link.md")))
		return "link.md", nil
	}, "leads out through a symbolic link"},
	{"device under a wider root", func(t *testing.T, project, outside string) (string, []string) {
		rel, err := filepath.Rel(project, "/dev/zero")
		require.NoError(t, err)
		return rel, []string{"--root", "/"}
	}, "is a device: not a regular file"},
	{"fifo", func(t *testing.T, project, outside string) (string, []string) {
		require.NoError(t, syscall.Mkfifo(filepath.Join(project, "pipe.md"), 0o600))
		return "pipe.md", nil
	}, "is a FIFO: not a regular file"},
	{"oversized", func(t *testing.T, project, outside string) (string, []string) {
		require.NoError(t, os.WriteFile(filepath.Join(project, "big.md"), make([]byte, 1<<20+1), 0o644))
		return "big.md", nil
	}, "more than the limit of 1048576"},
}

// TestFilesStayInTheProject: validate, run, mcp serve and trust refuse a
// file naming a file outside its project, naming the field and the path.
func TestFilesStayInTheProject(t *testing.T) {
	fakeOpenAI(t)
	for _, esc := range fileEscapes {
		for _, cmd := range [][]string{{"validate"}, {"run", "-i", "hi"}, {"mcp", "serve"}, {"trust"}} {
			t.Run(esc.name+"/"+cmd[0], func(t *testing.T) {
				base := t.TempDir()
				project, outside := filepath.Join(base, "project"), filepath.Join(base, "outside")
				require.NoError(t, os.Mkdir(project, 0o755))
				require.NoError(t, os.Mkdir(outside, 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("OPENAI_API_KEY=sk-secret"), 0o644))
				p, flags := esc.setup(t, project, outside)
				file := filepath.Join(project, "loom.yaml")
				require.NoError(t, os.WriteFile(file, []byte("version: loom/v1\nmodel: openai:gpt-test\nagents:\n  helper:\n    type: ai\n    instructions_file: "+p+"\n"), 0o644))
				args := append(append(append([]string{}, cmd...), file, "--db", filepath.Join(base, "cp.db")), flags...)
				if cmd[0] == "validate" || cmd[0] == "trust" {
					args = append(append(append([]string{}, cmd...), file), flags...)
				}
				var res result
				if cmd[0] == "mcp" {
					var out, errs strings.Builder
					res.code = run(t.Context(), args, &out, &errs)
					res.stdout, res.stderr = out.String(), errs.String()
				} else {
					res = call(t, false, "", args...)
				}
				require.Equal(t, exitInvalid, res.code, res.stderr)
				require.Contains(t, res.stderr, file+":6:24: agents.helper.instructions_file: cannot read "+p+": ")
				require.Contains(t, res.stderr, esc.want)
				require.NotContains(t, res.stdout+res.stderr, "sk-secret")
				if len(flags) > 0 {
					require.Contains(t, res.stderr, "loom: --root /: the file may name files anywhere under /", "a wider root is never silent")
				}
			})
		}
	}
}

// TestAIGNEFolderStaysInTheProject: an AIGNE project's agent files are
// read from inside its folder only.
func TestAIGNEFolderStaysInTheProject(t *testing.T) {
	base := t.TempDir()
	project := filepath.Join(base, "project")
	require.NoError(t, os.Mkdir(project, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "evil.yaml"), []byte("type: ai\nname: evil\ninstructions: x\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(project, "aigne.yaml"), []byte("agents:\n  - ../evil.yaml\n"), 0o644))
	res := call(t, false, "", "validate", project)
	require.Equal(t, exitInvalid, res.code)
	require.Contains(t, res.stderr, "climbs out: outside the project folder")
}
