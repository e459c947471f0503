package spec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v4"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/mcp"
)

// MCP declares the tools of an MCP server (mcp.Connect). An ai or
// code_execution entry that names it in its tools is offered all of the
// server's tools (those the filter keeps). The server is reached when a
// run first asks for its tools, never when the file is loaded or
// validated.
type MCP struct {
	Type        string `yaml:"type" json:"type"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Command starts a server spoken to over stdio: a list [program, arg,
	// ...] or one string split at spaces.
	Command Command `yaml:"command,omitempty" json:"command,omitempty"`
	// Env names the environment variables a command server is given from
	// loom's environment (or .env.local), as [GITHUB_TOKEN]; their values
	// are never written in the file. A command server starts with only
	// the variables a program needs to run (mcp.ServerEnv) and these: the
	// rest of loom's environment, provider keys among it, stays out of
	// reach of the server's tools and so of the model.
	Env []string `yaml:"env,omitempty" json:"env,omitempty"`
	// URL is a streamable HTTP endpoint, http:// or https://.
	URL string `yaml:"url,omitempty" json:"url,omitempty" jsonschema:"pattern=^https?://"`
	// Headers are sent with every HTTP request. Their values come from the
	// environment only: each holds at least one ${env:NAME}, as
	// "Bearer ${env:API_TOKEN}".
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	// HeadersEnv names, for each header, the environment variable that
	// holds its whole value.
	HeadersEnv map[string]string `yaml:"headers_env,omitempty" json:"headers_env,omitempty"`
	// Auth says how loom gets the server's tokens when it asks (url only):
	//   - oauth logs in with OAuth 2.1: the authorization URL is printed
	//     (and opened in a browser on a terminal), and the tokens are kept
	//     in the user's config directory, never in the project;
	//   - client_credentials makes loom a machine client (client_id and
	//     client_secret_env), no person involved;
	//   - enterprise is enterprise-managed authorization: the person signs
	//     in to the organisation's identity provider (idp) in a browser,
	//     and loom trades the ID token for the server's token as client_id.
	Auth string `yaml:"auth,omitempty" json:"auth,omitempty" jsonschema:"enum=oauth,enum=client_credentials,enum=enterprise"`
	// ClientID names the client registered beforehand with the server's
	// authorization server: optional for oauth (loom registers itself),
	// required for client_credentials and enterprise.
	ClientID string `yaml:"client_id,omitempty" json:"client_id,omitempty"`
	// ClientSecretEnv names the environment variable that holds the
	// client's secret (secrets are never written in the file).
	ClientSecretEnv string `yaml:"client_secret_env,omitempty" json:"client_secret_env,omitempty" jsonschema:"pattern=^[A-Za-z_][A-Za-z0-9_]*$"`
	// IdP is the identity provider of auth: enterprise.
	IdP *MCPIdP `yaml:"idp,omitempty" json:"idp,omitempty"`
	// Prefix goes in front of every tool's name ("prefix_name"), so the
	// tools of several servers do not clash.
	Prefix string `yaml:"prefix,omitempty" json:"prefix,omitempty" jsonschema:"pattern=^[a-zA-Z_][a-zA-Z0-9_-]*$"`
	// Filter keeps only the tools named (their names on the server).
	Filter []string `yaml:"filter,omitempty" json:"filter,omitempty" jsonschema:"minItems=1"`
	// Timeout bounds each tool call, as a Go duration ("30s"); the
	// default is mcp.DefaultTimeout.
	Timeout string `yaml:"timeout,omitempty" json:"timeout,omitempty"`
}

// MCPIdP is an organisation's identity provider, for auth: enterprise.
type MCPIdP struct {
	// Issuer is its issuer URL, as "https://acme.okta.com"; its endpoints
	// are found by OpenID Connect discovery.
	Issuer string `yaml:"issuer" json:"issuer" jsonschema:"pattern=^https?://"`
	// ClientID names loom's client registered with it; the person's
	// sign-in redirects to http://127.0.0.1:PORT/callback.
	ClientID string `yaml:"client_id" json:"client_id"`
	// ClientSecretEnv names the environment variable that holds that
	// client's secret, for a confidential client.
	ClientSecretEnv string `yaml:"client_secret_env,omitempty" json:"client_secret_env,omitempty" jsonschema:"pattern=^[A-Za-z_][A-Za-z0-9_]*$"`
	// Scopes of the sign-in; the default is [openid].
	Scopes []string `yaml:"scopes,omitempty" json:"scopes,omitempty"`
}

// JSONSchemaExtend adds what the loader checks beyond the keys: exactly
// one of command and url, and header values that only name environment
// variables.
func (MCP) JSONSchemaExtend(s *jsonschema.Schema) {
	s.OneOf = []*jsonschema.Schema{{Required: []string{"command"}}, {Required: []string{"url"}}}
	if h, ok := s.Properties.Get("headers"); ok {
		h.AdditionalProperties = &jsonschema.Schema{Type: "string", Pattern: `\$\{env:[A-Za-z_][A-Za-z0-9_]*\}`}
	}
	if h, ok := s.Properties.Get("headers_env"); ok {
		h.AdditionalProperties = &jsonschema.Schema{Type: "string", Pattern: envName.String()}
	}
}

// Command is a program and its arguments, written as a list or as one
// string split at spaces.
type Command []string

// UnmarshalYAML reads a list or a string.
func (c *Command) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*c = strings.Fields(n.Value)
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return err
	}
	*c = list
	return nil
}

// JSONSchema describes Command: a string or a list of strings.
func (Command) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Type: "string", MinLength: ptr(uint64(1)), Description: "the program and its arguments, split at spaces"},
		{Type: "array", MinItems: ptr(uint64(1)), Items: &jsonschema.Schema{Type: "string"}, Description: "the program, then its arguments"},
	}}
}

func ptr[T any](v T) *T { return &v }

var (
	envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	envRef  = regexp.MustCompile(`\$\{env:([^}]*)\}`)
)

// checkMCP checks what the keys' types cannot: exactly one of command and
// url, an http(s) URL, headers that take their values from the
// environment, a positive timeout.
func (d *Doc) checkMCP(c *checker, e *Entry, m *MCP) {
	at := join("agents", e.Name)
	pos := func(key string) *yaml.Node {
		if n := d.pos[join(at, key)]; n != nil {
			return n
		}
		return d.pos[at]
	}
	switch {
	case len(m.Command) == 0 && m.URL == "":
		c.fail(pos(""), at, "give command (a server started over stdio) or url (a streamable HTTP endpoint)", "an mcp entry needs command or url")
	case len(m.Command) > 0 && m.URL != "":
		c.fail(pos("url"), join(at, "url"), "keep one of them", "both command and url are given")
	case m.URL != "" && !strings.HasPrefix(m.URL, "http://") && !strings.HasPrefix(m.URL, "https://"):
		c.fail(pos("url"), join(at, "url"), "use an http:// or https:// URL", "url %q is not an HTTP URL", m.URL)
	}
	if (len(m.Headers) > 0 || len(m.HeadersEnv) > 0) && m.URL == "" {
		c.fail(pos("headers"), join(at, "headers"), "headers are sent over HTTP only: set url, or drop them", "headers without url")
	}
	for _, k := range sortedKeys(m.Headers) {
		v, p := m.Headers[k], join(join(at, "headers"), k)
		refs := envRef.FindAllStringSubmatch(v, -1)
		if len(refs) == 0 {
			c.fail(d.pos[p], p, `write the secret in the environment and name it here, as "Bearer ${env:API_TOKEN}"`, "header %s is written in the file", k)
		}
		for _, r := range refs {
			if !envName.MatchString(r[1]) {
				c.fail(d.pos[p], p, "an environment variable name has letters, digits and '_'", "header %s names %q, not a valid environment variable", k, r[1])
			}
		}
	}
	if len(m.Env) > 0 && len(m.Command) == 0 {
		c.fail(pos("env"), join(at, "env"), "env is given to a server loom starts: set command, or send a header to a url", "env without command")
	}
	for i, name := range m.Env {
		if !envName.MatchString(name) {
			p := join(at, "env")
			c.fail(pos("env"), p, "name an environment variable (letters, digits and '_'), as GITHUB_TOKEN; its value stays in the environment or .env.local", "env[%d] %q is not an environment variable name", i, name)
		}
	}
	d.checkMCPAuth(c, at, pos, m)
	for _, k := range sortedKeys(m.HeadersEnv) {
		if p := join(join(at, "headers_env"), k); !envName.MatchString(m.HeadersEnv[k]) {
			c.fail(d.pos[p], p, "name the environment variable that holds the value, as API_TOKEN", "%q is not a valid environment variable name", m.HeadersEnv[k])
		}
	}
	if m.Timeout != "" {
		if t, err := time.ParseDuration(m.Timeout); err != nil || t <= 0 {
			c.fail(pos("timeout"), join(at, "timeout"), "want a positive duration such as 30s", "timeout %q is not a duration", m.Timeout)
		}
	}
}

// checkMCPAuth checks auth and the client and identity provider it uses.
func (d *Doc) checkMCPAuth(c *checker, at string, pos func(string) *yaml.Node, m *MCP) {
	switch m.Auth {
	case "", "oauth", "client_credentials", "enterprise":
	default:
		c.fail(pos("auth"), join(at, "auth"), `write oauth, client_credentials or enterprise, or drop auth`, "auth %q is not known", m.Auth)
		return
	}
	if m.Auth == "" {
		for _, k := range []string{"client_id", "client_secret_env", "idp"} {
			if d.pos[join(at, k)] != nil {
				c.fail(pos(k), join(at, k), "set auth (oauth, client_credentials or enterprise), or drop "+k, "%s without auth", k)
			}
		}
		return
	}
	if m.URL == "" {
		c.fail(pos("auth"), join(at, "auth"), "OAuth is for HTTP servers: set url, or drop auth", "auth without url")
	}
	if hasKey(m.Headers, "Authorization") || hasKey(m.HeadersEnv, "Authorization") {
		c.fail(pos("auth"), join(at, "auth"), "OAuth sets the Authorization header: drop that header, or drop auth", "auth: %s with an Authorization header", m.Auth)
	}
	if m.ClientSecretEnv != "" && !envName.MatchString(m.ClientSecretEnv) {
		c.fail(pos("client_secret_env"), join(at, "client_secret_env"), "name the environment variable that holds the secret, as MCP_CLIENT_SECRET", "%q is not a valid environment variable name", m.ClientSecretEnv)
	}
	if m.ClientSecretEnv != "" && m.ClientID == "" {
		c.fail(pos("client_secret_env"), join(at, "client_secret_env"), "set client_id, the client the secret belongs to", "client_secret_env without client_id")
	}
	if m.Auth != "oauth" && m.ClientID == "" {
		c.fail(pos("auth"), join(at, "auth"), "set client_id, the client registered with the server's authorization server", "auth: %s needs client_id", m.Auth)
	}
	if m.Auth == "client_credentials" && m.ClientSecretEnv == "" {
		c.fail(pos("auth"), join(at, "auth"), "set client_secret_env, the environment variable that holds the client's secret", "auth: client_credentials needs client_secret_env")
	}
	ip := join(at, "idp")
	switch {
	case m.Auth != "enterprise" && m.IdP != nil:
		c.fail(pos("idp"), ip, "set auth: enterprise, or drop idp", "idp is for auth: enterprise")
	case m.Auth == "enterprise" && m.IdP == nil:
		c.fail(pos("auth"), join(at, "auth"), "add idp: {issuer: https://…, client_id: …}, the organisation's identity provider", "auth: enterprise needs idp")
	case m.IdP != nil:
		ipos := func(k string) *yaml.Node {
			if n := d.pos[join(ip, k)]; n != nil {
				return n
			}
			return pos("idp")
		}
		if !strings.HasPrefix(m.IdP.Issuer, "https://") && !strings.HasPrefix(m.IdP.Issuer, "http://") {
			c.fail(ipos("issuer"), join(ip, "issuer"), "give the identity provider's issuer URL, as https://acme.okta.com", "idp issuer %q is not an HTTP URL", m.IdP.Issuer)
		}
		if m.IdP.ClientID == "" {
			c.fail(ipos("client_id"), join(ip, "client_id"), "set the client registered with the identity provider", "idp needs client_id")
		}
		if m.IdP.ClientSecretEnv != "" && !envName.MatchString(m.IdP.ClientSecretEnv) {
			c.fail(ipos("client_secret_env"), join(ip, "client_secret_env"), "name the environment variable that holds the secret, as IDP_CLIENT_SECRET", "%q is not a valid environment variable name", m.IdP.ClientSecretEnv)
		}
		if len(m.IdP.Scopes) > 0 && !slices.Contains(m.IdP.Scopes, "openid") {
			c.fail(ipos("scopes"), join(ip, "scopes"), `add openid, which an ID token needs`, "idp scopes lack openid")
		}
	}
}

// hasKey reports whether m has the HTTP header name, in any case.
func hasKey(m map[string]string, name string) bool {
	for k := range m {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ErrMissingEnv is returned when an mcp entry connects and a variable its
// headers name is not set.
var ErrMissingEnv = errors.New("spec: environment variable not set")

// mcpTools is an mcp entry: a toolset that connects on first use.
type mcpTools struct {
	name   string
	cfg    *MCP
	getenv func(string) string

	mu     sync.Mutex
	ts     *mcp.Toolset
	closed bool
}

// config returns the mcp.Config of the entry, its header values read from
// the environment now.
func (m *mcpTools) config() (mcp.Config, error) {
	cfg := mcp.Config{Command: m.cfg.Command, URL: m.cfg.URL, Prefix: m.cfg.Prefix}
	if m.cfg.Timeout != "" {
		cfg.Timeout, _ = time.ParseDuration(m.cfg.Timeout) // checked by Parse
	}
	if len(m.cfg.Filter) > 0 {
		keep := slices.Clone(m.cfg.Filter)
		cfg.Filter = func(name string) bool { return slices.Contains(keep, name) }
	}
	var missing []string
	lookup := func(name string) string {
		v := m.getenv(name)
		if v == "" && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
		return v
	}
	if len(m.cfg.Headers)+len(m.cfg.HeadersEnv) > 0 {
		cfg.Headers = map[string]string{}
	}
	for k, v := range m.cfg.Headers {
		cfg.Headers[k] = envRef.ReplaceAllStringFunc(v, func(ref string) string {
			return lookup(envRef.FindStringSubmatch(ref)[1])
		})
	}
	for k, name := range m.cfg.HeadersEnv {
		cfg.Headers[k] = lookup(name)
	}
	for _, name := range m.cfg.Env {
		cfg.Env = append(cfg.Env, name+"="+lookup(name))
	}
	cfg.OAuth = m.oauth(lookup)
	if len(missing) > 0 {
		slices.Sort(missing)
		return cfg, fmt.Errorf("%w: mcp entry %s: set %s in the environment or in .env.local (secrets are never read from the loom file)", ErrMissingEnv, m.name, strings.Join(missing, ", "))
	}
	return cfg, nil
}

// oauth returns the entry's authorization, its secrets read with lookup;
// nil without auth.
func (m *mcpTools) oauth(lookup func(string) string) *mcp.OAuth {
	a := m.cfg
	if a.Auth == "" {
		return nil
	}
	o := &mcp.OAuth{ClientID: a.ClientID, ClientCredentials: a.Auth == "client_credentials"}
	if a.ClientSecretEnv != "" {
		o.ClientSecret = lookup(a.ClientSecretEnv)
	}
	if a.Auth == "enterprise" && a.IdP != nil {
		o.Enterprise = &mcp.Enterprise{IdPIssuer: a.IdP.Issuer, IdPClientID: a.IdP.ClientID, IdPScopes: a.IdP.Scopes}
		if a.IdP.ClientSecretEnv != "" {
			o.Enterprise.IdPClientSecret = lookup(a.IdP.ClientSecretEnv)
		}
	}
	return o
}

// Tools connects to the server the first time, and returns its tools.
func (m *mcpTools) Tools(ctx context.Context) ([]agent.Agent, error) {
	m.mu.Lock()
	ts := m.ts
	if m.closed {
		m.mu.Unlock()
		return nil, fmt.Errorf("mcp entry %s: %w", m.name, mcp.ErrClosed)
	}
	if ts == nil {
		cfg, err := m.config()
		if err != nil {
			m.mu.Unlock()
			return nil, err
		}
		if ts, err = mcp.Connect(ctx, cfg); err != nil {
			m.mu.Unlock()
			return nil, fmt.Errorf("mcp entry %s: %w", m.name, err)
		}
		m.ts = ts
	}
	m.mu.Unlock()
	return ts.Tools(ctx)
}

// Close ends the session, when there is one.
func (m *mcpTools) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	if m.ts == nil {
		return nil
	}
	err := m.ts.Close()
	m.ts = nil
	return err
}

// getenv returns the registry's Getenv, or os.Getenv.
func (r Registry) getenv() func(string) string {
	if r.Getenv != nil {
		return r.Getenv
	}
	return os.Getenv
}
