package spec_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

// escape is one way a path in a project file may try to reach outside
// the project: setup prepares the project folder (with an outside folder
// beside it) and returns the path to write and the options to load with.
type escape struct {
	name    string
	setup   func(t *testing.T, project, outside string) (string, spec.Options)
	wantErr error
	// msg is a part of the error message.
	msg string
}

var escapes = []escape{
	{
		name: "traversal",
		setup: func(t *testing.T, project, outside string) (string, spec.Options) {
			return "../outside/secret.txt", spec.Options{}
		},
		wantErr: spec.ErrOutsideProject, msg: "climbs out",
	},
	{
		name: "absolute path",
		setup: func(t *testing.T, project, outside string) (string, spec.Options) {
			return filepath.Join(outside, "secret.txt"), spec.Options{}
		},
		wantErr: spec.ErrOutsideProject, msg: "is an absolute path",
	},
	{
		name: "proc",
		setup: func(t *testing.T, project, outside string) (string, spec.Options) {
			return "/proc/self/environ", spec.Options{}
		},
		wantErr: spec.ErrOutsideProject, msg: "is an absolute path",
	},
	{
		name: "symlink out",
		setup: func(t *testing.T, project, outside string) (string, spec.Options) {
			require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(project, "link.txt")))
			return "link.txt", spec.Options{}
		},
		wantErr: spec.ErrOutsideProject, msg: "symbolic link",
	},
	{
		name: "symlinked folder out",
		setup: func(t *testing.T, project, outside string) (string, spec.Options) {
			require.NoError(t, os.Symlink(outside, filepath.Join(project, "docs")))
			return "docs/secret.txt", spec.Options{}
		},
		wantErr: spec.ErrOutsideProject, msg: "symbolic link",
	},
	{
		name: "device",
		setup: func(t *testing.T, project, outside string) (string, spec.Options) {
			// A widened root (a trusted setup) still reads regular files only.
			rel, err := filepath.Rel(project, "/dev/zero")
			require.NoError(t, err)
			return rel, spec.Options{Root: "/"}
		},
		wantErr: spec.ErrNotRegular, msg: "is a device",
	},
	{
		name: "fifo",
		setup: func(t *testing.T, project, outside string) (string, spec.Options) {
			require.NoError(t, syscall.Mkfifo(filepath.Join(project, "pipe"), 0o600))
			return "pipe", spec.Options{}
		},
		wantErr: spec.ErrNotRegular, msg: "is a FIFO",
	},
	{
		name: "folder",
		setup: func(t *testing.T, project, outside string) (string, spec.Options) {
			require.NoError(t, os.Mkdir(filepath.Join(project, "sub"), 0o755))
			return "sub", spec.Options{}
		},
		wantErr: spec.ErrNotRegular, msg: "is a folder",
	},
	{
		name: "oversized",
		setup: func(t *testing.T, project, outside string) (string, spec.Options) {
			require.NoError(t, os.WriteFile(filepath.Join(project, "big.txt"), make([]byte, spec.DefaultMaxFileBytes+1), 0o644))
			return "big.txt", spec.Options{}
		},
		wantErr: spec.ErrTooLarge, msg: "more than the limit of 1048576",
	},
	{
		name: "over a smaller limit",
		setup: func(t *testing.T, project, outside string) (string, spec.Options) {
			require.NoError(t, os.WriteFile(filepath.Join(project, "mid.txt"), make([]byte, 100), 0o644))
			return "mid.txt", spec.Options{MaxFileBytes: 99}
		},
		wantErr: spec.ErrTooLarge, msg: "more than the limit of 99",
	},
}

// layout makes a project folder and an outside folder beside it holding
// secret.txt, and returns both.
func layout(t *testing.T) (project, outside string) {
	t.Helper()
	base := t.TempDir()
	project, outside = filepath.Join(base, "project"), filepath.Join(base, "outside")
	require.NoError(t, os.Mkdir(project, 0o755))
	require.NoError(t, os.Mkdir(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("OPENAI_API_KEY=sk-secret"), 0o644))
	return project, outside
}

// fileFields are the keys of a loom file that name a file: the YAML for
// one agent naming p, and the field's path.
var fileFields = []struct {
	field string
	yaml  func(p string) string
}{
	{"agents.a.instructions_file", func(p string) string { return "  a:\n    type: ai\n    instructions_file: " + p + "\n" }},
	{"agents.a.input_schema", func(p string) string { return "  a:\n    type: ai\n    input_schema: " + p + "\n" }},
	{"agents.a.output_schema", func(p string) string { return "  a:\n    type: ai\n    output_schema: " + p + "\n" }},
	{"agents.a.instructions_file", func(p string) string {
		return "  a:\n    type: code_execution\n    instructions_file: " + p + "\n"
	}},
	{"agents.a.code_file", func(p string) string { return "  a:\n    type: function\n    code_file: " + p + "\n" }},
	{"agents.a.input_schema", func(p string) string {
		return "  a:\n    type: function\n    code: input\n    input_schema: " + p + "\n"
	}},
}

