// Package nodemonitor holds the sequential leader election of the articles'
// NodeMonitor: EPHEMERAL|SEQUENTIAL candidates, each watching its predecessor.
package nodemonitor
