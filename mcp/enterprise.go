package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Enterprise is enterprise-managed authorization (the MCP extension
// SEP-990, "cross-app access"): the person has signed in to the
// organisation's identity provider (IdP), which decides which MCP servers
// they may use. On the server's 401, loom discovers the server's
// authorization server (as for any OAuth login), exchanges the person's ID
// token at the IdP for an identity assertion grant, an ID-JAG (RFC 8693
// token exchange, with the authorization server as audience and the server
// as resource), and trades that at the authorization server for an access
// token (RFC 7523 JWT-bearer grant) as the client [OAuth].ClientID, with
// ClientSecret (client_secret_basic, or client_secret_post when that is all
// the server supports) or ClientKey (private_key_jwt). No browser is
// involved; the tokens are held in memory only and the flow runs again when
// one expires or is refused.
type Enterprise struct {
	// IdPIssuer is the IdP's issuer URL, as "https://acme.okta.com"; its
	// token endpoint is found by OpenID Connect or RFC 8414 discovery.
	IdPIssuer string
	// IdPTokenURL is the IdP's token endpoint, used as is; set it instead
	// of IdPIssuer for an IdP without discovery.
	IdPTokenURL string
	// IdPClientID and IdPClientSecret are the client as registered with
	// the IdP; the secret is empty for a public client.
	IdPClientID     string
	IdPClientSecret string
	// IDToken returns the person's OpenID Connect ID token from the IdP,
	// for IdPClientID. It is called on each authorization, so it should
	// return a cached token while that is valid. Nil means loom signs the
	// person in to the IdP (IdPIssuer) itself: OpenID Connect's
	// authorization code flow with PKCE, the URL shown as [OAuth].OpenURL
	// says and the code arriving at a listener on 127.0.0.1 (the IdP must
	// accept http://127.0.0.1:PORT/callback for IdPClientID); the ID token
	// is held in memory until it expires.
	IDToken func(ctx context.Context) (string, error)
	// IdPScopes are the scopes of that sign-in; nil means "openid".
	IdPScopes []string
}

// Sentinels of the enterprise flow, wrapped with [ErrAuthorization].
var (
	// ErrTokenExchange reports that the IdP refused to exchange the ID
	// token for an ID-JAG.
	ErrTokenExchange = errors.New("the identity provider refused the token exchange")
	// ErrJWTBearerGrant reports that the MCP server's authorization server
	// refused the ID-JAG.
	ErrJWTBearerGrant = errors.New("the authorization server refused the identity assertion grant")
)

// enterpriseRenewal bounds the flow that replaces an expired token, a
// sign-in at the IdP included.
const enterpriseRenewal = 5 * time.Minute

// grantJWTBearer is the grant type of RFC 7523.
const grantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// validate checks e as o's enterprise login.
func (e *Enterprise) validate(o OAuth) error {
	switch {
	case o.ClientCredentials:
		return fmt.Errorf("%w: OAuth.Enterprise and OAuth.ClientCredentials are both set: a machine client has no person to sign in, drop one", ErrInvalidConfig)
	case o.ClientID == "":
		return fmt.Errorf("%w: OAuth.Enterprise needs OAuth.ClientID, the client registered with the MCP server's authorization server", ErrInvalidConfig)
	case o.ClientSecret != "" && o.ClientKey != nil:
		return fmt.Errorf("%w: OAuth.ClientSecret and OAuth.ClientKey are both set: the client authenticates with one", ErrInvalidConfig)
	case (e.IdPIssuer == "") == (e.IdPTokenURL == ""):
		return fmt.Errorf("%w: OAuth.Enterprise needs exactly one of IdPIssuer (discovered) and IdPTokenURL", ErrInvalidConfig)
	case e.IdPClientID == "":
		return fmt.Errorf("%w: OAuth.Enterprise needs IdPClientID, the client registered with the identity provider", ErrInvalidConfig)
	case e.IDToken == nil && e.IdPIssuer == "":
		return fmt.Errorf("%w: OAuth.Enterprise without IDToken signs the person in to the identity provider, found by IdPIssuer: set IdPIssuer, or IDToken", ErrInvalidConfig)
	case e.IDToken == nil && len(e.IdPScopes) > 0 && !slices.Contains(e.IdPScopes, "openid"):
		return fmt.Errorf("%w: OAuth.Enterprise.IdPScopes %v: add \"openid\", which an ID token needs", ErrInvalidConfig, e.IdPScopes)
	}
	for _, u := range []struct{ name, v string }{{"IdPIssuer", e.IdPIssuer}, {"IdPTokenURL", e.IdPTokenURL}} {
		if u.v != "" && !strings.HasPrefix(u.v, "https://") && !strings.HasPrefix(u.v, "http://") {
			return fmt.Errorf("%w: OAuth.Enterprise.%s %q: use an https:// URL", ErrInvalidConfig, u.name, u.v)
		}
	}
	return nil
}

// enterpriseLogIn runs the enterprise flow on the server's 401 or 403.
func (h *oauthHandler) enterpriseLogIn(ctx context.Context, req *http.Request, resp *http.Response) error {
	d, err := h.discover(ctx, req, resp)
	if err != nil {
		return err
	}
	first, err := h.enterpriseToken(ctx, d)
	if err != nil {
		return err
	}
	// An expired token is replaced by running the flow again, bounded as
	// the token source gets no context; a refused one comes back here
	// through Authorize.
	src := oauth2.ReuseTokenSource(first, tokenFunc(func() (*oauth2.Token, error) {
		ctx, cancel := context.WithTimeout(context.Background(), enterpriseRenewal)
		defer cancel()
		return h.enterpriseToken(ctx, d)
	}))
	h.mu.Lock()
	h.src = src
	h.mu.Unlock()
	return nil
}

// enterpriseToken exchanges the person's ID token for an ID-JAG at the
// IdP, then the ID-JAG for an access token at the authorization server d
// names.
func (h *oauthHandler) enterpriseToken(ctx context.Context, d *discovery) (*oauth2.Token, error) {
	e := h.o.Enterprise
	idToken, err := h.idToken(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: no ID token from the identity provider: %w", ErrAuthorization, err)
	}
	if idToken == "" {
		return nil, fmt.Errorf("%w: OAuth.Enterprise.IDToken returned an empty ID token", ErrAuthorization)
	}
	tokenURL := e.IdPTokenURL
	if tokenURL == "" {
		if tokenURL, err = idpTokenEndpoint(ctx, h.client, e.IdPIssuer); err != nil {
			return nil, fmt.Errorf("%w: %w (set OAuth.Enterprise.IdPTokenURL if it has no discovery)", ErrAuthorization, err)
		}
	}
	idp := &oauthex.ClientCredentials{ClientID: e.IdPClientID}
	if e.IdPClientSecret != "" {
		idp.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: e.IdPClientSecret}
	}
	jag, err := oauthex.ExchangeToken(ctx, tokenURL, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG,
		Audience:           d.asm.Issuer,
		Resource:           d.prm.Resource,
		Scope:              d.scopes,
		SubjectToken:       idToken,
		SubjectTokenType:   oauthex.TokenTypeIDToken,
	}, idp, h.client)
	if err != nil {
		h.idp.forget(idToken) // the IdP may have ended the session: sign in again next time
		return nil, fmt.Errorf("%w: %w at %s: %s", ErrAuthorization, ErrTokenExchange, tokenURL, maskTokens(err))
	}
	if typ, _ := jag.Extra("issued_token_type").(string); typ != oauthex.TokenTypeIDJAG {
		return nil, fmt.Errorf("%w: %w at %s: it issued a token of type %q, not an ID-JAG", ErrAuthorization, ErrTokenExchange, tokenURL, typ)
	}

	// The RFC 7523 grant is made here rather than by the SDK's
	// extauth.EnterpriseHandler, which always sends the client secret in
	// the body, while authorization servers may accept only
	// client_secret_basic.
	style, params, err := h.clientAuth(d.asm)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAuthorization, err)
	}
	if h.o.ClientSecret == "" && h.o.ClientKey == nil {
		style = oauth2.AuthStyleInParams // a public client names itself in the body
	}
	cfg := &oauth2.Config{ClientID: h.o.ClientID, ClientSecret: h.o.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: d.asm.TokenEndpoint, AuthStyle: style}}
	opts := []oauth2.AuthCodeOption{
		oauth2.SetAuthURLParam("grant_type", grantJWTBearer),
		oauth2.SetAuthURLParam("assertion", jag.AccessToken),
	}
	if len(d.scopes) > 0 {
		opts = append(opts, oauth2.SetAuthURLParam("scope", strings.Join(d.scopes, " ")))
	}
	for k := range params {
		opts = append(opts, oauth2.SetAuthURLParam(k, params.Get(k)))
	}
	t, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, h.client), "", opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w at %s: %s", ErrAuthorization, ErrJWTBearerGrant, d.asm.TokenEndpoint, maskTokens(err))
	}
	return t, nil
}

