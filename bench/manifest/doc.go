// Package manifest measures the 1000-item pick-list manifest (GET
// /api/v2/pick_lists/{id}?expand=items,equipment,category, issue 15) in this
// process, without HTTP clients:
//
//   - BenchmarkLoad, the loading half: its items, their equipment and its
//     categories loaded as picklists.Expand loads them (storage.In, rows
//     scanned by api/storage's scan plans) against the same queries scanned
//     by bun, in one run;
//   - BenchmarkRender, the rendering half: the loaded manifest answered by
//     a Fiber app as the service's (Immutable) and written as fasthttp
//     writes it to a connection, by goccy/go-json through c.JSON (how
//     rest.OK rendered it before encoding plans) against rest.OK with
//     rest.Encode (docs/architecture.md, "JSON");
//   - BenchmarkCompress, the rendering again, as it is and gzipped by the
//     compress middleware at flate levels 1, 2, 5 and 6, with the bytes
//     written per manifest (wire-B/op): the choice of compress.DefaultLevel
//     (docs/decisions.md, "Response compression").
//
// Each reports this process's CPU per manifest (cpu-µs/op) next to ns/op
// (which, for the loading, includes PostgreSQL's time). Run it with
//
//	go test -run '^$' -bench . -count 3 ./bench/manifest/
package manifest
