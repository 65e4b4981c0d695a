package ntfy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// A hub also carries its request programs' publishes and polls to the
// server (proxy), over one connection of its own: over HTTPS, HTTP/2
// multiplexes them on it; over plain HTTP, which a setup allows only on a
// loopback address, they queue for it, a few milliseconds each. With the
// stream, a machine so holds two connections to the server, whatever the
// number of its pending requests, where each request held one or two.

// proxyConns bounds the hub's connections for its programs' requests.
const proxyConns = 1

// proxy forwards each request it is given to the setup's server, and
// counts those on their way in busy.
func (h *Hub) proxy(busy *atomic.Int64) http.Handler {
	target, _ := url.Parse(h.Config.Server)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxConnsPerHost = proxyConns
	tr.IdleConnTimeout = hubIdle
	rp := &httputil.ReverseProxy{Rewrite: rewriteTo(target), Transport: tr, ErrorHandler: proxyFailed}
	if h.HTTP != nil && h.HTTP.Transport != nil {
		// A test's, counting what it carries.
		rp.Transport = h.HTTP.Transport
	}
	return counted(rp, busy)
}

// hubFailedHeader carries, on the proxy's 502, why the server could not
// be reached: the request program returns it as its transport's error
// (hubRoute), as a request of its own would have failed.
const hubFailedHeader = "X-Ask-Confirm-Hub-Failed"

func proxyFailed(w http.ResponseWriter, _ *http.Request, err error) {
	w.Header().Set(hubFailedHeader, strings.ReplaceAll(err.Error(), "\n", " "))
	w.WriteHeader(http.StatusBadGateway)
}

// rewriteTo sends a proxied request to target, with its path and query.
func rewriteTo(target *url.URL) func(*httputil.ProxyRequest) {
	return func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		pr.Out.Host = target.Host
	}
}

func counted(next http.Handler, busy *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		busy.Add(1)
		defer busy.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// hubRoute is a request program's transport: its publishes and polls go
// through the hub (via, a transport that dials the hub's proxy socket),
// its own streams, and every request once the hub could not be reached,
// straight to the server (direct).
type hubRoute struct {
	via, direct http.RoundTripper
	gone        *atomic.Bool
}

// newHubRoute routes through the hub whose proxy socket is at socket.
func newHubRoute(socket string) hubRoute {
	gone := &atomic.Bool{}
	var d net.Dialer
	via := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			conn, err := d.DialContext(ctx, "unix", socket)
			if err != nil {
				gone.Store(true)
			}
			return conn, err
		},
		MaxIdleConns:    1,
		IdleConnTimeout: 10 * time.Second,
	}
	return hubRoute{via: via, direct: http.DefaultTransport, gone: gone}
}

func (t hubRoute) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.gone.Load() || r.Method == http.MethodGet && r.URL.Query().Get("poll") != "1" {
		return t.direct.RoundTrip(r)
	}
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host = "http", "hub"
	if r.Body != nil && r.GetBody != nil {
		out.Body, _ = r.GetBody()
	}
	resp, err := t.via.RoundTrip(out)
	if err == nil && resp.StatusCode == http.StatusBadGateway && resp.Header.Get(hubFailedHeader) != "" {
		resp.Body.Close()
		return nil, errors.New(resp.Header.Get(hubFailedHeader))
	}
	if err != nil && t.gone.Load() && r.Context().Err() == nil {
		// The hub could not be reached: nothing was sent.
		again := r.Clone(r.Context())
		if r.Body != nil && r.GetBody != nil {
			again.Body, _ = r.GetBody()
		}
		return t.direct.RoundTrip(again)
	}
	return resp, err
}
