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
	// URL is a streamable HTTP endpoint, http:// or https://.
	URL string `yaml:"url,omitempty" json:"url,omitempty" jsonschema:"pattern=^https?://"`
	// Headers are sent with every HTTP request. Their values come from the
	// environment only: each holds at least one ${env:NAME}, as
	// "Bearer ${env:API_TOKEN}".
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	// HeadersEnv names, for each header, the environment variable that
	// holds its whole value.
	HeadersEnv map[string]string `yaml:"headers_env,omitempty" json:"headers_env,omitempty"`
	// Auth "oauth" logs in to the server with OAuth 2.1 when it asks: the
	// authorization URL is printed (and opened in a browser on a
	// terminal), and the tokens are kept in the user's config directory,
	// never in the project.
	Auth string `yaml:"auth,omitempty" json:"auth,omitempty" jsonschema:"enum=oauth"`
	// Prefix goes in front of every tool's name ("prefix_name"), so the
	// tools of several servers do not clash.
	Prefix string `yaml:"prefix,omitempty" json:"prefix,omitempty" jsonschema:"pattern=^[a-zA-Z_][a-zA-Z0-9_-]*$"`
	// Filter keeps only the tools named (their names on the server).
	Filter []string `yaml:"filter,omitempty" json:"filter,omitempty" jsonschema:"minItems=1"`
	// Timeout bounds each tool call, as a Go duration ("30s"); the
	// default is mcp.DefaultTimeout.
	Timeout string `yaml:"timeout,omitempty" json:"timeout,omitempty"`
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
	if m.Auth != "" && m.Auth != "oauth" {
		c.fail(pos("auth"), join(at, "auth"), `write "oauth", or drop auth`, "auth %q is not known", m.Auth)
	}
	if m.Auth == "oauth" && m.URL == "" {
		c.fail(pos("auth"), join(at, "auth"), "OAuth is for HTTP servers: set url, or drop auth", "auth without url")
	}
	if m.Auth == "oauth" && (hasKey(m.Headers, "Authorization") || hasKey(m.HeadersEnv, "Authorization")) {
		c.fail(pos("auth"), join(at, "auth"), "OAuth sets the Authorization header: drop that header, or drop auth", "auth: oauth with an Authorization header")
	}
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
	if m.cfg.Auth == "oauth" {
		cfg.OAuth = &mcp.OAuth{}
	}
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
	if len(missing) > 0 {
		slices.Sort(missing)
		return cfg, fmt.Errorf("%w: mcp entry %s: set %s in the environment or in .env.local (secrets are never read from the loom file)", ErrMissingEnv, m.name, strings.Join(missing, ", "))
	}
	return cfg, nil
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
