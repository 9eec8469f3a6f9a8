// Package openapi serves the OpenAPI 3.1 documents of the v2 and v1
// surfaces and the interactive reference page, all embedded in the binary.
// The v2 document is authored as openapi.yaml beside this file, converted to
// JSON once, and served as GET /api/v2/openapi.json; GET /api/v2/reference
// renders it with the Redoc standalone bundle served from the binary (no
// CDN). The v1 document, v1.yaml, is served as GET /api/v1/openapi.json
// (v1doc.go).
package openapi

import (
	"crypto/sha256"
	_ "embed"
	"fmt"
	"sync"

	"sigs.k8s.io/yaml"
)

//go:embed openapi.yaml
var source []byte

var document struct {
	once sync.Once
	json []byte
	etag string
	err  error
}

// JSON returns the document converted to JSON. The conversion runs once per
// process; every caller shares the same bytes and must not modify them.
func JSON() ([]byte, error) {
	document.once.Do(func() {
		b, err := yaml.YAMLToJSON(source)
		if err != nil {
			document.err = fmt.Errorf("openapi.yaml: %w", err)
			return
		}
		sum := sha256.Sum256(b)
		document.json, document.etag = b, weakETag(sum[:12])
	})
	return document.json, document.err
}

// MustJSON is JSON for start-up code: the document is embedded, so a failure
// is a build defect that the package's tests catch.
func MustJSON() []byte {
	b, err := JSON()
	if err != nil {
		panic(err)
	}
	return b
}
