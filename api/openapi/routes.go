package openapi

import (
	"encoding/hex"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/compress"
	"github.com/eventapi/eventapi/api/middleware/etag"
)

// Paths of the public documentation endpoints.
const (
	DocumentPath  = "/api/v2/openapi.json"
	ReferencePath = "/api/v2/reference"
	AssetsPath    = ReferencePath + "/assets"
)

// IsPublicPath reports whether path is one of the documentation paths
// served without authentication (Routes, V1Routes).
func IsPublicPath(path string) bool {
	return path == DocumentPath || path == ReferencePath || path == V1DocumentPath ||
		strings.HasPrefix(path, AssetsPath+"/")
}

// Routes registers GET /api/v2/openapi.json, GET /api/v2/reference and the
// reference page's assets on r, without authentication. Register them before
// the authenticated /api/v2 group so its middleware never sees them.
func Routes(r fiber.Router) {
	doc := MustJSON()
	etag := document.etag
	gzipped := sync.OnceValue(func() []byte { return compress.Best(doc) })
	r.Get(DocumentPath, func(c *fiber.Ctx) error { return sendDocument(c, doc, gzipped, etag) })
	r.Get(ReferencePath, reference)
	r.Get(AssetsPath+"/:name", asset)
}

// weakETag is the entity tag of a served file: weak, because the same file
// is sent gzipped to clients that accept it and as it is to the others, and
// a strong tag would have to tell those bytes apart (RFC 9110, 8.8.1).
// If-None-Match compares weakly, so either copy revalidates.
func weakETag(hash []byte) string { return `W/"` + hex.EncodeToString(hash) + `"` }

// notModified reports whether c's If-None-Match names tag (weakly
// compared, lists and * included, RFC 9110, 13.1.2), whatever its
// Cache-Control says: a request's no-cache asks for this revalidation, and
// Fiber's c.Fresh would answer it with the whole file.
func notModified(c *fiber.Ctx, tag string) bool {
	return etag.NoneMatchNames(&c.Request().Header, tag)
}

// sendDocument answers a served OpenAPI document: public, cacheable by ETag
// (304 on If-None-Match), JSON; gzipped when the client accepts it, from a
// copy compressed once (gzipped), as the assets are.
func sendDocument(c *fiber.Ctx, doc []byte, gzipped func() []byte, etag string) error {
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set(fiber.HeaderETag, etag)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderAccessControlAllowOrigin, "*")
	if notModified(c, etag) {
		return compress.NotModified(c, len(doc), fiber.MIMEApplicationJSONCharsetUTF8)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	if compress.Accepts(c) {
		return compress.SendGzipped(c, gzipped())
	}
	return c.Send(doc)
}