func TestFilesStayInTheProject(t *testing.T) {
	for _, f := range fileFields {
		for _, esc := range escapes {
			t.Run(f.field+"/"+esc.name, func(t *testing.T) {
				project, outside := layout(t)
				p, o := esc.setup(t, project, outside)
				path := filepath.Join(project, "loom.yaml")
				src := "version: loom/v1\nagents:\n" + f.yaml(p)
				require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
				done := make(chan error, 1)
				go func() {
					_, err := spec.Validate(path, nil, spec.Registry{}, o)
					done <- err
				}()
				err := <-done // a FIFO that blocked would hang here
				require.ErrorIs(t, err, tcErr(esc))
				var errs spec.Errors
				require.ErrorAs(t, err, &errs)
				require.Len(t, errs, 1, err.Error())
				e := errs[0]
				require.Equal(t, f.field, e.Path)
				require.Equal(t, strings.Count(src, "\n"), e.Line)
				require.Contains(t, e.Msg, p)
				require.Contains(t, e.Msg, esc.msg)
				require.NotEmpty(t, e.Hint)
				require.NotContains(t, err.Error(), "sk-secret")
				// Load (what run builds from) refuses it alike.
				_, lerr := spec.LoadWith(path, spec.Registry{}, o)
				require.Equal(t, err.Error(), lerr.Error())
			})
		}
	}
}

func tcErr(e escape) error { return e.wantErr }

func TestInsideTheProjectIsRead(t *testing.T) {
	project, _ := layout(t)
	require.NoError(t, os.MkdirAll(filepath.Join(project, "prompts", "deep"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, "prompts", "deep", "a.md"), []byte("Be brief."), 0o644))
	// A symbolic link that stays inside is followed.
	require.NoError(t, os.Symlink(filepath.Join("prompts", "deep", "a.md"), filepath.Join(project, "a.md")))
	for _, p := range []string{"prompts/deep/a.md", "./prompts/../prompts/deep/a.md", "a.md"} {
		path := filepath.Join(project, "loom.yaml")
		require.NoError(t, os.WriteFile(path, []byte("version: loom/v1\nagents:\n  a:\n    type: ai\n    instructions_file: "+p+"\n"), 0o644))
		d, err := spec.Parse(path)
		require.NoError(t, err, p)
		require.Equal(t, "Be brief.", d.Entry("a").Config.(*spec.AI).Instructions)
	}
}

func TestWiderRootReadsAParentFolder(t *testing.T) {
	project, outside := layout(t)
	path := filepath.Join(project, "loom.yaml")
	require.NoError(t, os.WriteFile(path, []byte("version: loom/v1\nagents:\n  a:\n    type: ai\n    instructions_file: ../outside/secret.txt\n"), 0o644))
	_, err := spec.ParseWith(path, nil, spec.Options{})
	require.ErrorIs(t, err, spec.ErrOutsideProject)
	d, err := spec.ParseWith(path, nil, spec.Options{Root: filepath.Dir(outside)})
	require.NoError(t, err)
	require.Contains(t, d.Entry("a").Config.(*spec.AI).Instructions, "sk-secret")
}

func TestTheFileItselfIsBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "loom.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, err := spec.Parse(fifo)
	require.ErrorIs(t, err, spec.ErrInvalid)
	require.Contains(t, err.Error(), "is a FIFO")
	_, err = spec.Parse("/dev/zero")
	require.Contains(t, err.Error(), "is a device")
	big := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(big, []byte("version: loom/v1\n#"+strings.Repeat("x", spec.DefaultMaxFileBytes)), 0o644))
	_, err = spec.Parse(big)
	require.Contains(t, err.Error(), "more than the limit of 1048576")
}

// aigneFields are the places an AIGNE project names a file.
var aigneFields = []struct {
	name string
	// write writes the project naming p; the error is at file:line.
	write func(t *testing.T, dir, p string) (file string, line int)
}{
	{"agent file", func(t *testing.T, dir, p string) (string, int) {
		writeFile(t, filepath.Join(dir, "aigne.yaml"), "chat_model: openai:gpt-4o-mini\nagents:\n  - "+p+"\n")
		return "aigne.yaml", 3
	}},
	{"instructions url", func(t *testing.T, dir, p string) (string, int) {
		writeFile(t, filepath.Join(dir, "aigne.yaml"), "agents:\n  - chat.yaml\n")
		writeFile(t, filepath.Join(dir, "chat.yaml"), "type: ai\nname: chat\ninstructions:\n  url: "+p+"\n")
		return "chat.yaml", 4
	}},
	{"schema", func(t *testing.T, dir, p string) (string, int) {
		writeFile(t, filepath.Join(dir, "aigne.yaml"), "agents:\n  - chat.yaml\n")
		writeFile(t, filepath.Join(dir, "chat.yaml"), "type: ai\nname: chat\noutput_schema: "+p+"\n")
		return "chat.yaml", 3
	}},
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestAIGNEFilesStayInTheProject(t *testing.T) {
	for _, f := range aigneFields {
		for _, esc := range escapes {
			t.Run(f.name+"/"+esc.name, func(t *testing.T) {
				project, outside := layout(t)
				p, o := esc.setup(t, project, outside)
				file, line := f.write(t, project, p)
				_, err := spec.ImportAIGNEWith(project, o)
				require.ErrorIs(t, err, esc.wantErr)
				var errs spec.Errors
				require.ErrorAs(t, err, &errs)
				require.Len(t, errs, 1, err.Error())
				require.Equal(t, filepath.Join(project, file), errs[0].File)
				require.Equal(t, line, errs[0].Line)
				require.Contains(t, errs[0].Msg, esc.msg)
				require.NotContains(t, err.Error(), "sk-secret")
			})
		}
	}
}
