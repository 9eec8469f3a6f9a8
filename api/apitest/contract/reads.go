package contract

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/eventapi/eventapi/platform/errs"
)

// checkReads returns a problem for each query parameter of a v2 GET
// answered 200 that the server read, so that its answer's
// ignored_parameters warning does not name it, though the document does not
// declare it on the operation (a filter a handler takes must be in the
// document, which clients and the SDK are generated from), and for each it
// names that the document declares (a documented filter the handler never
// reads filters nothing). The answer names
// what the handler did not read (rest.TrackQueryReads), so every test that
// uses a parameter checks that it is declared. expand is left out: every
// GET reads it, and refuses any value where the operation offers no
// expansion (docs/decisions.md, "Query parameters").
func (c *Contract) checkReads(method string, u *url.URL, res *Response) []string {
	if c.v1 || method != http.MethodGet || res.Status != http.StatusOK {
		return nil
	}
	var body struct {
		Warnings []struct {
			Code    string `json:"code"`
			Details struct {
				Parameters []string `json:"parameters"`
			} `json:"details"`
		} `json:"warnings"`
	}
	if json.Unmarshal(res.Body, &body) != nil {
		return nil // the response's own check reports a body that is not its schema
	}
	var ignored []string
	for _, w := range body.Warnings {
		if w.Code == "ignored_parameters" {
			ignored = append(ignored, w.Details.Parameters...)
		}
	}
	declared := c.QueryParameters(method, u.Path)
	var problems []string
	for name := range u.Query() {
		echoed := errs.Echo(strings.ToValidUTF8(name, "\uFFFD"))
		if name == "" || name == "expand" || slices.Contains(ignored, echoed) || slices.Contains(declared, name) {
			continue
		}
		problems = append(problems, fmt.Sprintf("the server read the query parameter %q (the answer does not name it in ignored_parameters), which the document does not declare on GET %s", name, u.Path))
	}
	for _, name := range ignored {
		if slices.Contains(declared, name) {
			problems = append(problems, fmt.Sprintf("the answer names the query parameter %q in ignored_parameters, which the document declares on GET %s: the handler never read it", name, u.Path))
		}
	}
	slices.Sort(problems)
	return problems
}
