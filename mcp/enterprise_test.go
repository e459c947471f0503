package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// enterpriseServers are an enterprise IdP and an MCP server whose
// authorization server takes the IdP's identity assertion grants
// (SEP-990), on loopback httptest servers. Each records the token
// requests it got.
type enterpriseServers struct {
	idpURL, mcpURL, asURL string
	authMethods           []string // token_endpoint_auth_methods_supported of the authorization server
	expiresIn             int

	mu        sync.Mutex
	signIns   []url.Values // authorization requests at the IdP
	exchanges []url.Values // token exchange requests at the IdP
	grants    []grantSeen  // JWT-bearer grant requests at the authorization server
	valid     map[string]bool
	seq       int
	refuse    int // token exchanges to refuse next, as an IdP whose session ended
}

// grantSeen is one token request at the authorization server.
type grantSeen struct {
	form         url.Values
	basicID      string
	basicSecret  string
	hasBasicAuth bool
}

const (
	goodIDToken = "id-token-of-ada"
	theJAG      = "jag-for-ada"
)

func newEnterpriseServers(t *testing.T, authMethods ...string) *enterpriseServers {
	e := &enterpriseServers{authMethods: authMethods, expiresIn: 3600, valid: map[string]bool{}}

	idp := http.NewServeMux()
	idp.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": e.idpURL, "token_endpoint": e.idpURL + "/oauth2/token",
			"authorization_endpoint": e.idpURL + "/oauth2/authorize", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported":            []string{"authorization_code", "urn:ietf:params:oauth:grant-type:token-exchange"}})
	})
	idp.HandleFunc("/oauth2/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		e.mu.Lock()
		e.signIns = append(e.signIns, q)
		e.mu.Unlock()
		u, err := url.Parse(q.Get("redirect_uri"))
		require.NoError(t, err)
		u.RawQuery = url.Values{"code": {"idp-code"}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	})
	idp.HandleFunc("/oauth2/token", func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		if r.PostForm.Get("grant_type") == "authorization_code" {
			if r.PostForm.Get("code") != "idp-code" || r.PostForm.Get("code_verifier") == "" {
				oauthError(w, http.StatusBadRequest, "invalid_grant")
				return
			}
			writeJSON(w, map[string]any{"access_token": "idp-access", "token_type": "Bearer", "expires_in": 3600, "id_token": goodIDToken})
			return
		}
		e.mu.Lock()
		e.exchanges = append(e.exchanges, r.PostForm)
		e.mu.Unlock()
		e.mu.Lock()
		refuse := e.refuse > 0
		e.refuse--
		e.mu.Unlock()
		if refuse || r.PostForm.Get("subject_token") != goodIDToken {
			oauthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		writeJSON(w, map[string]any{"access_token": theJAG, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A", "expires_in": 300})
	})
	idpSrv := httptest.NewServer(idp)
	t.Cleanup(idpSrv.Close)
	e.idpURL = idpSrv.URL

	mux := http.NewServeMux()
	closeSessions := whoamiBehindBearer(mux, func() string { return e.asURL }, func(tok string) bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.valid[tok]
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": e.mcpURL, "authorization_servers": []string{e.asURL}, "scopes_supported": []string{"mcp:tools"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": e.asURL, "authorization_endpoint": e.asURL + "/authorize", "token_endpoint": e.asURL + "/token",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported":                 []string{"urn:ietf:params:oauth:grant-type:jwt-bearer"},
			"token_endpoint_auth_methods_supported": e.authMethods,
		})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		g := grantSeen{form: r.PostForm}
		g.basicID, g.basicSecret, g.hasBasicAuth = r.BasicAuth()
		e.mu.Lock()
		defer e.mu.Unlock()
		e.grants = append(e.grants, g)
		id, secret := g.basicID, g.basicSecret
		if !g.hasBasicAuth {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		switch {
		case r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
			oauthError(w, http.StatusBadRequest, "unsupported_grant_type")
			return
		case id != "mcp-client" || secret != "mcp-secret":
			oauthError(w, http.StatusUnauthorized, "invalid_client")
			return
		case r.PostForm.Get("assertion") != theJAG:
			oauthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		e.seq++
		at := fmt.Sprintf("access-%d", e.seq)
		e.valid[at] = true
		writeJSON(w, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": e.expiresIn})
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	t.Cleanup(closeSessions)
	e.asURL = hs.URL
	e.mcpURL = hs.URL + "/mcp"
	return e
}

func (e *enterpriseServers) seen() ([]url.Values, []grantSeen) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]url.Values(nil), e.exchanges...), append([]grantSeen(nil), e.grants...)
}

