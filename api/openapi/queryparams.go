package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// parameter is an operation's parameter as the document declares it,
// inline or through a $ref to components.parameters.
type parameter struct {
	Ref  string `json:"$ref"`
	Name string `json:"name"`
	In   string `json:"in"`
}

var readParameters struct {
	once   sync.Once
	byPath map[string][]string
	err    error
}

// ReadQueryParameters returns, for each path of the document that has a GET
// operation (in the document's form, under its server's URL:
// /api/v2/events/{id}), the names of the
// query parameters it takes: the operation's and the path's own, sorted. A
// GET answer names the others a request carried in its ignored_parameters
// warning (docs/decisions.md, "Query parameters"). It is read once per
// process; callers must not modify it.
func ReadQueryParameters() (map[string][]string, error) {
	readParameters.once.Do(func() {
		readParameters.byPath, readParameters.err = readQueryParameters()
	})
	return readParameters.byPath, readParameters.err
}

func readQueryParameters() (map[string][]string, error) {
	type operation struct {
		Parameters []parameter `json:"parameters"`
	}
	var doc struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Paths map[string]struct {
			Parameters []parameter `json:"parameters"`
			Get        *operation  `json:"get"`
		} `json:"paths"`
		Components struct {
			Parameters map[string]parameter `json:"parameters"`
		} `json:"components"`
	}
	b, err := JSON()
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if len(doc.Servers) != 1 {
		return nil, fmt.Errorf("openapi.yaml: %d servers, want the one the paths are under", len(doc.Servers))
	}
	base := doc.Servers[0].URL
	const componentPrefix = "#/components/parameters/"
	out := map[string][]string{}
	for path, item := range doc.Paths {
		if item.Get == nil {
			continue
		}
		names := []string{}
		for _, p := range slices.Concat(item.Parameters, item.Get.Parameters) {
			if p.Ref != "" {
				ref, ok := doc.Components.Parameters[strings.TrimPrefix(p.Ref, componentPrefix)]
				if !ok || !strings.HasPrefix(p.Ref, componentPrefix) {
					return nil, fmt.Errorf("openapi.yaml: GET %s: parameter %s names no component", path, p.Ref)
				}
				p = ref
			}
			if p.In == "query" && !slices.Contains(names, p.Name) {
				names = append(names, p.Name)
			}
		}
		slices.Sort(names)
		out[base+path] = names
	}
	return out, nil
}
