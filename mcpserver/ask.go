package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// The ask tool: questions beyond yes or no (ask-confirm choose and input)
// through the same engine, with the same status and should_retry contract
// as confirm, and the answer.

// askArgs are the arguments of the ask tool.
type askArgs struct {
	Message    string      `json:"message"`
	Title      string      `json:"title"`
	Options    []askOption `json:"options"`
	Multiple   bool        `json:"multiple"`
	AllowOther bool        `json:"allow_other"`
	Default    string      `json:"default"`
	Key        string      `json:"key"`
	Scope      string      `json:"scope"`
	Timeout    string      `json:"timeout"`
}

type askOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// askOutput is the structured content of the ask and status tools:
// toolOutput (its words fit every tool) and the answer.
type askOutput struct {
	toolOutput
	Answer any  `json:"answer,omitempty" jsonschema:"when status is approved for a question asked with ask: the label chosen, the list of labels with multiple, or the text typed"`
	Other  bool `json:"other,omitempty" jsonschema:"true when the (last) answer is the person's own text, typed beside the options (allow_other)"`
}

func (s *server) askTool() *mcp.Tool {
	one, many := 1, dialog.MaxOptions
	str := func(desc string, max int) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "string", Description: desc, MaxLength: &max}
	}
	label := str(fmt.Sprintf("what the person picks and you receive back: one line, at most %d bytes, distinct from the other labels, not starting with '-'", dialog.MaxOptionBytes), dialog.MaxOptionBytes)
	label.MinLength = &one
	message := str(fmt.Sprintf("the question, shown literally (never as markup); newlines allowed; at most %d bytes", dialog.MaxMessageBytes), dialog.MaxMessageBytes)
	message.MinLength = &one
	return &mcp.Tool{
		Name:        "ask",
		Title:       "Ask a person to choose, or to type an answer",
		Description: fmt.Sprintf(mcpAskDescription, mcpAsksDialog, dialog.ShortDuration(s.base.Wait)),
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(false)},
		InputSchema: &jsonschema.Schema{
			Type:     "object",
			Required: []string{"message"},
			Properties: map[string]*jsonschema.Schema{
				"message": message,
				"title":   str(fmt.Sprintf("window title, at most %d bytes", dialog.MaxTitleBytes), dialog.MaxTitleBytes),
				"options": {
					Type:        "array",
					Description: fmt.Sprintf("the answers to choose from, in the order shown (2 to %d); leave out to ask for free text", dialog.MaxOptions),
					MaxItems:    &many,
					Items: &jsonschema.Schema{
						Type:     "object",
						Required: []string{"label"},
						Properties: map[string]*jsonschema.Schema{
							"label":       label,
							"description": str(fmt.Sprintf("shown beside the label, one line, at most %d bytes", dialog.MaxDescriptionBytes), dialog.MaxDescriptionBytes),
						},
						AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
					},
				},
				"multiple":    {Type: "boolean", Description: "let the person pick several options; the answer is then a list", Default: []byte("false")},
				"allow_other": {Type: "boolean", Description: fmt.Sprintf("add a last option, %q, with which the person types an answer of their own", dialog.OtherLabel), Default: []byte("false")},
				"default":     str(fmt.Sprintf("with options, the label picked in advance; without, the text the field starts with (one line, at most %d bytes)", dialog.MaxTextBytes), dialog.MaxTextBytes),
				"key":         str(fmt.Sprintf("explicit identity of the request; a different question under the same key replaces the open dialog (at most %d bytes)", dialog.MaxKeyBytes), dialog.MaxKeyBytes),
				"scope":       str(fmt.Sprintf("what separates identical questions asked for different things (default: the server's working directory; at most %d bytes)", dialog.MaxScopeBytes), dialog.MaxScopeBytes),
				"timeout":     str(fmt.Sprintf("how long the dialog stays open unanswered, such as 90s or 10m (default %s, at most %s)", dialog.ShortDuration(s.base.Timeout), dialog.ShortDuration(lifecycle.MaxTimeout)), 32),
			},
			PropertyOrder:        []string{"message", "title", "options", "multiple", "allow_other", "default", "key", "scope", "timeout"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		},
	}
}

