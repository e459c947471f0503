// Package pricing estimates what model calls cost, from a documented price
// table in US dollars per million tokens.
//
// The built-in table ([Default]) covers the default and common models of
// every provider loom ships: OpenAI (gpt-4o-mini, gpt-4o, gpt-4.1 family,
// gpt-5 family, o-series), Anthropic (Claude Haiku, Sonnet and Opus),
// Google Gemini (Flash, Flash-Lite and Pro), DeepSeek (deepseek-chat,
// deepseek-reasoner) and xAI (Grok). Local providers (ollama, lmstudio) cost
// nothing. Prices are list prices for standard (non-batch) requests as the
// providers published them in 2025; they change, so treat every figure as an
// estimate and override what you pay with [Table.Set]:
//
//	prices := pricing.Default()
//	prices.Set("openai", "gpt-4o-mini", pricing.Price{Input: 0.15, Output: 0.60, CachedInput: 0.075})
//	usd, known := prices.Cost("openai", "gpt-4o-mini-2024-07-18", usage)
//
// Lookup is case-insensitive and resolves dated or suffixed model names to
// the longest listed name they start with at a "-", ":" or "@" boundary, so
// "gpt-4o-mini-2024-07-18" is priced as "gpt-4o-mini" and
// "claude-3-7-sonnet-latest" as "claude-3-7-sonnet". A model id with a
// vendor prefix, as OpenRouter writes "openai/gpt-4o", is looked up under
// that vendor when its own provider has no entry.
//
// The package imports only package model, so agents can price their calls
// without depending on an exporter or a store.
package pricing
