package config

import (
	"errors"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"
)

// redisSchemes are the accepted EVENTAPI_REDIS_URL schemes; the +cluster ones
// name a Redis Cluster by seed nodes: redis+cluster://host:port,host:port.
var redisSchemes = map[string]bool{"redis": true, "rediss": true, "redis+cluster": true, "rediss+cluster": true}

// RedisTarget is EVENTAPI_REDIS_URL as the Redis client reads it: exactly one
// of Single (a single node's options) and Cluster (a cluster's seed nodes
// and options) is set.
type RedisTarget struct {
	Single  *redis.Options
	Cluster *redis.ClusterOptions
}

// ParseRedisURL reads raw once, for both the configuration's check and
// platform/edge's client: a redis:// or rediss:// URL is a single node as
// go-redis parses it, unless cluster is set; a redis+cluster:// or
// rediss+cluster:// URL (or any of them with cluster set) lists the seed
// nodes of a Redis Cluster, of which there must be at least one.
func ParseRedisURL(raw string, cluster bool) (RedisTarget, error) {
	u, err := url.Parse(raw)
	if err != nil || !redisSchemes[u.Scheme] {
		return RedisTarget{}, errors.New("must be a redis://, rediss://, redis+cluster:// or rediss+cluster:// URL")
	}
	single, isCluster := strings.CutSuffix(u.Scheme, "+cluster")
	if !isCluster && !cluster {
		o, err := redis.ParseURL(raw)
		return RedisTarget{Single: o}, err
	}
	seeds := strings.Split(u.Host, ",")
	for _, seed := range seeds {
		if seed == "" {
			return RedisTarget{}, errors.New("names no Redis Cluster seed node (redis+cluster://host:port,host:port)")
		}
	}
	// A Redis Cluster has database 0 only: a URL naming another was meant
	// for a single node, and dropping the number would share database 0
	// with whatever else uses it.
	if db := strings.Trim(u.Path, "/"); db != "" && db != "0" {
		return RedisTarget{}, errors.New("names database " + db + ", but a Redis Cluster has database 0 only (leave the path empty or /0)")
	}
	first := *u
	first.Scheme, first.Host, first.Path = single, seeds[0], ""
	o, err := redis.ParseClusterURL(first.String())
	if err != nil {
		return RedisTarget{}, err
	}
	o.Addrs = append(o.Addrs, seeds[1:]...)
	return RedisTarget{Cluster: o}, nil
}
