package workflow

import (
	"encoding/json"
	"fmt"
)

// Review is a reviewer's verdict, the output a reviewer agent gives a
// [Reflect], a [Coordinator] or a [CodeExecution]. Give an AI reviewer
// OutputSchema: agent.SchemaFor[workflow.Review]() so the model answers in
// this shape.
type Review struct {
	Approved bool   `json:"approved" jsonschema:"description=true when the work is correct and complete as it is"`
	Feedback string `json:"feedback,omitempty" jsonschema:"description=when not approved: what is wrong and how to fix it"`
}

// decodeReview reads a reviewer's output as a [Review]; the approved field
// must be a boolean.
func decodeReview(reviewer string, raw json.RawMessage) (Review, error) {
	var v struct {
		Approved *bool  `json:"approved"`
		Feedback string `json:"feedback"`
		Message  string `json:"message"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || v.Approved == nil {
		return Review{}, fmt.Errorf("reviewer %s answered %s, which has no boolean \"approved\" field: give it OutputSchema agent.SchemaFor[workflow.Review]()", reviewer, describe(raw))
	}
	fb := v.Feedback
	if fb == "" {
		fb = v.Message
	}
	return Review{Approved: *v.Approved, Feedback: fb}, nil
}
