package mcp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

// protectedServer is an MCP server behind OAuth 2.1 as the MCP
// authorization specification describes it, with its own authorization
// server, on one loopback httptest server: protected-resource metadata,
// RFC 8414 metadata, dynamic registration, authorization code with PKCE,
// resource indicators and refresh tokens.
type protectedServer struct {
	t   *testing.T
	url string // the MCP endpoint

	mu         sync.Mutex
	clients    map[string][]string // client id -> redirect URIs
	codes      map[string]codeGrant
	valid      map[string]bool // access tokens accepted
	refresh    map[string]bool // refresh tokens accepted
	seq        int
	grants     []string // grant types the token endpoint served
	authorizes int
	expiresIn  int
}

type codeGrant struct {
	client, challenge, redirect, resource string
}

func newProtectedServer(t *testing.T) *protectedServer {
	p := &protectedServer{t: t, clients: map[string][]string{}, codes: map[string]codeGrant{}, valid: map[string]bool{}, refresh: map[string]bool{}, expiresIn: 3600}
	mux := http.NewServeMux()
	var base string
	closeSessions := whoamiBehindBearer(mux, func() string { return base }, func(tok string) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.valid[tok]
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "grant_types_supported": []string{"authorization_code", "refresh_token", "client_credentials"},
			"token_endpoint_auth_methods_supported": []string{"none"}, "scopes_supported": []string{"offline_access"},
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		require.NoError(t, json.NewDecoder(r.Body).Decode(&m))
		p.mu.Lock()
		p.seq++
		id := fmt.Sprintf("client-%d", p.seq)
		p.clients[id] = m.RedirectURIs
		p.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, map[string]any{"client_id": id, "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.authorizes++
		redirects := p.clients[q.Get("client_id")]
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("response_type") != "code" || q.Get("resource") != base+"/mcp" || !contains(redirects, q.Get("redirect_uri")) {
			http.Error(w, "bad authorization request: "+r.URL.RawQuery, http.StatusBadRequest)
			return
		}
		p.seq++
		code := fmt.Sprintf("code-%d", p.seq)
		p.codes[code] = codeGrant{client: q.Get("client_id"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), resource: q.Get("resource")}
		u, _ := url.Parse(q.Get("redirect_uri"))
		u.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		f := r.PostForm
		p.mu.Lock()
		defer p.mu.Unlock()
		p.grants = append(p.grants, f.Get("grant_type"))
		switch f.Get("grant_type") {
		case "authorization_code":
			g, ok := p.codes[f.Get("code")]
			delete(p.codes, f.Get("code"))
			sum := sha256.Sum256([]byte(f.Get("code_verifier")))
			if !ok || g.client != f.Get("client_id") || g.redirect != f.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || f.Get("resource") != g.resource {
				oauthError(w, http.StatusBadRequest, "invalid_grant")
				return
			}
		case "client_credentials":
			id, secret, ok := r.BasicAuth()
			if !ok || id != "m2m" || secret != "s3cret" || f.Get("resource") != base+"/mcp" {
				oauthError(w, http.StatusUnauthorized, "invalid_client")
				return
			}
		case "refresh_token":
			if !p.refresh[f.Get("refresh_token")] {
				oauthError(w, http.StatusBadRequest, "invalid_grant")
				return
			}
		default:
			oauthError(w, http.StatusBadRequest, "unsupported_grant_type")
			return
		}
		p.seq++
		at, rt := fmt.Sprintf("access-%d", p.seq), fmt.Sprintf("refresh-%d", p.seq)
		p.valid[at], p.refresh[rt] = true, true
		writeJSON(w, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": p.expiresIn, "refresh_token": rt})
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	t.Cleanup(closeSessions)
	base = hs.URL
	p.url = hs.URL + "/mcp"
	return p
}

// whoamiBehindBearer serves at /mcp of mux an MCP server with the tool
// whoami, to requests whose bearer token valid accepts; any other gets a
// 401 naming the protected-resource metadata at base()'s
// /.well-known/oauth-protected-resource/mcp. The function it returns
// closes the server's sessions (those whose end was refused with their
// token), to call before the HTTP server closes.
func whoamiBehindBearer(mux *http.ServeMux, base func() string, valid func(token string) bool) func() {
	srv := sdk.NewServer(&sdk.Implementation{Name: "protected", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a logged-in user"}}}, nil
	})
	mcpH := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || !valid(tok) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base()+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpH.ServeHTTP(w, r)
	})
	return func() {
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	}
}

// oauthError answers as a token endpoint does when it refuses.
func oauthError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": code})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// revoke makes the server refuse every access token given so far.
func (p *protectedServer) revoke() {
	p.mu.Lock()
	p.valid = map[string]bool{}
	p.mu.Unlock()
}

func (p *protectedServer) stats() (grants []string, authorizes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.grants...), p.authorizes
}

