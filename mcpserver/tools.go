package mcpserver

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// confirmArgs are the arguments of the confirm tool. The schema fills in the
// defaults of whatever a call leaves out.
type confirmArgs struct {
	Title          string `json:"title"`
	Message        string `json:"message"`
	OKLabel        string `json:"ok_label"`
	CancelLabel    string `json:"cancel_label"`
	Icon           string `json:"icon"`
	DefaultApprove bool   `json:"default_approve"`
	Key            string `json:"key"`
	Scope          string `json:"scope"`
	Timeout        string `json:"timeout"`
}

// keyArgs are the arguments of the status and cancel tools.
type keyArgs struct {
	Key string `json:"key"`
}

// toolOutput is the structured content of every tool's result: the fields
// of ask-confirm --json that a caller acts on. Message is the same sentence
// as the text content.
type toolOutput struct {
	Status      string `json:"status" jsonschema:"approved is the only yes (for ask, see answer); pending means call the same tool again with the same arguments; stale (status only) means the last answer is no longer given: asking again asks the person again; denied, cancelled, expired, headless, failed, superseded and withdrawn mean there is no answer: do not proceed as if there were one"`
	ShouldRetry bool   `json:"should_retry" jsonschema:"true while the question is open: call the same tool again with the same arguments"`
	Key         string `json:"key" jsonschema:"the request's identity, for the status and cancel tools"`
	Remembered  bool   `json:"remembered" jsonschema:"true when the answer was given before this call and returned from the store"`
	AnsweredAt  string `json:"answered_at,omitempty" jsonschema:"when the request ended, RFC 3339"`
	Message     string `json:"message" jsonschema:"what happened, in a sentence"`
}

func (s *server) confirmTool() *mcp.Tool {
	text := func(desc string, max int, def string) *jsonschema.Schema {
		p := &jsonschema.Schema{Type: "string", Description: desc, MaxLength: &max}
		if def != "" {
			p.Default = jsonString(def)
		}
		return p
	}
	one := 1
	icons := make([]any, len(dialog.Icons))
	for i, icon := range dialog.Icons {
		icons[i] = icon
	}
	base := s.base.Request
	return &mcp.Tool{
		Name:        "confirm",
		Title:       "Ask a person to approve",
		Description: fmt.Sprintf(mcpConfirmDescription, s.asks(), dialog.ShortDuration(s.base.Wait)) + s.approversSaid(),
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(false)},
		InputSchema: &jsonschema.Schema{
			Type:     "object",
			Required: []string{"message"},
			Properties: map[string]*jsonschema.Schema{
				"message": func() *jsonschema.Schema {
					p := text(fmt.Sprintf("the question to ask, shown literally (never as markup); newlines and tabs allowed; at most %d bytes", dialog.MaxMessageBytes), dialog.MaxMessageBytes, "")
					p.MinLength = &one
					return p
				}(),
				"title":           text(fmt.Sprintf("window title, at most %d bytes", dialog.MaxTitleBytes), dialog.MaxTitleBytes, base.Title),
				"ok_label":        text(fmt.Sprintf("label of the approve button, at most %d bytes; it says what approving does, and never refuses (Deny, No, Don't, or Cancel alone, are refused)", dialog.MaxLabelBytes), dialog.MaxLabelBytes, base.OKLabel),
				"cancel_label":    text(fmt.Sprintf("label of the cancel button, at most %d bytes; must differ from ok_label, and never approves (Approve, Yes or OK are refused)", dialog.MaxLabelBytes), dialog.MaxLabelBytes, base.CancelLabel),
				"icon":            {Type: "string", Description: "dialog icon", Enum: icons, Default: jsonString(base.Icon)},
				"default_approve": {Type: "boolean", Description: "make the approve button the default, so Enter approves (default: cancel is the default button)", Default: []byte("false")},
				"key":             text(fmt.Sprintf("explicit identity of the request; a different question under the same key replaces the open dialog (at most %d bytes)", dialog.MaxKeyBytes), dialog.MaxKeyBytes, ""),
				"scope":           text(fmt.Sprintf("what separates identical questions asked for different things, such as a repository path (default: the server's working directory; at most %d bytes)", dialog.MaxScopeBytes), dialog.MaxScopeBytes, ""),
				"timeout":         text(fmt.Sprintf("how long the dialog stays open unanswered, as a duration such as 90s or 10m (above 0, at most %s)", dialog.ShortDuration(lifecycle.MaxTimeout)), 32, dialog.ShortDuration(s.base.Timeout)),
			},
			PropertyOrder:        []string{"message", "title", "ok_label", "cancel_label", "icon", "default_approve", "key", "scope", "timeout"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		},
	}
}

func keySchema(what string) *jsonschema.Schema {
	one := 1
	return &jsonschema.Schema{
		Type:     "object",
		Required: []string{"key"},
		Properties: map[string]*jsonschema.Schema{
			"key": {Type: "string", MinLength: &one, Description: what + `: the key given to confirm, or the "key" field of its result (a unique prefix of at least 4 characters will do)`},
		},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

func (s *server) statusTool() *mcp.Tool {
	return &mcp.Tool{
		Name:        "status",
		Title:       "Look at a confirmation request",
		Description: `Report what calling confirm (or ask) again for a request would return now, without waiting and without showing a dialog; for a question asked with ask, with its answer.`,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
		InputSchema: keySchema("the request to look at"),
	}
}

func (s *server) cancelTool() *mcp.Tool {
	return &mcp.Tool{
		Name:        "cancel",
		Title:       "Withdraw a confirmation request",
		Description: `Close the open dialog of a request; it ends cancelled, which counts as a denial. A request that already ended is left as it is.`,
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(false)},
		InputSchema: keySchema("the request to withdraw"),
	}
}

// approversSaid is what confirm's description adds where the server's
// --approvers or --approvals make each call a team's gate: who decides,
// and that a call may stay pending a while.
func (s *server) approversSaid() string {
	r := s.base.Request
	n := max(r.Approvals, 1)
	switch {
	case len(r.Approvers) > 0:
		return fmt.Sprintf(mcpConfirmApprovers, fmt.Sprintf(mcpApproversOf, n, dialog.Names(r.Approvers)))
	case r.Approvals > 0:
		return fmt.Sprintf(mcpConfirmApprovers, fmt.Sprintf(mcpApproversSetUp, n))
	}
	return ""
}