// ask is the ask tool: a choice when the call gives options, else a text,
// asked as confirm asks: by dialog, or through the client's form where
// --ask-with says so.
func (s *server) ask(ctx context.Context, call *mcp.CallToolRequest, in askArgs) (*mcp.CallToolResult, *askOutput, error) {
	req, timeout, err := request(confirmArgs{Title: in.Title, Message: in.Message, Key: in.Key, Scope: in.Scope, Timeout: in.Timeout}, s.base.Timeout)
	if err != nil {
		return nil, nil, err
	}
	if req.Title == "" {
		req.Title = s.base.Request.Title
	}
	req.OKLabel, req.CancelLabel = "OK", s.base.Request.CancelLabel
	if len(in.Options) > 0 || in.Multiple || in.AllowOther {
		req.Kind, req.Multiple, req.Other = dialog.Choose, in.Multiple, in.AllowOther
		for _, o := range in.Options {
			req.Options = append(req.Options, dialog.Option{Label: o.Label, Description: o.Description})
		}
		if in.Default != "" {
			req.Selected = []string{in.Default}
		}
	} else {
		req.Kind, req.Text = dialog.Input, in.Default
	}
	r, relay, err := s.run(ctx, call, req, timeout)
	switch {
	case err != nil:
		return nil, nil, invalidAsk(err)
	case relay != nil:
		return relay, nil, nil
	}
	return s.askAnswer(r, req.Kind)
}

// invalidAsk is invalid with the ask tool's argument names: the flags
// --option and --other are options and allow_other here.
func invalidAsk(err error) error {
	var ie *dialog.InvalidError
	if errors.As(err, &ie) {
		field := ie.Field
		switch {
		case strings.HasPrefix(field, "--option"):
			field = strings.Replace(field, "--option", "options", 1)
		case field == "--other":
			field = "allow_other"
		}
		return invalid(&dialog.InvalidError{Field: field, Reason: strings.ReplaceAll(ie.Reason, "--other", "allow_other")})
	}
	return invalid(err)
}

// askAnswer is answer, with the answer and the sentence a model reads.
func (s *server) askAnswer(r lifecycle.Result, kind string) (*mcp.CallToolResult, *askOutput, error) {
	res, out, err := s.answer(r, askText(r, kind, s.engine.Now()))
	if err != nil {
		return nil, nil, err
	}
	return res, withAnswer(out, r), nil
}

// withAnswer is out, a tool's structured content, with r's answer.
func withAnswer(out *toolOutput, r lifecycle.Result) *askOutput {
	ao := &askOutput{toolOutput: *out, Other: r.Other}
	if r.Status == lifecycle.StatusApproved {
		ao.Answer = r.Answer
	}
	return ao
}

// askText is the sentence a model reads for an ask call's result, read at
// now.
func askText(r lifecycle.Result, kind string, now time.Time) string {
	again := ""
	if r.Remembered {
		again = fmt.Sprintf(mcpAskRemembered, dialog.ClockSeconds(r.AnsweredAt.Local(), now))
	}
	switch r.Status {
	case lifecycle.StatusApproved:
		switch a := r.Answer.(type) {
		case string:
			if r.Other {
				return fmt.Sprintf(mcpAskOwn, a, again)
			}
			if kind == dialog.Input {
				return fmt.Sprintf(mcpAskTyped, a, again)
			}
			return fmt.Sprintf(mcpAskChose, a, again)
		case []string:
			if r.Other && len(a) == 1 {
				return fmt.Sprintf(mcpAskOwn, a[0], again)
			}
			labels := a
			own := ""
			if r.Other && len(a) > 0 {
				labels, own = a[:len(a)-1], fmt.Sprintf(mcpAskAlsoOwn, a[len(a)-1])
			}
			return fmt.Sprintf(mcpAskChose, strings.Join(labels, ", "), again) + own
		}
	case lifecycle.StatusDenied:
		return mcpAskCancelled + again
	case lifecycle.StatusPending:
		return mcpAskPending
	case lifecycle.StatusHeadless:
		return sentence(r.Message) + " " + mcpAskHeadless
	}
	return ""
}
