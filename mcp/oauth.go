package mcp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// OAuth logs in to an HTTP MCP server as the MCP authorization
// specification describes: the server's 401 names its protected-resource
// metadata, which names the authorization server, whose metadata (RFC 8414,
// or OpenID Connect discovery) gives its endpoints; the client registers
// itself (RFC 7591) unless a client is given, and a person authorizes it in
// a browser (authorization code with PKCE S256 and the resource indicator),
// the code arriving at a listener on 127.0.0.1. Tokens are kept in Store
// and refreshed when they expire and when the server refuses one.
type OAuth struct {
	// Store keeps each server's tokens between runs; nil means a
	// [FileTokenStore] in the user's config directory.
	Store TokenStore
	// ClientID names a client registered with the authorization server
	// beforehand, with ClientSecret when it is confidential. Empty, loom
	// registers itself (dynamic client registration).
	ClientID     string
	ClientSecret string
	// ClientMetadataURL is an https URL of loom's client metadata document,
	// tried first with servers that support them.
	ClientMetadataURL string
	// RedirectURL is where the authorization server sends the person back,
	// for a client registered with a fixed one; the caller serves it and
	// OpenURL returns the code. Empty, loom listens on 127.0.0.1 at a free
	// port for the duration of a login.
	RedirectURL string
	// OpenURL shows a person the authorization URL. Nil means: print it to
	// Out, and open it in a browser when Out is a terminal.
	OpenURL func(ctx context.Context, url string) error
	// Out is where the URL is printed; nil means os.Stderr.
	Out io.Writer
	// HTTPClient makes the metadata, registration and token requests; nil
	// means http.DefaultClient.
	HTTPClient *http.Client
	// ClientCredentials makes loom a machine client: it gets its tokens
	// with the client_credentials grant, no person involved, as ClientID
	// authenticated by ClientSecret (sent as the authorization server
	// supports) or by a JWT signed with ClientKey. The tokens are held in
	// memory only, renewed when they expire.
	ClientCredentials bool
	// Enterprise, when set, logs in through the organisation's identity
	// provider instead of a browser (enterprise-managed authorization); see
	// [Enterprise]. ClientID, with ClientSecret or ClientKey, is then the
	// client registered with the MCP server's authorization server.
	Enterprise *Enterprise
	// ClientKey signs the client's assertions (private_key_jwt, RFC 7523)
	// with ES256: an ECDSA P-256 key.
	ClientKey *ecdsa.PrivateKey
	// Callback, when set with RedirectURL, returns the redirect's query
	// once the person is back (code, state, iss or error). Tests and
	// embedders that serve the redirect themselves set it.
	Callback func(ctx context.Context) (code, state, iss string, err error)
}

// ErrAuthorization reports that logging in to an MCP server failed.
var ErrAuthorization = errors.New("mcp: authorization failed")

// Login is what a [TokenStore] keeps for one server: the token and what
// refreshing it needs. Its fields are secrets.
type Login struct {
	Token        *oauth2.Token    `json:"token"`
	ClientID     string           `json:"client_id"`
	ClientSecret string           `json:"client_secret,omitempty"`
	TokenURL     string           `json:"token_url"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style,omitempty"`
	Resource     string           `json:"resource,omitempty"`
	Scopes       []string         `json:"scopes,omitempty"`
}

// TokenStore keeps logins by server URL.
type TokenStore interface {
	// Load returns the login kept for server, or nil.
	Load(server string) (*Login, error)
	// Save keeps l for server.
	Save(server string, l *Login) error
}

// FileTokenStore keeps each server's login in a file of its own under Dir
// (mode 0700), readable by its owner only (0600).
type FileTokenStore struct {
	Dir string
}

// DefaultTokenStore returns the store in the user's config directory:
// os.UserConfigDir()/loom/mcp-tokens.
func DefaultTokenStore() (*FileTokenStore, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil, fmt.Errorf("mcp: no user config directory for OAuth tokens (set OAuth.Store): %w", err)
	}
	return &FileTokenStore{Dir: filepath.Join(dir, "loom", "mcp-tokens")}, nil
}

// file is where server's login is kept: named by a hash of the URL.
func (s *FileTokenStore) file(server string) string {
	sum := sha256.Sum256([]byte(server))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:12])+".json")
}

