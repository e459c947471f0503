package spec

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/template"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/loomwork/loom/agent"
	mcpserver "github.com/loomwork/loom/mcp/server"
)

// KnowledgeTemplate is the URI template of a project's knowledge
// documents: knowledge:///docs/guide.md is the project file
// docs/guide.md.
const KnowledgeTemplate = "knowledge:///{+path}"

// maxCompletions is the most values a completion returns, as the
// protocol allows.
const maxCompletions = 100

// ErrNoResource is what reading a resource the project does not have
// fails with: a template's value that names no file, or one that is not a
// single path segment.
var ErrNoResource = errors.New("no such resource")

// AddTo offers srv what the project declares besides its agents: its
// resources, its knowledge documents (each a resource, and the template
// [KnowledgeTemplate] whose path completes from their names and
// contents), each retriever entry's store for search ([RetrieverTemplate]),
// the files its entries name (at file:// URIs), its prompts,
// and each AI agent's instructions as a prompt whose arguments are the
// agent's input fields. Files are read when a client asks, inside the
// project folder and within its size limit, as the loader reads them.
func (p *Project) AddTo(srv *mcpserver.Server) error {
	d := p.Doc
	for i := range d.File.Resources {
		if err := d.addResource(srv, &d.File.Resources[i]); err != nil {
			return err
		}
	}
	if err := d.addKnowledge(srv); err != nil {
		return err
	}
	if err := p.addRetrievers(srv); err != nil {
		return err
	}
	for _, rel := range d.namedFiles() {
		uri := fileURI(filepath.Join(d.Dir, rel))
		mt := mimeOf(rel, "application/octet-stream")
		err := srv.AddResource(&sdk.Resource{URI: uri, Name: rel, Description: "A file the project " + filepath.Base(d.Path) + " names", MIMEType: mt}, d.fileReader(rel, mt))
		if err != nil {
			return err
		}
	}
	for _, n := range slices.Sorted(maps.Keys(d.File.Prompts)) {
		pr := d.File.Prompts[n]
		if err := addPrompt(srv, n, &pr); err != nil {
			return err
		}
	}
	for _, e := range d.Agents {
		c, ok := e.Config.(*AI)
		if !ok || strings.TrimSpace(c.Instructions) == "" {
			continue
		}
		if err := addInstructionsPrompt(srv, e.Name, c); err != nil {
			return err
		}
	}
	return nil
}

// fileURI is the file:// URI of path.
func fileURI(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return "file://" + filepath.ToSlash(path)
}

// fileReader reads rel, a project file, as a resource's contents: text
// for a textual type, else bytes.
func (d *Doc) fileReader(rel, mt string) mcpserver.ReadFunc {
	return func(_ context.Context, uri string) ([]*sdk.ResourceContents, error) {
		b, err := d.files.read(d.Dir, rel)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		return []*sdk.ResourceContents{contents(uri, mt, b)}, nil
	}
}

func contents(uri, mt string, b []byte) *sdk.ResourceContents {
	c := &sdk.ResourceContents{URI: uri, MIMEType: mt}
	if textual(mt) {
		c.Text = string(b)
	} else {
		c.Blob = b
	}
	return c
}

