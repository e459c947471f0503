package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Suffixes of the files in a spool folder: a writer creates its file as
// .tmp, renames it .live once it holds the file's lock, and renames it
// .spool when it closes; a reader sets a file it cannot decode aside as
// .corrupt.
const (
	spoolTmp     = ".tmp"
	spoolLive    = ".live"
	spoolDone    = ".spool"
	spoolCorrupt = ".corrupt"
)

// spoolCompactAt is how many files in the spool folder make [OpenSpool]
// ingest them into the database, so that a folder nobody reads stays
// bounded; the ingest runs while the program opens the spool, which the
// example CLIs and loom run do in the background.
const spoolCompactAt = 64

// staleTmp is the age after which a reader removes a .tmp file whose lock
// is free: its writer died between creating and renaming it, before it
// wrote anything.
const staleTmp = time.Hour

// SpoolDir returns the spool folder of the database at dbPath: dbPath
// with "-spool" appended, beside SQLite's own -wal and -shm files.
func SpoolDir(dbPath string) string { return dbPath + "-spool" }

// Spool records the traces of a short-lived process, such as a one-shot
// CLI run, without opening the database: each batch of parts is appended
// with one write to a file of the process's own in the database's spool
// folder ([SpoolDir]). The file is created exclusively and locked for the
// life of the process; [Spool.Close] renames it to its final name (or
// removes it when the process recorded nothing). Whoever opens the
// database ([Open], and so the viewer and long-lived writers) or reads its
// runs ([Store.Traces], [Store.Trace]) first ingests the spool folder, up
// to 256 files a transaction: finished files, and files whose writer died
// (its lock is free once it is gone, however it died) are stored and
// deleted; the frames a running writer has written so far are stored and
// the file left to it. Ingesting is idempotent (a part stored before is skipped),
// so a reader that dies between its commit and the deletion loses
// nothing and duplicates nothing. Retention applies when the spans are
// ingested.
//
// A Spool saves a short process the database's open, schema check, write
// transaction and WAL checkpoint; a long-lived process should write to
// the database itself ([Open]), where its runs show as they go. Spool
// files need file locks: where the system has none, [OpenSpool] fails
// with [ErrSpoolUnsupported]. A Spool is safe for concurrent use.
type Spool struct {
	path, dir string

	mu     sync.Mutex // guards the fields below
	f      *os.File
	name   string // the file's name without its suffix
	size   int64  // bytes of whole frames written
	frame  []byte
	closed bool
}

// OpenSpool opens a spool for the database cfg names (an empty Path for
// [DefaultPath]), creating the spool folder and the spool's file. When the
// folder holds many files that no reader has ingested, it ingests them
// first. Only cfg's Path is used (and its bounds when it ingests).
func OpenSpool(ctx context.Context, cfg Config) (*Spool, error) {
	if !spoolSupported {
		return nil, ErrSpoolUnsupported
	}
	if _, err := cfg.resolve(); err != nil {
		return nil, err
	}
	path := cfg.Path
	if path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	dir := SpoolDir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: create the spool folder of the trace database: %w (choose another file with %s)", err, PathEnv)
	}
	if n, err := countSpoolFiles(dir); err == nil && n >= spoolCompactAt {
		s, err := Open(ctx, cfg) // Open ingests the folder
		if err != nil {
			return nil, err
		}
		if err := s.Close(); err != nil {
			return nil, err
		}
	}
	sp := &Spool{path: path, dir: dir}
	// The file is made now, off a one-shot program's exit path, and so
	// that a folder it cannot write to fails here, where the program
	// warns that it runs untraced.
	if err := sp.create(); err != nil {
		return nil, err
	}
	return sp, nil
}

// countSpoolFiles counts the files of a spool folder readers would ingest.
func countSpoolFiles(dir string) (int, error) {
	f, err := os.Open(dir)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	n := 0
	for _, name := range names {
		if strings.HasSuffix(name, spoolDone) || strings.HasSuffix(name, spoolLive) {
			n++
		}
	}
	return n, err
}

