// Package model is loom's provider-neutral chat contract.
//
// A [Model] streams [Chunk]s for a [Request]: text deltas, tool-call
// fragments, usage and a finish reason. [Collect] turns a stream into a
// complete [Response], assembling tool-call fragments that arrive split across
// chunks or interleaved by index.
//
// Messages carry typed parts ([Text], [Image], [ToolCall], [ToolResult]), so a
// conversation with tool calls and their results survives a round trip through
// any provider without being flattened into text.
//
// # Failures
//
// Every provider reports failures the same way: HTTP errors as
// [*APIError] (wrapping [ErrAuth], [ErrRateLimited], [ErrServer] or
// [ErrInvalidRequest]) with a bounded summary of the provider's message; a
// stream cut before its protocol's end as [ErrTruncated]; a reply in the
// wrong format as [ErrMalformedResponse]; a stream silent for longer than
// the idle timeout as [*StallError]. Retries follow one policy, described
// in each provider's package. An answer cut at the output token limit ends
// with [FinishLength], which [FinishReason.Err] turns into [ErrOutputLimit];
// [Collect] fails with a [*CutToolCallError] when the cut fell inside a
// tool call's arguments.
//
// Providers live in sub-packages (model/openai, model/anthropic, model/gemini)
// and register themselves with [Register]; [Open] resolves ids such as
// "openai:gpt-4o-mini", "anthropic/claude-sonnet-4-5" or just "ollama".
package model
