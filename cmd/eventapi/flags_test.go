package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestHelpListsEveryFlag: --help and -h print the command's usage and every
// flag with its description on stdout, and succeed; a command of a group
// (keys, orgs) lists only the flags it takes.
func TestHelpListsEveryFlag(t *testing.T) {
	tests := []struct {
		args    []string
		want    []string
		notWant []string
	}{
		{[]string{"--help"}, []string{"usage: eventapi <command>", "requests list"}, nil},
		{[]string{"serve", "--help"}, []string{"usage: eventapi serve [flags]", "--migrate\n", "apply pending migrations"}, []string{"--output"}},
		{[]string{"migrate", "-h"}, []string{"usage: eventapi migrate", "--create-database", "create the database named"}, nil},
		{[]string{"orgs", "update", "--help"}, []string{"usage: eventapi orgs update ORG_ID [flags]", "--name string", "--stock-guard",
			"block, warn or off", "--rate-limit int", "0 clears the override"}, []string{"--sandbox-of"}},
		{[]string{"orgs", "create", "--help"}, []string{"--name string", "--sandbox-of", "--stock-guard", "--rate-limit int"}, nil},
		{[]string{"orgs", "list", "--help"}, []string{"usage: eventapi orgs list", "--output"}, []string{"--name", "--sandbox-of", "--stock-guard", "--rate-limit"}},
		{[]string{"keys", "list", "--help"}, []string{"usage: eventapi keys list", "--org", "--output"}, []string{"--name", "--scopes", "--mode", "--expires"}},
		{[]string{"keys", "revoke", "--help"}, []string{"usage: eventapi keys revoke KEY_ID [flags]", "--output"}, []string{"--org", "--name", "--scopes", "--mode", "--expires"}},
		{[]string{"keys", "create", "-h"}, []string{"usage: eventapi keys create", "--org", "--name", "--scopes", "comma-separated scopes",
			"--mode", "live, test or legacy (default live)", "--expires", "RFC 3339"}, nil},
		{[]string{"requests", "list", "--help"}, []string{"usage: eventapi requests list", "--org", "--since", "--until", "--status",
			"--method", "--route", "--key", "--request-id", "--limit N", "most records printed, N from 1 to 10000 (default 100)",
			"output format: text or json (default text)"}, nil},
		{[]string{"demo", "--help"}, []string{"usage: eventapi demo", "--name", "(default Demo Rental House)"}, nil},
		{[]string{"keys", "--help"}, []string{"usage: eventapi keys create|list|revoke", "eventapi keys <command> --help"}, nil},
		{[]string{"orgs", "-h"}, []string{"usage: eventapi orgs create|update|list"}, nil},
		{[]string{"orgs", "help"}, []string{"usage: eventapi orgs create|update|list"}, nil},
		{[]string{"requests", "--help"}, []string{"usage: eventapi requests list", "eventapi requests <command> --help"}, nil},
		{[]string{"requests", "-h"}, []string{"usage: eventapi requests list"}, nil},
		{[]string{"serve", "help"}, []string{"usage: eventapi serve [flags]", "--check"}, nil},
		{[]string{"migrate", "help"}, []string{"usage: eventapi migrate", "--create-database"}, nil},
		{[]string{"demo", "help"}, []string{"usage: eventapi demo", "--name"}, nil},
		{[]string{"keys", "list", "help"}, []string{"usage: eventapi keys list", "--org"}, nil},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), tc.args, &out, &errOut); err != nil || errOut.Len() != 0 {
			t.Errorf("%v: err = %v, stderr %q; want success and nothing on stderr", tc.args, err, errOut.String())
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: stdout lacks %q:\n%s", tc.args, w, out.String())
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(out.String(), w) {
				t.Errorf("%v: stdout lists %q, which the command does not take:\n%s", tc.args, w, out.String())
			}
		}
	}
}

// TestBadFlagIsUsageErrorWithFlags: a flag that cannot be parsed is a usage
// error (exit 2) that gives the reason and then lists the flags; every
// command but serve, which prints no result, takes --output.
func TestBadFlagIsUsageErrorWithFlags(t *testing.T) {
	tests := []struct {
		args         []string
		reason, flag string
	}{
		{[]string{"serve", "--bogus"}, "serve: flag provided but not defined: -bogus", "--migrate"},
		{[]string{"serve", "--output", "json"}, "serve: flag provided but not defined: -output", "--migrate"},
		{[]string{"requests", "list", "--limit"}, "requests list: flag needs an argument: -limit", "--limit N"},
		{[]string{"orgs", "update", "00000000-0000-0000-0000-000000000000", "--rate-limit", "x"},
			`orgs update: invalid value "x" for flag -rate-limit`, "--stock-guard"},
		{[]string{"keys", "create", "--expire", "2030-01-01T00:00:00Z"}, "flag provided but not defined: -expire", "--expires"},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		err := run(context.Background(), tc.args, &out, &errOut)
		if !errors.Is(err, errUsage) || out.Len() != 0 {
			t.Errorf("%v: err = %v, stdout %q; want a usage error", tc.args, err, out.String())
			continue
		}
		reason, flags, _ := strings.Cut(err.Error(), "\n")
		if !strings.Contains(reason, tc.reason) || !strings.Contains(flags, "flags:") ||
			!strings.Contains(flags, tc.flag) || strings.Contains(flags, "--output") != (tc.args[0] != "serve") {
			t.Errorf("%v: error %q, want the reason %q and then the flags", tc.args, err, tc.reason)
		}
	}
}

// TestPrintJSONKeepsText: the JSON output is not HTML; & and < stay as
// they are.
func TestPrintJSONKeepsText(t *testing.T) {
	var out bytes.Buffer
	if err := printJSON(&out, map[string]string{"name": "R&D <north>"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"R&D <north>"`) {
		t.Fatalf("printJSON wrote %s", out.String())
	}
}
