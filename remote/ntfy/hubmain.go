package ntfy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/remote"
)

// serveHub is ask-confirm-phone hub: it reads the setup of in's line and
// serves its hub on the setup's socket, unless another hub holds it.
func serveHub(in io.Reader) int {
	var c remote.Config
	if err := json.NewDecoder(in).Decode(&c); err != nil {
		fmt.Fprintf(os.Stderr, "%s hub: %v\n", remote.Program, err)
		return 2
	}
	socket, lockPath, err := hubPaths(c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s hub: %v\n", remote.Program, err)
		return 1
	}
	lock, ok, err := platform.TryLock(lockPath)
	if err != nil || !ok {
		// Another hub serves the setup.
		return 0
	}
	defer lock.Release()
	// Its process ID, for whoever looks for the hub.
	_ = os.WriteFile(lockPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	// A socket left by a hub that was killed: the lock says none serves
	// it.
	_ = os.Remove(socket)
	_ = os.Remove(proxySocket(socket))
	// The proxy first: a program that reached the relay finds it.
	web, err := net.Listen("unix", proxySocket(socket))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s hub: %v\n", remote.Program, err)
		web = nil
	} else {
		if ul, ok := web.(*net.UnixListener); ok {
			ul.SetUnlinkOnClose(false)
		}
		defer os.Remove(proxySocket(socket))
	}
	ln, err := net.Listen("unix", socket)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s hub: %v\n", remote.Program, err)
		return 1
	}
	if ul, ok := ln.(*net.UnixListener); ok {
		// Removed by this hub, and only while it holds the lock.
		ul.SetUnlinkOnClose(false)
	}
	defer os.Remove(socket)
	h := &Hub{Config: c}
	if err := h.Serve(context.Background(), ln, web); err != nil && !errors.Is(err, net.ErrClosed) {
		fmt.Fprintf(os.Stderr, "%s hub: %v\n", remote.Program, err)
	}
	return 0
}

// hubStartWithin is how long a request program waits for a hub it
// started to take its socket.
const hubStartWithin = time.Second

// hubDialer reaches the hub of c, starting it where none serves c: the
// dial of a request program's hubFollow.
func hubDialer(c remote.Config) func(context.Context) (net.Conn, error) {
	return func(ctx context.Context) (net.Conn, error) {
		socket, _, err := hubPaths(c)
		if err != nil {
			return nil, err
		}
		var d net.Dialer
		if conn, err := d.DialContext(ctx, "unix", socket); err == nil {
			return conn, nil
		}
		if err := startHub(c); err != nil {
			return nil, err
		}
		deadline := time.Now().Add(hubStartWithin)
		for {
			conn, err := d.DialContext(ctx, "unix", socket)
			if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
				return conn, err
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// startHub starts c's hub, detached (hubAttr), with c on its stdin, never
// in its arguments.
func startHub(c remote.Config) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	setup, err := json.Marshal(c)
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	// Its environment without the setup: the hub outlives its request,
	// and anything it runs could read it (remote.Environ).
	cmd := &exec.Cmd{Path: exe, Args: []string{remote.Program, "hub"}, Env: remote.Environ(), Stdin: r, Dir: os.TempDir(), SysProcAttr: hubAttr}
	if err := cmd.Start(); err != nil {
		w.Close()
		return err
	}
	go func() {
		_, _ = w.Write(append(setup, '\n'))
		w.Close()
		// Reaped, so that no zombie stays while this program runs.
		_ = cmd.Wait()
	}()
	return nil
}

// proxySocket is the socket of the hub's proxy beside its relay's.
func proxySocket(socket string) string {
	return strings.TrimSuffix(socket, ".sock") + ".http"
}

// hubClient is the HTTP client of a request program of c: its publishes
// and polls go through c's hub (hubRoute), its streams and everything
// once the hub is gone straight to the server. Nil where c has no hub.
func hubHTTP(c remote.Config) *http.Client {
	socket, _, err := hubPaths(c)
	if err != nil {
		return nil
	}
	return &http.Client{Transport: newHubRoute(proxySocket(socket)), CheckRedirect: noRedirect}
}
