package spec

import (
	"context"
	"path/filepath"
	"time"

	mcpserver "github.com/loomwork/loom/mcp/server"
)

// DefaultWatchInterval is how often [Project.Watch] looks at the files it
// serves, when given no interval.
const DefaultWatchInterval = time.Second

// watched is a file served at a fixed URI.
type watched struct {
	uri, rel string
	size     int64
	mod      time.Time
	gone     bool
}

// Watch tells srv's clients subscribed to a resource served from a project
// file ([Project.AddTo]: resources with a file, knowledge documents, the
// files the entries name) when the file changes, is removed or comes
// back: it looks at their size and time of change every interval (zero:
// [DefaultWatchInterval]) until ctx ends, and returns then.
func (p *Project) Watch(ctx context.Context, srv *mcpserver.Server, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	d := p.Doc
	var files []*watched
	for _, r := range d.File.Resources {
		if r.URI != "" && r.File != "" {
			files = append(files, &watched{uri: r.URI, rel: r.File})
		}
	}
	for _, rel := range d.knowledge {
		files = append(files, &watched{uri: "knowledge:///" + rel, rel: rel})
	}
	for _, rel := range d.namedFiles() {
		files = append(files, &watched{uri: fileURI(filepath.Join(d.Dir, rel)), rel: rel})
	}
	if len(files) == 0 {
		return
	}
	look := func(w *watched) bool {
		st, err := d.files.stat(d.Dir, w.rel)
		if err != nil {
			changed := !w.gone
			w.gone = true
			return changed
		}
		changed := w.gone || st.Size() != w.size || !st.ModTime().Equal(w.mod)
		w.gone, w.size, w.mod = false, st.Size(), st.ModTime()
		return changed
	}
	for _, w := range files {
		look(w)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, w := range files {
			if look(w) {
				_ = srv.ResourceUpdated(ctx, w.uri) // a client gone is not the watcher's failure
			}
		}
	}
}
