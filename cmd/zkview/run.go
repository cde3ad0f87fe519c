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
	"zkspeaker/recoverable"
)

// settings are zkview's flags, checked.
type settings struct {
	cmdline.ZooKeeper
	listen  string
	sources live.Sources
}

// parse checks every flag before anything starts: bad input is one line
// naming the flag, and nothing is served or opened.
func parse(c *cli.Context) (settings, error) {
	var s settings
	if c.Args().Len() > 0 {
		return s, cmdline.Usage("takes no arguments, got %q (%s)", c.Args().First(), c.App.UsageText)
	}
	var err error
	if s.ZooKeeper, err = cmdline.ParseZooKeeper(c); err != nil {
		return s, err
	}
	if s.listen, err = cmdline.ParseListen("listen", c.String("listen"), "127.0.0.1:8181"); err != nil {
		return s, err
	}
	panel := func(flag string) (live.Panel, error) {
		p := live.Panel{Path: c.String(flag), Named: c.IsSet(flag)}
		if p.Path == "" { // --election "" leaves the panel out
			return live.Panel{}, nil
		}
		if err := recoverable.ValidatePath(flag, p.Path); err != nil {
			return p, cmdline.BadFlag(flag, "%q is not a znode path below / (such as /election)", p.Path)
		}
		return p, nil
	}
	src := &s.sources
	for _, f := range []struct {
		flag string
		p    *live.Panel
	}{{"election", &src.Election}, {"single-file", &src.Single}, {"lock", &src.Lock}, {"group", &src.Group}, {"config", &src.Config}, {"seqid", &src.Sequences}} {
		if *f.p, err = panel(f.flag); err != nil {
			return s, err
		}
	}
	persist, err := panel("seqid-election")
	if err != nil {
		return s, err
	}
	src.Servers, src.Persistence, src.Out = s.Servers, persist.Path, c.String("out")
	return s, nil
}

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
