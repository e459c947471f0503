package anthropic

import (
	"strings"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/internal/provider"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/shared"
)

// apiError maps an error event inside a stream onto a [*model.APIError],
// which classifies it by status. (HTTP errors before the stream are
// reported by the shared transport.) The event arrives with the stream's
// 200 status; its type says what happened, so it gets the status the same
// error has outside a stream (overloaded_error is 529, a server error).
func (m *Model) apiError(e *sdk.Error) error {
	status := e.StatusCode
	if status < 400 {
		status = statusOf(e.Type())
	}
	msg := e.Message
	if msg == "" {
		msg = e.Error()
	}
	msg = strings.Join(strings.Fields(provider.Redact(msg, m.apiKey)), " ")
	return &model.APIError{Provider: ProviderID, StatusCode: status, Message: provider.Clip(msg, provider.MaxSummary), Code: string(e.Type()), Err: e}
}

func statusOf(t shared.ErrorType) int {
	switch t {
	case shared.ErrorTypeInvalidRequestError:
		return 400
	case shared.ErrorTypeAuthenticationError:
		return 401
	case shared.ErrorTypeBillingError:
		return 402
	case shared.ErrorTypePermissionError:
		return 403
	case shared.ErrorTypeNotFoundError:
		return 404
	case shared.ErrorTypeRateLimitError:
		return 429
	case shared.ErrorTypeTimeoutError:
		return 504
	case shared.ErrorTypeOverloadedError:
		return 529
	}
	return 500
}
