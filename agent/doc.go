// Package agent is loom's core: the [Agent] contract, LLM agents with a
// bounded tool loop ([AI]), typed function agents ([Func]), hooks, and the
// limits and usage that travel on a context.
//
// # The contract
//
// An [Agent] has two methods: Info, which describes it (name, description,
// kind, input and output schemas, whether its run checks its own input:
// one [Info] value, whose zero fields have one documented meaning), and
// Run, which runs it. [NewAI], [NewFunc] and [New] (an [Info] and a body)
// build the agents loom ships; any type with those two methods is an
// agent, and can be a tool of another.
//
// # Runs and events
//
// Every agent runs as a stream of [Event]s (an iter.Seq2[Event, error]).
// [Invoke] drains that same stream, so a streamed run and a collected one
// always agree. The kinds:
//
//   - EventRunStart: a run began (RunID, ParentID, Agent, Input);
//   - EventTextDelta: the next piece of an AI agent's answer (Text);
//   - EventToolCall: the model called a tool (ToolCall);
//   - EventToolResult: the result sent back to the model (ToolResult),
//     IsError set when the tool failed;
//   - EventUsage: the tokens of one model call (Usage);
//   - EventRunEnd: the run ended, with its Output, its total Usage including
//     nested runs, Err if it failed, and for AI agents the Messages it added
//     to the conversation.
//
// Tools are agents, so a tool's run is nested: its events arrive in the
// parent's stream, with the parent's RunID as their ParentID.
//
// # The tool loop
//
// An [AI] agent sends its instructions (a text/template over the input),
// any history handed to its run ([Env.History] for a root run; a
// composition hands its child one with
// [github.com/loomwork/loom/agent/agentrt.ChildWithHistory]), and the
// input's text to a model.
// When the model calls tools, the loop runs them (concurrently up to
// AIConfig.MaxParallelTools), sends the results back paired by call id in
// call order, and calls the model again, up to AIConfig.MaxTurns model
// calls. A failing tool, an unknown tool name, or arguments that are not
// valid JSON or fail the tool's schema go back to the model as error
// results, so it can correct itself; AIConfig.FailOnToolError makes a
// failing tool fail the run instead.
//
// # Guardrails
//
// A [Guardrail] checks content and answers a [Verdict]: allow, replace
// (redaction), reject or halt. AIConfig.InputGuardrails check the input
// before the first model call (blocking, or Parallel beside it);
// AIConfig.OutputGuardrails check the final answer, and AIConfig.OutputHold
// keeps the answer from streaming out until they pass. [GuardTool] and
// [GuardToolset] put guardrails around any tool's arguments and result. A
// refusal is a [*TripwireError] wrapping [ErrTripwire]. Built-ins:
// [MaxInputSize] and [DenyList] (API-key shapes, with masking); the sandbox
// package adds its admission checks as a tool guardrail.
//
// # The environment of a run
//
// [WithEnv] sets what the runs beneath a context share: the model of AI
// agents without their own and the engine's default, hooks and the price
// table, as one [Env]. Each WithEnv layers on the one above: the fields it
// sets win, its hooks add to those above. A run reads its
// environment once, when it starts.
//
// # Limits
//
// [WithLimits] puts a budget on a context: max agent invocations, max total
// tokens (checked before each model call) and a timeout. Each breach is a
// [*LimitError] with the figures, as "max tokens exceeded: 300 used, limit
// 200".
//
// # Tracing
//
// Each run is an "invoke_agent" span, each model call a "chat" span and each
// tool call an "execute_tool" span, with OpenTelemetry GenAI attributes.
// Spans go to the provider given with
// [github.com/loomwork/loom/agent/agentrt.WithTracerProvider], or otel's
// global one, which records nothing unless the program set it. Message
// content is recorded only when opted in with
// [github.com/loomwork/loom/agent/agentrt.WithContentCapture] or
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
//
// # Writing an agent of your own
//
// [New] makes an agent from an [Info] and a [Body]: the body gets the
// [Run] (its ids and input), calls other agents with [Run.Call], may ask
// a question with [Ask], and returns the output. [NewFunc] does the same
// for a typed Go function.
//
// # The run-time side
//
// What compositions, engines and durable runners need, rather than what a
// user builds and runs agents with, lives in package
// [github.com/loomwork/loom/agent/agentrt]: building an agent type's
// stream (Execute), emitting events, fanning out to nested runs, handing
// a conversation to a child, a run's state and result parts, the journal
// a resumed run follows, the clock of runs, the ids of root runs, the
// task runner of fan-outs, what a run tree has spent, answers checked
// against their questions, errors as records, and the telemetry switches
// (tracer and meter providers, content capture, telemetry off during
// replay).
package agent
