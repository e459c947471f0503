package localweb_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loomwork/loom/internal/localweb"
	"github.com/stretchr/testify/require"
)

func TestGuard(t *testing.T) {
	reached := 0
	h := localweb.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++ }),
		localweb.Config{Hosts: []string{"traces.internal"}, Token: "s3cret", TokenHint: "open the printed URL"})
	tests := []struct {
		name        string
		method      string
		target      string
		host        string
		origin      string
		contentType string
		tokenHeader string
		status      int
		says        string
	}{
		{name: "loopback", method: "GET", target: "/?token=s3cret", host: "127.0.0.1:7894", status: 200},
		{name: "localhost upper case", method: "GET", target: "/?token=s3cret", host: "LOCALHOST:7894", status: 200},
		{name: "ipv6 loopback", method: "GET", target: "/?token=s3cret", host: "[::1]:7894", status: 200},
		{name: "allowed name", method: "GET", target: "/?token=s3cret", host: "traces.internal", status: 200},
		{name: "token in header", method: "GET", target: "/", host: "127.0.0.1:7894", tokenHeader: "s3cret", status: 200},
		{name: "foreign host", method: "GET", target: "/?token=s3cret", host: "evil.example:7894", status: 403, says: "host"},
		{name: "rebinding look-alike", method: "GET", target: "/?token=s3cret", host: "127.0.0.1.evil.example", status: 403, says: "host"},
		{name: "same origin", method: "POST", target: "/?token=s3cret", host: "127.0.0.1:7894", origin: "http://127.0.0.1:7894", contentType: "application/json", status: 200},
		{name: "foreign origin", method: "POST", target: "/?token=s3cret", host: "127.0.0.1:7894", origin: "https://evil.example", contentType: "application/json", status: 403, says: "origin"},
		{name: "other port", method: "GET", target: "/?token=s3cret", host: "127.0.0.1:7894", origin: "http://127.0.0.1:8000", status: 403, says: "origin"},
		{name: "null origin", method: "POST", target: "/?token=s3cret", host: "127.0.0.1:7894", origin: "null", contentType: "application/json", status: 403, says: "origin"},
		{name: "no token", method: "GET", target: "/", host: "127.0.0.1:7894", status: 403, says: "open the printed URL"},
		{name: "wrong token", method: "GET", target: "/?token=guess", host: "127.0.0.1:7894", status: 403, says: "token"},
		{name: "form post", method: "POST", target: "/?token=s3cret", host: "127.0.0.1:7894", contentType: "application/x-www-form-urlencoded", status: 415, says: "application/json"},
		{name: "text post", method: "PUT", target: "/?token=s3cret", host: "127.0.0.1:7894", contentType: "text/plain", status: 415, says: "application/json"},
		{name: "no content type", method: "DELETE", target: "/?token=s3cret", host: "127.0.0.1:7894", status: 415},
		{name: "json with charset", method: "PUT", target: "/?token=s3cret", host: "127.0.0.1:7894", contentType: "application/json; charset=utf-8", status: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := reached
			req := httptest.NewRequest(tc.method, tc.target, strings.NewReader("{}"))
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			if tc.tokenHeader != "" {
				req.Header.Set(localweb.TokenHeader, tc.tokenHeader)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			require.Contains(t, rec.Body.String(), tc.says)
			if tc.status == 200 {
				require.Equal(t, before+1, reached)
				require.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
			} else {
				require.Equal(t, before, reached, "a refused request must not reach the handler")
			}
		})
	}
}
