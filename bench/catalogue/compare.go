package catalogue

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
)

// Server is one of the two servers under comparison: its base URL (on
// loopback) and the headers every request to it carries.
type Server struct {
	Name   string
	Base   string
	Header http.Header
}

// Target returns a load target for path(i) on s.
func (s Server) Target(name string, path func(i int64) string) Target {
	return Target{Name: s.Name + " " + name, Header: s.Header, URL: func(i int64) string { return s.Base + path(i) }}
}

// Get fetches path from s and returns the decoded body; a status other than
// 200 is an error.
func (s Server) Get(ctx context.Context, client *http.Client, path string) (map[string]any, error) {
	if err := CheckLoopbackURL(s.Base + path); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.Base+path, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range s.Header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s GET %s: status %d: %s", s.Name, path, resp.StatusCode, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("%s GET %s: %w", s.Name, path, err)
	}
	return m, nil
}

// SameAnswer checks that a and b answer path with the same data and
// pagination, so the benchmark compares equal work.
func SameAnswer(ctx context.Context, client *http.Client, a, b Server, path string) error {
	ma, err := a.Get(ctx, client, path)
	if err != nil {
		return err
	}
	mb, err := b.Get(ctx, client, path)
	if err != nil {
		return err
	}
	for _, k := range []string{"data", "pagination"} {
		if !reflect.DeepEqual(ma[k], mb[k]) {
			ja, _ := json.Marshal(ma[k])
			jb, _ := json.Marshal(mb[k])
			return fmt.Errorf("GET %s: %s differs:\n%s: %s\n%s: %s", path, k, a.Name, ja, b.Name, jb)
		}
	}
	if _, ok := ma["data"]; !ok {
		return fmt.Errorf("GET %s: no data in the answer", path)
	}
	return nil
}
