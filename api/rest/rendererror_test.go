package rest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// unrenderable is details no encoder can write: the render of an error
// carrying it fails.
type unrenderable struct{}

func (unrenderable) MarshalJSON() ([]byte, error) { return nil, errors.New("details refused") }

// TestRenderError: the one rule of the middlewares that render a handler's
// error to record its answer. An error is answered and not passed on; a
// render that fails is answered 500 internal_error in the surface's
// envelope, its failure logged and returned apart; a render that cannot
// even answer that is 500 in plain text; the refused answer's body and
// headers never reach the client.
func TestRenderError(t *testing.T) {
	tests := []struct {
		name string
		path string
		err  error // the handler's, after it wrote a body of its own
		// render is the error handler given: rest's (""), "none", one that
		// always fails ("fails"), or one that fails for the handler's error
		// only ("fails once").
		render string

		status      int
		code        string   // error.code of the JSON envelope; "" for a body that is not one
		body        string   // the whole body, when code is ""
		errorCode   string   // rest.ErrorCodeOf after the render
		passed      bool     // pass is the handler's error
		failed      bool     // failed is not nil
		logged      string   // a line of the error log contains it; "" for none
		present     []string // headers the answer has
		noneOfThese []string // headers the answer has not
	}{
		{name: "no error", path: "/api/v2/things", status: 200, body: "partial"},
		{name: "rendered", path: "/api/v2/things", err: errs.InvalidField("name", "is required"),
			status: 422, code: "validation_error", errorCode: "validation_error"},
		{name: "rendered on v1", path: "/api/v1/things", err: errs.New(errs.NotFound, "gone"),
			status: 404, code: "NOT_FOUND", errorCode: "not_found"},
		{name: "a refusal's headers stay when its render succeeds", path: "/api/v2/things",
			err:    errs.New(errs.InvalidCredentials, "bad key"),
			status: 401, code: "invalid_credentials", errorCode: "invalid_credentials", present: []string{"Www-Authenticate"}},
		{name: "no error handler: the error is passed on", path: "/api/v2/things", err: errs.New(errs.NotFound, "gone"),
			render: "none", passed: true, status: 404, code: "not_found"},
		{name: "a failed render is a 500 internal_error, logged", path: "/api/v2/things",
			err:    &errs.Error{Code: errs.InvalidCredentials, Message: "bad key", Details: unrenderable{}},
			status: 500, code: "internal_error", errorCode: "internal_error", failed: true,
			logged: "rendering invalid_credentials: bad key: ", noneOfThese: []string{"Www-Authenticate"}},
		{name: "v1 renders no details", path: "/api/v1/things",
			err:    &errs.Error{Code: errs.Validation, Message: "bad", Details: unrenderable{}},
			status: 400, code: "BAD_REQUEST", errorCode: "bad_request"},
		{name: "a failed render on v1 is SERVER_ERROR", path: "/api/v1/things",
			err: errs.New(errs.NotFound, "gone"), render: "fails once",
			status: 500, code: "SERVER_ERROR", errorCode: "internal_error", failed: true, logged: "rendering not_found: gone: no encoder"},
		{name: "a failed render drops the refusal's Retry-After", path: "/api/v2/things",
			err:    &errs.Error{Code: errs.ServiceUnavailable, Message: "down", RetryAfter: 3, Details: unrenderable{}},
			status: 500, code: "internal_error", errorCode: "internal_error", failed: true,
			logged: "rendering service_unavailable", noneOfThese: []string{"Retry-After"}},
		{name: "a Fiber error whose render failed is a 500, not its own status again", path: "/api/v2/things",
			err: fiber.ErrUnprocessableEntity, render: "fails once",
			status: 500, code: "internal_error", errorCode: "internal_error", failed: true, logged: "rendering Unprocessable Entity: no encoder"},
		{name: "every render fails: 500 in plain text, without the handler's body", path: "/api/v2/things",
			err: errs.New(errs.NotFound, "gone"), render: "fails", status: 500, body: "Internal Server Error", failed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			handler := rest.ErrorHandler(slog.New(slog.NewTextHandler(&logs, nil)))
			app := fiber.New(fiber.Config{ErrorHandler: handler})
			render := handler
			switch tt.render {
			case "none":
				render = nil
			case "fails", "fails once":
				render = func(c *fiber.Ctx, err error) error {
					if tt.render == "fails once" && err != tt.err {
						return handler(c, err)
					}
					c.Status(fiber.StatusTeapot)
					return errors.New("no encoder")
				}
			}
			var pass, failed error
			var errorCode string
			app.Use(func(c *fiber.Ctx) error {
				pass, failed = rest.RenderError(c, render, c.Next())
				errorCode = rest.ErrorCodeOf(c)
				return pass
			})
			app.Get("/api/:version/things", func(c *fiber.Ctx) error {
				c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
				if err := c.SendString("partial"); err != nil {
					return err
				}
				return tt.err
			})
			resp, err := app.Test(httptest.NewRequest("GET", tt.path, nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d %s, want %d", resp.StatusCode, body, tt.status)
			}
			if tt.code != "" {
				var env struct {
					Error struct{ Code string } `json:"error"`
				}
				if json.Unmarshal(body, &env) != nil || env.Error.Code != tt.code {
					t.Fatalf("body %s, want the envelope of %s", body, tt.code)
				}
			} else if string(body) != tt.body {
				t.Fatalf("body %q, want %q", body, tt.body)
			}
			if tt.render == "fails" && !strings.HasPrefix(resp.Header.Get(fiber.HeaderContentType), fiber.MIMETextPlain) {
				t.Errorf("Content-Type %q of the plain 500", resp.Header.Get(fiber.HeaderContentType))
			}
			if (pass != nil) != tt.passed || (tt.passed && pass != tt.err) {
				t.Errorf("pass = %v, want the handler's error: %v", pass, tt.passed)
			}
			if (failed != nil) != tt.failed {
				t.Errorf("failed = %v, want an error: %v", failed, tt.failed)
			}
			if errorCode != tt.errorCode {
				t.Errorf("ErrorCodeOf = %q, want %q", errorCode, tt.errorCode)
			}
			if tt.logged != "" && !strings.Contains(logs.String(), tt.logged) {
				t.Errorf("the log %q names no %q", logs.String(), tt.logged)
			}
			if tt.logged == "" && strings.Contains(logs.String(), "request failed") {
				t.Errorf("logged %q", logs.String())
			}
			for _, h := range tt.present {
				if resp.Header.Get(h) == "" {
					t.Errorf("no %s", h)
				}
			}
			for _, h := range tt.noneOfThese {
				if v := resp.Header.Get(h); v != "" {
					t.Errorf("%s: %q on the 500", h, v)
				}
			}
		})
	}
}
