package spec_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	mcpserver "github.com/loomwork/loom/mcp/server"
	"github.com/loomwork/loom/spec"
	"github.com/loomwork/loom/vector"
)

// servedHead is a file's start for the cases below: one function, so the
// file has an agent.
const servedHead = "version: loom/v1\nagents:\n  f: {type: function, code: input}\n"

// TestServedDeclarationsValid: resources, knowledge and prompts in every
// form they may take validate.
func TestServedDeclarationsValid(t *testing.T) {
	path := write(t, map[string]string{
		"loom.yaml": servedHead + `resources:
  - {uri: docs://readme, name: readme, file: README.md}
  - {uri: docs://pixel, name: pixel, file: img/pixel.png}
  - {uri: docs://hello, name: hello, text: Hello, mime_type: text/plain}
  - {uri_template: "docs://guide/{topic}", name: guide, file: "guides/{topic}.md", complete: {topic: [intro, setup]}}
  - {uri_template: "data://{id}", name: data, mime_type: application/json, text: '{"id": {{printf "%q" .id}}}'}
knowledge: [guides/*.md, README.md]
prompts:
  review:
    description: Review a topic
    arguments:
      - {name: topic, required: true, values: [intro, setup]}
    messages:
      - text: "Review {{.topic}}."
      - {role: assistant, text_file: README.md}
      - image: {file: img/pixel.png}
      - audio: {file: beep.wav}
      - resource: {uri: "docs://guide/{{.topic}}", file: guides/intro.md}
      - resource: {uri: "docs://note", text: "About {{.topic}}"}
`,
		"README.md":       "# Readme",
		"img/pixel.png":   "\x89PNG",
		"beep.wav":        "RIFF",
		"guides/intro.md": "Intro",
		"guides/setup.md": "Setup",
	})
	d, err := spec.Validate(path, nil, spec.Registry{}, spec.Options{})
	require.NoError(t, err)
	require.Len(t, d.File.Resources, 5)
	require.Len(t, d.File.Prompts["review"].Messages, 6)
}

