# syntax=docker/dockerfile:1
# One image with both binaries, static and non-root:
#   /eventapi            the API and admin CLI (serve, migrate, orgs, keys, requests, demo)
#   /eventapi-operator   the Kubernetes operator
# Build: docker build -t ghcr.io/eventapi/eventapi:VERSION . (VERSION: the chart's appVersion)
# The Helm chart runs /eventapi serve, /eventapi migrate up and
# /eventapi-operator from this image.

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOOS=linux GOFLAGS=-buildvcs=false
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags="-s -w" -o /out/eventapi ./cmd/eventapi && \
    go build -trimpath -ldflags="-s -w" -o /out/eventapi-operator ./cmd/eventapi-operator

# distroless/static: no shell, no package manager, CA certificates and tzdata
# only; the nonroot variant runs as 65532:65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/eventapi /out/eventapi-operator /
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/eventapi"]
CMD ["serve"]
