// Package providertest holds what the providers' tests share: a recording
// fake server that each provider's test dresses in its own wire format, the
// helpers their SSE writers use, and the stream benchmarks' measuring
// loops. It is imported by _test.go files only.
package providertest
