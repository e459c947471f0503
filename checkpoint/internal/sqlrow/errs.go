package sqlrow

import (
	"context"
	"errors"
	"fmt"

	"github.com/loomwork/loom/checkpoint"
)

// Errs words a SQL store's errors the same way in every store: the store's
// name first, then the operation, then what happened and what to do.
type Errs struct {
	Store string // "checkpoint/sqlite"
	Where string // the database: "database /path/to/file"
	Again string // how to get an open store: "open the database again"
}

// Ready reports a done context or a closed store before operation op on
// the run or session id (what is "run" or "session"; both may be empty).
func (e Errs) Ready(ctx context.Context, closed bool, op, what, id string) error {
	if ctx.Err() == nil && !closed {
		return nil
	}
	op = subject(op, what, id)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %s: %w", e.Store, op, err)
	}
	if closed {
		return fmt.Errorf("%s: %s: %w: %s", e.Store, op, checkpoint.ErrClosed, e.Again)
	}
	return nil
}

// Fail wraps the error of operation op on the run or session id: the
// typed errors of package checkpoint, which name their run, and invalid
// arguments pass through with the store's name; a done context or a closed
// store is reported as such; anything else names the run and the database.
func (e Errs) Fail(ctx context.Context, closed bool, op, what, id string, err error) error {
	var (
		nf *checkpoint.NotFoundError
		cf *checkpoint.ConflictError
		cr *checkpoint.CorruptError
	)
	switch {
	case errors.As(err, &nf), errors.As(err, &cf), errors.As(err, &cr), errors.Is(err, checkpoint.ErrInvalid):
		return fmt.Errorf("%s: %s: %w", e.Store, op, err)
	}
	op = subject(op, what, id)
	switch {
	case ctx.Err() != nil && !errors.Is(err, ctx.Err()):
		return fmt.Errorf("%s: %s: %w (%v)", e.Store, op, ctx.Err(), err)
	case closed:
		return fmt.Errorf("%s: %s: %w: %s", e.Store, op, checkpoint.ErrClosed, e.Again)
	}
	return fmt.Errorf("%s: %s (%s): %w", e.Store, op, e.Where, err)
}

// subject returns op followed by what and the quoted id, when there is one.
func subject(op, what, id string) string {
	if id == "" {
		return op
	}
	return fmt.Sprintf("%s %s %q", op, what, id)
}
