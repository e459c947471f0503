// Package localweb is the one guard in front of loom's local web servers
// (the trace viewer and the playground). A server on 127.0.0.1 is still
// reachable from every web page the user opens: a page can send it
// requests (cross-site request forgery) and, through DNS rebinding, read
// its answers. The guard refuses what a browser sends on a foreign page's
// behalf:
//
//   - a Host header that is not a loopback name (or one allowed on
//     purpose): 403, which defeats DNS rebinding;
//   - an Origin header naming another origin than the server's: 403;
//   - without the session token, when the server has one: 403;
//   - a state-changing request (POST, PUT, PATCH, a DELETE with a body)
//     whose body is not declared application/json: 415. A cross-origin page can send a
//     form or a text/plain body without asking, but not JSON: the browser
//     asks the server first (a CORS preflight), which the server never
//     grants.
package localweb

import (
	"crypto/subtle"
	"encoding/json"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Config configures [Guard].
type Config struct {
	// Hosts are names accepted in the Host header besides the loopback
	// names always accepted (localhost, 127.0.0.1, ::1).
	Hosts []string
	// Token, when not empty, must come with every request as the query
	// parameter token or the header X-Loom-Token.
	Token string
	// TokenHint says where the token is found; it ends the 403 answer to
	// a request without it.
	TokenHint string
	// OpenHint says which URL to open; it ends the 403 answer to a foreign
	// Host or Origin.
	OpenHint string
}

// TokenHeader is the header that may carry the session token instead of
// the query parameter.
const TokenHeader = "X-Loom-Token"

// Guard returns h behind the checks the package documentation lists. It
// also sets headers every answer of a local server should carry: no
// sniffing, no referrer, no framing.
func Guard(h http.Handler, o Config) http.Handler {
	hosts := map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}
	for _, host := range o.Hosts {
		hosts[strings.ToLower(host)] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[hostname(r.Host)] {
			refuse(w, http.StatusForbidden, "host "+strconv.Quote(r.Host)+" is not allowed"+hint(o.OpenHint))
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r.Host) {
			refuse(w, http.StatusForbidden, "origin "+strconv.Quote(origin)+" is not allowed: only pages this server serves may call it"+hint(o.OpenHint))
			return
		}
		if o.Token != "" && !tokenOK(r, o.Token) {
			refuse(w, http.StatusForbidden, "forbidden: the session token is missing or wrong"+hint(o.TokenHint))
			return
		}
		if needsJSON(r) && !isJSON(r.Header.Get("Content-Type")) {
			refuse(w, http.StatusUnsupportedMediaType, r.Method+" needs Content-Type: application/json, not "+strconv.Quote(r.Header.Get("Content-Type")))
			return
		}
		hdr := w.Header()
		hdr.Set("X-Content-Type-Options", "nosniff")
		hdr.Set("Referrer-Policy", "no-referrer")
		hdr.Set("X-Frame-Options", "DENY")
		h.ServeHTTP(w, r)
	})
}

// StateChanging reports whether method may change a server's state.
func StateChanging(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// needsJSON reports whether r must declare a JSON body: every POST, PUT
// and PATCH, and a DELETE that carries a body (one without, as an MCP
// session's end, has nothing to declare; a page cannot send a DELETE to
// another origin without asking first).
func needsJSON(r *http.Request) bool {
	if r.Method == http.MethodDelete {
		return r.ContentLength != 0
	}
	return StateChanging(r.Method)
}

func hint(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// hostname is host without its port and brackets, in lower case.
func hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.Trim(strings.ToLower(host), "[]")
}

// sameOrigin reports whether origin is the server's own: http or https
// with exactly the request's host and port. "null" (a sandboxed frame, a
// file) is foreign.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Host, host)
}

func tokenOK(r *http.Request, token string) bool {
	got := r.URL.Query().Get("token")
	if got == "" {
		got = r.Header.Get(TokenHeader)
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

func refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
