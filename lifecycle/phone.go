package lifecycle

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/store"
)

// How the phone takes part in one request (store.Record.Phone).
const (
	phoneNo   = ""
	phoneAlso = "also"
	phoneOnly = "only"
)

// phoneFor decides how the phone takes part in asking c, where here says
// whether somebody can be asked on this machine (a dialog can be shown,
// or c asks through its Channel). It reads the phone's settings only when
// the call or the settings' default mode can want the phone. A result is
// returned where the call cannot be asked as it says: it named the phone
// (--remote), which was then the only way, and it is not set up, cannot
// be read, or cannot take c's question, unless nobody can be asked here
// and the call said what to do then (--if-headless deny or approve).
// Otherwise what keeps the phone out is the warning returned, for the
// caller's result, and where nobody can be asked here --if-headless
// decides.
func (e *Engine) phoneFor(c Call, here bool) (way string, refusal *Result, warning error) {
	mode := c.Remote
	if mode == remote.ModeOff {
		return phoneNo, nil, nil
	}
	s, err := e.loadRemote()
	switch {
	case mode == "" && errors.Is(err, remote.ErrNotConfigured):
		return phoneNo, nil, nil
	case mode == "" && err == nil:
		mode = s.Mode
	}
	var phone string
	if mode == remote.ModeOff {
		return phoneNo, nil, nil
	}
	switch mode {
	case remote.ModeAlso:
		phone = phoneAlso
	case remote.ModeFallback:
		phone = phoneOnly
		if here {
			return phoneNo, nil, nil
		}
	case remote.ModeOnly:
		phone = phoneOnly
	default:
		// The settings' own mode was read from a file that failed to
		// load: which mode it meant is unknown.
		phone = phoneAlso
	}
	if !here {
		phone = phoneOnly
	}
	if err == nil {
		err = remote.Fits(c.Request)
	}
	unusable := errors.Is(err, remote.ErrNotConfigured) || errors.Is(err, remote.ErrNotForPhone)
	switch {
	case err == nil && s.Secret == "" && remote.FromEnv():
		// An export made before fleets, given to a CI job: every re-run
		// of the job, on a machine of its own, asks anew.
		return phone, nil, errors.New(msgPhoneNoFleet)
	case err == nil:
		return phone, nil, nil
	case phone == phoneAlso || c.Remote == "" || unusable && !here && c.IfHeadless != IfHeadlessFail:
		// Beside a way here, or where the call did not ask for the
		// phone, or said what to do with nobody to ask (and
		// --if-headless decides): a warning.
		return phoneNo, nil, fmt.Errorf(msgPhoneLeftOut, err)
	case unusable:
		r := ErrorResult(c.Request.Identity(), ExitUsage, fmt.Errorf(msgPhoneOnlyWay, err))
		r.Hint = hintPhoneSetup
		return phoneNo, &r, nil
	default:
		r := ErrorResult(c.Request.Identity(), ExitFailed, fmt.Errorf(msgPhoneOnlyWay, err))
		return phoneNo, &r, nil
	}
}

// loadRemote reads the phone's settings (Config.RemoteFile).
func (e *Engine) loadRemote() (remote.Settings, error) {
	return remote.Load(e.remoteFile)
}

// PhoneBackend makes the way of asking on the phone set up with c, which
// tells r what it finds beside the answer.
type PhoneBackend func(c remote.Config, r PhoneReports) dialog.Backend

// PhoneReports is what the phone's way of asking tells its holder beside
// the answer: each reply that answered nothing (Ignored), each follow-up
// that could not be sent (Lost), and that the server took the request, so
// that the phone will show it (Sent). None may block. CollectWithin and
// Remember go the other way, from the request: how long an answer to the
// same question, given to another machine that shares the setup, may
// still be collected while no machine took it, and once one did.
type PhoneReports struct {
	Ignored, Lost           func(reason string)
	Sent                    func()
	Voted                   func(dialog.Vote)
	CollectWithin, Remember time.Duration
}

// ntfyPhone is the real PhoneBackend: the phone reached through ntfy.
func ntfyPhone(c remote.Config, r PhoneReports) dialog.Backend {
	return &remote.Backend{Config: c, Ignored: r.Ignored, Lost: r.Lost, Sent: r.Sent, Voted: r.Voted, CollectWithin: r.CollectWithin, Remember: r.Remember}
}

