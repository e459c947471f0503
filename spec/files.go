package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// DefaultMaxFileBytes is the most bytes read from any one file a project
// names (instructions, code, schemas, AIGNE agent files) and from the
// project file itself, unless [Options].MaxFileBytes says otherwise: 1 MiB.
const DefaultMaxFileBytes = 1 << 20

// Errors a file a project names is refused with; each is wrapped in an
// [*Error] naming the YAML field, the path and the limit.
var (
	// ErrOutsideProject: the path is absolute, climbs out with "..", or
	// is (or passes through) a symbolic link that leads outside the
	// project's folder.
	ErrOutsideProject = errors.New("outside the project folder")
	// ErrNotRegular: the path is a device, a FIFO, a socket or a folder.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file is larger than the read limit.
	ErrTooLarge = errors.New("file too large")
)

// Options are the settings of [ParseWith], [Validate] and [LoadWith].
// Model and DefaultModel apply to [Validate] and [LoadWith] only.
// The zero Options confine reads to the file's folder, 1 MiB each.
type Options struct {
	// Root is the folder every path in the file must stay inside; ""
	// means the loom file's folder. Widening it (a parent folder) is for
	// trusted setups only: callers should say so where the user sees it,
	// as loom's --root flag does.
	Root string
	// MaxFileBytes bounds each file read; 0 or negative means
	// DefaultMaxFileBytes.
	MaxFileBytes int64
	// Model, when set, replaces the file's model: (as loom's --model).
	Model string
	// DefaultModel is the model when neither Model nor the file names one.
	DefaultModel string
}

func (o Options) limit() int64 {
	if o.MaxFileBytes <= 0 {
		return DefaultMaxFileBytes
	}
	return o.MaxFileBytes
}

// projectFiles reads the files a project names, confined to its root.
type projectFiles struct {
	root  string // absolute
	limit int64
}

func newProjectFiles(path string, o Options) projectFiles {
	root := o.Root
	if root == "" {
		root = filepath.Dir(path)
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return projectFiles{root: root, limit: o.limit()}
}

// read reads name, as written in a file in folder dir, from inside the
// root: relative, not climbing out, no symbolic link out, a regular file,
// at most limit bytes. A FIFO cannot block it: it is opened non-blocking
// and refused.
func (pf projectFiles) read(dir, name string) ([]byte, error) {
	rel, err := pf.inside(dir, name)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(pf.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return nil, unwrapPath(err)
		}
		// os.Root refuses a symbolic link that leads out.
		return nil, fmt.Errorf("%s leads out through a symbolic link: %w (%s)", name, ErrOutsideProject, pf.root)
	}
	defer f.Close()
	return readRegular(f, name, pf.limit)
}

// readRegular reads f, a regular file of at most limit bytes.
func readRegular(f *os.File, name string, limit int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, unwrapPath(err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s: %w", name, kindOf(st.Mode()), ErrNotRegular)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s has %d bytes, more than the limit of %d: %w", name, st.Size(), limit, ErrTooLarge)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, unwrapPath(err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s has more than the limit of %d bytes: %w", name, limit, ErrTooLarge)
	}
	return b, nil
}

// readFileBounded reads the file at path itself (a loom file or an AIGNE
// project's aigne.yaml, named by the user): a regular file of at most
// limit bytes.
func readFileBounded(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, unwrapPath(err)
	}
	defer f.Close()
	return readRegular(f, path, limit)
}

func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// fileHint is the hint of an error reading a file a project names.
func (pf projectFiles) hint(err error) string {
	switch {
	case errors.Is(err, ErrOutsideProject):
		return "name a file inside the project folder, by a relative path (a trusted setup may widen the folder: loom's --root, spec.Options.Root)"
	case errors.Is(err, ErrNotRegular):
		return "name a regular file"
	case errors.Is(err, ErrTooLarge):
		return fmt.Sprintf("files a project names are read up to %d bytes (spec.Options.MaxFileBytes)", pf.limit)
	}
	return fileHintDefault
}

// fileHintDefault is the hint of a file that is missing or unreadable.
const fileHintDefault = "paths are relative to the loom file's folder"

// sum returns the hex SHA-256 of name, as written in a file in folder
// dir, when it is a regular file inside the root; whatever its size.
func (pf projectFiles) sum(dir, name string) (string, bool) {
	if name == "" || filepath.IsAbs(name) || strings.Contains(name, "://") {
		return "", false
	}
	full, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(pf.root, full)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	root, err := os.OpenRoot(pf.root)
	if err != nil {
		return "", false
	}
	defer root.Close()
	f, err := root.OpenFile(rel, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// dir checks that name, as written in a file in folder dir, is a folder
// inside the root.
func (pf projectFiles) dir(dir, name string) (os.FileInfo, error) {
	st, err := pf.stat(dir, name)
	switch {
	case errors.Is(err, ErrOutsideProject) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission):
		return nil, unwrapPath(err)
	case err != nil:
		return nil, fmt.Errorf("%s leads out through a symbolic link: %w (%s)", name, ErrOutsideProject, pf.root)
	case !st.IsDir():
		return nil, fmt.Errorf("%s is not a folder: %w", name, ErrNotRegular)
	}
	return st, nil
}

// stat returns what the file name, as written in a file in folder dir,
// is, when it is inside the root.
func (pf projectFiles) stat(dir, name string) (os.FileInfo, error) {
	rel, err := pf.inside(dir, name)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(pf.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.Stat(rel)
}

// inside returns name, as written in a file in folder dir, relative to
// the root: refused when absolute or when it climbs out.
func (pf projectFiles) inside(dir, name string) (string, error) {
	if filepath.IsAbs(name) || filepath.VolumeName(name) != "" {
		return "", fmt.Errorf("%s is an absolute path: %w (%s)", name, ErrOutsideProject, pf.root)
	}
	full, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(pf.root, full)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", fmt.Errorf("%s climbs out: %w (%s)", name, ErrOutsideProject, pf.root)
	}
	return rel, nil
}
