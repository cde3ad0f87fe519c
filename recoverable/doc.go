// Package recoverable is the articles' RecoverableZookeeper: a client over
// go-zookeeper whose operations retry what a retry can cure (a connection
// lost mid-request, no server reachable), with the backoff of an
// HBase-style RetryCounter, and leave the rest to the caller (an expiry, a
// refusal, an answer).
//
// What a retry may not do decides correctness as much as what it may: a
// create whose reply was lost is found again by its protected name and its
// owner (CreateProtectedEphemeralSequential, FindOwn), never made twice; a
// delete is not sent again once the session changed (DeleteOwn); a write
// sent again reports the answer it met as ErrRetried; and a request that
// never left the client (NeverSent) may simply wait for a server.
//
// Session changes reach every observer in order, none dropped (Observe);
// AliveUntil says until when the servers cannot yet have expired the
// session, which is what a paused leader's clock counts from.
package recoverable
