# eventapi: the two front-door commands are `make run` and `make test`.
.PHONY: run test build bench lint fmt vet

GO ?= go

## run: build, migrate, seed a demo organization, print keys and a curl line, serve on :8080
run:
	@scripts/run.sh

## test: the whole test suite against the real PostgreSQL and Redis (starts them if needed)
test:
	@scripts/test.sh

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
