package model

import "fmt"

// Usage counts the tokens of one or more model calls.
// CachedInputTokens is the part of InputTokens served from the provider's
// prompt cache; it is not added on top of InputTokens.
type Usage struct {
	InputTokens       int64 `json:"input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + v.InputTokens,
		OutputTokens:      u.OutputTokens + v.OutputTokens,
		CachedInputTokens: u.CachedInputTokens + v.CachedInputTokens,
	}
}

// Sub returns u minus v, as when v is a part of u counted elsewhere.
func (u Usage) Sub(v Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens - v.InputTokens,
		OutputTokens:      u.OutputTokens - v.OutputTokens,
		CachedInputTokens: u.CachedInputTokens - v.CachedInputTokens,
	}
}

// Total returns input plus output tokens.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// IsZero reports whether no tokens were counted.
func (u Usage) IsZero() bool { return u == Usage{} }

// String formats the usage as "in=12 out=34 cached=0".
func (u Usage) String() string {
	return fmt.Sprintf("in=%d out=%d cached=%d", u.InputTokens, u.OutputTokens, u.CachedInputTokens)
}
