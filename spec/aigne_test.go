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
	res, err := engine.New().Invoke(t.Context(), p.Entry, "My internet is down.")
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
		dir + `/fs.yaml:3:1: command: AIGNE's command has no loom equivalent the import can write; declare it in loom/v1 directly, or leave it out`,
		dir + `/fs.yaml:4:1: args: AIGNE's args has no loom equivalent the import can write; declare it in loom/v1 directly, or leave it out`,
		dir + `/fs.yaml:1:7: type: AIGNE agents of type "mcp" have no loom equivalent the import can write; declare it in loom/v1 directly, or leave it out`,
		dir + `/hooked.yaml:3:1: memory: AIGNE's memory has no loom equivalent the import can write; declare it in loom/v1 directly, or leave it out`,
		dir + `/hooked.yaml:4:1: hooks: AIGNE's hooks has no loom equivalent the import can write; declare it in loom/v1 directly, or leave it out`,
	}
	require.Equal(t, strings.Join(want, "\n"), err.Error())
}
