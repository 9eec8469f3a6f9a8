package openapi

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"fmt"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"sigs.k8s.io/yaml"

	"github.com/eventapi/eventapi/api/middleware/compress"
	"github.com/eventapi/eventapi/api/rest"
)

// V1DocumentPath is where the v1 surface's own OpenAPI document is served.
const V1DocumentPath = "/api/v1/openapi.json"

// v1DocumentSunset is the Sunset date written in v1.yaml (the default of
// EVENTAPI_V1_SUNSET). A server configured with another date serves the
// document with that date in its place, so the document and the Sunset
// header agree.
const v1DocumentSunset = "2027-06-30"

//go:embed v1.yaml
var v1Source []byte

// V1JSON returns the v1 document converted to JSON, with sunset (when not
// zero) as its removal date.
func V1JSON(sunset time.Time) ([]byte, error) {
	src := v1Source
	if !sunset.IsZero() {
		src = bytes.ReplaceAll(src, []byte(v1DocumentSunset), []byte(sunset.UTC().Format(time.DateOnly)))
	}
	b, err := yaml.YAMLToJSON(src)
	if err != nil {
		return nil, fmt.Errorf("v1.yaml: %w", err)
	}
	return b, nil
}

// V1Routes registers GET /api/v1/openapi.json on r without authentication,
// with the Deprecation and Sunset headers every v1 response carries.
// Register it before the authenticated /api/v1 group.
func V1Routes(r fiber.Router, sunset time.Time) {
	doc, err := V1JSON(sunset)
	if err != nil {
		panic(err) // embedded: a build defect that the package's tests catch
	}
	sum := sha256.Sum256(doc)
	etag := weakETag(sum[:12])
	gzipped := sync.OnceValue(func() []byte { return compress.Best(doc) })
	mark := rest.Deprecated(sunset)
	r.Get(V1DocumentPath, func(c *fiber.Ctx) error {
		mark(c)
		return sendDocument(c, doc, gzipped, etag)
	})
}
