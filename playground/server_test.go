package playground_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/playground"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

const file = "version: loom/v1\nmodel: scripted\nentry: helper\nagents:\n  helper:\n    type: ai\n    instructions: Be brief.\n"

func newServer(t *testing.T, m model.Model) (*playground.Server, *httptest.Server, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "loom.yaml")
	require.NoError(t, os.WriteFile(path, []byte(file), 0o644))
	pg, err := playground.New(playground.Config{
		Path: path, Engine: engine.New(engine.Config{Checkpoints: checkpoint.NewMemory()}),
		Registry: spec.Registry{Models: func(string) (model.Model, error) { return m, nil }},
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pg.Close()) })
	web := httptest.NewServer(pg.Handler())
	t.Cleanup(web.Close)
	return pg, web, path
}

func do(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

func TestTokenRequired(t *testing.T) {
	pg, web, _ := newServer(t, modeltest.New(t))
	require.Len(t, pg.Token(), 32)
	for _, u := range []string{"/", "/api/project", "/?token=wrong"} {
		code, body := do(t, "GET", web.URL+u, "")
		require.Equal(t, http.StatusForbidden, code, u)
		require.Contains(t, body, "open the URL loom serve printed")
	}
	code, body := do(t, "GET", web.URL+"/?token="+pg.Token(), "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "<title>loom playground</title>")
	require.NotContains(t, body, "http://", "everything is embedded: no CDN")
	require.NotContains(t, body, "https://")
}

func TestSaveOnlyWhenValid(t *testing.T) {
	pg, web, path := newServer(t, modeltest.New(t))
	u := web.URL + "/api/yaml?token=" + pg.Token()
	code, body := do(t, "PUT", u, yamlBody(t, strings.Replace(file, "instructions:", "instrutions:", 1)))
	require.Equal(t, http.StatusUnprocessableEntity, code)
	var got struct {
		Errors []struct {
			Line, Col int
			Path, Msg string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	require.Len(t, got.Errors, 1)
	require.Equal(t, 7, got.Errors[0].Line)
	require.Equal(t, 5, got.Errors[0].Col)
	require.Equal(t, "agents.helper.instrutions", got.Errors[0].Path)
	require.Equal(t, `unknown key "instrutions"; did you mean instructions?`, got.Errors[0].Msg)
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, file, string(onDisk))

	valid := strings.Replace(file, "Be brief.", "Be very brief.", 1)
	code, _ = do(t, "PUT", u, yamlBody(t, valid))
	require.Equal(t, http.StatusOK, code)
	onDisk, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, valid, string(onDisk))
}

// yamlBody is the body of a Save: {"yaml": src}.
func yamlBody(t *testing.T, src string) string {
	b, err := json.Marshal(map[string]string{"yaml": src})
	require.NoError(t, err)
	return string(b)
}

func TestRunFromTheAPI(t *testing.T) {
	m := modeltest.New(t, modeltest.TextDeltas("Hel", "lo"))
	pg, web, _ := newServer(t, m)
	code, body := do(t, "POST", web.URL+"/api/runs?token="+pg.Token(), `{"agent":"helper","input":{"message":"hi"}}`)
	require.Equal(t, http.StatusCreated, code, body)
	var started struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &started))
	require.Eventually(t, func() bool {
		_, body := do(t, "GET", web.URL+"/api/runs/"+started.ID+"?token="+pg.Token(), "")
		return strings.Contains(body, `"status":"done"`) && strings.Contains(body, `"text":"Hel"`)
	}, 10*time.Second, 20*time.Millisecond)
	code, _ = do(t, "POST", web.URL+"/api/runs/"+started.ID+"/answers?token="+pg.Token(), `{}`)
	require.Equal(t, http.StatusConflict, code, "a finished run takes no answers")
	code, _ = do(t, "POST", web.URL+"/api/runs?token="+pg.Token(), `{"agent":"nobody"}`)
	require.Equal(t, http.StatusNotFound, code)
}

func TestNeedsCheckpoints(t *testing.T) {
	_, err := playground.New(playground.Config{Path: "loom.yaml", Engine: engine.New(engine.Config{})})
	require.ErrorIs(t, err, playground.ErrNoCheckpoints)
}
