package spec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/spec"
)

// runEnd runs a and returns its root run's end event.
func runEnd(t *testing.T, a agent.Agent, input string) (agent.Event, error) {
	t.Helper()
	var end agent.Event
	var runErr error
	for ev, err := range engine.New(engine.Config{}).Run(context.Background(), a, json.RawMessage(input)) {
		if ev.Kind == agent.EventRunEnd && ev.ParentID == "" {
			end, runErr = ev, err
		}
	}
	return end, runErr
}

// TestFunctionReturnsContent: a returns: content function's parts become
// the run's result parts in order, and its output the text of its texts.
func TestFunctionReturnsContent(t *testing.T) {
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
agents:
  media:
    type: function
    returns: content
    code: |
      [
        {type: 'text', text: 'Here: ' + input.name},
        {type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png'},
        {type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav'},
        {type: 'resource', resource: {uri: 'test://doc', mimeType: 'text/plain', text: 'the doc'}},
        {type: 'resource_link', uri: 'test://other', name: 'other'},
      ]
`})
	p, err := spec.Load(path, spec.Registry{Sandbox: inProcess(t)})
	require.NoError(t, err)
	defer p.Close()
	a := p.Agent("media")
	require.Nil(t, a.Info().OutputSchema, "a content function declares no output schema")
	end, err := runEnd(t, a, `{"name":"Ada"}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"result":"Here: Ada\nresource test://doc:\nthe doc\nresource test://other (other)"}`, string(end.Output))
	require.Equal(t, []model.Part{
		model.Text{Text: "Here: Ada"},
		model.Image{Data: []byte("\x89PNG\r\n\x1a\n"), MIMEType: "image/png"},
		model.Audio{Data: []byte("RIFF"), MIMEType: "audio/wav"},
		model.Text{Text: "resource test://doc:\nthe doc"},
		model.Text{Text: "resource test://other (other)"},
	}, end.Parts)
}

// TestFunctionReturnsBadContent: a value that is not content fails the run
// with ErrBadContent, naming the part and what is wrong.
func TestFunctionReturnsBadContent(t *testing.T) {
	for _, tc := range []struct{ name, code, want string }{
		{"not a list", `({type: 'text', text: 'x'})`, "the value is an object, not a list of parts"},
		{"unknown type", `[{type: 'video'}]`, "part 0 (video): type must be one of text, image, audio, resource or resource_link"},
		{"no type", `['hello']`, "part 0 is a string, not an object"},
		{"image without mime", `[{type: 'text', text: 'a'}, {type: 'image', data: 'AAAA'}]`, `part 1 (image): mimeType is ""`},
		{"image bad base64", `[{type: 'image', data: '%%%', mimeType: 'image/png'}]`, "data must be the image's bytes in base64"},
		{"audio with image mime", `[{type: 'audio', data: 'AAAA', mimeType: 'image/png'}]`, "give the media type, as audio/"},
		{"resource without uri", `[{type: 'resource', resource: {text: 'x'}}]`, "give resource: {uri, mimeType, text}"},
		{"resource text and blob", `[{type: 'resource', resource: {uri: 'a:b', text: 'x', blob: 'AAAA'}}]`, "has both text and blob"},
		{"link without name", `[{type: 'resource_link', uri: 'a:b'}]`, "a resource link needs uri and name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, map[string]string{"loom.yaml": "version: loom/v1\nagents:\n  f:\n    type: function\n    returns: content\n    code: \"" + strings.ReplaceAll(tc.code, `"`, `\"`) + "\"\n"})
			p, err := spec.Load(path, spec.Registry{Sandbox: inProcess(t)})
			require.NoError(t, err)
			defer p.Close()
			_, err = runEnd(t, p.Agent("f"), `{}`)
			require.ErrorIs(t, err, spec.ErrBadContent)
			require.ErrorContains(t, err, "function f (returns: content)")
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestFunctionConsoleLinesLogged: console lines reach the registry's log
// at their levels, named by the function, when the code ends; tools.log
// lines at once.
func TestFunctionConsoleLinesLogged(t *testing.T) {
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
agents:
  f:
    type: function
    code: |
      console.debug('d'); console.log('l'); console.warn('w'); console.error('e');
      await tools.log({message: 'at once', level: 'warning'});
      await tools.progress({progress: 1, total: 2});
      42
`})
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	p, err := spec.Load(path, spec.Registry{Sandbox: inProcess(t), Log: log})
	require.NoError(t, err)
	defer p.Close()
	end, err := runEnd(t, p.Agent("f"), `{}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"result":42}`, string(end.Output), "the final value is the output, with tools offered")
	require.Equal(t, "level=WARN msg=\"at once\" function=f\nlevel=DEBUG msg=d function=f\nlevel=INFO msg=l function=f\nlevel=WARN msg=w function=f\nlevel=ERROR msg=e function=f\n", buf.String())
}

// TestFunctionReturnsRejected: returns takes value or content, and a
// content function declares no output schema.
func TestFunctionReturnsRejected(t *testing.T) {
	for _, tc := range []struct{ name, entry, want string }{
		{"unknown value", "{type: function, code: '[]', returns: parts}", `unknown value "parts"; want one of value, content`},
		{"content with output schema", "{type: function, code: '[]', returns: content, output_schema: {type: object}}", "agents.f.output_schema: a function with returns: content has no output schema; leave output_schema out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, map[string]string{"loom.yaml": "version: loom/v1\nagents:\n  f: " + tc.entry + "\n"})
			_, err := spec.Validate(path, nil, spec.Registry{}, spec.Options{})
			require.ErrorIs(t, err, spec.ErrInvalid)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestFunctionAwaitsProgress: code that awaits tools.progress still ends
// with its final value; outside a served call the calls report false.
func TestFunctionAwaitsProgress(t *testing.T) {
	path := write(t, map[string]string{"loom.yaml": "version: loom/v1\nagents:\n  f:\n    type: function\n    code: |\n      const sent = await tools.progress({progress: 1, total: 2, message: 'half'});\n      ({sent, done: true})\n"})
	p, err := spec.Load(path, spec.Registry{Sandbox: inProcess(t)})
	require.NoError(t, err)
	defer p.Close()
	end, err := runEnd(t, p.Agent("f"), `{}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"sent":false,"done":true}`, string(end.Output))
}