// Load reads server's login; nil when there is none.
func (s *FileTokenStore) Load(server string) (*Login, error) {
	b, err := os.ReadFile(s.file(server))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: read the OAuth login for %s: %w", server, err)
	}
	var l Login
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("mcp: the OAuth login file %s is damaged (delete it to log in again): %w", s.file(server), err)
	}
	return &l, nil
}

// Save writes server's login, replacing the file whole.
func (s *FileTokenStore) Save(server string, l *Login) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("mcp: create the OAuth token directory: %w", err)
	}
	if err := os.Chmod(s.Dir, 0o700); err != nil {
		return fmt.Errorf("mcp: restrict the OAuth token directory: %w", err)
	}
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("mcp: encode the OAuth login: %w", err)
	}
	tmp, err := os.CreateTemp(s.Dir, ".login-*")
	if err != nil {
		return fmt.Errorf("mcp: save the OAuth login: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("mcp: save the OAuth login: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("mcp: save the OAuth login: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("mcp: save the OAuth login: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.file(server)); err != nil {
		return fmt.Errorf("mcp: save the OAuth login: %w", err)
	}
	return nil
}

// oauthHandler is the SDK's authorization handler for one server URL.
type oauthHandler struct {
	o      OAuth
	server string
	client *http.Client

	mu    sync.Mutex
	login *Login
	src   oauth2.TokenSource

	idp idSession // the enterprise sign-in, when loom makes it
}

var _ auth.OAuthHandler = (*oauthHandler)(nil)

// newOAuthHandler returns the handler of server's logins.
func newOAuthHandler(o OAuth, server string) (*oauthHandler, error) {
	if o.Store == nil {
		s, err := DefaultTokenStore()
		if err != nil {
			return nil, err
		}
		o.Store = s
	}
	if o.Out == nil {
		o.Out = os.Stderr
	}
	if o.Callback != nil && o.RedirectURL == "" {
		return nil, fmt.Errorf("%w: OAuth.Callback needs OAuth.RedirectURL, the redirect it serves", ErrInvalidConfig)
	}
	if o.ClientCredentials && (o.ClientID == "" || (o.ClientSecret == "") == (o.ClientKey == nil)) {
		return nil, fmt.Errorf("%w: OAuth.ClientCredentials needs OAuth.ClientID and one of OAuth.ClientSecret and OAuth.ClientKey", ErrInvalidConfig)
	}
	if o.Enterprise != nil {
		if err := o.Enterprise.validate(o); err != nil {
			return nil, err
		}
	}
	if o.ClientKey != nil && o.ClientKey.Curve != elliptic.P256() {
		return nil, fmt.Errorf("%w: OAuth.ClientKey must be an ECDSA P-256 key (ES256)", ErrInvalidConfig)
	}
	if o.ClientSecret != "" && o.ClientID == "" {
		return nil, fmt.Errorf("%w: OAuth.ClientSecret is set without OAuth.ClientID", ErrInvalidConfig)
	}
	h := &oauthHandler{o: o, server: server, client: o.HTTPClient}
	if h.client == nil {
		h.client = http.DefaultClient
	}
	return h, nil
}

// TokenSource returns the source of the server's tokens: the one of this
// session's login, or of the login kept in the store.
func (h *oauthHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.src != nil || h.o.ClientCredentials || h.o.Enterprise != nil {
		return h.src, nil
	}
	l, err := h.o.Store.Load(h.server)
	if err != nil || l == nil || l.Token == nil {
		return nil, err
	}
	h.use(l)
	return h.src, nil
}

// use makes l the current login; h.mu is held.
func (h *oauthHandler) use(l *Login) {
	h.login = l
	cfg := &oauth2.Config{ClientID: l.ClientID, ClientSecret: l.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: l.TokenURL, AuthStyle: l.AuthStyle}, Scopes: l.Scopes}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, h.client)
	h.src = &savingSource{h: h, next: oauth2.ReuseTokenSource(l.Token, cfg.TokenSource(ctx, l.Token)), last: l.Token.AccessToken}
}

// savingSource keeps every new token in the store.
type savingSource struct {
	h    *oauthHandler
	next oauth2.TokenSource
	mu   sync.Mutex
	last string
}

