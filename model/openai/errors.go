package openai

import (
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/provider"
	sdk "github.com/openai/openai-go/v3"
)

// apiError maps the SDK's error onto a [*model.APIError], which classifies
// it by status (401/403 ErrAuth, 429 ErrRateLimited, 5xx ErrServer, other
// ErrInvalidRequest). The key is redacted from the provider's message, which
// sometimes quotes part of it.
func (m *Model) apiError(e *sdk.Error) error {
	msg := e.Message
	if msg == "" {
		msg = e.Error()
	}
	return &model.APIError{
		Provider:   m.preset.ID,
		StatusCode: e.StatusCode,
		Message:    provider.Redact(msg, m.apiKey),
		Err:        e,
	}
}
