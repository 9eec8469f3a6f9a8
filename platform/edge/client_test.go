package edge

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/eventapi/eventapi/platform/config"
)

// TestClientBuffers: every connection's buffers are connBufferSize; a single
// node's pipeline pool too, and a cluster client is given no pipeline sizes,
// so it creates no pipeline pool of its own.
func TestClientBuffers(t *testing.T) {
	cases := []struct {
		name, url string
		pipeline  int
	}{
		{name: "single node", url: "redis://127.0.0.1:6379/0", pipeline: connBufferSize},
		{name: "cluster", url: "redis+cluster://127.0.0.1:7000,127.0.0.1:7001", pipeline: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client, err := newClient(c.url, withDefaults(config.Redis{}))
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			var read, write, pipeRead, pipeWrite int
			switch cl := client.(type) {
			case *redis.Client:
				o := cl.Options()
				read, write, pipeRead, pipeWrite = o.ReadBufferSize, o.WriteBufferSize, o.PipelineReadBufferSize, o.PipelineWriteBufferSize
			case *redis.ClusterClient:
				o := cl.Options()
				read, write, pipeRead, pipeWrite = o.ReadBufferSize, o.WriteBufferSize, o.PipelineReadBufferSize, o.PipelineWriteBufferSize
			default:
				t.Fatalf("client is %T", client)
			}
			if read != connBufferSize || write != connBufferSize || pipeRead != c.pipeline || pipeWrite != c.pipeline {
				t.Fatalf("buffers read %d, write %d, pipeline %d/%d; want %d, %d, %d/%d",
					read, write, pipeRead, pipeWrite, connBufferSize, connBufferSize, c.pipeline, c.pipeline)
			}
		})
	}
}
