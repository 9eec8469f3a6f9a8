package v1

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/storage/events"
)

// v1Enum returns the enum of a schema of the v1 document.
func v1Enum(t *testing.T, name string) []string {
	t.Helper()
	b, err := openapi.V1JSON(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Components struct {
			Schemas map[string]struct {
				Enum []string `json:"enum"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	s, ok := d.Components.Schemas[name]
	if !ok || len(s.Enum) == 0 {
		t.Fatalf("v1.yaml has no %s enum", name)
	}
	return s.Enum
}

// TestEveryEventStatusIsAJobStatus: every event status has a v1 job status,
// so a new one cannot show as status "" on v1, and every job status is
// reachable from one.
func TestEveryEventStatusIsAJobStatus(t *testing.T) {
	for _, s := range events.Statuses {
		job, ok := jobStatusOf[s]
		if !ok {
			t.Errorf("event status %q has no v1 job status in jobStatusOf", s)
			continue
		}
		if !slices.Contains(jobStatuses, job) {
			t.Errorf("event status %q maps to %q, not a v1 job status %v", s, job, jobStatuses)
		}
	}
	for event := range jobStatusOf {
		if !slices.Contains(events.Statuses, event) {
			t.Errorf("jobStatusOf maps %q, which is not an event status", event)
		}
	}
	for _, job := range jobStatuses {
		if len(eventStatusesOf(job)) == 0 {
			t.Errorf("no event status maps to job status %q", job)
		}
	}
}

// TestEnumsMatchTheV1Document: the values v1 checks are the enums v1.yaml
// states, in the same order (the order of the 400's "must be one of").
func TestEnumsMatchTheV1Document(t *testing.T) {
	for name, want := range map[string][]string{
		"JobStatus": jobStatuses,
		"CaseType":  caseTypes,
	} {
		if got := v1Enum(t, name); !slices.Equal(got, want) {
			t.Errorf("v1.yaml %s enum %v, want %v", name, got, want)
		}
	}
}