// maxIgnoredLogged bounds the ignored replies a request records one by
// one in the history; the rest are counted in one event at its end, so
// that a flood of them cannot fill the disk.
const maxIgnoredLogged = 20

// ignoredReplies records in the history the replies that answered
// nothing, for one request.
// Replies for other requests, which share the reply topic, are counted
// apart, in one event at the end: they are no forgery, and must not use
// up the events that show one.
type ignoredReplies struct {
	e      *Engine
	rec    store.Record
	mu     sync.Mutex
	count  int
	others int
}

func (ig *ignoredReplies) add(reason string) {
	ig.mu.Lock()
	if reason == remote.ReplyForAnother {
		ig.others++
		ig.mu.Unlock()
		return
	}
	ig.count++
	n := ig.count
	ig.mu.Unlock()
	if n <= maxIgnoredLogged {
		ig.e.logEventOrWarn("ignored", ig.rec, "", reason)
	}
}

// done records how many replies were ignored beyond those logged, and how
// many were for other requests.
func (ig *ignoredReplies) done() {
	ig.mu.Lock()
	n, others := ig.count, ig.others
	ig.mu.Unlock()
	if n > maxIgnoredLogged {
		ig.e.logEventOrWarn("ignored", ig.rec, "", fmt.Sprintf(msgIgnoredMore, n-maxIgnoredLogged))
	}
	if others > 0 {
		ig.e.logEventOrWarn("ignored", ig.rec, "", fmt.Sprintf(msgIgnoredOthers, others))
	}
}

// lost records a follow-up to the phone that could not be sent: the
// request has ended, and the phone may still show it as open.
func (ig *ignoredReplies) lost(reason string) {
	ig.e.logEventOrWarn("way-failed", ig.rec, "", wayPhone+": "+reason)
}

// ways returns how the holder of rec asks req: its own way (the dialog,
// or own), and the phone where rec says so, which tells votes of each
// vote. A phone that cannot be set up is left out with a note on the
// request, or, where it was the only way, or where it asks several
// approvers, is the error. For a request of several approvers asked here
// too, ballot counts the answer here as the vote of this machine's user,
// and the dialog says so; where it cannot (ballotFor), only the phone
// asks.
func (e *Engine) ways(rec store.Record, req dialog.Request, own dialog.Backend, ig *ignoredReplies, sent func(), votes *voteLog) ([]way, *ballot, error) {
	var ws []way
	if rec.Phone != phoneOnly {
		ws = append(ws, way{name: ownWay(rec), backend: own})
	}
	if rec.Phone == phoneNo {
		return ws, nil, nil
	}
	s, err := e.loadRemote()
	if err != nil {
		if rec.Phone == phoneOnly || len(req.Approvers) > 0 {
			return nil, nil, fmt.Errorf(msgPhoneOnlyWay, err)
		}
		e.wayFailed(rec, wayPhone, err)
		return ws, nil, nil
	}
	phone := way{name: wayPhone, backend: e.phone(s.Config, PhoneReports{Ignored: ig.add, Lost: ig.lost, Sent: sent, Voted: votes.voted(),
		CollectWithin: rec.CollectWithin, Remember: rec.Remember})}
	if len(req.Approvers) == 0 || rec.Phone == phoneOnly {
		return append(ws, phone), nil, nil
	}
	b, err := e.ballotFor(s.Config, req, ownWay(rec), phone.backend, votes.add)
	if err != nil {
		e.wayFailed(rec, ownWay(rec), err)
		return []way{phone}, nil, nil
	}
	here := req
	here.Note = voteNote(b.by, req)
	ws[0].req = &here
	return append(ws, phone), b, nil
}

// wayFailed records that the way of asking named w failed while another
// still asks: in the history, and as the request's note, which its
// callers pass on.
func (e *Engine) wayFailed(rec store.Record, w string, err error) {
	note := fmt.Sprintf(msgWayFailed, w, err)
	e.logEventOrWarn("way-failed", rec, "", w+": "+err.Error())
	_, uerr := e.store.Update(rec.Identity, func(r *store.Record, found bool) (bool, error) {
		if !found || r.ContentHash != rec.ContentHash || r.Status.Final() {
			return false, nil
		}
		r.Note = note
		return true, nil
	})
	if uerr != nil {
		e.warn(uerr)
	}
}
