package apitest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/openapi"
)

// ErrorExample is the error object of an error answer's example.
type ErrorExample struct {
	Code, Message string
}

// ErrorExamples returns the example of each error answer the v2 document
// (v1: the v1 document) describes in components.responses, by the answer's
// name; answers without an example are absent.
func ErrorExamples(t testing.TB, v1 bool) map[string]ErrorExample {
	t.Helper()
	doc, err := openapi.JSON()
	if v1 {
		doc, err = openapi.V1JSON(time.Time{})
	}
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Components struct {
			Responses map[string]struct {
				Content map[string]struct {
					Example *struct {
						Error ErrorExample `json:"error"`
					} `json:"example"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	out := map[string]ErrorExample{}
	for name, r := range d.Components.Responses {
		for _, c := range r.Content {
			if c.Example != nil {
				out[name] = c.Example.Error
			}
		}
	}
	return out
}
