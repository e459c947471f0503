package mcp

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/loomwork/loom/model"
)

// DefaultTimeout bounds one tool call when Config.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// Config says how to reach an MCP server and how its tools are offered.
// Exactly one of Command, URL and Transport is set.
type Config struct {
	// Command starts a server spoken to over stdio: the program, then its
	// arguments. It is started again when the server has to be dialled
	// again.
	Command []string
	// Env is added to the command's environment (KEY=value). The command
	// starts with a small environment, the variables a program needs to
	// run (see [ServerEnv]), and Env: the rest of this process's
	// environment, provider keys among it, does not reach the server,
	// whose tools answer a model (a model's snippet can ask a server to
	// show its environment).
	Env []string
	// InheritEnv starts the command with this process's whole environment,
	// then Env. Use it only for a server trusted with every secret the
	// environment holds.
	InheritEnv bool
	// URL is a streamable HTTP endpoint, as "http://127.0.0.1:3001/mcp".
	URL string
	// Headers are sent with every HTTP request, as an Authorization header.
	Headers map[string]string
	// OAuth, when set, logs in to the HTTP server the first time it asks
	// for authorization, and keeps and refreshes its tokens; see [OAuth].
	OAuth *OAuth
	// TokenSource, when set, gives the bearer token of every HTTP request,
	// for callers that already hold tokens (an oauth2.TokenSource refreshes
	// its own). A token the server refuses fails the request.
	TokenSource oauth2.TokenSource
	// Transport returns a new SDK transport for each connection, for
	// transports the fields above do not cover (in-memory ones in tests).
	Transport func() sdk.Transport

	// Prefix goes in front of every tool's name ("prefix_name"), so tools of
	// several servers do not clash.
	Prefix string
	// Filter, when set, keeps only the tools it returns true for, given
	// their names on the server.
	Filter func(name string) bool
	// Resources, when set and the server has resources, offers them to
	// the model as two more tools: prefix_list_resources and
	// prefix_read_resource.
	Resources bool
	// Timeout bounds each tool call; zero means [DefaultTimeout].
	Timeout time.Duration
	// Sampling, when set, answers the server's sampling requests with this
	// model. Unset, the client does not offer sampling.
	Sampling model.Model
	// NoElicitation stops the client from offering elicitation.
	NoElicitation bool
	// Elicit, when set, answers the server's elicitation requests during a
	// call, and the call goes on. Its context ends with the call's, or when
	// the toolset closes. Unset, a request becomes a question of
	// the tool's run ([agent.Ask]) with kind [ElicitationKind]: the run
	// stops to wait for a person while the call stays open, and resumed in
	// this process it answers in the same call, so the tool runs once.
	Elicit Elicitor
	// AnswerTimeout bounds how long a call stays open for the answer its
	// stopped run asks a person for; zero means [DefaultAnswerTimeout].
	// After that, or after Close, the server's request fails and the call
	// ends; the resumed run calls the tool again and answers its request.
	AnswerTimeout time.Duration
}

// transport returns the factory of new transports cfg describes.
func (cfg Config) transport() (func() sdk.Transport, error) {
	set := 0
	for _, on := range []bool{len(cfg.Command) > 0, cfg.URL != "", cfg.Transport != nil} {
		if on {
			set++
		}
	}
	switch {
	case set != 1:
		return nil, fmt.Errorf("%w: set exactly one of Command, URL and Transport (%d are set)", ErrInvalidConfig, set)
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("%w: Timeout is %v: use zero for the default of %v, or a positive duration", ErrInvalidConfig, cfg.Timeout, DefaultTimeout)
	case cfg.AnswerTimeout < 0:
		return nil, fmt.Errorf("%w: AnswerTimeout is %v: use zero for the default of %v, or a positive duration", ErrInvalidConfig, cfg.AnswerTimeout, DefaultAnswerTimeout)
	case cfg.NoElicitation && cfg.Elicit != nil:
		return nil, fmt.Errorf("%w: NoElicitation is set and so is Elicit: drop one", ErrInvalidConfig)
	case len(cfg.Headers) > 0 && cfg.URL == "":
		return nil, fmt.Errorf("%w: Headers are only sent over HTTP: set URL, or drop Headers", ErrInvalidConfig)
	case (cfg.OAuth != nil || cfg.TokenSource != nil) && cfg.URL == "":
		return nil, fmt.Errorf("%w: OAuth and TokenSource authorize HTTP requests: set URL, or drop them", ErrInvalidConfig)
	case cfg.OAuth != nil && cfg.TokenSource != nil:
		return nil, fmt.Errorf("%w: OAuth and TokenSource are both set: use OAuth to log in, TokenSource for tokens you hold", ErrInvalidConfig)
	case (cfg.OAuth != nil || cfg.TokenSource != nil) && hasHeader(cfg.Headers, "Authorization"):
		return nil, fmt.Errorf("%w: an Authorization header is set with OAuth or TokenSource: drop the header", ErrInvalidConfig)
	case cfg.Transport != nil:
		return cfg.Transport, nil
	case cfg.URL != "":
		if !strings.HasPrefix(cfg.URL, "http://") && !strings.HasPrefix(cfg.URL, "https://") {
			return nil, fmt.Errorf("%w: URL %q: use an http:// or https:// URL", ErrInvalidConfig, cfg.URL)
		}
		client := &http.Client{Transport: headerTransport{headers: cfg.Headers, next: http.DefaultTransport}}
		var oh auth.OAuthHandler
		switch {
		case cfg.OAuth != nil:
			h, err := newOAuthHandler(*cfg.OAuth, cfg.URL)
			if err != nil {
				return nil, err
			}
			oh = h
		case cfg.TokenSource != nil:
			oh = staticTokens{src: cfg.TokenSource, server: cfg.URL}
		}
		return func() sdk.Transport {
			return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxRetries: 1, OAuthHandler: oh}
		}, nil
	default:
		if cfg.Command[0] == "" {
			return nil, fmt.Errorf("%w: Command has an empty program name", ErrInvalidConfig)
		}
		return func() sdk.Transport {
			cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
			if cfg.InheritEnv {
				cmd.Env = append(cmd.Environ(), cfg.Env...)
			} else {
				cmd.Env = append(ServerEnv(os.LookupEnv), cfg.Env...)
			}
			return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
		}, nil
	}
}

// hasHeader reports whether h sets the header name, in any case.
func hasHeader(h map[string]string, name string) bool {
	for k := range h {
		if http.CanonicalHeaderKey(k) == name {
			return true
		}
	}
	return false
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

// RoundTrip sends req with the headers added, and notes on the call's
// [rejection] a POST the server refused with a 4xx status: such a message
// was turned away before it reached any tool.
func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := t.next.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && resp.StatusCode >= 400 && resp.StatusCode < 500 {
		if r, ok := req.Context().Value(rejectionKey{}).(*rejection); ok {
			r.Store(true)
		}
	}
	return resp, err
}

// rejection is set when the server refused a call's HTTP request.
type rejection struct{ atomic.Bool }

type rejectionKey struct{}
