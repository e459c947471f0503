package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/mcp"
	"github.com/loomwork/loom/spec"
)

// maxResourceBytes bounds a project file served as a resource.
const maxResourceBytes = 1 << 20

// readProjectFile reads rel, a path a project names, confined to the
// project's folder dir: a path or link that leads outside it is refused,
// and so is a file over maxResourceBytes.
func readProjectFile(dir, rel string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(filepath.ToSlash(filepath.Clean(rel)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxResourceBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxResourceBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", rel, maxResourceBytes)
	}
	return b, nil
}

// namedFiles are the files a project's entries name (instructions, code,
// schemas), relative to its folder, sorted and without repeats; absolute
// paths are left out, as they are outside the project.
func namedFiles(d *spec.Doc) []string {
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !filepath.IsAbs(p) {
			seen[filepath.Clean(p)] = true
		}
	}
	schema := func(s *spec.SchemaRef) {
		if s != nil {
			add(s.Path)
		}
	}
	for _, e := range d.Agents {
		switch c := e.Config.(type) {
		case *spec.AI:
			add(c.InstructionsFile)
			schema(c.InputSchema)
			schema(c.OutputSchema)
		case *spec.CodeExecution:
			add(c.InstructionsFile)
		case *spec.Function:
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

// fileURI is the URI a project file is served at.
func fileURI(dir, rel string) string {
	abs, err := filepath.Abs(filepath.Join(dir, rel))
	if err != nil {
		abs = filepath.Join(dir, rel)
	}
	return "file://" + filepath.ToSlash(abs)
}

// serveProject offers what a project declares besides its agents: the
// files its entries name as resources, and each AI agent's instructions
// as a prompt whose arguments are the agent's input fields.
func serveProject(srv *mcp.Server, d *spec.Doc) error {
	for _, rel := range namedFiles(d) {
		uri := fileURI(d.Dir, rel)
		mt := mime.TypeByExtension(filepath.Ext(rel))
		switch {
		case mt == "" && (strings.HasSuffix(rel, ".md") || strings.HasSuffix(rel, ".txt")):
			mt = "text/plain"
		case mt == "":
			mt = "application/octet-stream"
		}
		err := srv.AddResource(&sdk.Resource{URI: uri, Name: rel, Description: "A file of the project " + filepath.Base(d.Path) + " names", MIMEType: mt}, func(context.Context, string) ([]*sdk.ResourceContents, error) {
			b, err := readProjectFile(d.Dir, rel)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", rel, err)
			}
			c := &sdk.ResourceContents{URI: uri, MIMEType: mt}
			if strings.HasPrefix(mt, "text/") || strings.Contains(mt, "json") || strings.Contains(mt, "yaml") || strings.Contains(mt, "javascript") {
				c.Text = string(b)
			} else {
				c.Blob = b
			}
			return []*sdk.ResourceContents{c}, nil
		})
		if err != nil {
			return err
		}
	}
	for _, e := range d.Agents {
		c, ok := e.Config.(*spec.AI)
		if !ok || strings.TrimSpace(c.Instructions) == "" {
			continue
		}
		if err := addInstructionsPrompt(srv, e.Name, c); err != nil {
			return err
		}
	}
	return nil
}

// addInstructionsPrompt offers an AI agent's instructions as a prompt: its
// template filled with the arguments, which are the agent's input fields;
// an argument whose schema is an enum completes to its values.
func addInstructionsPrompt(srv *mcp.Server, name string, c *spec.AI) error {
	tmpl, err := template.New(name).Option("missingkey=zero").Parse(c.Instructions)
	if err != nil {
		return fmt.Errorf("agent %s: its instructions are not a valid template: %w", name, err)
	}
	p := &sdk.Prompt{Name: name, Description: cmpOr(c.Description, "The instructions of agent "+name)}
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
			req := map[string]bool{}
			for _, r := range s.Required {
				req[r] = true
			}
			for k, v := range s.Properties {
				p.Arguments = append(p.Arguments, &sdk.PromptArgument{Name: k, Description: v.Description, Required: req[k]})
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
		args := map[string]any{}
		for k, v := range req.Params.Arguments {
			args[k] = v
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, args); err != nil {
			return nil, fmt.Errorf("prompt %s: %w", name, err)
		}
		return &sdk.GetPromptResult{Description: p.Description, Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: b.String()}}}}, nil
	}, func(_ context.Context, arg, prefix string, _ map[string]string) ([]string, error) {
		var out []string
		for _, v := range choices[arg] {
			if strings.HasPrefix(v, prefix) {
				out = append(out, v)
			}
		}
		return out, nil
	})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
