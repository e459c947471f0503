package playground_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// TestGuard sends what a hostile page can make a browser send: a foreign
// Host (DNS rebinding), a foreign Origin, a form post, a text body. None
// reaches the API: no run starts and the file is not saved.
func TestGuard(t *testing.T) {
	pg, web, _ := newServer(t, modeltest.New(t))
	u, err := url.Parse(web.URL)
	require.NoError(t, err)
	run := `{"agent":"helper","input":{"message":"hi"}}`
	tests := []struct {
		name, method, path, host, origin, contentType, body string
		status                                              int
	}{
		{name: "foreign host", method: "GET", path: "/api/project", host: "evil.example:" + u.Port(), status: http.StatusForbidden},
		{name: "rebound name", method: "POST", path: "/api/runs", host: "attacker.example", contentType: "application/json", body: run, status: http.StatusForbidden},
		{name: "foreign origin", method: "POST", path: "/api/runs", origin: "https://evil.example", contentType: "application/json", body: run, status: http.StatusForbidden},
		{name: "null origin", method: "PUT", path: "/api/yaml", origin: "null", contentType: "application/json", body: yamlBody(t, file), status: http.StatusForbidden},
		{name: "cross-origin form post", method: "POST", path: "/api/runs", origin: "https://evil.example", contentType: "application/x-www-form-urlencoded", body: "agent=helper&input=x", status: http.StatusForbidden},
		{name: "form post", method: "POST", path: "/api/runs", contentType: "application/x-www-form-urlencoded", body: "agent=helper&input=x", status: http.StatusUnsupportedMediaType},
		{name: "text post of JSON", method: "POST", path: "/api/runs", contentType: "text/plain", body: run, status: http.StatusUnsupportedMediaType},
		{name: "text save", method: "PUT", path: "/api/yaml", contentType: "text/plain", body: file, status: http.StatusUnsupportedMediaType},
		{name: "answers without type", method: "POST", path: "/api/runs/x/answers", body: `{}`, status: http.StatusUnsupportedMediaType},
		{name: "same origin", method: "GET", path: "/api/project", origin: web.URL, status: http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tc.method, web.URL+tc.path+"?token="+pg.Token(), strings.NewReader(tc.body))
			require.NoError(t, err)
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			b, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			require.NoError(t, res.Body.Close())
			require.Equal(t, tc.status, res.StatusCode, string(b))
		})
	}
	_, body := do(t, "GET", web.URL+"/api/runs?token="+pg.Token(), "")
	require.JSONEq(t, `[]`, body, "no refused request started a run")
}
