package mcpserver

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// The client's form for a question beyond yes or no (the ask tool): a
// choice's options as an enum, a list of them with Multiple, and a text
// field for the person's own answer with Other, or for an input's text.
// Nothing is chosen in advance: a host that submits forms unread submits
// no answer, and the request fails rather than answers.

// The fields of a question's form.
const (
	answerField = "answer"
	otherField  = "other"
	// noChoice is the single choice's first entry, which chooses nothing:
	// no option's label is empty (dialog.ParseOption).
	noChoice = ""
)

// questionForm is the form that asks r, a choice or an input.
func questionForm(r dialog.Request) *mcp.ElicitParams {
	// A title shows its invisible characters as markers, as the text does.
	title := dialog.Literal(r.Title, false)
	if title == "" {
		title = dialog.DefaultTitle
	}
	maxText := dialog.MaxTextBytes
	props := map[string]*jsonschema.Schema{}
	var required []string
	switch r.Kind {
	case dialog.Choose:
		labels := make([]any, len(r.Options))
		names := make([]any, len(r.Options))
		for i, o := range r.Options {
			labels[i], names[i] = o.Label, o.Display()
		}
		one := 1
		if r.Multiple {
			props[answerField] = &jsonschema.Schema{Type: "array", Title: formChoicesTitle, Description: formChoicesHelp,
				Items: &jsonschema.Schema{Type: "string", Enum: labels}}
			if !r.Other {
				props[answerField].MinItems = &one
			}
		} else {
			// A first entry that is no option, as the confirm form puts
			// deny first: a host whose list preselects its first entry,
			// and sends it unread or with Enter, sends no choice.
			labels, names = append([]any{noChoice}, labels...), append([]any{formChoiceNone}, names...)
			props[answerField] = &jsonschema.Schema{Type: "string", Title: formChoiceTitle, Description: formChoiceHelp,
				Enum: labels, Extra: map[string]any{"enumNames": names}}
		}
		if r.Other {
			props[otherField] = &jsonschema.Schema{Type: "string", Title: formOtherTitle, Description: formOtherHelp, MaxLength: &maxText}
		} else {
			required = []string{answerField}
		}
	default:
		props[answerField] = &jsonschema.Schema{Type: "string", Title: formTextTitle, MaxLength: &maxText}
		if r.Text != "" {
			props[answerField].Description = fmt.Sprintf(formTextHelp, r.Text)
		}
		required = []string{answerField}
	}
	return &mcp.ElicitParams{
		Mode:            "form",
		Message:         fmt.Sprintf(formMessage, title, formText(r)),
		RequestedSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: required},
	}
}

// readAnswer turns the client's answer to a question's form into a
// Backend's: what the person chose or typed for accept, no answer for
// decline and cancel, and an error for anything the form did not ask for.
// The engine checks the labels against the options again before it
// records them.
func readAnswer(r dialog.Request, res mcp.InputResponse) (dialog.Answer, error) {
	er, ok := res.(*mcp.ElicitResult)
	if !ok || er == nil {
		return dialog.Answer{}, fmt.Errorf(msgFormNotAnswer, res)
	}
	switch er.Action {
	case "accept":
	case "decline", "cancel":
		return dialog.Answer{}, nil
	default:
		return dialog.Answer{}, fmt.Errorf(msgFormAction, er.Action)
	}
	for field := range er.Content {
		if field != answerField && (field != otherField || r.Kind != dialog.Choose || !r.Other) {
			return dialog.Answer{}, fmt.Errorf(msgFormField, field)
		}
	}
	v, given := er.Content[answerField]
	if r.Kind == dialog.Input {
		text, ok := v.(string)
		if !ok {
			return dialog.Answer{}, fmt.Errorf(msgFormAnswer, v)
		}
		return dialog.Answer{Approved: true, Values: []string{text}}, nil
	}
	labels, err := formLabels(r, v, given)
	if err != nil {
		return dialog.Answer{}, err
	}
	// Listed in the options' order, as the dialog lists them.
	slices.SortStableFunc(labels, func(a, b string) int {
		return slices.Index(r.Labels(), a) - slices.Index(r.Labels(), b)
	})
	ans := dialog.Answer{Approved: true, Values: labels}
	if own, ok := er.Content[otherField].(string); ok && strings.TrimSpace(own) != "" {
		if !r.Multiple && len(labels) > 0 {
			return dialog.Answer{}, errors.New(msgFormBoth)
		}
		ans = r.WithOwn(ans, own)
	} else if _, present := er.Content[otherField]; present && !ok {
		return dialog.Answer{}, fmt.Errorf(msgFormAnswer, er.Content[otherField])
	}
	if len(ans.Values) == 0 {
		return dialog.Answer{}, errors.New(msgFormNoChoice)
	}
	return ans, nil
}

// formLabels returns the labels a choice's form field holds (v, given
// whether the field was there at all): one label, or a list with
// multiple, or none for the "no choice" entry.
func formLabels(r dialog.Request, v any, given bool) ([]string, error) {
	var labels []string
	switch x := v.(type) {
	case nil:
		if given {
			return nil, fmt.Errorf(msgFormAnswer, v)
		}
	case string:
		if r.Multiple {
			return nil, fmt.Errorf(msgFormAnswer, v)
		}
		if x != noChoice {
			labels = []string{x}
		}
	case []any:
		if !r.Multiple {
			return nil, fmt.Errorf(msgFormAnswer, v)
		}
		for _, l := range x {
			s, ok := l.(string)
			if !ok {
				return nil, fmt.Errorf(msgFormAnswer, v)
			}
			labels = append(labels, s)
		}
	default:
		return nil, fmt.Errorf(msgFormAnswer, v)
	}
	return labels, nil
}