// browser follows the authorization URL as a person's browser would,
// redirects included, to the client's listener on 127.0.0.1.
func browser(t *testing.T, opened *[]string) func(ctx context.Context, u string) error {
	return func(ctx context.Context, u string) error {
		*opened = append(*opened, u)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("authorization: %s: %s", resp.Status, body)
		}
		return nil
	}
}

func callWhoami(t *testing.T, ts *Toolset) {
	t.Helper()
	_, out, err := runTool(t, toolNamed(t, ts, "whoami"), `{}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"message":"a logged-in user"}`, string(out))
}

func TestOAuthLogin(t *testing.T) {
	p := newProtectedServer(t)
	dir := filepath.Join(t.TempDir(), "tokens")
	store := &FileTokenStore{Dir: dir}
	var opened []string
	ts := connect(t, Config{URL: p.url, OAuth: &OAuth{Store: store, OpenURL: browser(t, &opened)}})
	callWhoami(t, ts)

	require.Len(t, opened, 1)
	u, err := url.Parse(opened[0])
	require.NoError(t, err)
	redirect, err := url.Parse(u.Query().Get("redirect_uri"))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", redirect.Hostname(), "the redirect comes back to a loopback listener")
	require.NotEqual(t, "", redirect.Port())
	grants, authorizes := p.stats()
	require.Equal(t, []string{"authorization_code"}, grants)
	require.Equal(t, 1, authorizes)

	// The login is kept for the owner only.
	st, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	fi, err := entries[0].Info()
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	l, err := store.Load(p.url)
	require.NoError(t, err)
	require.NotEmpty(t, l.Token.RefreshToken)

	// A refused token is refreshed, without a person.
	p.revoke()
	require.NoError(t, ts.Close())
	ts = connect(t, Config{URL: p.url, OAuth: &OAuth{Store: store, OpenURL: browser(t, &opened)}})
	callWhoami(t, ts)
	grants, authorizes = p.stats()
	require.Equal(t, []string{"authorization_code", "refresh_token"}, grants)
	require.Equal(t, 1, authorizes, "refreshing needed no new login")
	l2, err := store.Load(p.url)
	require.NoError(t, err)
	require.NotEqual(t, l.Token.AccessToken, l2.Token.AccessToken, "the refreshed token is kept")
}

func TestOAuthRefreshesExpiredToken(t *testing.T) {
	// A kept token past its expiry is refreshed before it is sent.
	p := newProtectedServer(t)
	store := &FileTokenStore{Dir: t.TempDir()}
	var opened []string
	ts := connect(t, Config{URL: p.url, OAuth: &OAuth{Store: store, OpenURL: browser(t, &opened)}})
	callWhoami(t, ts)
	require.NoError(t, ts.Close())

	l, err := store.Load(p.url)
	require.NoError(t, err)
	l.Token.Expiry = time.Now().Add(-time.Hour)
	require.NoError(t, store.Save(p.url, l))

	ts = connect(t, Config{URL: p.url, OAuth: &OAuth{Store: store, OpenURL: browser(t, &opened)}})
	callWhoami(t, ts)
	grants, authorizes := p.stats()
	require.Equal(t, []string{"authorization_code", "refresh_token"}, grants)
	require.Equal(t, 1, authorizes)
	require.Len(t, opened, 1)
}

func TestOAuthPrintsURLWithoutBrowser(t *testing.T) {
	// With no OpenURL the URL is printed (Out is not a terminal here), and
	// the login goes on once the redirect arrives.
	p := newProtectedServer(t)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		// A person reads the URL and opens it.
		buf := make([]byte, 4096)
		var text string
		for !strings.Contains(text, "\n") || !strings.Contains(text, "http") {
			n, err := pr.Read(buf)
			if err != nil {
				done <- err
				return
			}
			text += string(buf[:n])
		}
		lines := strings.Split(strings.TrimSpace(text), "\n")
		var opened []string
		done <- browser(t, &opened)(context.Background(), lines[len(lines)-1])
		_, _ = io.Copy(io.Discard, pr)
	}()
	ts := connect(t, Config{URL: p.url, OAuth: &OAuth{Store: &FileTokenStore{Dir: t.TempDir()}, Out: pw}})
	callWhoami(t, ts)
	require.NoError(t, <-done)
	_ = pw.Close()
}

