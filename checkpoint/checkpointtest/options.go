package checkpointtest

import (
	"testing"

	"github.com/loomwork/loom/checkpoint"
)

// Damage names a way to damage one stored row, as a foreign writer, a
// newer loom or a bad disk would.
type Damage int

// The kinds of damage the suite asks for.
const (
	// DamageJSON makes the row's JSON (a checkpoint's State, or a turn)
	// invalid.
	DamageJSON Damage = iota + 1
	// DamageFormat gives the row a format version this build does not know.
	DamageFormat
	// DamageMeta makes a checkpoint's Meta something other than a JSON
	// object of strings (checkpoint rows only).
	DamageMeta
)

// String names the damage, for subtest names.
func (d Damage) String() string {
	switch d {
	case DamageJSON:
		return "json"
	case DamageFormat:
		return "format"
	case DamageMeta:
		return "meta"
	}
	return "unknown"
}

// CorruptFunc damages the stored checkpoint (runID, seq) of s in place.
type CorruptFunc func(t *testing.T, s checkpoint.Store, runID string, seq int64, d Damage)

// CorruptTurnFunc damages the stored turn (1-based) of a session of s in
// place; it is only asked for [DamageJSON] and [DamageFormat].
type CorruptTurnFunc func(t *testing.T, s checkpoint.SessionStore, sessionID string, turn int, d Damage)

// Option configures [Run] and [RunSessions].
type Option func(*config)

type config struct {
	corrupt     CorruptFunc
	corruptTurn CorruptTurnFunc
	writers     int
	rounds      int
}

func newConfig(opts []Option) config {
	c := config{writers: 8, rounds: 12}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithCorrupt lets [Run] damage stored checkpoints to test that reading
// them fails with [checkpoint.ErrCorrupt]. Without it that part is
// skipped.
func WithCorrupt(f CorruptFunc) Option { return func(c *config) { c.corrupt = f } }

// WithCorruptTurn lets [RunSessions] damage stored turns. Without it that
// part is skipped.
func WithCorruptTurn(f CorruptTurnFunc) Option { return func(c *config) { c.corruptTurn = f } }

// WithRace sets how many concurrent writers race for each next Seq (or
// turn count), and for how many rounds; values below 2 and 1 keep the
// defaults, 8 writers for 12 rounds.
func WithRace(writers, rounds int) Option {
	return func(c *config) {
		if writers >= 2 {
			c.writers = writers
		}
		if rounds >= 1 {
			c.rounds = rounds
		}
	}
}
