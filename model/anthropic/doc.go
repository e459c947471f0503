// Package anthropic is loom's provider for Claude over the Anthropic
// Messages API, built on the official SDK,
// github.com/anthropics/anthropic-sdk-go/v2.
//
// Its constructors take functional options ([model.ClientOption]) as the
// SDK's client does: a provider mirrors its SDK, where loom's other
// constructors take a Config struct.
//
// Version 2 of the SDK is used because it speaks the current API version,
// 2026-10-21 (version 1 stopped at v1.84.0 and still sends 2023-06-01). That
// version removed temperature, top_p and top_k: the API answers 400 for them
// even at their defaults. So a request that sets Options.Temperature or
// Options.TopP, like one that sets the penalties or a seed, which Anthropic
// never had, fails before anything is sent with an error wrapping
// model.ErrUnsupported that names the option.
//
// The key comes from [model.WithAPIKey], ANTHROPIC_API_KEY or
// ANTHROPIC_AUTH_TOKEN (sent as a bearer token); the base URL from
// [model.WithBaseURL], ANTHROPIC_BASE_URL or https://api.anthropic.com. A missing
// key is a *model.MissingKeyError at construction. The SDK's other
// environment defaults (profiles, the credential chain) are not used.
//
// # Requests
//
// System messages become the system prompt; tool results become user turns
// of tool_result blocks (is_error set for failures); consecutive messages of
// one role are merged into one turn, tool results first. Images go as url or
// base64 sources (JPEG, PNG, GIF or WebP). Tools carry their JSON schema as
// input_schema; tool choice none, required and named map to none, any and
// tool. max_tokens is required by the API: Options.MaxOutputTokens, else
// [model.WithMaxTokens], else [DefaultMaxTokens]. A response schema uses the
// API's native structured output (output_config.format json_schema), not a
// forced tool.
//
// # Answers
//
// Text deltas and tool_use blocks (input_json_delta fragments as argument
// deltas) are yielded as they arrive; the last chunk carries usage and the
// finish reason. Usage: Anthropic's input_tokens counts only uncached input,
// so loom's InputTokens is input_tokens + cache_read_input_tokens +
// cache_creation_input_tokens (a cache write is input processed now, billed
// above the base rate), and CachedInputTokens is cache_read_input_tokens.
// Stop reasons map to finish reasons: end_turn and stop_sequence to stop,
// max_tokens and model_context_window_exceeded to length, tool_use to
// tool_calls, refusal to content_filter, others (pause_turn) to other.
//
// # End of stream, errors and retries
//
// A stream is complete only after message_stop, the protocol's end event;
// ending before it is an error wrapping model.ErrTruncated, and an event
// that is not JSON one wrapping model.ErrMalformedResponse. An error event
// mid-stream becomes a *model.APIError with the status its type has
// outside a stream (overloaded_error: 529). Every provider shares one retry
// policy (the SDK's own retries are off): connection errors, 408, 409, 429
// and 5xx (529 included) are retried [model.WithMaxRetries] times (default 2),
// waiting what Retry-After asks up to [model.WithMaxRetryWait] (default 30s; a
// longer wait fails at once) or a jittered backoff ([model.WithRetryBackoff]).
// HTTP errors become *model.APIError with a bounded summary of the body and
// the key redacted; the full body is logged at DEBUG. A response that sends
// nothing for [model.WithIdleTimeout] (default 60s) fails with
// *model.StallError.
package anthropic
