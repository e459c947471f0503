package spec_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

func TestImportAIGNE(t *testing.T) {
	src, err := spec.ImportAIGNE("testdata/aigne")
	require.NoError(t, err)
	require.Equal(t, `agents:
    chat:
        description: Answers the user's question.
        input_key: message
        instructions: |
            You are a helpdesk assistant. Answer briefly.
        output_key: message
        sampling:
            temperature: 0.3
        type: ai
    helpdesk:
        description: Answers, then translates the answer.
        steps:
            - chat
            - translator
        type: sequence
    translator:
        description: Translates text into French.
        input_key: message
        instructions: Translate the message into French. Answer with the translation only.
        output_schema:
            properties:
                message:
                    type: string
            required:
                - message
            type: object
        sampling:
            temperature: 0.3
        type: ai
description: Answers questions, translating when asked.
entry: helpdesk
model: openai:gpt-4o-mini
name: helpdesk
version: loom/v1
`, string(src))
}

func TestLoadAIGNERuns(t *testing.T) {
	m := modeltest.New(t, modeltest.Text("Restart the router."), modeltest.JSON(map[string]string{"message": "Redémarrez le routeur."}))
	var refs []string
	p, err := spec.LoadAIGNE("testdata/aigne", spec.Registry{Models: func(ref string) (model.Model, error) {
		refs = append(refs, ref)
		return m, nil
	}})
	require.NoError(t, err)
	require.Equal(t, []string{"openai:gpt-4o-mini"}, refs)
	res, err := engine.New(engine.Config{}).Invoke(t.Context(), p.Entry, "My internet is down.")
	require.NoError(t, err)
	require.Equal(t, "Redémarrez le routeur.", res.Text())
	require.Equal(t, "You are a helpdesk assistant. Answer briefly.\n", m.Request(0).Messages[0].Text())
	require.Equal(t, 0.3, *m.Request(0).Options.Temperature)
	require.Contains(t, m.Request(1).Messages[1].Text(), "Restart the router.")
}

func TestImportAIGNENamesWhatHasNoEquivalent(t *testing.T) {
	_, err := spec.ImportAIGNE("testdata/aigne-unsupported")
	require.ErrorIs(t, err, spec.ErrInvalid)
	dir := filepath.Join("testdata", "aigne-unsupported")
	want := []string{
		dir + `/aigne.yaml:3:1: mcp_server: AIGNE's mcp_server has no loom equivalent the import can write; declare it in loom/v1 directly, or leave it out`,
		dir + `/fs.yaml:5:1: env: AIGNE's env has no loom equivalent the import can write; declare it in loom/v1 directly, or leave it out`,
		dir + `/hooked.yaml:3:1: memory: AIGNE's memory has no loom equivalent the import can write; declare it in loom/v1 directly, or leave it out`,
		dir + `/hooked.yaml:4:1: hooks: AIGNE's hooks has no loom equivalent the import can write; declare it in loom/v1 directly, or leave it out`,
	}
	require.Equal(t, strings.Join(want, "\n"), err.Error())
}

func TestImportAIGNEMCPSkill(t *testing.T) {
	dir := filepath.Dir(write(t, map[string]string{
		"aigne.yaml":     "name: files\nchat_model: openai:gpt-4o-mini\nagents: [assistant.yaml]\n",
		"assistant.yaml": "name: assistant\ninstructions: Use the files.\nskills: [fs.yaml, remote.yaml]\n",
		"fs.yaml":        "type: mcp\nname: fs\nargs: [\"-y\", \"@modelcontextprotocol/server-filesystem\", \".\"]\ncommand: npx\n",
		"remote.yaml":    "type: mcp\nname: remote\nurl: https://mcp.example.com/mcp\n",
	}))
	src, err := spec.ImportAIGNE(dir)
	require.NoError(t, err)
	require.Equal(t, `agents:
    assistant:
        instructions: Use the files.
        tools:
            - fs
            - remote
        type: ai
    fs:
        command:
            - npx
            - -y
            - '@modelcontextprotocol/server-filesystem'
            - .
        type: mcp
    remote:
        type: mcp
        url: https://mcp.example.com/mcp
entry: assistant
model: openai:gpt-4o-mini
name: files
version: loom/v1
`, string(src))
	p, err := spec.LoadAIGNE(dir, spec.Registry{Models: func(string) (model.Model, error) { return modeltest.New(t), nil }})
	require.NoError(t, err, "loading starts no server")
	require.NoError(t, p.Close())
	require.Len(t, p.Toolsets, 2)
}