func (d *Doc) addResource(srv *mcpserver.Server, r *Resource) error {
	mt := r.mimeType()
	if r.URI != "" {
		read := d.fileReader(r.File, mt)
		if r.File == "" {
			text := r.Text
			read = func(_ context.Context, uri string) ([]*sdk.ResourceContents, error) {
				return []*sdk.ResourceContents{{URI: uri, MIMEType: mt, Text: text}}, nil
			}
		}
		return srv.AddResource(&sdk.Resource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: mt}, read)
	}
	t, err := uritemplate.New(r.URITemplate)
	if err != nil {
		return fmt.Errorf("%w: resource %s: %w", ErrInvalid, r.Name, err)
	}
	var text *template.Template
	if r.Text != "" {
		if text, err = template.New(r.Name).Option("missingkey=error").Parse(r.Text); err != nil {
			return fmt.Errorf("%w: resource %s: %w", ErrInvalid, r.Name, err)
		}
	}
	read := func(_ context.Context, uri string) ([]*sdk.ResourceContents, error) {
		values := t.Match(uri)
		if values == nil {
			return nil, fmt.Errorf("%w: %s does not match %s", ErrNoResource, uri, r.URITemplate)
		}
		vars := map[string]string{}
		for _, v := range t.Varnames() {
			vars[v] = values.Get(v).String()
		}
		if text != nil {
			var b strings.Builder
			if err := text.Execute(&b, vars); err != nil {
				return nil, fmt.Errorf("resource %s: %w", r.Name, err)
			}
			return []*sdk.ResourceContents{{URI: uri, MIMEType: mt, Text: b.String()}}, nil
		}
		var bad error
		rel := fileVar.ReplaceAllStringFunc(r.File, func(m string) string {
			v := vars[m[1:len(m)-1]]
			if v == "" || strings.HasPrefix(v, ".") || strings.ContainsAny(v, `/\`) {
				bad = fmt.Errorf("%w: %s: %q is not one path segment, or names a hidden file", ErrNoResource, uri, v)
			}
			return v
		})
		if bad != nil {
			return nil, bad
		}
		b, err := d.files.read(d.Dir, rel)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrNoResource, uri, err)
		}
		return []*sdk.ResourceContents{contents(uri, mt, b)}, nil
	}
	complete := func(_ context.Context, arg, _ string, _ map[string]string) ([]string, error) {
		return r.Complete[arg], nil
	}
	return srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: r.URITemplate, Name: r.Name, Description: r.Description, MIMEType: mt}, read, complete)
}

// addKnowledge offers each knowledge document as a resource, and all of
// them through the knowledge template, whose path completes to the
// documents whose name starts with what was typed, then those that hold
// it.
func (d *Doc) addKnowledge(srv *mcpserver.Server) error {
	if len(d.knowledge) == 0 {
		return nil
	}
	for _, rel := range d.knowledge {
		mt := mimeOf(rel, "text/plain")
		err := srv.AddResource(&sdk.Resource{URI: "knowledge:///" + rel, Name: rel, Description: "A knowledge document of " + cmp.Or(d.File.Name, filepath.Base(d.Path)), MIMEType: mt}, d.fileReader(rel, mt))
		if err != nil {
			return err
		}
	}
	read := func(ctx context.Context, uri string) ([]*sdk.ResourceContents, error) {
		rel := strings.TrimPrefix(uri, "knowledge:///")
		if !slices.Contains(d.knowledge, rel) {
			return nil, fmt.Errorf("%w: %s is not a knowledge document", ErrNoResource, uri)
		}
		return d.fileReader(rel, mimeOf(rel, "text/plain"))(ctx, uri)
	}
	search := func(_ context.Context, _, typed string, _ map[string]string) ([]string, error) {
		var names, holding []string
		want := strings.ToLower(typed)
		for _, rel := range d.knowledge {
			if len(names)+len(holding) >= maxCompletions {
				break // what a client can show; the rest is not read
			}
			switch {
			case strings.HasPrefix(rel, typed):
				names = append(names, rel)
			case len(want) >= 2:
				if b, err := d.files.read(d.Dir, rel); err == nil && strings.Contains(strings.ToLower(string(b)), want) {
					holding = append(holding, rel)
				}
			}
		}
		return append(names, holding...), nil
	}
	return srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: KnowledgeTemplate, Name: "knowledge", Description: "The knowledge documents of " + cmp.Or(d.File.Name, filepath.Base(d.Path)) + ", by path; the path completes from their names and contents"}, read, search)
}

// RetrieverTemplate is the URI template a retriever entry's store is
// searched at: retriever://NAME/{query} reads the best matches for query.
const RetrieverTemplate = "retriever://%s/{query}"

// addRetrievers offers each retriever entry's store for search: reading
// retriever://NAME/{query} runs the retriever with the query and answers
// with its matches, as JSON.
func (p *Project) addRetrievers(srv *mcpserver.Server) error {
	for _, e := range p.Doc.Agents {
		c, ok := e.Config.(*Retriever)
		a := p.Agents[e.Name]
		if !ok || a == nil {
			continue
		}
		read := func(ctx context.Context, uri string) ([]*sdk.ResourceContents, error) {
			q, err := url.PathUnescape(strings.TrimPrefix(uri, "retriever://"+e.Name+"/"))
			if err != nil || strings.TrimSpace(q) == "" {
				return nil, fmt.Errorf("%w: %s: give a query after retriever://%s/", ErrNoResource, uri, e.Name)
			}
			out, err := agent.Invoke(ctx, a, map[string]string{"query": q})
			if err != nil {
				return nil, fmt.Errorf("search %s: %w", e.Name, err)
			}
			return []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(out)}}, nil
		}
		desc := cmp.Or(c.Description, "The documents of store "+c.Store) + " Read with a query for its best matches."
		if err := srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: fmt.Sprintf(RetrieverTemplate, e.Name), Name: e.Name, Description: desc, MIMEType: "application/json"}, read, nil); err != nil {
			return err
		}
	}
	return nil
}

// addPrompt offers a declared prompt: its messages' text and URIs filled
// with the arguments, its arguments completed from their values.
func addPrompt(srv *mcpserver.Server, name string, pr *Prompt) error {
	p := &sdk.Prompt{Name: name, Description: pr.Description}
	values := map[string][]string{}
	for _, a := range pr.Arguments {
		p.Arguments = append(p.Arguments, &sdk.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		values[a.Name] = a.Values
	}
	parse := func(s string) (*template.Template, error) {
		t, err := template.New(name).Option("missingkey=zero").Parse(s)
		if err != nil {
			return nil, fmt.Errorf("%w: prompt %s: %w", ErrInvalid, name, err)
		}
		return t, nil
	}
	type message struct {
		role       sdk.Role
		text, uri  *template.Template
		rtext      *template.Template
		content    sdk.Content // fixed content (media, a file's resource)
		rmime      string
		rdata      []byte
		isResource bool
	}
	msgs := make([]message, 0, len(pr.Messages))
	for _, m := range pr.Messages {
		msg := message{role: sdk.Role(cmp.Or(m.Role, "user"))}
		var err error
		switch {
		case m.Text != "":
			msg.text, err = parse(m.Text)
		case m.Image != nil:
			msg.content = &sdk.ImageContent{Data: m.Image.data, MIMEType: m.Image.MIMEType}
		case m.Audio != nil:
			msg.content = &sdk.AudioContent{Data: m.Audio.data, MIMEType: m.Audio.MIMEType}
		case m.Resource != nil:
			msg.isResource, msg.rmime, msg.rdata = true, m.Resource.MIMEType, m.Resource.data
			if msg.uri, err = parse(m.Resource.URI); err == nil && m.Resource.Text != "" {
				msg.rtext, err = parse(m.Resource.Text)
			}
		}
		if err != nil {
			return err
		}
		msgs = append(msgs, msg)
	}
	fill := func(t *template.Template, args map[string]string) (string, error) {
		var b strings.Builder
		if err := t.Execute(&b, args); err != nil {
			return "", fmt.Errorf("prompt %s: %w", name, err)
		}
		return b.String(), nil
	}
	get := func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		args := map[string]string{}
		for _, a := range pr.Arguments {
			args[a.Name] = req.Params.Arguments[a.Name]
		}
		res := &sdk.GetPromptResult{Description: pr.Description}
		for _, m := range msgs {
			c := m.content
			switch {
			case m.text != nil:
				s, err := fill(m.text, args)
				if err != nil {
					return nil, err
				}
				c = &sdk.TextContent{Text: s}
			case m.isResource:
				uri, err := fill(m.uri, args)
				if err != nil {
					return nil, err
				}
				rc := contents(uri, m.rmime, m.rdata)
				if m.rtext != nil {
					if rc.Text, err = fill(m.rtext, args); err != nil {
						return nil, err
					}
					rc.Blob = nil
				}
				c = &sdk.EmbeddedResource{Resource: rc}
			}
			res.Messages = append(res.Messages, &sdk.PromptMessage{Role: m.role, Content: c})
		}
		return res, nil
	}
	complete := func(_ context.Context, arg, _ string, _ map[string]string) ([]string, error) {
		return values[arg], nil
	}
	return srv.AddPrompt(p, get, complete)
}

// namedFiles are the files a project's entries name (instructions, code,
// schemas), relative to its folder, sorted and without repeats; absolute
// paths are left out, as they are outside the project.
func (d *Doc) namedFiles() []string {
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !filepath.IsAbs(p) {
			seen[filepath.Clean(p)] = true
		}
	}
	schema := func(s *SchemaRef) {
		if s != nil {
			add(s.Path)
		}
	}
	for _, e := range d.Agents {
		switch c := e.Config.(type) {
		case *AI:
			add(c.InstructionsFile)
			schema(c.InputSchema)
			schema(c.OutputSchema)
		case *CodeExecution:
			add(c.InstructionsFile)
		case *Function:
			add(c.CodeFile)
			schema(c.InputSchema)
			schema(c.OutputSchema)
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// addInstructionsPrompt offers an AI agent's instructions as a prompt: its
// template filled with the arguments, which are the agent's input fields;
// an argument whose schema is an enum completes to its values.
func addInstructionsPrompt(srv *mcpserver.Server, name string, c *AI) error {
	tmpl, err := template.New(name).Option("missingkey=zero").Parse(c.Instructions)
	if err != nil {
		return fmt.Errorf("%w: agent %s: its instructions are not a valid template: %w", ErrInvalid, name, err)
	}
	p := &sdk.Prompt{Name: name, Description: cmp.Or(c.Description, "The instructions of agent "+name)}
	choices := map[string][]string{} // argument -> the values its enum allows
	if c.InputSchema != nil {
		var s struct {
			Properties map[string]struct {
				Description string `json:"description"`
				Enum        []any  `json:"enum"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if json.Unmarshal(c.InputSchema.JSON, &s) == nil {
			for k, v := range s.Properties {
				p.Arguments = append(p.Arguments, &sdk.PromptArgument{Name: k, Description: v.Description, Required: slices.Contains(s.Required, k)})
				for _, e := range v.Enum {
					if str, ok := e.(string); ok {
						choices[k] = append(choices[k], str)
					}
				}
			}
			sort.Slice(p.Arguments, func(i, j int) bool { return p.Arguments[i].Name < p.Arguments[j].Name })
		}
	}
	return srv.AddPrompt(p, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		args := map[string]string{}
		for _, a := range p.Arguments {
			args[a.Name] = req.Params.Arguments[a.Name]
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, args); err != nil {
			return nil, fmt.Errorf("prompt %s: %w", name, err)
		}
		return &sdk.GetPromptResult{Description: p.Description, Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: b.String()}}}}, nil
	}, func(_ context.Context, arg, _ string, _ map[string]string) ([]string, error) {
		return choices[arg], nil
	})
}