// enterpriseOAuth is the client's configuration for e, with idToken as
// the person's ID token.
func enterpriseOAuth(e *enterpriseServers, secret, idToken string, calls *int) *OAuth {
	var mu sync.Mutex
	return &OAuth{ClientID: "mcp-client", ClientSecret: secret, Enterprise: &Enterprise{
		IdPIssuer:   e.idpURL,
		IdPClientID: "idp-client",
		IDToken: func(context.Context) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			if calls != nil {
				*calls++
			}
			return idToken, nil
		},
	}}
}

func TestEnterpriseLogin(t *testing.T) {
	// The ID token is exchanged at the IdP (found by OpenID Connect
	// discovery) for an ID-JAG for the server's authorization server and
	// resource, and the ID-JAG for an access token, the client
	// authenticating as the authorization server supports.
	cases := []struct {
		name      string
		methods   []string
		wantBasic bool
	}{
		{"client_secret_basic", []string{"client_secret_basic"}, true},
		{"client_secret_post only", []string{"client_secret_post"}, false},
		{"no methods advertised", nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnterpriseServers(t, c.methods...)
			ts := connect(t, Config{URL: e.mcpURL, OAuth: enterpriseOAuth(e, "mcp-secret", goodIDToken, nil)})
			callWhoami(t, ts)

			exchanges, grants := e.seen()
			require.Len(t, exchanges, 1)
			x := exchanges[0]
			require.Equal(t, "urn:ietf:params:oauth:grant-type:token-exchange", x.Get("grant_type"))
			require.Equal(t, "urn:ietf:params:oauth:token-type:id-jag", x.Get("requested_token_type"))
			require.Equal(t, goodIDToken, x.Get("subject_token"))
			require.Equal(t, "urn:ietf:params:oauth:token-type:id_token", x.Get("subject_token_type"))
			require.Equal(t, e.asURL, x.Get("audience"), "the audience is the authorization server's issuer")
			require.Equal(t, e.mcpURL, x.Get("resource"), "the resource is the MCP server")
			require.Equal(t, "mcp:tools", x.Get("scope"))
			require.Equal(t, "idp-client", x.Get("client_id"))

			require.Len(t, grants, 1)
			g := grants[0]
			require.Equal(t, "urn:ietf:params:oauth:grant-type:jwt-bearer", g.form.Get("grant_type"))
			require.Equal(t, theJAG, g.form.Get("assertion"))
			require.Equal(t, c.wantBasic, g.hasBasicAuth)
			if c.wantBasic {
				require.Equal(t, "mcp-client", g.basicID)
				require.Equal(t, "mcp-secret", g.basicSecret)
				require.Empty(t, g.form.Get("client_secret"), "the secret is not also in the body")
			} else {
				require.Equal(t, "mcp-secret", g.form.Get("client_secret"))
			}
		})
	}
}

func TestEnterpriseRunsAgainWhenTokenExpires(t *testing.T) {
	// Access tokens that expire at once: each call gets a new one by the
	// whole flow, asking for the ID token again.
	e := newEnterpriseServers(t, "client_secret_basic")
	e.expiresIn = 1
	var calls int
	ts := connect(t, Config{URL: e.mcpURL, OAuth: enterpriseOAuth(e, "mcp-secret", goodIDToken, &calls)})
	callWhoami(t, ts)
	_, before := e.seen()
	callWhoami(t, ts)
	_, after := e.seen()
	require.Greater(t, len(after), len(before), "an expired token is replaced")
	require.GreaterOrEqual(t, calls, 2)
}

