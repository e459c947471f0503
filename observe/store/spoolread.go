package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// spoolIngest is what a [Store] remembers of the spool folder: how far it
// stored the files of writers still running, so that it reads only what
// they appended since, also once a file has its final name.
type spoolIngest struct {
	mu   sync.Mutex           // serialises ingests of this store
	seen map[string]spoolSeen // by file name without its suffix
}

// spoolSeen is how much of a running writer's file a store has stored.
type spoolSeen struct {
	info fs.FileInfo // to tell the file from a later one of the same name
	off  int64
}

// spoolFile is one file an ingest reads.
type spoolFile struct {
	name string // its name in the folder
	f    *os.File
	info fs.FileInfo
	done bool // its writer is gone: delete it once stored
	bad  bool // it holds a frame that is not what a writer wrote
	// other marks a file of another spool format version: left alone.
	other bool
	off   int64 // bytes of whole frames up to which it is stored
}

// spoolBatch is how many spool files one transaction stores at most, so
// that a large backlog is stored in bounded memory.
const spoolBatch = 256

// ingestSpool stores the parts of the spool folder's files (see [Spool]),
// up to spoolBatch files a transaction. Files whose writer is gone are
// deleted once their transaction commits, or set aside when they hold
// corrupt frames; of the files of writers still running, the whole frames
// are stored and the store remembers how far.
func (s *Store) ingestSpool(ctx context.Context) error {
	if !spoolSupported {
		return nil
	}
	dir := SpoolDir(s.path)
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: read the spool folder: %w", err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return fmt.Errorf("store: read the spool folder %s: %w", dir, err)
	}
	s.spool.mu.Lock()
	defer s.spool.mu.Unlock()
	sort.Strings(names) // names start with their writer's start time
	listed := make(map[string]bool, len(names))
	var todo []string
	for _, name := range names {
		listed[spoolKey(name)] = true
		switch {
		case strings.HasSuffix(name, spoolTmp):
			removeStaleTmp(filepath.Join(dir, name))
		case strings.HasSuffix(name, spoolLive), strings.HasSuffix(name, spoolDone):
			todo = append(todo, name)
		}
	}
	for name := range s.spool.seen {
		if !listed[name] {
			delete(s.spool.seen, name)
		}
	}
	for len(todo) > 0 {
		n := min(len(todo), spoolBatch)
		if err := s.ingestFiles(ctx, dir, todo[:n]); err != nil {
			return err
		}
		todo = todo[n:]
	}
	return nil
}

// ingestFiles stores the spool files names of dir in one transaction.
func (s *Store) ingestFiles(ctx context.Context, dir string, names []string) error {
	var (
		files []*spoolFile
		parts []Part
	)
	defer func() {
		for _, sf := range files {
			sf.f.Close() // releases the lock of a file of a dead writer
		}
	}()
	for _, name := range names {
		sf, err := s.openSpoolFile(dir, name)
		if err != nil {
			return err
		}
		if sf == nil {
			continue
		}
		files = append(files, sf)
		got, err := sf.read()
		if err != nil {
			return fmt.Errorf("store: read the spool file %s: %w", filepath.Join(dir, name), err)
		}
		parts = append(parts, got...)
	}
	if len(parts) > 0 {
		if err := s.WriteParts(ctx, parts); err != nil {
			return fmt.Errorf("store: store the spans of %d spool files: %w", len(files), err)
		}
	}
	// Stored: forget the files of writers that are gone, and note how far
	// the others are stored.
	var errs []error
	for _, sf := range files {
		path := filepath.Join(dir, sf.name)
		switch {
		case sf.other:
			// Another loom's to store: neither stored nor removed here.
		case sf.done && sf.bad:
			if err := os.Rename(path, path+spoolCorrupt); err != nil {
				errs = append(errs, fmt.Errorf("store: set the corrupt spool file %s aside: %w", path, err))
			}
			delete(s.spool.seen, spoolKey(sf.name))
		case sf.done:
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("store: remove the ingested spool file %s: %w", path, err))
			}
			delete(s.spool.seen, spoolKey(sf.name))
		default:
			if s.spool.seen == nil {
				s.spool.seen = map[string]spoolSeen{}
			}
			s.spool.seen[spoolKey(sf.name)] = spoolSeen{info: sf.info, off: sf.off}
		}
	}
	return errors.Join(errs...)
}

// openSpoolFile opens a spool file and tells whether its writer is gone
// (its lock is free, and now this store's). It returns nil for a file
// another reader has just ingested.
func (s *Store) openSpoolFile(dir, name string) (*spoolFile, error) {
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // ingested and removed by another reader, or renamed .spool by its writer
	}
	if err != nil {
		return nil, fmt.Errorf("store: open the spool file %s: %w", path, err)
	}
	locked, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: lock the spool file %s: %w", path, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: read the spool file %s: %w", path, err)
	}
	if locked {
		// Another reader may have stored and removed the file between
		// this open and this lock: then its name is gone or another's.
		now, err := os.Stat(path)
		if err != nil || !os.SameFile(info, now) {
			f.Close()
			return nil, nil
		}
	}
	sf := &spoolFile{name: name, f: f, info: info, done: locked}
	if seen, ok := s.spool.seen[spoolKey(name)]; ok && os.SameFile(seen.info, info) {
		sf.off = seen.off
	}
	return sf, nil
}

// read returns the parts of the file's whole frames after sf.off and
// moves sf.off past them. A torn tail is left: a running writer is still
// writing it, or a dead one never finished it. A frame that is not what a
// writer wrote ends the reading and marks the file bad.
func (sf *spoolFile) read() ([]Part, error) {
	if _, err := sf.f.Seek(sf.off, io.SeekStart); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(sf.f)
	if err != nil {
		return nil, err
	}
	frames, ferr := readSpoolFrames(data)
	var parts []Part
	for _, fr := range frames {
		got, err := decodeSpoolParts(fr.payload)
		if err != nil {
			ferr = err
			break
		}
		parts = append(parts, got...)
		sf.off += int64(fr.size)
	}
	sf.other = errors.Is(ferr, errSpoolVersion)
	sf.bad = ferr != nil && !sf.other
	return parts, nil
}

// spoolKey is a spool file's name without its suffix: the same while the
// file is renamed from live to final.
func spoolKey(name string) string { return strings.TrimSuffix(name, filepath.Ext(name)) }

// removeStaleTmp removes a .tmp spool file whose writer died before it
// named the file: it is old and its lock is free.
func removeStaleTmp(path string) {
	info, err := os.Stat(path)
	if err != nil || time.Since(info.ModTime()) < staleTmp {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if locked, err := tryLock(f); err == nil && locked {
		_ = os.Remove(path)
	}
}
