//go:build linux

package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
)

// P11 is a retry on a machine that never asked, collecting an answer given
// on the phone to another machine of the same fleet, with 100, 1,000 and
// 10,000 other messages in the reply topic's cache. Each machine is the
// real ask-confirm in XDG homes of its own, with a copy of one setup file:
// machine A asks and the phone's tap answers it; then machine B, in fresh
// homes, runs the same command and must exit 0 with the answer. The
// reference is a bare poll of the reply topic on loopback, as the fleet's
// look-up makes it (since=all, filtered by a tag, here one nothing
// carries), in the same run, just before and after each retry. Both
// machines reach the server through a proxy in this tool that counts
// their requests and times their polls.

// p11Sizes are the numbers of other messages in the reply topic's cache.
var p11Sizes = []int{100, 1000, 10000}

// collectPace is the least time an answer collected from the fleet's
// record takes (remote/ntfy's paceCollected), so that the holder does not
// read it as a dialog that died at once: P11's floor, whatever the server.
const collectPace = 500.0

// recorder is a reverse proxy in front of the ntfy server that, while on,
// counts the requests it is given and times each poll.
type recorder struct {
	proxy    *httputil.ReverseProxy
	mu       sync.Mutex
	on       bool
	active   int // requests counted and not yet answered
	requests int
	polls    []float64 // ms, from the request to the end of the response
	pollEnds []time.Time
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	poll := req.URL.Query().Get("poll") == "1"
	r.mu.Lock()
	counted := r.on
	if counted {
		r.requests++
		r.active++
	}
	r.mu.Unlock()
	if !counted {
		r.proxy.ServeHTTP(w, req)
		return
	}
	t0 := time.Now()
	// Deferred: the proxy panics (http.ErrAbortHandler) when the client
	// ends a stream, as a subscriber does when it is done.
	defer func() {
		took := ms(time.Since(t0))
		r.mu.Lock()
		r.active--
		if poll {
			r.polls, r.pollEnds = append(r.polls, took), append(r.pollEnds, time.Now())
		}
		r.mu.Unlock()
	}()
	r.proxy.ServeHTTP(w, req)
}

// window starts counting afresh.
func (r *recorder) window() {
	r.mu.Lock()
	r.on, r.requests, r.polls, r.pollEnds = true, 0, nil, nil
	r.mu.Unlock()
}

// close waits, up to 10 s, until no request counted is open (the
// retry's phone program has ended, with its record of the answer taken),
// stops counting, and returns what was counted and whether it waited in
// vain.
func (r *recorder) close() (requests int, polls []float64, pollEnds []time.Time, open bool) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		r.mu.Lock()
		idle := r.active == 0
		r.mu.Unlock()
		if idle {
			break
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.requests, r.polls, r.pollEnds, r.active > 0
}

func (b *bench) p11() error {
	ce, err := b.newEnv("p11")
	if err != nil {
		return err
	}
	t := &benchT{dir: filepath.Join(b.work, "p11")}
	return t.run(func() error { return b.collect(t, ce) })
}

// p11Size is what P11 measured with one number of other messages.
type p11Size struct {
	others         int
	retry, ref     []float64
	lookUp         []float64
	known          []float64 // ms from the retry's start to the end of its look-up
	minReq, maxReq int
	open           int // retries whose requests were not all answered 10 s after its exit
}