// idpTokenEndpoint finds the token endpoint of the IdP issuer by OpenID
// Connect discovery, else RFC 8414 metadata. The SDK's discovery is not
// used: it requires PKCE support, which a token exchange does not need.
func idpTokenEndpoint(ctx context.Context, client *http.Client, issuer string) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("the identity provider's issuer %q is not a URL", issuer)
	}
	path := strings.TrimRight(u.Path, "/")
	origin := u.Scheme + "://" + u.Host
	var tried []string
	for _, m := range []string{
		origin + path + "/.well-known/openid-configuration",
		origin + "/.well-known/oauth-authorization-server" + path,
	} {
		meta, err := getIdPMetadata(ctx, client, m)
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		switch {
		case strings.TrimRight(meta.Issuer, "/") != strings.TrimRight(issuer, "/"):
			return "", fmt.Errorf("the identity provider's metadata at %s names issuer %q, not %q", m, meta.Issuer, issuer)
		case !secureURL(meta.TokenEndpoint):
			return "", fmt.Errorf("the identity provider's metadata at %s gives token endpoint %q: an https URL (or http on loopback) is required", m, meta.TokenEndpoint)
		}
		return meta.TokenEndpoint, nil
	}
	return "", fmt.Errorf("no metadata for the identity provider %s: %s", issuer, strings.Join(tried, "; "))
}

