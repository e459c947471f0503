package viewer

import (
	"embed"
	"io/fs"
	"net/http"
)

// uiFiles are the viewer's page, style sheet and script: plain HTML, CSS
// and JavaScript with no external resources, so the viewer works offline.
//
//go:embed ui
var uiFiles embed.FS

func uiHandler() http.Handler {
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic("viewer: embedded ui folder missing: " + err.Error()) // a build defect, caught by every test
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
