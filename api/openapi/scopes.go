package openapi

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/eventapi/eventapi/api/rest"
)

// OperationScopes are the scopes a v2 operation requires, as the document
// states them: any one of Required (x-required-scopes) and, for a write that
// answers a record, any one of Also (x-also-required-scopes) as well. The
// routes' guards check the same sets, in that order (the isolation suite,
// TestEveryGuardIsDocumented, holds them equal).
type OperationScopes struct {
	Required []string `json:"x-required-scopes"`
	Also     []string `json:"x-also-required-scopes"`
}

// Scopes returns the documented scopes of every v2 operation, keyed by its
// method and route template as route.Resolver names them ("PATCH
// /api/v2/events/{id}"). The map is built once; callers must not change it.
var Scopes = sync.OnceValue(func() map[string]OperationScopes {
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(MustJSON(), &d); err != nil {
		panic(err) // embedded: a build defect that the package's tests catch
	}
	out := map[string]OperationScopes{}
	for path, item := range d.Paths {
		for method, raw := range item {
			var s OperationScopes
			if json.Unmarshal(raw, &s) != nil || s.Required == nil {
				continue // path-level parameters, not an operation
			}
			out[strings.ToUpper(method)+" "+rest.V2Prefix+path] = s
		}
	}
	return out
})
