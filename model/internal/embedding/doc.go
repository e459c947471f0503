// Package embedding holds what loom's embedding providers share: splitting
// texts into batches within a provider's limits, an `embeddings` span with
// the OpenTelemetry GenAI conventions, and running totals of usage and cost.
package embedding
