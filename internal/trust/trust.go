// Package trust records which loom files the user allowed to start
// commands and reach URLs, as direnv's allow does: a grant is the SHA-256
// of the file's absolute path and of the canonical list of the commands
// and URLs it would start or reach, with the SHA-256 of each project file
// a command names (spec.Doc.TrustLines), kept one a line in loom/trust in
// the user's config directory (a 0600 file in a 0700 folder). Changing a
// command, its arguments, a script it runs from the project, a URL or the
// headers sent to it changes the digest, so the grant no longer holds;
// editing anything else (instructions, models, agents) keeps it.
package trust

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// FileName is the store's name in loom's folder of the config directory.
const FileName = "trust"

// ErrUntrusted is returned for a file whose commands the user has not
// trusted.
var ErrUntrusted = errors.New("the file's commands are not trusted")

// Store is the record of grants.
type Store struct {
	path string
	mu   sync.Mutex
}

// Open returns the store in the user's config directory
// (os.UserConfigDir, which honours $XDG_CONFIG_HOME). Open it before a
// project's .env.local is read, so a file cannot point it elsewhere.
func Open() (*Store, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil, fmt.Errorf("trust: no config directory to keep grants in: %w", err)
	}
	return At(filepath.Join(dir, "loom", FileName)), nil
}

// At returns the store kept in the file at path.
func At(path string) *Store { return &Store{path: path} }

// Path returns the file the store is kept in.
func (s *Store) Path() string { return s.path }

// Digest is the grant of the file at path with reaches (the canonical
// lines of what it starts and reaches): hex SHA-256 over the absolute
// path and each line.
func Digest(path string, reaches []string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	h := sha256.New()
	fmt.Fprintf(h, "loom trust v1\x00%s\x00", path)
	for _, r := range reaches {
		fmt.Fprintf(h, "%s\x00", r)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Trusted reports whether the user granted the file at path with exactly
// these reaches. A file that reaches nothing needs no grant.
func (s *Store) Trusted(path string, reaches []string) (bool, error) {
	if len(reaches) == 0 {
		return true, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	want := Digest(path, reaches)
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("trust: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("trust: %w", err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o022 != 0 {
		return false, fmt.Errorf("trust: %s is writable by others or not a regular file: remove it and trust your files again", s.path)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		digest, _, _ := strings.Cut(sc.Text(), " ")
		if digest == want {
			return true, nil
		}
	}
	return false, sc.Err()
}

// Allow records the grant of the file at path with these reaches.
func (s *Store) Allow(path string, reaches []string) error {
	if len(reaches) == 0 {
		return nil
	}
	if ok, err := s.Trusted(path, reaches); err != nil || ok {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	abs, _ := filepath.Abs(path)
	line := fmt.Sprintf("%s %s\n", Digest(path, reaches), strings.ReplaceAll(abs, "\n", " "))
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return fmt.Errorf("trust: %w", err)
	}
	return f.Close()
}