// idpMetadata is what loom reads of an IdP's metadata.
type idpMetadata struct {
	Issuer        string `json:"issuer"`
	TokenEndpoint string `json:"token_endpoint"`
}

// getIdPMetadata fetches one metadata document.
func getIdPMetadata(ctx context.Context, client *http.Client, u string) (*idpMetadata, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", u, resp.Status)
	}
	var m idpMetadata
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m); err != nil {
		return nil, fmt.Errorf("%s is not JSON metadata: %w", u, err)
	}
	return &m, nil
}

// secureURL reports whether u is https, or http to a loopback address.
func secureURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return false
	}
	if p.Scheme == "https" {
		return true
	}
	if p.Scheme != "http" {
		return false
	}
	h := p.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// idSession is the ID token of loom's own sign-in to the IdP.
type idSession struct {
	mu      sync.Mutex
	token   string
	expires time.Time
}

// idToken returns the person's ID token: from Enterprise.IDToken, or from
// loom's sign-in, made again when the last one's token has expired.
func (h *oauthHandler) idToken(ctx context.Context) (string, error) {
	e := h.o.Enterprise
	if e.IDToken != nil {
		return e.IDToken(ctx)
	}
	s := &h.idp
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token != "" && time.Now().Add(time.Minute).Before(s.expires) {
		return s.token, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listen for the identity provider's redirect: %w", err)
	}
	defer l.Close()
	creds := &oauthex.ClientCredentials{ClientID: e.IdPClientID}
	if e.IdPClientSecret != "" {
		creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: e.IdPClientSecret}
	}
	scopes := e.IdPScopes
	if len(scopes) == 0 {
		scopes = []string{"openid"}
	}
	t, err := extauth.PerformOIDCLogin(ctx, &extauth.OIDCLoginConfig{
		IssuerURL:   e.IdPIssuer,
		Credentials: creds,
		RedirectURL: fmt.Sprintf("http://127.0.0.1:%d/callback", l.Addr().(*net.TCPAddr).Port),
		Scopes:      scopes,
		HTTPClient:  h.client,
	}, h.fetchListening(l))
	if err != nil {
		return "", fmt.Errorf("signing in to %s: %s", e.IdPIssuer, maskTokens(err))
	}
	id, _ := t.Extra("id_token").(string)
	s.token, s.expires = id, idTokenExpiry(id, t.Expiry)
	return id, nil
}

// forget drops the kept ID token if it is idToken.
func (s *idSession) forget(idToken string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token == idToken {
		s.token = ""
	}
}

// idTokenExpiry is the exp claim of the ID token (a JWT, whose signature
// the IdP checks when it takes the token back), else fallback.
func idTokenExpiry(idToken string, fallback time.Time) time.Time {
	parts := strings.Split(idToken, ".")
	if len(parts) == 3 {
		if b, err := base64.RawURLEncoding.DecodeString(parts[1]); err == nil {
			var c struct {
				Exp int64 `json:"exp"`
			}
			if json.Unmarshal(b, &c) == nil && c.Exp > 0 {
				return time.Unix(c.Exp, 0)
			}
		}
	}
	return fallback
}
