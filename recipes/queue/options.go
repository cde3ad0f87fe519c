package queue

// Option configures a Queue (see New).
type Option func(*options)

// options are a Queue's settings; its ACL and logger are the session's.
type options struct {
	delivery Delivery
}

// WithDelivery chooses what Take promises (AtMostOnce by default).
func WithDelivery(d Delivery) Option { return func(o *options) { o.delivery = d } }

// Delivery is what a consumer's death between a take and the use of the
// item costs.
type Delivery int

const (
	// AtMostOnce deletes the item as Take returns it. A consumer that dies
	// before it has used the item loses it; no item is ever delivered twice.
	AtMostOnce Delivery = iota
	// AtLeastOnce claims the item with an ephemeral znode under it, and
	// deletes it on Ack. A consumer that dies before Ack loses its session,
	// the claim goes with it, and the item is taken again by another. The
	// item is deleted once, by the one Ack that succeeds.
	AtLeastOnce
)

// String names the mode as the flags do.
func (d Delivery) String() string {
	switch d {
	case AtMostOnce:
		return "at-most-once"
	case AtLeastOnce:
		return "at-least-once"
	}
	return "unknown"
}