// TestServedDeclarationsRejected: each mistake in a resource, a knowledge
// pattern or a prompt is an error at its place, with a hint.
func TestServedDeclarationsRejected(t *testing.T) {
	cases := []struct {
		name, yaml string
		files      map[string]string
		want       string
	}{
		{"resource with both uri and template", "resources:\n  - {uri: a://b, uri_template: 'a://{x}', name: n, text: t}\n", nil, `5:5: resources[0]: a resource needs exactly one of uri and uri_template; give uri for one resource`},
		{"resource without uri", "resources:\n  - {name: n, text: t}\n", nil, `a resource needs exactly one of uri and uri_template`},
		{"relative uri", "resources:\n  - {uri: readme, name: n, text: t}\n", nil, `5:11: resources[0].uri: uri "readme" is not an absolute URI`},
		{"no name", "resources:\n  - {uri: a://b, text: t}\n", nil, `missing required key "name"`},
		{"both text and file", "resources:\n  - {uri: a://b, name: n, text: t, file: x.md}\n", map[string]string{"x.md": "x"}, `a resource needs exactly one of text and file`},
		{"missing file", "resources:\n  - {uri: a://b, name: n, file: nosuch.md}\n", nil, `5:33: resources[0].file: cannot read nosuch.md`},
		{"file outside the project", "resources:\n  - {uri: a://b, name: n, file: ../secret.txt}\n", nil, `climbs out: outside the project folder`},
		{"text with a binary type", "resources:\n  - {uri: a://b, name: n, text: t, mime_type: image/png}\n", nil, `text cannot have the binary type image/png`},
		{"duplicate uri", "resources:\n  - {uri: a://b, name: n, text: t}\n  - {uri: a://b, name: m, text: u}\n", nil, `6:5: resources[1]: a://b is also declared at resources[0]`},
		{"complete on a fixed uri", "resources:\n  - {uri: a://b, name: n, text: t, complete: {x: ['1']}}\n", nil, `a resource with a fixed uri has nothing to complete`},
		{"template without variables", "resources:\n  - {uri_template: a://b, name: n, text: t}\n", nil, `uri_template "a://b" has no variables`},
		{"bad template", "resources:\n  - {uri_template: 'a://{x', name: n, text: t}\n", nil, `resources[0].uri_template: uri_template "a://{x"`},
		{"complete of no variable", "resources:\n  - {uri_template: 'a://{x}', name: n, text: t, complete: {y: ['1']}}\n", nil, `resources[0].complete.y: "y" is not a variable of the template`},
		{"file variable not in template", "resources:\n  - {uri_template: 'a://{x}', name: n, file: '{y}.md'}\n", nil, `{y} in file is not a variable of a://{x}`},
		{"template folder missing", "resources:\n  - {uri_template: 'a://{x}', name: n, file: 'nodir/{x}.md'}\n", nil, `cannot open the folder nodir`},
		{"bad text template", "resources:\n  - {uri_template: 'a://{x}', name: n, text: '{{.x'}\n", nil, `resources[0].text:`},
		{"knowledge matches nothing", "knowledge: [docs/*.md]\n", nil, `knowledge: pattern "docs/*.md" matches no file`},
		{"knowledge outside", "knowledge: [../*.md]\n", nil, `pattern "../*.md" leads outside the project folder`},
		{"prompt without messages", "prompts:\n  p: {description: d}\n", nil, `missing required key "messages"`},
		{"message with two contents", "prompts:\n  p:\n    messages:\n      - {text: a, image: {file: x.png}}\n", map[string]string{"x.png": "x"}, `prompts.p.messages[0]: a message needs exactly one content, it has 2`},
		{"message with none", "prompts:\n  p:\n    messages:\n      - {role: user}\n", nil, `a message needs exactly one content, it has 0`},
		{"bad role", "prompts:\n  p:\n    messages:\n      - {role: system, text: a}\n", nil, `unknown value "system"`},
		{"image not an image", "prompts:\n  p:\n    messages:\n      - image: {file: notes.txt}\n", map[string]string{"notes.txt": "x"}, `notes.txt's media type is "text/plain", not image/`},
		{"image file missing", "prompts:\n  p:\n    messages:\n      - image: {file: nosuch.png}\n", nil, `prompts.p.messages[0].image.file: cannot read nosuch.png`},
		{"duplicate argument", "prompts:\n  p:\n    arguments: [{name: a}, {name: a}]\n    messages: [{text: x}]\n", nil, `argument "a" is given twice`},
		{"bad text template", "prompts:\n  p:\n    messages: [{text: '{{.a'}]\n", nil, `prompts.p.messages[0].text:`},
		{"resource without contents", "prompts:\n  p:\n    messages: [{resource: {uri: a://b}}]\n", nil, `an embedded resource needs exactly one of text and file`},
		{"prompt named as an agent", "prompts:\n  f:\n    messages: [{text: x}]\n", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"loom.yaml": servedHead + tc.yaml}
			for k, v := range tc.files {
				files[k] = v
			}
			path := write(t, files)
			_, err := spec.Validate(path, nil, spec.Registry{}, spec.Options{})
			if tc.want == "" {
				require.NoError(t, err, "a prompt may share a function's name: only an AI agent's instructions are a prompt")
				return
			}
			require.ErrorIs(t, err, spec.ErrInvalid)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestPromptNamedAsInstructions: a prompt cannot take the name of an AI
// agent whose instructions are offered as a prompt.
func TestPromptNamedAsInstructions(t *testing.T) {
	path := write(t, map[string]string{"loom.yaml": "version: loom/v1\nmodel: client\nagents:\n  w: {type: ai, instructions: Write.}\nprompts:\n  w:\n    messages: [{text: x}]\n"})
	_, err := spec.Validate(path, nil, spec.Registry{}, spec.Options{})
	require.ErrorContains(t, err, "7:5: prompts.w: agent w's instructions are offered as a prompt of the same name; rename the prompt or the agent")
}

// serveProject loads path and serves its agents and declarations to a Go
// client over an in-memory transport.
func serveProject(t *testing.T, path string) *sdk.ClientSession {
	t.Helper()
	_, cs := serveProjectWith(t, path, spec.Registry{Sandbox: inProcess(t)})
	return cs
}

// serveProjectWith is serveProject with reg lending what the file names.
func serveProjectWith(t *testing.T, path string, reg spec.Registry) (*spec.Project, *sdk.ClientSession) {
	t.Helper()
	p, err := spec.Load(path, reg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	var agents []agent.Agent
	for _, name := range slices.Sorted(maps.Keys(p.Agents)) {
		agents = append(agents, p.Agents[name])
	}
	srv, err := mcpserver.New(mcpserver.Config{Agents: agents})
	require.NoError(t, err)
	require.NoError(t, p.AddTo(srv))
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := sdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		<-done
	})
	return p, cs
}

// TestAddToServesFiles: resources read their files when asked (a change
// shows), templates fill in one path segment and refuse more, and a file
// that leaves the project, or grew past the limit, is refused as the
// loader refuses it.
func TestAddToServesFiles(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.md")
	require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o644))
	path := write(t, map[string]string{
		"loom.yaml": servedHead + `resources:
  - {uri: docs://readme, name: readme, file: README.md}
  - {uri_template: "docs://guide/{topic}", name: guide, file: "guides/{topic}.md"}
knowledge: [guides/*.md]
prompts:
  ask:
    arguments: [{name: topic}]
    messages:
      - text: "Tell me about {{.topic}}{{if not .topic}}anything{{end}}."
`,
		"README.md":       "v1",
		"guides/intro.md": "Intro: how sandboxes isolate code",
	})
	dir := filepath.Dir(path)
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "guides", "leak.md")))
	cs := serveProject(t, path)
	ctx := t.Context()

	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("v2"), 0o644))
	rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://readme"})
	require.NoError(t, err)
	require.Equal(t, &sdk.ResourceContents{URI: "docs://readme", MIMEType: "text/markdown", Text: "v2"}, rr.Contents[0])

	rr, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://guide/intro"})
	require.NoError(t, err)
	require.Equal(t, "Intro: how sandboxes isolate code", rr.Contents[0].Text)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "guides", ".env.md"), []byte("KEY=x"), 0o644))
	for _, uri := range []string{"docs://guide/leak", "docs://guide/..%2FREADME", "docs://guide/nosuch", "docs://guide/.env"} {
		_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		require.Error(t, err, uri)
	}
	_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "knowledge:///guides/leak.md"})
	require.Error(t, err, "a link out is not a knowledge document")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte(strings.Repeat("x", spec.DefaultMaxFileBytes+1)), 0o644))
	_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://readme"})
	require.ErrorContains(t, err, "more than the limit")

	p, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "ask"})
	require.NoError(t, err)
	require.Equal(t, "Tell me about anything.", p.Messages[0].Content.(*sdk.TextContent).Text)
	require.Equal(t, sdk.Role("user"), p.Messages[0].Role)
}

