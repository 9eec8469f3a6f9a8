package edge

import (
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// refusedSettings are the starts of Redis's replies to a connection whose
// own settings are wrong: a database number the server does not have, a
// database number on a Redis Cluster, a Cluster URL (redis+cluster://,
// EVENTAPI_REDIS_CLUSTER) for a Redis without cluster mode, a wrong or
// missing password, a user without the commands the edge layer runs
// (NOPERM), a read-only replica (READONLY, met by the probe's write).
// Waiting never mends them, unlike a Redis that is down, loading or
// failing over; a start that met one ends with its reply, where it would
// otherwise run with rate limits off and every keyed write refused, ready
// all the while (docs/edge.md, "When Redis is unavailable"). READONLY is the
// one a failover can also give, for the seconds a demoted primary still
// takes connections: a pod that starts then exits and the kubelet starts it
// again (its back-off begins at 10 s), where a reader endpoint in the URL
// would never mend. A plain URL for a node of a Redis Cluster is refused
// too (clusterNode).
var refusedSettings = []string{
	"ERR DB index is out of range",
	"ERR SELECT is not allowed in cluster mode",
	"ERR This instance has cluster support disabled",
	"WRONGPASS",
	"NOAUTH",
	"NOPERM",
	"READONLY",
	"ERR invalid password",
	"ERR AUTH",
}

// clusterNode is Ping's error for a plain URL (not redis+cluster://) that
// names a node of a Redis Cluster: the node answers for its own slots and
// redirects the rest (MOVED), which a plain client does not follow, so the
// organizations whose keys live on the other nodes would go unlimited and
// have every keyed write refused, whichever node the probe's key is on.
type clusterNode struct{ reply string }

func (e clusterNode) Error() string {
	return "the URL names a node of a Redis Cluster (" + e.reply + "): name the cluster as redis+cluster://host:port,… or set EVENTAPI_REDIS_CLUSTER=true"
}

// RefusedSettings reports whether err (of Ping) is Redis refusing the
// connection's settings from EVENTAPI_REDIS_URL rather than an outage.
func RefusedSettings(err error) bool {
	if errors.As(err, new(clusterNode)) {
		return true
	}
	var reply redis.Error
	if !errors.As(err, &reply) {
		return false
	}
	msg := reply.Error()
	for _, start := range refusedSettings {
		if strings.HasPrefix(msg, start) {
			return true
		}
	}
	return false
}

// SettingsError is the error that ends a start whose Redis refuses the
// connection's settings (RefusedSettings of err, from Ping), naming the
// variable to mend; nil for any other err, an outage included, which the
// edge layer waits out.
func SettingsError(err error) error {
	if !RefusedSettings(err) {
		return nil
	}
	return fmt.Errorf("EVENTAPI_REDIS_URL: Redis refuses the connection's settings: %w", err)
}