// signingIn connects to new enterprise servers whose access tokens expire
// at once, loom signing the person in to the IdP; opened collects the
// URLs shown to the person.
func signingIn(t *testing.T) (e *enterpriseServers, ts *Toolset, opened *[]string) {
	e = newEnterpriseServers(t, "client_secret_basic")
	e.expiresIn = 1
	opened = new([]string)
	o := enterpriseOAuth(e, "mcp-secret", "", nil)
	o.Enterprise.IDToken = nil
	o.OpenURL = browser(t, opened)
	return e, connect(t, Config{URL: e.mcpURL, OAuth: o}), opened
}

func TestEnterpriseSignsInToIdP(t *testing.T) {
	// Without IDToken, loom signs the person in to the IdP in a browser
	// (OpenID Connect, PKCE, redirect to 127.0.0.1) and keeps the ID token:
	// a new access token does not ask the person again.
	e, ts, opened := signingIn(t)
	callWhoami(t, ts)
	callWhoami(t, ts)

	require.Len(t, *opened, 1, "one sign-in for both tokens")
	e.mu.Lock()
	signIns := append([]url.Values(nil), e.signIns...)
	e.mu.Unlock()
	require.Len(t, signIns, 1)
	q := signIns[0]
	require.Equal(t, "idp-client", q.Get("client_id"))
	require.Equal(t, "openid", q.Get("scope"))
	require.Equal(t, "S256", q.Get("code_challenge_method"))
	require.True(t, strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:"), q.Get("redirect_uri"))
	exchanges, grants := e.seen()
	require.GreaterOrEqual(t, len(grants), 2, "the expired token was replaced")
	for _, x := range exchanges {
		require.Equal(t, goodIDToken, x.Get("subject_token"), "the signed-in ID token is exchanged")
	}
}

func TestEnterpriseSignsInAgainWhenIdPRefuses(t *testing.T) {
	// An ID token the IdP no longer takes is dropped: the call fails with
	// the IdP's answer, and the next one signs the person in again.
	e, ts, opened := signingIn(t)
	callWhoami(t, ts)
	require.Len(t, *opened, 1)

	e.mu.Lock()
	e.refuse = 1
	e.mu.Unlock()
	_, _, err := runTool(t, toolNamed(t, ts, "whoami"), `{}`)
	require.ErrorContains(t, err, "invalid_grant")
	callWhoami(t, ts)
	require.Len(t, *opened, 2, "signed in again")
}

func TestIDTokenExpiry(t *testing.T) {
	enc := base64.RawURLEncoding.EncodeToString
	fallback := time.Unix(100, 0)
	require.Equal(t, time.Unix(1796653822, 0), idTokenExpiry(enc([]byte(`{"alg":"ES256"}`))+"."+enc([]byte(`{"exp":1796653822}`))+".sig", fallback))
	require.Equal(t, fallback, idTokenExpiry("opaque", fallback))
	require.Equal(t, fallback, idTokenExpiry("a.!!.c", fallback))
}

func TestEnterpriseErrors(t *testing.T) {
	e := newEnterpriseServers(t, "client_secret_basic")
	cases := []struct {
		name     string
		secret   string
		idToken  string
		sentinel error
		want     string
		secret2  string // a secret that must not appear in the error
	}{
		{"bad ID token", "mcp-secret", "forged-id-token", ErrTokenExchange, "invalid_grant", "forged-id-token"},
		{"bad client secret", "wrong-secret", goodIDToken, ErrJWTBearerGrant, "invalid_client", "wrong-secret"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := Connect(ctx, Config{URL: e.mcpURL, OAuth: enterpriseOAuth(e, c.secret, c.idToken, nil)})
			require.ErrorIs(t, err, ErrAuthorization)
			require.ErrorIs(t, err, c.sentinel)
			require.ErrorContains(t, err, c.want)
			require.NotContains(t, err.Error(), c.secret2, "tokens and secrets stay out of errors")
		})
	}

	t.Run("ID token callback fails", func(t *testing.T) {
		o := enterpriseOAuth(e, "mcp-secret", "", nil)
		o.Enterprise.IDToken = func(context.Context) (string, error) { return "", fmt.Errorf("the person closed the sign-in window") }
		_, err := Connect(context.Background(), Config{URL: e.mcpURL, OAuth: o})
		require.ErrorIs(t, err, ErrAuthorization)
		require.ErrorContains(t, err, "the person closed the sign-in window")
	})
}

