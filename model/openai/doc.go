// Package openai is loom's provider for the OpenAI Chat Completions API and
// the services that speak it, built on the official SDK
// (github.com/openai/openai-go/v3).
//
// Its constructors take functional options ([model.ClientOption]) as the
// SDK's client does: a provider mirrors its SDK, where loom's other
// constructors take a Config struct.
//
// One implementation serves the whole family; a [Preset] gives each
// provider its default base URL, default model, key variables and quirks:
//
//	id                 default model          key variables                          base URL variable (default)
//	openai             gpt-5.4-mini           OPENAI_API_KEY                         OPENAI_BASE_URL (https://api.openai.com/v1)
//	deepseek           deepseek-chat          DEEPSEEK_API_KEY                       DEEPSEEK_BASE_URL (https://api.deepseek.com)
//	openrouter         openai/gpt-5.4-mini    OPENROUTER_API_KEY, OPEN_ROUTER_API_KEY OPENROUTER_BASE_URL (https://openrouter.ai/api/v1)
//	xai                grok-4.3               XAI_API_KEY                            XAI_BASE_URL (https://api.x.ai/v1)
//	ollama             llama3.2               none (OLLAMA_API_KEY if set)           OLLAMA_BASE_URL (http://localhost:11434/v1)
//	lmstudio           llama-3.2-3b-instruct  none (LM_STUDIO_API_KEY if set)        LM_STUDIO_BASE_URL (http://localhost:1234/v1)
//	openai-compatible  (name it)              none (OPENAI_COMPATIBLE_API_KEY if set) OPENAI_COMPATIBLE_BASE_URL (required)
//
// Options given to [New] or [NewFor] win over the environment. A required
// key that is missing is a *model.MissingKeyError naming its variables,
// returned at construction, before any network call.
//
// # Requests
//
// Every call streams, with stream_options.include_usage so usage arrives at
// the end. Options are sent only when set; Options.MaxOutputTokens is
// max_completion_tokens for OpenAI (its reasoning models require it) and
// max_tokens for the compatible servers. Some OpenAI models (the o-series
// and GPT-5 family) reject temperature and top_p: the provider's 400 reaches
// the caller as a *model.APIError with its message. Images go as image_url
// parts, bytes as data: URLs. A tool result's content is sent as text (a
// JSON string as its value); a failed call as {"error": content}. A response
// schema becomes response_format json_schema with strict: true, so the
// schema must meet OpenAI's strict rules (every property required,
// additionalProperties false); DeepSeek, which has only JSON mode, gets
// {"type":"json_object"} and the schema in a system message.
//
// # Answers
//
// Text, refusals (as text, finishing with content_filter) and tool-call
// fragments are yielded as they arrive; the last chunk carries the usage
// (cached prompt tokens as CachedInputTokens) and the finish reason. A tool
// call without an id (some compatible servers) gets "call_INDEX". An answer
// cut at max_tokens finishes with model.FinishLength (see
// model.FinishReason.Err).
//
// # End of stream, errors and retries
//
// A stream is complete only when it sent a finish_reason and then the
// protocol's "data: [DONE]" line; ending without them is an error wrapping
// model.ErrTruncated, and an event that is not JSON one wrapping
// model.ErrMalformedResponse. A cancelled context ends the stream with an
// error wrapping the context's error. Every provider shares one retry
// policy (the SDK's own retries are off): connection errors, 408, 409, 429
// and 5xx are retried [model.WithMaxRetries] times (default 2), waiting what
// Retry-After asks up to [model.WithMaxRetryWait] (default 30s; a longer wait
// fails at once) or a jittered backoff ([model.WithRetryBackoff]). HTTP errors
// become *model.APIError with a bounded summary of the body and the key
// redacted; the full body is logged at DEBUG. A response that sends nothing
// for [model.WithIdleTimeout] (default 60s) fails with *model.StallError.
package openai
