// Command openapi-json prints an OpenAPI document exactly as the server
// serves it: the v2 document (/api/v2/openapi.json) by default, the v1
// document (/api/v1/openapi.json) with -surface v1. The generator checks and
// the SDK generator (scripts/gen-sdk.sh) read it, so they see the served
// bytes, not the YAML source.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/eventapi/eventapi/api/openapi"
)

func main() {
	surface := flag.String("surface", "v2", "which document: v2 or v1")
	flag.Parse()
	var (
		doc []byte
		err error
	)
	switch *surface {
	case "v2":
		doc, err = openapi.JSON()
	case "v1":
		doc, err = openapi.V1JSON(time.Time{})
	default:
		err = fmt.Errorf("unknown surface %q (want v2 or v1)", *surface)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapi-json:", err)
		os.Exit(1)
	}
	_, _ = os.Stdout.Write(doc)
}