func (b *bench) collect(t *benchT, ce caseEnv) error {
	s := ntfytest.New(t)
	target, err := url.Parse(s.URL)
	if err != nil {
		return err
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // the subscription is a stream
	rec := &recorder{proxy: proxy}
	front := httptest.NewServer(rec)
	defer front.Close()

	base := filepath.Join(ce.dir, "..")
	askerConfig := filepath.Join(base, "config")
	asker := withConfig(headlessEnv(ce.environ()), askerConfig)
	if err := b.setUpPhone(s, front.URL, base, asker); err != nil {
		return err
	}
	phone := ntfytest.NewPhone(t, s)
	seen, filled, sample := 0, 0, 0
	var sizes []*p11Size
	for _, others := range p11Sizes {
		if err := fillReplies(s, filled, others); err != nil {
			return err
		}
		filled = others
		sz := &p11Size{others: others}
		sizes = append(sizes, sz)
		warm := 0
		if others == p11Sizes[0] {
			warm = 1
		}
		for i := range b.n.p11Samples + warm {
			sample++
			key, message := fmt.Sprintf("p11-%d", sample), fmt.Sprintf("collect %d, %d others", sample, others)
			args := []string{"--key", key, "--message", message, "--wait", "60s"}
			// Machine A asks, and the phone answers it.
			if _, _, err := b.askPhone(phone, &seen, ce.dir, asker, message, args); err != nil {
				return fmt.Errorf("machine A: %w", err)
			}
			// Machine B never asked: fresh homes, a copy of the setup.
			other, err := b.newEnv(fmt.Sprintf("p11/machine-b-%d", sample))
			if err != nil {
				return err
			}
			bConfig := filepath.Join(other.dir, "..", "config")
			if err := copySetup(askerConfig, bConfig, false); err != nil {
				return err
			}
			before, err := barePoll(s)
			if err != nil {
				return err
			}
			rec.window()
			began := time.Now()
			took, code, err := timedRun(b.bin, args, other.dir, withConfig(headlessEnv(other.environ()), bConfig))
			requests, polls, pollEnds, open := rec.close()
			if err != nil || code != 0 {
				return fmt.Errorf("machine B's retry with %d other messages: exit %d, %v", others, code, err)
			}
			after, err := barePoll(s)
			if err != nil {
				return err
			}
			if i < warm {
				continue
			}
			sz.retry, sz.ref = append(sz.retry, ms(took)), append(sz.ref, before, after)
			if len(polls) > 0 {
				sz.lookUp, sz.known = append(sz.lookUp, polls[0]), append(sz.known, ms(pollEnds[0].Sub(began)))
			}
			if open {
				sz.open++
			}
			if sz.minReq == 0 || requests < sz.minReq {
				sz.minReq = requests
			}
			sz.maxReq = max(sz.maxReq, requests)
		}
	}
	b.note("### P11 a retry collects the phone's answer on a machine that never asked\n")
	b.note("The real ntfy server on 127.0.0.1; one `remote setup` (with its fleet's secret), copied to each machine's own XDG config home; machine A runs `ask-confirm --key K --message M --wait 60s` with no display and the phone taps Approve; then machine B, in fresh XDG homes, runs the same command, timed from its start to its exit (which must be 0, with the answer). The reference is a bare poll of the reply topic (`since=all`, filtered by a tag that nothing carries, as the look-up is by the request's), just before and after each retry. Both machines reach the server through a proxy in the tool, which counts B's requests and times its polls (its look-up is the first). A collected answer takes at least %.0f ms (remote/ntfy's paceCollected, so that the holder does not read it as a dialog that died at once), so the target is on the retry less that floor. %d retries at each size, after one warm-up.\n", collectPace, b.n.p11Samples)
	for _, sz := range sizes {
		sr, so, sl := summarize(sz.ref), summarize(sz.retry), summarize(sz.lookUp)
		b.rows = append(b.rows, row{
			name: fmt.Sprintf("P11 retry collects, %s other messages", thousands(sz.others)), ours: fmtMs(so.median),
			ref:    fmtMs(sr.median) + " (bare ntfy poll)",
			delta:  fmt.Sprintf("%+.1f ms over the reference and the %.0f ms floor", so.median-collectPace-sr.median, collectPace),
			target: fmt.Sprintf("≤ %.0f ms floor + reference + 100 ms", collectPace), pass: so.median-collectPace <= sr.median+100,
		})
		b.note("- %s other messages: retry %s; its look-up poll %s, over by %s after the retry's start; bare poll %s; %d to %d requests to the server per retry", thousands(sz.others), spread(so), spread(sl), fmtMs(summarize(sz.known).median), spread(sr), sz.minReq, sz.maxReq)
		if sz.open > 0 {
			b.note("  - %d retries still had a request open 10 s after they exited", sz.open)
		}
	}
	b.note("")
	return nil
}

// fillReplies posts messages from to n-1 to s's reply topic with the
// answer token, as replies that answer nothing, by a few posters at once;
// a post refused once (ntfy now and then refuses one of a burst) is tried
// again.
func fillReplies(s *ntfytest.Server, from, n int) error {
	const posters = 8
	errs := make(chan error, posters)
	var wg sync.WaitGroup
	for w := range posters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := from + w; i < n; i += posters {
				if err := postReply(s, fmt.Sprintf("unrelated %d", i)); err != nil {
					if err = postReply(s, fmt.Sprintf("unrelated %d", i)); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// postReply posts text to s's reply topic with the answer token.
func postReply(s *ntfytest.Server, text string) error {
	req, err := http.NewRequest(http.MethodPost, s.URL+"/"+s.ReplyTopic, strings.NewReader(text))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.AnswerToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("filling the reply topic: %s", resp.Status)
	}
	return nil
}

// barePoll times a poll of s's reply topic with the asking token, as the
// fleet's look-up makes it, reading the whole answer, in ms.
func barePoll(s *ntfytest.Server) (float64, error) {
	req, err := http.NewRequest(http.MethodGet, s.URL+"/"+s.ReplyTopic+"/json?poll=1&since=all&tags=p11-no-such-tag", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+s.AskerToken)
	t0 := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took := ms(time.Since(t0))
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("the bare poll: %s", resp.Status)
	}
	return took, err
}

// thousands writes n with a comma between thousands: 10,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
