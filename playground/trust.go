package playground

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/loomwork/loom/spec"
)

// current returns the loaded project.
func (s *Server) current() *spec.Project {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.project
}

// Grants records which files' commands the user trusted (loom keeps them
// with internal/trust, as loom trust does). A grant is for a file's path
// and the exact list of the commands and URLs it starts or reaches
// (spec.Reach.String of each).
type Grants interface {
	// Trusted reports whether the file at path was trusted with these
	// reaches; a file that reaches nothing is.
	Trusted(path string, reaches []string) (bool, error)
	// Allow records the grant.
	Allow(path string, reaches []string) error
}

// reaches returns the lines of what the loaded file starts and reaches,
// and whether the user trusted them (always, without Grants).
func (s *Server) reaches(p *spec.Project) ([]string, bool, error) {
	out := append([]string{}, p.Doc.TrustLines()...)
	if s.cfg.Grants == nil || len(out) == 0 {
		return out, true, nil
	}
	ok, err := s.cfg.Grants.Trusted(s.cfg.Path, out)
	return out, ok, err
}

// untrusted answers 409 with the commands to trust when p's are not
// trusted yet, and reports whether it did.
func (s *Server) untrusted(w http.ResponseWriter, p *spec.Project) bool {
	reaches, ok, err := s.reaches(p)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return true
	}
	if ok {
		return false
	}
	writeJSON(w, http.StatusConflict, map[string]any{
		"untrusted": true, "reaches": reaches,
		"message": "the file starts commands or reaches URLs you have not trusted: read them, then trust them to run",
	})
	return true
}

// postTrust records the user's trust in the file's commands: the list the
// page showed, which must still be the file's.
func (s *Server) postTrust(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Reaches []string `json:"reaches"`
	}
	body, err := readBody(w, r, 1<<20)
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, "want {reaches: [the lines shown]}: "+err.Error(), http.StatusBadRequest)
		return
	}
	reaches, _, err := s.reaches(s.current())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if !slices.Equal(req.Reaches, reaches) {
		writeJSON(w, http.StatusConflict, map[string]any{"reaches": reaches,
			"message": "the file's commands changed since the page showed them: read them again"})
		return
	}
	if s.cfg.Grants != nil {
		if err := s.cfg.Grants.Allow(s.cfg.Path, reaches); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	s.getProject(w, r)
}
