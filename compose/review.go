package compose

import (
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/internal/flow"
)

// Review is a reviewer's verdict, the output a reviewer agent gives a
// [Reflect], a [Coordinator] or a [github.com/loomwork/loom/codeexec.CodeExecution]. Give an AI reviewer
// OutputSchema: agent.SchemaFor[compose.Review]() so the model answers in
// this shape.
type Review struct {
	Approved bool   `json:"approved" jsonschema:"description=true when the work is correct and complete as it is"`
	Feedback string `json:"feedback,omitempty" jsonschema:"description=when not approved: what is wrong and how to fix it"`
}

// DecodeReview reads a reviewer's output as a [Review]; the approved field
// must be a boolean.
func DecodeReview(reviewer string, raw json.RawMessage) (Review, error) {
	var v struct {
		Approved *bool  `json:"approved"`
		Feedback string `json:"feedback"`
		Message  string `json:"message"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || v.Approved == nil {
		return Review{}, fmt.Errorf("%s answered %s, which has no boolean \"approved\" field: give it OutputSchema agent.SchemaFor[compose.Review]()", RoleName("reviewer", reviewer), flow.Describe(raw))
	}
	fb := v.Feedback
	if fb == "" {
		fb = v.Message
	}
	return Review{Approved: *v.Approved, Feedback: fb}, nil
}
