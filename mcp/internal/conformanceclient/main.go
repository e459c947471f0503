// Command conformanceclient is a client of the MCP conformance suite
// (@modelcontextprotocol/conformance) built on loom's mcp.Connect. The
// suite starts it with the server's URL as its argument, the scenario in
// MCP_CONFORMANCE_SCENARIO and the scenario's context (JSON) in
// MCP_CONFORMANCE_CONTEXT; it exits non-zero when the scenario fails on
// its side. mcp's TestClientConformance runs every client scenario.
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/mcp"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: conformanceclient SERVER_URL (with MCP_CONFORMANCE_SCENARIO set)")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Args[1], os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Getenv("MCP_CONFORMANCE_CONTEXT")); err != nil {
		fmt.Fprintln(os.Stderr, "conformanceclient:", err)
		os.Exit(1)
	}
}

// scenarioContext is what the suite passes about a scenario.
type scenarioContext struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	PrivateKey   string `json:"private_key_pem"`
	// The enterprise IdP of auth/cross-app-access-complete-flow.
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPIssuer        string `json:"idp_issuer"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
}

func run(ctx context.Context, url, scenario, rawCtx string) error {
	var sc scenarioContext
	if rawCtx != "" {
		if err := json.Unmarshal([]byte(rawCtx), &sc); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT is not JSON: %w", err)
		}
	}
	cfg := mcp.Config{URL: url}
	var calls []call
	switch {
	case scenario == "initialize":
	case scenario == "tools_call":
		calls = []call{{"add_numbers", `{"a":5,"b":3}`}}
	case scenario == "elicitation-sep1034-client-defaults":
		// The content left empty: the client fills in the schema's defaults.
		cfg.Elicit = func(context.Context, mcp.Elicitation) (mcp.ElicitAnswer, error) {
			return mcp.ElicitAnswer{Action: "accept", Content: map[string]any{}}, nil
		}
		calls = []call{{"test_client_elicitation_defaults", `{}`}}
	case scenario == "sse-retry":
		calls = []call{{"test_reconnection", `{}`}}
	case scenario == "auth/client-credentials-basic":
		cfg.OAuth = &mcp.OAuth{ClientID: sc.ClientID, ClientSecret: sc.ClientSecret, ClientCredentials: true}
		calls = []call{{"test-tool", `{}`}}
	case scenario == "auth/client-credentials-jwt":
		block, _ := pem.Decode([]byte(sc.PrivateKey))
		if block == nil {
			return fmt.Errorf("the scenario's private_key_pem is not PEM")
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return fmt.Errorf("the scenario's private key: %w", err)
		}
		key, ok := k.(*ecdsa.PrivateKey)
		if !ok {
			return fmt.Errorf("the scenario's private key is a %T, not ECDSA", k)
		}
		cfg.OAuth = &mcp.OAuth{ClientID: sc.ClientID, ClientKey: key, ClientCredentials: true}
		calls = []call{{"test-tool", `{}`}}
	case scenario == "auth/cross-app-access-complete-flow":
		// The person is already signed in to the IdP: the suite gives
		// the ID token. The IdP's token endpoint is discovered from its
		// issuer, as a user configures it.
		cfg.OAuth = &mcp.OAuth{ClientID: sc.ClientID, ClientSecret: sc.ClientSecret, Enterprise: &mcp.Enterprise{
			IdPIssuer:   sc.IdPIssuer,
			IdPClientID: sc.IdPClientID,
			IDToken:     func(context.Context) (string, error) { return sc.IdPIDToken, nil },
		}}
		calls = []call{{"test-tool", `{}`}}
	case strings.HasPrefix(scenario, "auth/"):
		dir, err := os.MkdirTemp("", "loom-conformance-tokens-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg.OAuth = &mcp.OAuth{
			Store:             &mcp.FileTokenStore{Dir: dir},
			ClientID:          sc.ClientID,
			ClientSecret:      sc.ClientSecret,
			ClientMetadataURL: "https://conformance-test.local/client-metadata.json",
			OpenURL:           follow,
		}
		calls = []call{{"test-tool", `{}`}}
	default:
		return fmt.Errorf("unknown scenario %q", scenario)
	}
	ts, err := mcp.Connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer ts.Close()
	tools, err := ts.Tools(ctx)
	if err != nil {
		return err
	}
	for _, c := range calls {
		if err := c.run(ctx, tools); err != nil {
			return err
		}
	}
	return nil
}

// call is one tool call a scenario makes.
type call struct{ tool, input string }

func (c call) run(ctx context.Context, tools []agent.Agent) error {
	for _, t := range tools {
		if t.Info().Name != c.tool {
			continue
		}
		for ev, err := range t.Run(ctx, json.RawMessage(c.input)) {
			if err != nil && ev.Kind == agent.EventRunEnd {
				return fmt.Errorf("tool %s: %w", c.tool, err)
			}
		}
		return nil
	}
	return fmt.Errorf("the server offers no tool %q", c.tool)
}

// follow opens the authorization URL as a browser would: the suite's
// authorization server redirects at once to the client's listener.
func follow(ctx context.Context, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New("authorization: " + resp.Status + ": " + string(body))
	}
	return nil
}
