package picklists

import (
	"fmt"
	"slices"

	"github.com/eventapi/eventapi/platform/errs"
)

// moves are the pick list status moves the OpenAPI document states
// (api/openapi/openapi.yaml, its description's "Statuses").
var moves = map[string][]string{
	StatusDraft:      {StatusInProgress},
	StatusInProgress: {StatusPacked, StatusComplete},
	StatusPacked:     {StatusComplete},
	StatusComplete:   {},
}

// TransitionDetails is the details of invalid_transition.
type TransitionDetails struct {
	Field   string   `json:"field"`
	From    string   `json:"from"`
	To      string   `json:"to"`
	Allowed []string `json:"allowed"`
}

func invalidTransition(field, from, to string, allowed []string) error {
	return errs.New(errs.InvalidTransition, fmt.Sprintf("%s cannot move from %s to %s", field, from, to)).
		WithDetails(TransitionDetails{Field: field, From: from, To: to, Allowed: allowed})
}

// checkStatusMove allows the moves of the pick list flow; setting the current
// value again is allowed (a no-op).
func checkStatusMove(from, to string) error {
	if from == to || slices.Contains(moves[from], to) {
		return nil
	}
	return invalidTransition("status", from, to, moves[from])
}

// checkStageMove allows any move forward in Stages (skipping is fine) and
// staying; a move backward is invalid_transition.
func checkStageMove(from, to string) error {
	i, j := slices.Index(Stages, from), slices.Index(Stages, to)
	if j >= i {
		return nil
	}
	return invalidTransition("stage", from, to, slices.Clone(Stages[i+1:]))
}