// Token returns a valid token, refreshed when it expired.
func (s *savingSource) Token() (*oauth2.Token, error) {
	t, err := s.next.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: refreshing the token for %s: %s", ErrAuthorization, s.h.server, maskTokens(err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.AccessToken != s.last {
		s.last = t.AccessToken
		s.h.mu.Lock()
		l := *s.h.login
		l.Token = t
		s.h.login = &l
		s.h.mu.Unlock()
		if err := s.h.o.Store.Save(s.h.server, &l); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Authorize answers the server's 401 or 403: with a refresh token kept,
// it first tries a new token; otherwise, or when that fails, a person logs
// in.
func (h *oauthHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	switch {
	case h.o.ClientCredentials:
		return h.machineLogIn(ctx, req, resp)
	case h.o.Enterprise != nil:
		return h.enterpriseLogIn(ctx, req, resp)
	}
	if resp.StatusCode == http.StatusUnauthorized && h.refresh(ctx) {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return nil
	}
	return h.logIn(ctx, req, resp)
}

// refresh replaces the current token with one from its refresh token.
func (h *oauthHandler) refresh(ctx context.Context) bool {
	h.mu.Lock()
	l := h.login
	h.mu.Unlock()
	if l == nil {
		var err error
		if l, err = h.o.Store.Load(h.server); err != nil || l == nil {
			return false
		}
	}
	if l.Token == nil || l.Token.RefreshToken == "" {
		return false
	}
	cfg := &oauth2.Config{ClientID: l.ClientID, ClientSecret: l.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: l.TokenURL, AuthStyle: l.AuthStyle}, Scopes: l.Scopes}
	expired := &oauth2.Token{RefreshToken: l.Token.RefreshToken, Expiry: time.Unix(1, 0)}
	t, err := cfg.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, h.client), expired).Token()
	if err != nil {
		return false
	}
	nl := *l
	nl.Token = t
	if h.o.Store.Save(h.server, &nl) != nil {
		return false
	}
	h.mu.Lock()
	h.use(&nl)
	h.mu.Unlock()
	return true
}

// logIn runs the SDK's authorization code flow with a person.
func (h *oauthHandler) logIn(ctx context.Context, req *http.Request, resp *http.Response) error {
	redirect, fetch := h.o.RedirectURL, h.fetchGiven
	if redirect == "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("%w: listen for the authorization redirect: %w", ErrAuthorization, err)
		}
		defer l.Close()
		redirect = fmt.Sprintf("http://127.0.0.1:%d/callback", l.Addr().(*net.TCPAddr).Port)
		fetch = h.fetchListening(l)
	}
	var made *Login
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: fetch,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{redirect},
			ClientName:              "loom",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}},
		RequestRefreshToken: true,
		Client:              h.client,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			made = &Login{Token: t, ClientID: c.ClientID, ClientSecret: c.ClientSecret, TokenURL: c.Endpoint.TokenURL, AuthStyle: c.Endpoint.AuthStyle, Scopes: c.Scopes}
			return c.TokenSource(ctx, t), nil
		},
	}
	if h.o.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: h.o.ClientID}
		if h.o.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: h.o.ClientSecret}
		}
	}
	if h.o.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: h.o.ClientMetadataURL}
	}
	sdkH, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrAuthorization, err)
	}
	if err := sdkH.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("%w: logging in to %s: %s", ErrAuthorization, h.server, maskTokens(err))
	}
	if made == nil { // a 403 without insufficient_scope: nothing to do
		return nil
	}
	if err := h.o.Store.Save(h.server, made); err != nil {
		return err
	}
	h.mu.Lock()
	h.use(made)
	h.mu.Unlock()
	return nil
}

// show gives a person the authorization URL.
func (h *oauthHandler) show(ctx context.Context, u string) error {
	if h.o.OpenURL != nil {
		return h.o.OpenURL(ctx, u)
	}
	fmt.Fprintf(h.o.Out, "Log in to %s: open this URL in a browser:\n%s\n", h.server, u)
	if f, ok := h.o.Out.(*os.File); ok && isTerminal(f) {
		openBrowser(u)
	}
	return nil
}

// fetchGiven shows the URL and takes the code from OAuth.Callback.
func (h *oauthHandler) fetchGiven(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	if err := h.show(ctx, args.URL); err != nil {
		return nil, err
	}
	if h.o.Callback == nil {
		return nil, fmt.Errorf("%w: OAuth.RedirectURL is set without OAuth.Callback to return the code", ErrInvalidConfig)
	}
	code, state, iss, err := h.o.Callback(ctx)
	if err != nil {
		return nil, err
	}
	return &auth.AuthorizationResult{Code: code, State: state, Iss: iss}, nil
}

// redirectShutdown bounds the wait for the redirect listener's last answer
// to reach the browser.
const redirectShutdown = 5 * time.Second

