package nodemonitor

// standing is where our znode stands in the line, as one listing shows it.
type standing struct {
	// found is false when our znode is not among the children.
	found bool
	// ahead is how many candidates have a lower sequence number: 0 leads.
	ahead int
	// predecessor names the candidate just ahead of us, the one a follower
	// watches; "" when we lead.
	predecessor string
}

// stand finds ours among children in one pass. The decision needs only two
// things: whether anyone is ahead of us, and who is just ahead. So it
// neither sorts nor copies the list, which a new leader would otherwise do
// with every candidate on its failover's path (Candidates sorts, for
// whoever shows the whole line).
func stand(children []string, ours string) standing {
	var st standing
	mine, ok := candidateSeq(ours)
	if !ok {
		return st
	}
	var before int64 = -1 // the predecessor's sequence number
	for _, name := range children {
		if name == ours {
			st.found = true
			continue
		}
		seq, ok := candidateSeq(name)
		if !ok || seq > mine {
			continue
		}
		// Sequence numbers are unique under one parent, so seq < mine.
		st.ahead++
		if seq > before {
			before, st.predecessor = seq, name
		}
	}
	return st
}