// Path returns the path of the database the spool is for.
func (s *Spool) Path() string { return s.path }

// EncodePart encodes p for [Spool.WriteEncoded]. It is safe for concurrent
// use.
func (s *Spool) EncodePart(p *Part) EncodedPart {
	e := EncodedPart{spooled: true, count: len(p.Spans)}
	if len(p.Spans) > 0 {
		e.blob = appendSpoolPart(make([]byte, 0, 256*len(p.Spans)), p)
	}
	return e
}

// WriteParts encodes parts and writes them; see [Spool.WriteEncoded].
func (s *Spool) WriteParts(ctx context.Context, parts []Part) error {
	return s.WriteEncoded(ctx, encodeAll(parts, s.EncodePart))
}

// WriteEncoded appends parts to the spool file with one write. A write
// that fails leaves the file as it was. After Close it returns
// [ErrClosed].
func (s *Spool) WriteEncoded(_ context.Context, parts []EncodedPart) error {
	size := 0
	for i := range parts {
		if !parts[i].spooled {
			return fmt.Errorf("%w: part %d was encoded by a Store: write it with the Store's WriteEncoded", ErrWrongEncoder, i)
		}
		size += len(parts[i].blob)
	}
	if size == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	// One frame, built whole so that one write appends it: a process
	// killed mid-way leaves whole frames and at most one torn tail.
	s.frame = append(s.frame[:0], make([]byte, spoolFrameHead)...)
	for i := range parts {
		s.frame = append(s.frame, parts[i].blob...)
	}
	putSpoolHead(s.frame)
	if _, err := s.f.Write(s.frame); err != nil {
		// Cut a partial frame off, so later frames stay readable.
		_ = s.f.Truncate(s.size)
		return fmt.Errorf("store: append %d bytes of spans to the spool file %s: %w", len(s.frame), s.f.Name(), err)
	}
	s.size += int64(len(s.frame))
	if cap(s.frame) > 1<<20 {
		s.frame = nil // do not keep a huge buffer after one huge batch
	}
	return nil
}

// create makes the spool file: exclusively, under a name no reader
// ingests, then locked, then renamed to its live name, so that no reader
// ever takes a live file for a dead writer's.
func (s *Spool) create() error {
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return fmt.Errorf("store: name a spool file: %w", err)
	}
	name := strconv.FormatInt(time.Now().UnixNano(), 10) + "-" + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(rnd[:])
	tmp := filepath.Join(s.dir, name+spoolTmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("store: create a spool file: %w (choose another trace database with %s)", err, PathEnv)
	}
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return err
	}
	locked, err := tryLock(f)
	switch {
	case err != nil:
		return fail(fmt.Errorf("store: lock the spool file %s: %w", tmp, err))
	case !locked:
		return fail(fmt.Errorf("store: lock the spool file %s: another process holds its lock", tmp))
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, name+spoolLive)); err != nil {
		return fail(fmt.Errorf("store: name the spool file %s: %w", tmp, err))
	}
	s.f, s.name = f, name
	return nil
}

// Close finishes the spool file, renaming it to its final name (or
// removing it when nothing was written), and releases its lock. Closing
// twice is not an error.
func (s *Spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	live := filepath.Join(s.dir, s.name+spoolLive)
	// Renamed or removed before the lock goes, so a reader that takes the
	// lock sees the file under its final name.
	var err error
	if s.size == 0 {
		if err = os.Remove(live); err != nil {
			err = fmt.Errorf("store: remove the empty spool file: %w", err)
		}
	} else if err = os.Rename(live, filepath.Join(s.dir, s.name+spoolDone)); err != nil {
		err = fmt.Errorf("store: finish the spool file: %w", err)
	}
	return errors.Join(err, s.f.Close())
}
