// Package gemini is loom's provider for Google's Gemini models over the
// Gemini API (the generativelanguage endpoint, not Vertex AI), built on the
// official SDK, google.golang.org/genai.
//
// Its constructors take functional options ([model.ClientOption]) as the
// SDK's client does: a provider mirrors its SDK, where loom's other
// constructors take a Config struct.
//
// The key comes from [model.WithAPIKey], GOOGLE_API_KEY or GEMINI_API_KEY (the
// SDK's order: GOOGLE_API_KEY wins, and the SDK logs a warning when both are
// set); the base URL from [model.WithBaseURL], GOOGLE_GEMINI_BASE_URL or
// https://generativelanguage.googleapis.com/. A missing key is a
// *model.MissingKeyError at construction.
//
// # Requests
//
// Calls stream (streamGenerateContent with alt=sse). System messages become
// the system instruction, assistant messages "model" turns and tool results
// functionResponse parts ({"output": value} for a non-object result,
// {"error": value} for a failure). Tools carry their JSON schema as
// parametersJsonSchema; tool choice none, required and named map to function
// calling modes NONE, ANY and ANY with allowedFunctionNames. A response
// schema sets responseMimeType application/json and responseJsonSchema. All
// options are sent only when set (the seed must fit in 32 bits). Image bytes
// go inline; an image URL goes as fileData, with its MIME type given or
// guessed from the extension.
//
// # Answers
//
// Gemini sends each function call whole: it becomes one tool-call delta. A
// call without an id gets a stable one, "gemini-call-RESPONSEID-INDEX",
// which is not sent back to Gemini. Thought signatures that come with
// function calls are remembered by the Model (the last 4096 calls) and sent
// back when the conversation is replayed, as Gemini 3 models require.
// Thought summaries are not answer text. Usage: promptTokenCount (which
// includes cached tokens) is InputTokens, cachedContentTokenCount is
// CachedInputTokens, and candidates plus thinking tokens are OutputTokens.
//
// Empty answers, a known Gemini failure, are never an empty success: output
// withheld for safety, recitation or a blocked prompt finishes with
// content_filter; an answer that finished with no text and no tool call for
// any other reason (STOP, MAX_TOKENS spent on thinking, a malformed function
// call) is an error wrapping [ErrEmptyAnswer] that names the reason. A
// stream without a finish reason is an error wrapping model.ErrTruncated.
//
// # Errors and retries
//
// The Gemini protocol has no end event: a stream is complete when a chunk
// carried a finishReason. An event that is not JSON is an error wrapping
// model.ErrMalformedResponse, not a truncation. MAX_TOKENS finishes with
// model.FinishLength; with a function call it is a *model.CutToolCallError,
// since Gemini sends calls whole and the cut cannot be seen in them.
//
// HTTP errors become *model.APIError with a bounded summary of the body and
// the key redacted (the full body is logged at DEBUG); the Gemini API's
// answer to a bad key (400 with reason API_KEY_INVALID) also wraps
// model.ErrAuth. Every provider shares one retry policy (genai's own
// retries are off): connection errors, 408, 409, 429 and 5xx are retried
// [model.WithMaxRetries] times (default 2), waiting what Retry-After asks up to
// [model.WithMaxRetryWait] (default 30s; a longer wait fails at once) or a
// jittered backoff ([model.WithRetryBackoff]). A response that sends nothing for
// [model.WithIdleTimeout] (default 60s) fails with *model.StallError. The SDK
// logs streams that end with a read error; this package's transport keeps
// those errors from the SDK's logger and reports them itself.
package gemini