// TestAddToServesContentFunction: a served returns: content function's
// result keeps its parts' order, embedded resources included.
func TestAddToServesContentFunction(t *testing.T) {
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
agents:
  doc:
    type: function
    returns: content
    code: |
      [
        {type: 'resource', resource: {uri: 'docs://a', mimeType: 'text/plain', text: 'A'}},
        {type: 'text', text: 'between'},
        {type: 'resource_link', uri: 'docs://b', name: 'b', description: 'B'},
      ]
`})
	cs := serveProject(t, path)
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "doc"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res.Content)
	require.Nil(t, res.StructuredContent)
	require.Equal(t, []sdk.Content{
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "docs://a", MIMEType: "text/plain", Text: "A"}},
		&sdk.TextContent{Text: "between"},
		&sdk.ResourceLink{URI: "docs://b", Name: "b", Description: "B"},
	}, res.Content)
}

// TestWatchNotifiesSubscribers: a client subscribed to a resource served
// from a project file hears when the file changes and when it is removed.
func TestWatchNotifiesSubscribers(t *testing.T) {
	path := write(t, map[string]string{
		"loom.yaml": servedHead + "resources:\n  - {uri: docs://readme, name: readme, file: README.md}\nknowledge: [guide.md]\n",
		"README.md": "v1",
		"guide.md":  "g1",
	})
	p, err := spec.Load(path, spec.Registry{Sandbox: inProcess(t)})
	require.NoError(t, err)
	defer p.Close()
	srv, err := mcpserver.New(mcpserver.Config{})
	require.NoError(t, err)
	require.NoError(t, p.AddTo(srv))
	ctx, cancel := context.WithCancel(context.Background())
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		p.Watch(ctx, srv, 5*time.Millisecond)
	}()
	var mu sync.Mutex
	var updated []string
	ct, st := sdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
		mu.Lock()
		updated = append(updated, r.Params.URI)
		mu.Unlock()
	}}).Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	defer func() {
		_ = cs.Close()
		cancel()
		<-done
		<-watching
	}()
	for _, uri := range []string{"docs://readme", "knowledge:///guide.md"} {
		require.NoError(t, cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}))
	}
	got := func(uri string) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(updated, uri)
	}
	dir := filepath.Dir(path)
	// Each look writes a new version with a rename, as editors save: the
	// watcher takes its first look at the files in its own time, and a
	// change made before it is no change to it.
	version := 1
	require.Eventually(t, func() bool {
		if got("docs://readme") {
			return true
		}
		version++
		tmp := filepath.Join(dir, ".README.md.new")
		if err := os.WriteFile(tmp, []byte(fmt.Sprintf("version %d", version)), 0o644); err != nil {
			t.Error(err) // t.Error, not require: this runs on Eventually's goroutine
			return true
		}
		if err := os.Rename(tmp, filepath.Join(dir, "README.md")); err != nil {
			t.Error(err)
			return true
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "a subscriber hears that README.md changed")
	require.NoError(t, os.Remove(filepath.Join(dir, "guide.md")))
	require.Eventually(t, func() bool { return got("knowledge:///guide.md") }, 30*time.Second, 5*time.Millisecond, "a subscriber hears that guide.md was removed")
	mu.Lock()
	defer mu.Unlock()
	for _, uri := range updated {
		require.Contains(t, []string{"docs://readme", "knowledge:///guide.md"}, uri, "only subscribed resources are announced")
	}
}

// TestKnowledgeLeavesHiddenFiles: a pattern matches hidden files (as
// .env.local, which holds keys) only when it names them.
func TestKnowledgeLeavesHiddenFiles(t *testing.T) {
	files := map[string]string{"notes.md": "n", ".env.local": "OPENAI_API_KEY=sk", ".git/config": "c", "docs/.draft.md": "d", "docs/a.md": "a"}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"*", []string{"knowledge:///loom.yaml", "knowledge:///notes.md"}},
		{"docs/*", []string{"knowledge:///docs/a.md"}},
		{"docs/.*", []string{"knowledge:///docs/.draft.md"}},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			fs := map[string]string{"loom.yaml": "version: loom/v1\nagents: {}\nknowledge: ['" + tc.pattern + "']\n"}
			for k, v := range files {
				fs[k] = v
			}
			cs := serveProject(t, write(t, fs))
			list, err := cs.ListResources(t.Context(), nil)
			require.NoError(t, err)
			var got []string
			for _, r := range list.Resources {
				if strings.HasPrefix(r.URI, "knowledge:") {
					got = append(got, r.URI)
				}
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// TestAddToSearchesRetrievers: a retriever entry's store is searched by
// reading retriever://NAME/{query}.
func TestAddToSearchesRetrievers(t *testing.T) {
	path := write(t, map[string]string{"loom.yaml": "version: loom/v1\nagents:\n  docs: {type: retriever, description: The staff handbook., store: handbook, k: 1}\n"})
	p, cs := serveProjectWith(t, path, spec.Registry{Stores: map[string]vector.Store{"handbook": handbook(t)}})
	require.Contains(t, p.Doc.Offers(), "search retriever://docs/{query} (store handbook)")
	ctx := t.Context()
	list, err := cs.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, "retriever://docs/{query}", list.ResourceTemplates[0].URITemplate)
	rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "retriever://docs/annual%20leave%20days"})
	require.NoError(t, err)
	require.Equal(t, "application/json", rr.Contents[0].MIMEType)
	require.Contains(t, rr.Contents[0].Text, `"id":"leave"`)
	require.NotContains(t, rr.Contents[0].Text, `"id":"expenses"`, "k: 1")
}
