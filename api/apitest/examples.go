package apitest

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/openapi"
)

// ErrorExample is the error object of an error answer's example.
type ErrorExample struct {
	Code, Message string
}

// DocumentedError is an error answer of a document: its example and the
// statuses the operations give it under (none for an answer that applies
// to every request and that no operation lists, such as a target too long).
type DocumentedError struct {
	Example  ErrorExample
	Statuses []int
}

// Allows reports whether the document gives the answer under status: one of
// its statuses, or any 4xx or 5xx when no operation lists it.
func (d DocumentedError) Allows(status int) bool {
	if len(d.Statuses) == 0 {
		return status >= 400
	}
	return slices.Contains(d.Statuses, status)
}

// ErrorExamples returns each error answer of components.responses of the
// v2 document (v1: the v1 document) whose example is an error, by the
// answer's name; an answer with several examples (`examples`) comes once
// per example, as "name/example". An answer that an operation gives under
// a 4xx or 5xx status and that has no example fails t, so that the example
// tests cover them all.
func ErrorExamples(t testing.TB, v1 bool) map[string]DocumentedError {
	t.Helper()
	doc, err := openapi.JSON()
	if v1 {
		doc, err = openapi.V1JSON(time.Time{})
	}
	if err != nil {
		t.Fatal(err)
	}
	type errorBody struct {
		Error ErrorExample `json:"error"`
	}
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
		// Components.Responses by name.
		Components struct {
			Responses map[string]struct {
				Content map[string]struct {
					Example  *errorBody `json:"example"`
					Examples map[string]struct {
						Value errorBody `json:"value"`
					} `json:"examples"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	statuses := map[string][]int{}
	for _, ops := range d.Paths {
		for _, raw := range ops {
			var op struct {
				Responses map[string]struct {
					Ref string `json:"$ref"`
				} `json:"responses"`
			}
			if json.Unmarshal(raw, &op) != nil {
				continue // a path's parameters, not an operation
			}
			for code, r := range op.Responses {
				status, err := strconv.Atoi(code)
				name, ok := strings.CutPrefix(r.Ref, "#/components/responses/")
				if err == nil && ok && status >= 400 && !slices.Contains(statuses[name], status) {
					statuses[name] = append(statuses[name], status)
				}
			}
		}
	}
	out := map[string]DocumentedError{}
	for name, r := range d.Components.Responses {
		st := statuses[name]
		found := false
		for _, c := range r.Content {
			if c.Example != nil && c.Example.Error.Code != "" {
				out[name] = DocumentedError{c.Example.Error, st}
				found = true
			}
			for key, e := range c.Examples {
				if e.Value.Error.Code != "" {
					out[name+"/"+key] = DocumentedError{e.Value.Error, st}
					found = true
				}
			}
		}
		if !found && len(st) > 0 {
			t.Errorf("the error answer %s (statuses %v) has no example", name, st)
		}
	}
	return out
}
