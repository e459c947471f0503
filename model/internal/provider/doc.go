// Package provider holds the plumbing the model providers (model/openai,
// model/anthropic, model/gemini) share: reading keys and base URLs from the
// environment, redacting keys from provider messages, checking that tool
// results answer earlier tool calls, encoding tool results and images, and
// classifying the end of a stream.
package provider
