package fourletter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrNoZooKeeper means that nothing answered at any of the servers given,
// so no session can come until someone starts ZooKeeper there.
var ErrNoZooKeeper = errors.New("no ZooKeeper answers")

// probeTimeout bounds the look for a server: a refused connection is known
// at once, a host that drops every packet only after this long.
const probeTimeout = time.Second

// CheckReachable asks every server ruok at once, and returns ErrNoZooKeeper
// with how to start one when none answers within probeTimeout. The client
// library alone cannot tell: it tries the servers again and again, as long
// as it is let, without a word. A server that answers but opens no session
// (one without a majority of its ensemble) passes this check.
func CheckReachable(ctx context.Context, servers []string) error {
	probe, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if AnyAnswers(probe, servers) || ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w at %s: start one with ensemble-scripts/ensemble.sh start 3, or point --servers (or ZK_SERVERS) at yours",
		ErrNoZooKeeper, strings.Join(servers, ","))
}