// fetchListening shows the URL and waits for the redirect at l.
func (h *oauthHandler) fetchListening(l net.Listener) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		got := make(chan *auth.AuthorizationResult, 1)
		failed := make(chan error, 1)
		srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/callback" {
				http.NotFound(w, r)
				return
			}
			q := r.URL.Query()
			if e := q.Get("error"); e != "" {
				msg := e
				if d := q.Get("error_description"); d != "" {
					msg += ": " + d
				}
				http.Error(w, "Authorization failed: "+html.EscapeString(msg), http.StatusBadRequest)
				select {
				case failed <- fmt.Errorf("the authorization server answered %s", msg):
				default:
				}
				return
			}
			fmt.Fprintln(w, "loom is authorized. You can close this tab.")
			select {
			case got <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
			default:
			}
		})}
		go func() { _ = srv.Serve(l) }()
		defer func() {
			// Shutdown, not Close: the browser's request that brought the
			// code is still being answered, and closing its connection now
			// would show the person an error instead of the page.
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), redirectShutdown)
			defer cancel()
			if srv.Shutdown(sctx) != nil {
				_ = srv.Close()
			}
		}()
		if err := h.show(ctx, args.URL); err != nil {
			return nil, err
		}
		select {
		case res := <-got:
			return res, nil
		case err := <-failed:
			return nil, err
		case <-ctx.Done():
			return nil, fmt.Errorf("no authorization came back: %w", ctx.Err())
		}
	}
}

// maskTokens returns err's message; the errors of the OAuth libraries
// name endpoints and error codes, and a token is never put in one, but a
// token endpoint's raw reply can carry any text: it is cut.
func maskTokens(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		msg := "the token endpoint answered " + re.Response.Status
		if re.ErrorCode != "" {
			msg += ": " + re.ErrorCode
		}
		if re.ErrorDescription != "" {
			msg += ": " + re.ErrorDescription
		}
		return msg
	}
	return err.Error()
}

// isTerminal reports whether f is a character device, as a terminal is.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// openBrowser opens u in the desktop's browser, if it has one; the URL is
// printed either way.
func openBrowser(u string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return
		}
		cmd = exec.Command("xdg-open", u)
	}
	if cmd.Start() == nil {
		go func() { _ = cmd.Wait() }()
	}
}

// staticTokens authorizes with a caller's token source and cannot log in.
type staticTokens struct {
	src    oauth2.TokenSource
	server string
}

// TokenSource returns the caller's source.
func (s staticTokens) TokenSource(context.Context) (oauth2.TokenSource, error) { return s.src, nil }

// Authorize fails: the caller's token was refused.
func (s staticTokens) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return fmt.Errorf("%w: %s refused the token of Config.TokenSource (%s)", ErrAuthorization, s.server, resp.Status)
}

// machineLogIn gets a token with the client_credentials grant, from the
// authorization server the server's protected-resource metadata names.
func (h *oauthHandler) machineLogIn(ctx context.Context, req *http.Request, resp *http.Response) error {
	d, err := h.discover(ctx, req, resp)
	if err != nil {
		return err
	}
	cctx := context.WithValue(context.Background(), oauth2.HTTPClient, h.client)
	newConfig := func() (*clientcredentials.Config, error) {
		style, params, err := h.clientAuth(d.asm)
		if err != nil {
			return nil, err
		}
		params.Set("resource", d.prm.Resource)
		return &clientcredentials.Config{ClientID: h.o.ClientID, ClientSecret: h.o.ClientSecret, TokenURL: d.asm.TokenEndpoint, Scopes: d.scopes,
			AuthStyle: style, EndpointParams: params}, nil
	}
	// Each new token is asked for with a fresh assertion.
	src := oauth2.ReuseTokenSource(nil, tokenFunc(func() (*oauth2.Token, error) {
		cfg, err := newConfig()
		if err != nil {
			return nil, err
		}
		return cfg.Token(cctx)
	}))
	if _, err := src.Token(); err != nil {
		return fmt.Errorf("%w: client_credentials grant at %s: %s", ErrAuthorization, d.asm.TokenEndpoint, maskTokens(err))
	}
	h.mu.Lock()
	h.src = src
	h.mu.Unlock()
	return nil
}

// discovery is what a server's 401 leads to: its protected-resource
// metadata, its authorization server's metadata and the scopes to ask for.
type discovery struct {
	prm    *oauthex.ProtectedResourceMetadata
	asm    *oauthex.AuthServerMeta
	scopes []string
}

