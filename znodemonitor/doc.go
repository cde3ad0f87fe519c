// Package znodemonitor holds the single-file leader election of the
// articles' ZNodeMonitor: whoever creates one ephemeral znode leads.
package znodemonitor
