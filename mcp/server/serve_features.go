package server

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/mcp"
)

// ReadFunc returns the contents of the resource at uri: for a template,
// the URI the client asked for, with its variables filled in.
type ReadFunc func(ctx context.Context, uri string) ([]*sdk.ResourceContents, error)

// Complete suggests values for an argument of a prompt or a resource
// template: arg is its name, prefix what the user typed so far, and args
// the arguments already given.
type Complete func(ctx context.Context, arg, prefix string, args map[string]string) ([]string, error)

// maxCompletions is the most values a completion returns (the protocol's
// limit).
const maxCompletions = 100

// AddResource offers a resource at a fixed URI. Clients may subscribe to
// it; call [Server.ResourceUpdated] when it changes.
func (s *Server) AddResource(r *sdk.Resource, read ReadFunc) error {
	if r == nil || r.URI == "" || r.Name == "" || read == nil {
		return fmt.Errorf("%w: a resource needs a URI, a name and a read function", mcp.ErrInvalidConfig)
	}
	s.mu.Lock()
	s.resources[r.URI] = true
	s.mu.Unlock()
	s.srv.AddResource(r, s.reader(read))
	return nil
}

// AddResourceTemplate offers the resources whose URIs match t's template
// (RFC 6570, as "file:///docs/{name}"); complete, when not nil, suggests
// values for its variables.
func (s *Server) AddResourceTemplate(t *sdk.ResourceTemplate, read ReadFunc, complete Complete) error {
	if t == nil || t.URITemplate == "" || t.Name == "" || read == nil {
		return fmt.Errorf("%w: a resource template needs a URI template, a name and a read function", mcp.ErrInvalidConfig)
	}
	s.mu.Lock()
	s.templates[t.URITemplate] = complete
	s.mu.Unlock()
	s.srv.AddResourceTemplate(t, s.reader(read))
	return nil
}

// AddPrompt offers a prompt; complete, when not nil, suggests values for
// its arguments. A required argument missing from a request is refused
// before get runs.
func (s *Server) AddPrompt(p *sdk.Prompt, get sdk.PromptHandler, complete Complete) error {
	if p == nil || p.Name == "" || get == nil {
		return fmt.Errorf("%w: a prompt needs a name and a get function", mcp.ErrInvalidConfig)
	}
	s.mu.Lock()
	s.prompts[p.Name] = complete
	s.mu.Unlock()
	s.srv.AddPrompt(p, func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		for _, a := range p.Arguments {
			if a.Required && req.Params.Arguments[a.Name] == "" {
				return nil, fmt.Errorf("prompt %s: argument %q is required", p.Name, a.Name)
			}
		}
		return get(ctx, req)
	})
	return nil
}

// ResourceUpdated tells the clients subscribed to uri that it changed.
func (s *Server) ResourceUpdated(ctx context.Context, uri string) error {
	return s.srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: uri})
}

func (s *Server) reader(read ReadFunc) sdk.ResourceHandler {
	return func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		contents, err := read(ctx, req.Params.URI)
		if err != nil {
			return nil, err
		}
		return &sdk.ReadResourceResult{Contents: contents}, nil
	}
}

// subscribe accepts subscriptions to the fixed resources the server
// offers; the SDK keeps the subscriptions and ResourceUpdated notifies.
func (s *Server) subscribe(_ context.Context, req *sdk.SubscribeRequest) error {
	s.mu.Lock()
	ok := s.resources[req.Params.URI]
	s.mu.Unlock()
	if !ok {
		return sdk.ResourceNotFoundError(req.Params.URI)
	}
	return nil
}

// complete answers completion requests with the Complete of the prompt or
// template referred to, values that start with what was typed first.
func (s *Server) complete(ctx context.Context, req *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
	p := req.Params
	var fn Complete
	var known bool
	if p.Ref != nil {
		s.mu.Lock()
		switch p.Ref.Type {
		case "ref/prompt":
			fn, known = s.prompts[p.Ref.Name]
		case "ref/resource":
			fn, known = s.templates[p.Ref.URI]
		}
		s.mu.Unlock()
	}
	res := &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: []string{}}}
	if !known {
		return nil, fmt.Errorf("completion: no prompt or resource template %s", refName(p.Ref))
	}
	if fn == nil {
		return res, nil
	}
	var args map[string]string
	if p.Context != nil {
		args = p.Context.Arguments
	}
	values, err := fn(ctx, p.Argument.Name, p.Argument.Value, args)
	if err != nil {
		return nil, err
	}
	first, rest := []string{}, []string(nil)
	for _, v := range values {
		if strings.HasPrefix(v, p.Argument.Value) {
			first = append(first, v)
		} else {
			rest = append(rest, v)
		}
	}
	values = append(first, rest...)
	res.Completion.Total = len(values)
	if len(values) > maxCompletions {
		values, res.Completion.HasMore = values[:maxCompletions], true
	}
	res.Completion.Values = values
	return res, nil
}

func refName(r *sdk.CompleteReference) string {
	if r == nil {
		return "(no ref)"
	}
	return fmt.Sprintf("%q (%s)", r.Name+r.URI, r.Type)
}
