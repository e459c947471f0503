package provider

import (
	"fmt"
	"time"

	"github.com/loomwork/loom/model"
)

// The retry policy's defaults, the same for every provider.
const (
	DefaultMaxRetries   = 2
	DefaultMaxRetryWait = 30 * time.Second
	DefaultBackoff      = 500 * time.Millisecond
	DefaultMaxBackoff   = 8 * time.Second
	DefaultIdleTimeout  = 60 * time.Second
)

// Policy is how a provider's HTTP calls are retried and watched. Every
// provider builds its transport from one, so the three SDKs and the
// OpenAI-compatible family behave alike; the SDKs' own retries are off.
//
// A zero duration means its default; a negative one is an error
// ([Policy.Validate]). MaxRetries nil means [DefaultMaxRetries]; 0 disables
// retries.
type Policy struct {
	// MaxRetries is the number of retries after a failed request: a
	// connection error before any response, HTTP 408, 409, 429 or 5xx.
	MaxRetries *int
	// MaxRetryWait caps the Retry-After (or retry-after-ms) wait honoured; a
	// longer wait fails the call at once with a *model.APIError saying so.
	MaxRetryWait time.Duration
	// Backoff is the first wait between retries when the provider asked for
	// none; it doubles after each retry up to MaxBackoff, each wait jittered
	// down by up to half.
	Backoff, MaxBackoff time.Duration
	// IdleTimeout is the longest time without a byte from the provider,
	// before the headers or between two reads of the body; past it the call
	// fails with a *model.StallError.
	IdleTimeout time.Duration
}

// Validate checks that no duration is negative and MaxRetries is not
// negative. The error wraps model.ErrInvalidOption and names the option.
func (p Policy) Validate(providerID string) error {
	for _, c := range []struct {
		name string
		d    time.Duration
	}{
		{"WithMaxRetryWait", p.MaxRetryWait},
		{"WithRetryBackoff (initial)", p.Backoff},
		{"WithRetryBackoff (max)", p.MaxBackoff},
		{"WithIdleTimeout", p.IdleTimeout},
	} {
		if c.d < 0 {
			return fmt.Errorf("%s: %w: %s(%s): must not be negative (0 means the default)", providerID, model.ErrInvalidOption, c.name, c.d)
		}
	}
	if p.MaxRetries != nil && *p.MaxRetries < 0 {
		return fmt.Errorf("%s: %w: WithMaxRetries(%d): must not be negative (0 disables retries)", providerID, model.ErrInvalidOption, *p.MaxRetries)
	}
	return nil
}

// withDefaults returns p with every unset field at its default.
func (p Policy) withDefaults() Policy {
	if p.MaxRetries == nil {
		n := DefaultMaxRetries
		p.MaxRetries = &n
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&p.MaxRetryWait, DefaultMaxRetryWait)
	def(&p.Backoff, DefaultBackoff)
	def(&p.MaxBackoff, DefaultMaxBackoff)
	def(&p.IdleTimeout, DefaultIdleTimeout)
	p.MaxBackoff = max(p.MaxBackoff, p.Backoff)
	return p
}
