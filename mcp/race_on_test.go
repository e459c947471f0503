//go:build race

package mcp

// maxAllocsOverRaw bounds what loom's client adds per tool call over the
// go-sdk client, under the race detector. Its sync.Pool drops a random
// quarter of what it is given, and loom's side of a call goes through more
// pools (the run's events, the result's JSON), so the gap measured 6 to 9
// over twenty runs rather than the 6 of a plain build; the bound leaves the
// same room above the highest.
const maxAllocsOverRaw = 12
