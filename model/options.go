package model

import (
	"fmt"
	"math"
)

// Options are the sampling and length settings of a request. A nil field is
// unset and is not sent to the provider, so the provider's default applies.
type Options struct {
	Temperature      *float64 // [0, 2]
	TopP             *float64 // [0, 1]
	PresencePenalty  *float64 // [-2, 2]
	FrequencyPenalty *float64 // [-2, 2]
	MaxOutputTokens  *int     // >= 1
	Stop             []string // each non-empty; at most 16
	Seed             *int64
}

// Ptr returns a pointer to v, for setting [Options] fields inline.
func Ptr[T any](v T) *T { return &v }

// optionRange describes the accepted values of a floating point option.
type optionRange struct {
	Name     string
	Min, Max float64
}

// The ranges [Options.Validate] enforces.
func optionRanges(o *Options) []struct {
	r optionRange
	v *float64
} {
	return []struct {
		r optionRange
		v *float64
	}{
		{optionRange{"temperature", 0, 2}, o.Temperature},
		{optionRange{"top_p", 0, 1}, o.TopP},
		{optionRange{"presence_penalty", -2, 2}, o.PresencePenalty},
		{optionRange{"frequency_penalty", -2, 2}, o.FrequencyPenalty},
	}
}

// OptionError reports an option outside its accepted range. It wraps
// [ErrInvalidOption].
type OptionError struct {
	Option string // the option's name, as "temperature"
	Value  string // the rejected value
	Range  string // the accepted values, as "[0, 2]"
}

// Error returns the error's message.
func (e *OptionError) Error() string {
	return fmt.Sprintf("invalid option %s=%s: must be in %s", e.Option, e.Value, e.Range)
}

// Unwrap returns [ErrInvalidOption].
func (e *OptionError) Unwrap() error { return ErrInvalidOption }

// Validate checks every set option against its range. The error is an
// [*OptionError] naming the option and its range.
func (o Options) Validate() error {
	for _, c := range optionRanges(&o) {
		if c.v == nil {
			continue
		}
		if v := *c.v; math.IsNaN(v) || v < c.r.Min || v > c.r.Max {
			return &OptionError{Option: c.r.Name, Value: fmt.Sprint(v), Range: fmt.Sprintf("[%g, %g]", c.r.Min, c.r.Max)}
		}
	}
	if o.MaxOutputTokens != nil && *o.MaxOutputTokens < 1 {
		return &OptionError{Option: "max_output_tokens", Value: fmt.Sprint(*o.MaxOutputTokens), Range: "[1, ∞)"}
	}
	if len(o.Stop) > 16 {
		return &OptionError{Option: "stop", Value: fmt.Sprintf("%d sequences", len(o.Stop)), Range: "at most 16 sequences"}
	}
	for _, s := range o.Stop {
		if s == "" {
			return &OptionError{Option: "stop", Value: `""`, Range: "non-empty strings"}
		}
	}
	return nil
}

// Merge returns o with every field that is set in over replaced by over's.
func (o Options) Merge(over Options) Options {
	if over.Temperature != nil {
		o.Temperature = over.Temperature
	}
	if over.TopP != nil {
		o.TopP = over.TopP
	}
	if over.PresencePenalty != nil {
		o.PresencePenalty = over.PresencePenalty
	}
	if over.FrequencyPenalty != nil {
		o.FrequencyPenalty = over.FrequencyPenalty
	}
	if over.MaxOutputTokens != nil {
		o.MaxOutputTokens = over.MaxOutputTokens
	}
	if over.Stop != nil {
		o.Stop = over.Stop
	}
	if over.Seed != nil {
		o.Seed = over.Seed
	}
	return o
}
