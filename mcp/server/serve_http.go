package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol versions the HTTP checks compare with.
const (
	noBatchVersion = "2025-06-18" // JSON-RPC batches removed
	sessionHeader  = "Mcp-Session-Id"
	versionHeader  = "Mcp-Protocol-Version"
)

// Handler serves clients over streamable HTTP. Beside the protocol it
// checks what the specification asks of servers:
//
//   - DNS rebinding: a request to a loopback address whose Host header is
//     not a loopback name gets 403 (the SDK's check);
//   - Origin: a request whose Origin is not loopback, the server's own
//     host, or one of Config.AllowedOrigins gets 403;
//   - a request other than initialize without a session id gets 400, and
//     so does a JSON-RPC batch on a session whose protocol version removed
//     them;
//   - a session idle for Config.SessionTimeout is closed and its
//     memory freed.
//
// Listen on 127.0.0.1 unless the server must be reached from elsewhere.
func (s *Server) Handler() http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, &sdk.StreamableHTTPOptions{SessionTimeout: s.idle})
	return &httpGuard{s: s, next: h}
}

type httpGuard struct {
	s    *Server
	next http.Handler
}

func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && loopback(a.String()) && !loopback(r.Host) {
		// The SDK checks this too; it comes first so a rebinding page
		// learns nothing from the checks below.
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !g.s.originAllowed(o, r.Host) {
		http.Error(w, fmt.Sprintf("Forbidden: Origin %q may not call this server", o), http.StatusForbidden)
		return
	}
	if r.Method != http.MethodPost || r.Header.Get(versionHeader) >= mrtrVersion {
		// Requests of the sessionless protocol, and GET and DELETE, which
		// the SDK checks itself.
		g.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, sdk.DefaultMaxRequestBodyBytes))
	if err != nil {
		http.Error(w, "request body too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	id := r.Header.Get(sessionHeader)
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		if v := g.s.sessionVersion(id); id == "" || v == "" || v >= noBatchVersion {
			http.Error(w, "Bad Request: JSON-RPC batches are not accepted: protocol version "+noBatchVersion+" removed them; send one message per request", http.StatusBadRequest)
			return
		}
	} else if id == "" {
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method != "initialize" {
			http.Error(w, "Bad Request: missing Mcp-Session-Id header: initialize a session first and send its id with every request", http.StatusBadRequest)
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// sessionVersion is the protocol version session id negotiated, or "".
func (s *Server) sessionVersion(id string) string {
	if id == "" {
		return ""
	}
	for ss := range s.srv.Sessions() {
		if ss.ID() == id {
			if p := ss.InitializeParams(); p != nil {
				return p.ProtocolVersion
			}
			return ""
		}
	}
	return ""
}

// originAllowed reports whether a browser page at origin may call the
// server reached as host: loopback pages, the server's own, and the
// configured ones.
func (s *Server) originAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if s.origins[strings.ToLower(u.Scheme+"://"+u.Host)] || strings.EqualFold(u.Host, host) {
		return true
	}
	return loopback(u.Host)
}

// loopback reports whether hostport names this machine: localhost or a
// loopback address, with or without a port.
func loopback(hostport string) bool {
	h := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Close ends every session the server has open, as when an HTTP server
// shuts down; the server can still take new ones.
func (s *Server) Close() error {
	var errs []error
	for ss := range s.srv.Sessions() {
		errs = append(errs, ss.Close())
	}
	return errors.Join(errs...)
}
