package agentrt

import (
	"encoding/json"

	"github.com/loomwork/loom/agent"
)

// ErrorRecordOf returns err's record, as an engine saves a failed run's
// error or a durable runner sends it across a process boundary, or nil for
// a nil error. [agent.ErrorRecord.Err] turns it back into an error.
func ErrorRecordOf(err error) *agent.ErrorRecord { return rt().ErrorRecordOf(err) }

// EncodeInput turns an input value into the JSON object an agent runs on,
// as [agent.Invoke] does: a string s becomes {"message": s}
// ([agent.DefaultTextKey]); nil becomes {}; JSON bytes are checked and
// kept; any other value is marshalled.
func EncodeInput(input any) (json.RawMessage, error) { return rt().EncodeInput(input) }