func TestEnterpriseConfigErrors(t *testing.T) {
	idToken := func(context.Context) (string, error) { return "t", nil }
	good := func() *OAuth {
		return &OAuth{ClientID: "c", ClientSecret: "s", Enterprise: &Enterprise{IdPIssuer: "https://idp.example", IdPClientID: "i", IDToken: idToken}}
	}
	cases := []struct {
		name   string
		change func(o *OAuth)
		want   string
	}{
		{"with client credentials", func(o *OAuth) { o.ClientCredentials = true }, "ClientCredentials are both set"},
		{"no client id", func(o *OAuth) { o.ClientID, o.ClientSecret = "", "" }, "needs OAuth.ClientID"},
		{"no IdP", func(o *OAuth) { o.Enterprise.IdPIssuer = "" }, "exactly one of IdPIssuer"},
		{"both IdP URLs", func(o *OAuth) { o.Enterprise.IdPTokenURL = "https://idp.example/token" }, "exactly one of IdPIssuer"},
		{"no IdP client", func(o *OAuth) { o.Enterprise.IdPClientID = "" }, "IdPClientID"},
		{"no ID token nor issuer", func(o *OAuth) {
			o.Enterprise.IDToken, o.Enterprise.IdPIssuer, o.Enterprise.IdPTokenURL = nil, "", "https://idp.example/token"
		}, "set IdPIssuer, or IDToken"},
		{"sign-in without openid", func(o *OAuth) { o.Enterprise.IDToken, o.Enterprise.IdPScopes = nil, []string{"email"} }, `add "openid"`},
		{"not a URL", func(o *OAuth) { o.Enterprise.IdPIssuer = "idp.example" }, "https:// URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := good()
			c.change(o)
			_, err := Connect(context.Background(), Config{URL: "http://127.0.0.1:1/mcp", OAuth: o})
			require.ErrorIs(t, err, ErrInvalidConfig)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestIdPTokenEndpointDiscovery(t *testing.T) {
	// The IdP's issuer must be the one its metadata names; an IdP whose
	// metadata cannot be found says so, naming the URLs tried.
	mux := http.NewServeMux()
	var base string
	mux.HandleFunc("/other/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": "https://impostor.example", "token_endpoint": base + "/token"})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server/tenant", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": base + "/tenant", "token_endpoint": base + "/tenant/token"})
	})
	hs := httptest.NewServer(mux)
	defer hs.Close()
	base = hs.URL
	ctx := context.Background()

	got, err := idpTokenEndpoint(ctx, hs.Client(), base+"/tenant")
	require.NoError(t, err)
	require.Equal(t, base+"/tenant/token", got, "RFC 8414 path insertion when OpenID discovery has nothing")

	_, err = idpTokenEndpoint(ctx, hs.Client(), base+"/other")
	require.ErrorContains(t, err, `names issuer "https://impostor.example"`)

	_, err = idpTokenEndpoint(ctx, hs.Client(), base+"/nothing")
	require.ErrorContains(t, err, "no metadata for the identity provider")
	require.ErrorContains(t, err, "404")
}