func TestTokenSource(t *testing.T) {
	p := newProtectedServer(t)
	// A token the caller holds, obtained elsewhere.
	var opened []string
	store := &FileTokenStore{Dir: t.TempDir()}
	ts := connect(t, Config{URL: p.url, OAuth: &OAuth{Store: store, OpenURL: browser(t, &opened)}})
	callWhoami(t, ts)
	l, err := store.Load(p.url)
	require.NoError(t, err)

	ts2 := connect(t, Config{URL: p.url, TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: l.Token.AccessToken})})
	callWhoami(t, ts2)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = Connect(ctx, Config{URL: p.url, TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "forged"})})
	require.ErrorIs(t, err, ErrAuthorization)
	require.NotContains(t, err.Error(), "forged", "tokens stay out of errors")
}

func TestOAuthConfigErrors(t *testing.T) {
	src := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"})
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"oauth over stdio", Config{Command: []string{"x"}, OAuth: &OAuth{}}, "set URL"},
		{"both", Config{URL: "http://127.0.0.1:1/mcp", OAuth: &OAuth{}, TokenSource: src}, "both set"},
		{"header too", Config{URL: "http://127.0.0.1:1/mcp", TokenSource: src, Headers: map[string]string{"authorization": "x"}}, "Authorization header"},
		{"callback without redirect", Config{URL: "http://127.0.0.1:1/mcp", OAuth: &OAuth{Store: &FileTokenStore{Dir: t.TempDir()}, Callback: func(context.Context) (string, string, string, error) { return "", "", "", nil }}}, "RedirectURL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Connect(context.Background(), c.cfg)
			require.ErrorIs(t, err, ErrInvalidConfig)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestOAuthClientCredentials(t *testing.T) {
	// A machine client gets its token with the client_credentials grant,
	// no person and no browser involved.
	p := newProtectedServer(t)
	ts := connect(t, Config{URL: p.url, OAuth: &OAuth{ClientID: "m2m", ClientSecret: "s3cret", ClientCredentials: true, Store: &FileTokenStore{Dir: t.TempDir()},
		OpenURL: func(context.Context, string) error { return fmt.Errorf("no person here") }}})
	callWhoami(t, ts)
	grants, authorizes := p.stats()
	require.Equal(t, []string{"client_credentials"}, grants)
	require.Zero(t, authorizes)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Connect(ctx, Config{URL: p.url, OAuth: &OAuth{ClientID: "m2m", ClientSecret: "wrong", ClientCredentials: true, Store: &FileTokenStore{Dir: t.TempDir()}}})
	require.ErrorIs(t, err, ErrAuthorization)
	require.ErrorContains(t, err, "invalid_client")
	require.NotContains(t, err.Error(), "wrong", "secrets stay out of errors")
}

func TestClientAssertion(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	jwt, err := clientAssertion(key, "machine-1", "https://as.example")
	require.NoError(t, err)
	parts := strings.Split(jwt, ".")
	require.Len(t, parts, 3)
	dec := func(s string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(s)
		require.NoError(t, err)
		return b
	}
	require.JSONEq(t, `{"alg":"ES256","typ":"JWT"}`, string(dec(parts[0])))
	var claims map[string]any
	require.NoError(t, json.Unmarshal(dec(parts[1]), &claims))
	require.Equal(t, "machine-1", claims["iss"])
	require.Equal(t, "machine-1", claims["sub"])
	require.Equal(t, "https://as.example", claims["aud"])
	require.Greater(t, claims["exp"].(float64), claims["iat"].(float64))
	sig := dec(parts[2])
	require.Len(t, sig, 64)
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	require.True(t, ecdsa.Verify(&key.PublicKey, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])), "the signature verifies")

	other, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	_, err = Connect(context.Background(), Config{URL: "http://127.0.0.1:1/mcp", OAuth: &OAuth{ClientID: "m", ClientKey: other, ClientCredentials: true, Store: &FileTokenStore{Dir: t.TempDir()}}})
	require.ErrorIs(t, err, ErrInvalidConfig)
	require.ErrorContains(t, err, "P-256")
}