// discover finds the authorization server of the server that answered
// req with resp, as the MCP authorization specification describes: the
// challenge's resource_metadata or the well-known URIs (RFC 9728), then
// the authorization server's metadata (RFC 8414 or OpenID Connect). The
// scopes are the challenge's, else those the resource supports.
func (h *oauthHandler) discover(ctx context.Context, req *http.Request, resp *http.Response) (*discovery, error) {
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	server := req.URL.String()
	var prm *oauthex.ProtectedResourceMetadata
	for _, u := range metadataURLs(challenges, server) {
		if p, err := oauthex.GetProtectedResourceMetadata(ctx, u[0], u[1], h.client); err == nil && p != nil && len(p.AuthorizationServers) > 0 {
			prm = p
			break
		}
	}
	if prm == nil {
		return nil, fmt.Errorf("%w: %s publishes no protected-resource metadata naming its authorization server", ErrAuthorization, server)
	}
	asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], h.client)
	if err != nil || asm == nil {
		return nil, fmt.Errorf("%w: no metadata for the authorization server %s: %v", ErrAuthorization, prm.AuthorizationServers[0], err)
	}
	var scopes []string
	for _, c := range challenges {
		if c.Scheme == "bearer" && c.Params["scope"] != "" {
			scopes = strings.Fields(c.Params["scope"])
		}
	}
	if len(scopes) == 0 {
		scopes = prm.ScopesSupported
	}
	return &discovery{prm: prm, asm: asm, scopes: scopes}, nil
}

// clientAuth says how the client authenticates at the token endpoint of
// the authorization server asm describes: by a JWT signed with ClientKey
// (private_key_jwt, in the returned parameters), else with ClientSecret
// in an Authorization header (client_secret_basic) unless the server
// supports only client_secret_post.
func (h *oauthHandler) clientAuth(asm *oauthex.AuthServerMeta) (oauth2.AuthStyle, url.Values, error) {
	params := url.Values{}
	if h.o.ClientKey != nil {
		jwt, err := clientAssertion(h.o.ClientKey, h.o.ClientID, asm.Issuer)
		if err != nil {
			return 0, nil, err
		}
		params.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		params.Set("client_assertion", jwt)
		return oauth2.AuthStyleInParams, params, nil
	}
	style := oauth2.AuthStyleInHeader
	if m := asm.TokenEndpointAuthMethodsSupported; len(m) > 0 && !slices.Contains(m, "client_secret_basic") && slices.Contains(m, "client_secret_post") {
		style = oauth2.AuthStyleInParams
	}
	return style, params, nil
}

// metadataURLs are where a server's protected-resource metadata may be,
// with the resource each names: the challenge's resource_metadata, then
// the well-known URIs at the endpoint's path and at the root (RFC 9728).
func metadataURLs(challenges []oauthex.Challenge, server string) [][2]string {
	var urls [][2]string
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			urls = append(urls, [2]string{u, server})
		}
	}
	u, err := url.Parse(server)
	if err != nil {
		return urls
	}
	root := *u
	root.Path, root.RawQuery = "", ""
	urls = append(urls,
		[2]string{root.String() + "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/"), server},
		[2]string{root.String() + "/.well-known/oauth-protected-resource", root.String()})
	return urls
}

// tokenFunc is a token source written as a function.
type tokenFunc func() (*oauth2.Token, error)

// Token returns a new token.
func (f tokenFunc) Token() (*oauth2.Token, error) { return f() }

// clientAssertion is a JWT (RFC 7523) naming clientID as issuer and
// subject, for the authorization server audience, signed ES256 with key.
func clientAssertion(key *ecdsa.PrivateKey, clientID, audience string) (string, error) {
	now := time.Now()
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	header, _ := json.Marshal(map[string]string{"alg": "ES256", "typ": "JWT"})
	claims, err := json.Marshal(map[string]any{"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": hex.EncodeToString(jti)})
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString(header) + "." + enc.EncodeToString(claims)
	sum := sha256.Sum256([]byte(signing))
	r, sig, err := ecdsa.Sign(rand.Reader, key, sum[:])
	if err != nil {
		return "", fmt.Errorf("mcp: sign the client assertion: %w", err)
	}
	raw := make([]byte, 64)
	r.FillBytes(raw[:32])
	sig.FillBytes(raw[32:])
	return signing + "." + enc.EncodeToString(raw), nil
}
