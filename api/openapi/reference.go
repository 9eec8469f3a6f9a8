package openapi

import (
	"crypto/sha256"
	"embed"
	"io"
	"path"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/compress"
	"github.com/eventapi/eventapi/platform/errs"
)

// The Redoc standalone bundle (redoc 2.5.x, MIT, see assets/redoc.LICENSE)
// and the page's own stylesheet, served from the binary.
//
//go:embed assets/*
var assetFiles embed.FS

// referencePage loads every script and style from the API itself; the spec
// URL is absolute, wherever the page is served from.
const referencePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>eventapi v2 API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="` + AssetsPath + `/reference.css">
</head>
<body>
<redoc spec-url="` + DocumentPath + `" path-in-middle-panel="true"></redoc>
<script src="` + AssetsPath + `/redoc.standalone.js"></script>
</body>
</html>
`

// ContentSecurityPolicy of the reference page: scripts, styles, fonts and
// fetches from the API only. Redoc injects its styles at run time
// (styled-components), hence 'unsafe-inline' for styles only, and runs its
// search index in a blob: worker.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// referenceETag is the page's tag: it changes only with the binary.
var referenceETag = func() string {
	sum := sha256.Sum256([]byte(referencePage))
	return weakETag(sum[:12])
}()

// reference answers the page, revalidated by its ETag as every GET 200 of
// the API is.
func reference(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentSecurityPolicy, ContentSecurityPolicy)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set(fiber.HeaderETag, referenceETag)
	if notModified(c, referenceETag) {
		return compress.NotModified(c, len(referencePage), fiber.MIMETextHTMLCharsetUTF8)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.SendString(referencePage)
}

// assetTypes are the content types of the files the page loads; anything
// else under assets/ (licences) is served as plain text.
var assetTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
}

// servedAsset is a file of assets/. Its body is streamed from the binary on
// each request rather than copied into the heap (the Redoc bundle is over a
// megabyte every process would hold); its ETag is hashed on first use. A
// file large enough to be worth it is gzipped once, on the first request
// that accepts gzip, and that copy is kept (the bundle's is about 330 KB)
// rather than compressing a megabyte on every such request.
type servedAsset struct {
	path        string
	size        int
	contentType string
	etag        func() string
	gzipped     func() []byte // nil for a file under compress.DefaultMinSize
}

var assets = loadAssets()

func loadAssets() map[string]servedAsset {
	entries, err := assetFiles.ReadDir("assets")
	if err != nil {
		panic(err)
	}
	out := make(map[string]servedAsset, len(entries))
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			panic(err)
		}
		ct, ok := assetTypes[path.Ext(e.Name())]
		if !ok {
			ct = fiber.MIMETextPlainCharsetUTF8
		}
		p := "assets/" + e.Name()
		var gzipped func() []byte
		if info.Size() >= compress.DefaultMinSize {
			gzipped = sync.OnceValue(func() []byte { return gzipFile(p) })
		}
		out[e.Name()] = servedAsset{path: p, size: int(info.Size()), contentType: ct, gzipped: gzipped, etag: sync.OnceValue(func() string {
			f, err := assetFiles.Open(p)
			if err != nil {
				panic(err)
			}
			defer f.Close()
			sum := sha256.New()
			if _, err := io.Copy(sum, f); err != nil {
				panic(err)
			}
			return weakETag(sum.Sum(nil)[:12])
		})}
	}
	return out
}

func asset(c *fiber.Ctx) error {
	a, ok := assets[c.Params("name")]
	if !ok || strings.HasPrefix(c.Params("name"), ".") {
		return errs.New(errs.NotFound, "no such asset")
	}
	etag := a.etag()
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	c.Set(fiber.HeaderETag, etag)
	if notModified(c, etag) {
		return compress.NotModified(c, a.size, a.contentType)
	}
	c.Set(fiber.HeaderContentType, a.contentType)
	if a.gzipped != nil && compress.Accepts(c) {
		return compress.SendGzipped(c, a.gzipped())
	}
	f, err := assetFiles.Open(a.path)
	if err != nil {
		return err
	}
	return c.SendStream(f, a.size) // the response closes f once sent
}

// gzipFile returns the embedded file at p gzipped (compress.Best).
func gzipFile(p string) []byte {
	b, err := assetFiles.ReadFile(p)
	if err != nil {
		panic(err) // embedded: a build defect that the package's tests catch
	}
	return compress.Best(b)
}
