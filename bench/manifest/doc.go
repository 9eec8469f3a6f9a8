// Package manifest measures the loading half of the 1000-item pick-list
// manifest (GET /api/v2/pick_lists/{id}?expand=items,equipment,category,
// issue 15): its items, their equipment and its categories loaded as
// picklists.Expand loads them (storage.In, rows scanned by api/storage's
// scan plans) against the same queries scanned by bun, in one run. It
// reports this process's CPU per manifest next to ns/op (which includes
// PostgreSQL's time). Run it with
//
//	go test -run '^$' -bench . -count 5 ./bench/manifest/
package manifest
