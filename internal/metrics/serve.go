// Package metrics serves a command's Prometheus metrics on --metrics ADDR
// (prometheus/client_golang: nothing hand-written in the exposition
// format), with the collectors every command shares: the Go runtime, the
// process, the ZooKeeper session (retries by operation, expirations) and
// an election's leadership (a gauge, changes by reason, time paused).
package metrics

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
)

// Flag is --metrics, off unless given.
func Flag() cli.Flag {
	return &cli.StringFlag{Name: "metrics", Usage: "serve Prometheus metrics on `host:port` (such as 127.0.0.1:9464) at /metrics; off unless given"}
}

// Parse checks --metrics: "" when off.
func Parse(c *cli.Context) (string, error) {
	if c.String("metrics") == "" {
		return "", nil
	}
	return cmdline.ParseListen("metrics", c.String("metrics"), "127.0.0.1:9464")
}

// Server is a command's metrics: its registry, and the listener it serves
// them on once Serve is called.
type Server struct {
	// Registry takes the command's own collectors.
	Registry *prometheus.Registry
	ln       net.Listener
	log      *slog.Logger
}

// Listen takes the address before the command starts anything else, so
// that a port in use is one line and nothing is left half started. It
// returns nil, and no error, when addr is "" (--metrics not given).
func Listen(addr string, log *slog.Logger) (*Server, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := cmdline.Listen("metrics", addr, "cannot serve metrics")
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &Server{Registry: reg, ln: ln, log: log}, nil
}

// Serve serves /metrics until ctx ends; the returned stop waits for that.
// On a nil Server it does nothing.
func (s *Server) Serve(ctx context.Context) (stop func()) {
	if s == nil {
		return func() {}
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(s.Registry, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(s.ln)
	}()
	s.log.Info("serving metrics", "url", "http://"+s.ln.Addr().String()+"/metrics")
	ctx, cancel := context.WithCancel(ctx)
	shut := make(chan struct{})
	go func() {
		defer close(shut)
		<-ctx.Done()
		c, cancelShut := context.WithTimeout(context.Background(), time.Second)
		defer cancelShut()
		_ = srv.Shutdown(c)
	}()
	return func() {
		cancel()
		<-shut
		<-done
	}
}

// Close gives the address back when the command ends before Serve.
func (s *Server) Close() {
	if s != nil {
		_ = s.ln.Close()
	}
}
