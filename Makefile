# eventapi: the two front-door commands are `make run` and `make test`.
.PHONY: run serve test build bench lint fmt vet cli sdk

GO ?= go

## run: build, migrate, make or reuse the demo organization and its sandbox, print keys and curl lines, serve on $EVENTAPI_ADDR (:8080)
run:
	@scripts/run.sh

## serve: make run without the demo step: another instance on the same database, whose keys make run printed, e.g. EVENTAPI_ADDR=:8081 EVENTAPI_METRICS_ADDR=:9465 make serve
serve:
	@EVENTAPI_RUN_DEMO=0 scripts/run.sh

## test: the whole test suite against the real PostgreSQL and Redis (starts them if needed)
test:
	@scripts/test.sh

## cli: the admin CLI with make run's environment, e.g. make cli ARGS='orgs list'
cli:
	@scripts/cli.sh $(ARGS)

## sdk: regenerate the Go SDK (api/client) from the served OpenAPI documents
sdk:
	@scripts/gen-sdk.sh

## build: build both binaries into bin/
build:
	$(GO) build -o bin/eventapi ./cmd/eventapi
	@if [ -d cmd/eventapi-operator ]; then $(GO) build -o bin/eventapi-operator ./cmd/eventapi-operator; fi

## bench: run the benchmarks under bench/ (see bench/README.md)
bench:
	@scripts/bench.sh

fmt:
	gofmt -w .

vet:
	$(GO) vet ./...
