package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/cmd/zkview/internal/live"
	"zkspeaker/cmd/zkview/internal/page"
	"zkspeaker/internal/cmdline"
)

// run serves the page until SIGINT, SIGTERM or SIGHUP.
func run(c *cli.Context) error {
	s, err := parse(c)
	if err != nil {
		return err
	}
	ln, err := cmdline.Listen("listen", s.listen, "cannot serve")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	log := s.Logger()
	rz, _, err := s.Connect(log)
	if err != nil {
		_ = ln.Close()
		return err
	}
	defer rz.Close()
	hush := cmdline.SayWhileUnreachable(ctx, log, rz, s.Servers, s.SessionTimeout)
	defer hush()

	hub := live.NewHub()
	// The page's event streams end with ctx: each request's context is
	// made from it.
	srv := &http.Server{Handler: page.Handler(hub), ReadHeaderTimeout: 5 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		hub.Run(ctx, rz, s.sources)
	}()
	url := "http://" + ln.Addr().String() + "/"
	fmt.Println(url) // for scripts: the address, port 0 resolved
	log.Info("serving the page: open it in a browser", "url", url)

	select {
	case <-ctx.Done():
	case err = <-served:
	}
	stop()
	shut, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = srv.Shutdown(shut) // the event streams end with their requests' contexts
	<-followed
	log.Info("stopped serving the page")
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
