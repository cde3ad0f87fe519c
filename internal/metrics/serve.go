// Package metrics serves a command's Prometheus metrics on --metrics ADDR
// (prometheus/client_golang: nothing hand-written in the exposition
// format), with the collectors every command shares: the Go runtime, the
// process, the ZooKeeper session (retries by operation, expirations) and
// an election's leadership (a gauge, changes by reason, time paused).
package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
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
	addr := c.String("metrics")
	if addr == "" {
		return "", nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", cmdline.BadFlag("metrics", "%q is not host:port (such as 127.0.0.1:9464)", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", cmdline.BadFlag("metrics", "%q: the port must be a number from 0 to 65535", addr)
	}
	if host != "" && host != "localhost" && net.ParseIP(host) == nil {
		return "", cmdline.BadFlag("metrics", "%q: the host must be an IP address or localhost", addr)
	}
	return addr, nil
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
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			err = op.Err
		}
		return nil, fmt.Errorf("cannot serve metrics on --metrics %s: %w", addr, err)
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
