package spec_test

import (
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/internal/jsonschema"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v4"
)

func compiledSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.Compile(spec.Schema())
	require.NoError(t, err)
	return s
}

// schemaErr validates a YAML document against the schema.
func schemaErr(t *testing.T, s *jsonschema.Schema, src string) error {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal([]byte(src), &v))
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return s.Validate(b)
}

// TestSchemaRejectsWhatTheLoaderRejects runs the loader's table through the
// JSON Schema: every structural problem fails both; what needs files,
// references or a constructor fails only the loader.
func TestSchemaRejectsWhatTheLoaderRejects(t *testing.T) {
	s := compiledSchema(t)
	for _, tc := range loaderCases {
		t.Run(tc.name, func(t *testing.T) {
			err := schemaErr(t, s, tc.yaml)
			if tc.beyondSchema {
				require.NoError(t, err, "the schema accepts what only the loader can reject")
				return
			}
			require.Error(t, err)
		})
	}
}

func TestSchemaAcceptsWhatTheLoaderAccepts(t *testing.T) {
	s := compiledSchema(t)
	for _, tc := range validFiles {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, schemaErr(t, s, tc.yaml))
			_, err := spec.Parse(write(t, map[string]string{"loom.yaml": tc.yaml}))
			require.NoError(t, err)
		})
	}
}

var validFiles = []struct{ name, yaml string }{
	{"every entry type", `version: loom/v1
name: all
model: openai:gpt-4o-mini
entry: team
agents:
  helper:
    type: ai
    description: Answers.
    instructions: Be brief.
    tools: [calc]
    input_schema: {type: object}
    sampling: {temperature: 0.2, top_p: 1, max_tokens: 100}
    max_turns: 3
    tool_choice: auto
  calc:
    type: function
    code: "({sum: input.a + input.b})"
    sandbox: {kind: in_process, trusted: true, timeout: 2s, memory_mb: 64}
  coder:
    type: code_execution
    reviewer: reviewer
    approval: ask
    max_retries: 2
  reviewer: {type: ai, output_schema: {type: object}}
  seq: {type: sequence, steps: [helper, calc]}
  par: {type: parallel, branches: [helper, calc], max_concurrency: 2, collect_errors: true}
  each: {type: map, field: items, agent: calc, item_key: item}
  loop: {type: reflect, worker: helper, reviewer: reviewer, max_rounds: 2, return_last: true}
  pick: {type: route, agents: [helper, coder]}
  docs: {type: retriever, store: handbook, description: The handbook., k: 3, max_k: 10, min_score: 0.2}
  team: {type: coordinator, coder: coder, reviewer: reviewer, accept_on_disagreement: true, max_rounds: 2}
  fs:
    type: mcp
    command: [npx, -y, "@modelcontextprotocol/server-filesystem", "."]
    prefix: fs
    filter: [read_file, list_directory]
    timeout: 30s
  remote:
    type: mcp
    url: https://mcp.example.com/mcp
    headers: {Authorization: "Bearer ${env:REMOTE_TOKEN}"}
    headers_env: {X-Team: TEAM_ID}
  tooled: {type: ai, tools: [fs, remote, calc]}
  coder2: {type: code_execution, tools: [fs, calc], sandbox_tools: [remote, calc], sandbox_calls: {max_calls: 10, max_in_flight: 2}}
  short: {type: mcp, command: "server --stdio"}
  review:
    type: graph
    description: Drafts and asks.
    entry: draft
    finish: [publish]
    max_steps: 10
    max_parallel: 2
    sandbox: {kind: in_process, trusted: true}
    nodes:
      draft: {agent: helper, input: "({message: state.message})", output: text}
      check: {agent: reviewer}
      ask:
        human: {kind: input, prompt: Any changes?, show: [text], answer_schema: {type: string}}
      approve:
        human: {kind: approval, prompt: Publish?}
      publish: {agent: calc}
    edges:
      - {from: draft, to: check}
      - {from: check, branch: "state.check.ok ? 'approve' : 'ask'", targets: [approve, ask]}
      - {from: ask, to: draft}
      - {from: approve, func: decide, targets: [publish, end]}
`},
}
