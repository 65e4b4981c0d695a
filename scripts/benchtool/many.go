//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
)

// P13 is many requests pending on the phone from one machine: manyPending
// headless callers, each its own request, against the real ntfy server on
// 127.0.0.1 with its default limits (visitor-subscription-limit 30, which
// the phone's stream shares here; the request limit is lifted for
// 127.0.0.1, as in every ntfy test). It counts the requests that failed,
// the connections our processes held to the server at the peak, and their
// total resident memory, then taps Approve on each and times the tap to
// the caller's exit, against the bare round trip as P10 is.

// manyPending is how many requests P13 keeps pending at once.
const manyPending = 100

func (b *bench) p13() error {
	ce, err := b.newEnv("p13")
	if err != nil {
		return err
	}
	t := &benchT{dir: filepath.Join(b.work, "p13")}
	return t.run(func() error { return b.many(t, ce) })
}

func (b *bench) many(t *benchT, ce caseEnv) error {
	s := ntfytest.New(t)
	env := headlessEnv(append(ce.environ(), "XDG_CONFIG_HOME="+filepath.Join(ce.dir, "..", "config")))
	token, answer := filepath.Join(ce.dir, "..", "asker.token"), filepath.Join(ce.dir, "..", "answer.token")
	must(os.WriteFile(token, []byte(s.AskerToken), 0o600))
	must(os.WriteFile(answer, []byte(s.AnswerToken), 0o600))
	if _, code, err := timedRun(b.bin, []string{"remote", "setup", "--server", s.URL, "--topic", s.Topic, "--reply-topic", s.ReplyTopic,
		"--token-file", token, "--answer-token-file", answer, "--mode", "fallback"}, ce.dir, env); err != nil || code != 0 {
		return fmt.Errorf("remote setup: exit %d, %v", code, err)
	}
	phone := ntfytest.NewPhone(t, s)
	var ref []float64
	for i := range 6 {
		t0 := time.Now()
		if err := s.Publish(fmt.Sprintf("reference %d", i)); err != nil {
			return err
		}
		if i > 0 {
			ref = append(ref, ms(phone.Await(i+1).Received.Sub(t0)))
		} else {
			phone.Await(1)
		}
	}
	before := phone.Count()

	_, port, _ := strings.Cut(s.Addr, ":")
	samples := newOurs(b.bin, port)
	defer samples.stop()
	var err error
	callers := make([]*process, manyPending)
	defer func() {
		for _, p := range callers {
			if p != nil {
				p.kill()
			}
		}
	}()
	for i := range callers {
		if callers[i], err = start(ce.dir, env, b.bin, "--message", fmt.Sprintf("many %d", i), "--wait", "300s"); err != nil {
			return err
		}
	}
	// Every request on the phone, or its caller gone.
	deadline := time.Now().Add(3 * time.Minute)
	for phone.Count()-before < manyPending && time.Now().Before(deadline) {
		exited := 0
		for _, p := range callers {
			select {
			case <-p.done:
				exited++
			default:
			}
		}
		if phone.Count()-before+exited >= manyPending {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	pending := samples.now()
	tapped := make([]time.Time, manyPending)
	var last, retapped int
	for n := before + 1; n <= phone.Count(); n++ {
		m := phone.Await(n)
		fs := strings.Fields(m.Message)
		if len(fs) < 2 || fs[0] != "many" {
			continue
		}
		i, err := strconv.Atoi(fs[1])
		if err != nil || i < 0 || i >= manyPending || !tapped[i].IsZero() {
			continue
		}
		tapped[i] = time.Now()
		// A tap the server could not store (ntfy answers 500 now and
		// then when its cache's database is busy) is tapped again, as
		// a person would on the error the app shows.
		code := phone.Tap(m, "Approve")
		for try := 0; code >= 500 && try < 3; try++ {
			retapped++
			time.Sleep(200 * time.Millisecond)
			code = phone.Tap(m, "Approve")
		}
		if code != http.StatusOK {
			return fmt.Errorf("the tap on request %d got %d", i, code)
		}
		last = i
	}
	failed, slowest := 0, 0.0
	for i, p := range callers {
		if !p.wait(2 * time.Minute) {
			p.kill()
		}
		if p.code != 0 || tapped[i].IsZero() {
			failed++
			continue
		}
		slowest = max(slowest, ms(p.exitAt.Sub(tapped[i])))
	}
	samples.stop()
	peak := samples.peak()
	lastExit := ms(callers[last].exitAt.Sub(tapped[last]))
	if tapped[last].IsZero() || callers[last].code != 0 {
		lastExit = 0 // none tapped, or it failed: counted above
	}
	sr := summarize(ref)
	b.rows = append(b.rows,
		row{name: fmt.Sprintf("P13 %d pending phone requests: failed, connections", manyPending),
			ours:  fmt.Sprintf("%d failed, %d connections", failed, peak.conns),
			ref:   "ntfy's limit: 30 subscriptions a visitor",
			delta: "-", target: "0 failed, ≤ 2 connections", pass: failed == 0 && peak.conns <= 2},
		row{name: "P13 the last tap to its caller's exit",
			ours: fmtMs(lastExit), ref: fmtMs(sr.median) + " (bare ntfy round trip)",
			delta:  fmt.Sprintf("×%.1f", lastExit/sr.median),
			target: "≤ reference + 5 s (a poll's longest delay)", pass: failed == 0 && lastExit <= sr.median+5000},
	)
	b.note("### P13 many requests on one machine\n")
	b.note("%d callers `ask-confirm --message 'many N' --wait 300s`, each its own request, started at once with no display, the phone set up with `remote setup --mode fallback`, against the real ntfy server on 127.0.0.1 with its default visitor-subscription-limit (30; the phone's own stream counts in it here, as it shares the address). Our processes are every ask-confirm and ask-confirm-phone of this build; their connections are their ESTABLISHED sockets to the server's port, sampled every 250 ms.\n", manyPending)
	b.note("- failed: %d of %d (a caller that did not exit 0 after its tap on Approve, or whose request never reached the phone)", failed, manyPending)
	b.note("- once all were pending: %d of our processes, %d connections to the server, %.0f MiB resident in all", pending.procs, pending.conns, float64(pending.rssKiB)/1024)
	b.note("- at the peak: %d processes, %d connections, %.0f MiB", peak.procs, peak.conns, float64(peak.rssKiB)/1024)
	b.note("- tap to exit: the last one tapped %s, the slowest %s; the bare round trip %s; %d taps the server answered with 5xx were made again\n", fmtMs(lastExit), fmtMs(slowest), spread(sr), retapped)
	return nil
}

// sample is what our processes held at one moment.
type sample struct {
	procs, conns int
	rssKiB       int64
}

// ours samples our processes (bin and its ask-confirm-phone beside it)
// every 250 ms until stopped, and keeps the peak of each measure.
type ours struct {
	bin, phone, port string
	mu               sync.Mutex
	max              sample
	done             chan struct{}
	once             sync.Once
	ended            chan struct{}
}

func newOurs(bin, port string) *ours {
	o := &ours{bin: bin, phone: filepath.Join(filepath.Dir(bin), "ask-confirm-phone"), port: port, done: make(chan struct{}), ended: make(chan struct{})}
	go func() {
		defer close(o.ended)
		for {
			s := o.now()
			o.mu.Lock()
			o.max = sample{max(o.max.procs, s.procs), max(o.max.conns, s.conns), max(o.max.rssKiB, s.rssKiB)}
			o.mu.Unlock()
			select {
			case <-o.done:
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	return o
}

func (o *ours) stop() {
	o.once.Do(func() { close(o.done) })
	<-o.ended
}

func (o *ours) peak() sample {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.max
}

// now reads our processes' resident memory, and their sockets
// established to the server's port.
func (o *ours) now() sample {
	conns := established(o.port)
	var s sample
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil || exe != o.bin && exe != o.phone {
			continue
		}
		s.procs++
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
			if i := bytes.Index(st, []byte("VmRSS:")); i >= 0 {
				if f := strings.Fields(string(st[i+len("VmRSS:"):])); len(f) > 0 {
					n, _ := strconv.ParseInt(f[0], 10, 64)
					s.rssKiB += n
				}
			}
		}
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, fd := range fds {
			link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok && conns[strings.TrimSuffix(inode, "]")] {
				s.conns++
			}
		}
	}
	return s
}

// established returns the inodes of the sockets established to port (in
// decimal) on this machine, from /proc/net/tcp and tcp6.
func established(port string) map[string]bool {
	p, _ := strconv.Atoi(port)
	want := fmt.Sprintf(":%04X", p)
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fs := strings.Fields(sc.Text())
			if len(fs) > 9 && strings.HasSuffix(fs[2], want) && fs[3] == "01" {
				inodes[fs[9]] = true
			}
		}
		f.Close()
	}
	return inodes
}
