package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Records are kept in bbolt in a binary form written and read by hand:
// encoding/json builds its reflection caches on first use, which cost a
// one-shot process more than the rest of reading a remembered answer.
// Measured on 2026-11-26 with scripts/benchtool's P1 (a remembered answer,
// the whole process, against a Go hello world, 400 interleaved pairs) on
// binaries built with README.md's install command, two rounds each (the
// figures are in docs/performance.md): this codec
// 2.54 and 2.59 ms (×2.03 and ×2.00 of hello world); the same binary with
// encoding/json for records and history lines 2.85 and 2.83 ms (×2.23 and
// ×2.18). encoding/json costs about 0.3 ms of every remembered answer and
// takes P1 past its target (×2.0), so the codec stays.
//
// Format 6, every field always present, in Record's field order:
//
//	byte     0x06, the format (a JSON record, as earlier versions wrote, starts with '{')
//	string   Identity, ContentHash, Title      uvarint length, then the bytes as they are
//	bytes    Request                           uvarint length+1, then the bytes; 0 is nil
//	string   Status, Reason
//	varint   Attempt, HolderPID
//	time     RequestedAt, ShownAt, EndedAt, Deadline
//	varint   Remember (nanoseconds)
//	string   MessageHash
//	varint   CallerPID
//	string   CallerDir
//	uvarint  Version
//	string   CancelRequest
//	varint   CollectWithin (nanoseconds)
//	byte     Uncollected: 0 or 1
//	string   Channel, Origin
//	string   Kind
//	byte     Multiple: 0 or 1
//	uvarint  the number of Answers, then each as a string (none is nil)
//	byte     Typed: 0 or 1
//	varint   ApprovedFor (nanoseconds)
//	string   Phone, AnsweredBy, Note
//	byte     EndsWithCaller: 0 or 1
//	uvarint  the number of Approvers, then each as a string (none is nil)
//	varint   Approvals
//	uvarint  the number of Votes (none is nil), then each Vote:
//	           string By, byte Approved (0 or 1), varint For (nanoseconds), time At
//
// Format 5 is format 6 without its last three fields: a request of one
// person. It is written for every record that holds nothing of format
// 6's, so that versions before it read it.
// Format 4 is format 5 without its last four fields: a request asked
// without the phone that may outlive its callers. It is written for every record that holds nothing
// of format 5's, so that versions before it read it.
// Format 3 is format 4 without its last five fields: a confirmation, with
// no answer beyond its status. It is written for every record that holds
// nothing of format 4's (encodeRecord), and was the only format before
// questions beyond yes or no.
// Format 2, written before requests could be asked other than by a dialog,
// is format 3 without Channel and Origin; its records were asked by a dialog. Format
// 1, written before answers were collected, is format 2 without its last
// two fields; its records read as collected, with no CollectWithin.
//
// A time is one tag byte: 0 for the zero time and nothing follows; 1 for a
// UTC time and 2 for one with a zone offset, followed by a varint of Unix
// seconds, a uvarint of nanoseconds and, for 2 only, a varint of the zone
// offset in seconds. A decoded time gets the location the JSON form gave
// it: UTC for offset 0, Local where Local had that offset at that instant,
// otherwise an unnamed fixed zone. Times the JSON form could not hold (a
// year outside 0 to 9999 or an offset of a day or more) are refused on
// both sides, so any record that is written also decodes.
//
// Strings are kept byte for byte, unlike the JSON form, which replaced
// invalid UTF-8 with U+FFFD; nil and empty Request stay apart, as in JSON.
const (
	recordFormat1 = 0x01
	recordFormat2 = 0x02
	recordFormat3 = 0x03
	recordFormat4 = 0x04
	recordFormat5 = 0x05
	recordFormat6 = 0x06
)

const (
	timeZero   = 0
	timeUTC    = 1
	timeOffset = 2
)

// The Unix seconds of 0000-01-01 and 10000-01-01 UTC, widened by a day for
// the zone offset; the exact year is checked in the time's own zone.
const (
	minTimeSec = -62167219200 - 86400
	maxTimeSec = 253402300800 + 86400
)

// maxAnswers bounds the answers a record may hold: a choice's options and
// an answer of the person's own, with room to spare.
const maxAnswers = 64

// maxPeople bounds the approvers and the votes a record may hold: a
// request asks at most 16 people (dialog.MaxApprovers), each of whom
// votes once, with room to spare.
const maxPeople = 64

// errRecordTime is returned when a record holds a time the JSON form could
// not have held.
var errRecordTime = errors.New("time outside of years 0 to 9999 or with a zone offset of a day or more")

// MarshalRecord returns the bytes Update stores for r. It is for tools
// that fill a store in bulk, in one bbolt transaction (scripts/benchtool);
// ask-confirm itself writes through Update only.
func MarshalRecord(r Record) ([]byte, error) { return encodeRecord(&r) }

// encodeRecord returns r in the oldest binary format that holds all of
// it: format 6 for a request of several approvers, format 5 for one that
// involves the phone or ends with its callers, format 4 for one
// beyond format 3 (a question beyond yes or no, or an approval for a
// while), and format 3 otherwise. Versions before a format read the older
// ones, rather than setting aside as corrupt a store that an older
// ask-confirm still running shares. It fails only for a time that the
// JSON form refused as well.
func encodeRecord(r *Record) ([]byte, error) {
	n := 64 + len(r.Identity) + len(r.ContentHash) + len(r.Title) + len(r.Request) + len(r.Status) +
		len(r.Reason) + len(r.MessageHash) + len(r.CallerDir) + len(r.CancelRequest) + len(r.Channel) + len(r.Origin) + len(r.Kind) +
		len(r.Phone) + len(r.AnsweredBy) + len(r.Note)
	for _, a := range r.Answers {
		n += len(a) + 2
	}
	for _, a := range r.Approvers {
		n += len(a) + 2
	}
	for _, v := range r.Votes {
		n += len(v.By) + 32
	}
	format := byte(recordFormat3)
	if r.Kind != "" || r.Multiple || len(r.Answers) > 0 || r.Typed || r.ApprovedFor != 0 {
		format = recordFormat4
	}
	if r.Phone != "" || r.AnsweredBy != "" || r.Note != "" || r.EndsWithCaller {
		format = recordFormat5
	}
	if len(r.Approvers) > 0 || r.Approvals != 0 || len(r.Votes) > 0 {
		format = recordFormat6
	}
	b := make([]byte, 0, n)
	b = append(b, format)
	b = appendLenString(b, r.Identity)
	b = appendLenString(b, r.ContentHash)
	b = appendLenString(b, r.Title)
	if r.Request == nil {
		b = append(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(r.Request))+1)
		b = append(b, r.Request...)
	}
	b = appendLenString(b, string(r.Status))
	b = appendLenString(b, r.Reason)
	b = binary.AppendVarint(b, int64(r.Attempt))
	b = binary.AppendVarint(b, int64(r.HolderPID))
	for _, t := range [...]time.Time{r.RequestedAt, r.ShownAt, r.EndedAt, r.Deadline} {
		var err error
		if b, err = appendTime(b, t); err != nil {
			return nil, err
		}
	}
	b = binary.AppendVarint(b, int64(r.Remember))
	b = appendLenString(b, r.MessageHash)
	b = binary.AppendVarint(b, int64(r.CallerPID))
	b = appendLenString(b, r.CallerDir)
	b = binary.AppendUvarint(b, r.Version)
	b = appendLenString(b, string(r.CancelRequest))
	b = binary.AppendVarint(b, int64(r.CollectWithin))
	if r.Uncollected {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = appendLenString(b, r.Channel)
	b = appendLenString(b, r.Origin)
	if format < recordFormat4 {
		return b, nil
	}
	b = appendLenString(b, r.Kind)
	if r.Multiple {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(r.Answers)))
	for _, a := range r.Answers {
		b = appendLenString(b, a)
	}
	if r.Typed {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendVarint(b, int64(r.ApprovedFor))
	if format < recordFormat5 {
		return b, nil
	}
	b = appendLenString(b, r.Phone)
	b = appendLenString(b, r.AnsweredBy)
	b = appendLenString(b, r.Note)
	b = appendBool(b, r.EndsWithCaller)
	if format < recordFormat6 {
		return b, nil
	}
	b = binary.AppendUvarint(b, uint64(len(r.Approvers)))
	for _, a := range r.Approvers {
		b = appendLenString(b, a)
	}
	b = binary.AppendVarint(b, int64(r.Approvals))
	b = binary.AppendUvarint(b, uint64(len(r.Votes)))
	for _, v := range r.Votes {
		b = appendLenString(b, v.By)
		b = appendBool(b, v.Approved)
		b = binary.AppendVarint(b, int64(v.For))
		var err error
		if b, err = appendTime(b, v.At); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendLenString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendTime(b []byte, t time.Time) ([]byte, error) {
	if t.IsZero() {
		return append(b, timeZero), nil
	}
	_, off := t.Zone()
	if !timeFits(t, off) {
		return nil, fmt.Errorf("%w: %v", errRecordTime, t)
	}
	if off == 0 {
		b = append(b, timeUTC)
	} else {
		b = append(b, timeOffset)
	}
	b = binary.AppendVarint(b, t.Unix())
	b = binary.AppendUvarint(b, uint64(t.Nanosecond()))
	if off != 0 {
		b = binary.AppendVarint(b, int64(off))
	}
	return b, nil
}

// timeFits reports whether the JSON form, RFC 3339, could hold t.
func timeFits(t time.Time, off int) bool {
	y := t.Year()
	return 0 <= y && y <= 9999 && -86400 < off && off < 86400
}

// decode reads a record in either form into r. Any damage, including bytes
// left over after the last field, is reported as ErrCorrupt, and r is left
// untouched.
func decode(v []byte, r *Record) error {
	var rec Record
	var err error
	switch {
	case len(v) > 0 && recordFormat1 <= v[0] && v[0] <= recordFormat6:
		rec, err = decodeRecord(v)
	case len(v) > 0 && v[0] == '{':
		rec, err = decodeJSONRecord(v)
	case len(v) == 0:
		err = errors.New("empty value")
	default:
		err = fmt.Errorf("unknown format %#x", v[0])
	}
	if err != nil {
		return fmt.Errorf("%w: undecodable record: %v", ErrCorrupt, err)
	}
	*r = rec
	return nil
}

// legacyRecord is a record in the JSON form that versions before format 1
// wrote: Record's fields up to CancelRequest, under these names. That form
// had no Uncollected or CollectWithin; its records read as collected.
type legacyRecord struct {
	Identity      string        `json:"identity"`
	ContentHash   string        `json:"content_hash"`
	Title         string        `json:"title"`
	Request       []byte        `json:"request"`
	Status        Status        `json:"status"`
	Reason        string        `json:"reason,omitempty"`
	Attempt       int           `json:"attempt"`
	HolderPID     int           `json:"holder_pid,omitempty"`
	RequestedAt   time.Time     `json:"requested_at"`
	ShownAt       time.Time     `json:"shown_at,omitzero"`
	EndedAt       time.Time     `json:"ended_at,omitzero"`
	Deadline      time.Time     `json:"deadline"`
	Remember      time.Duration `json:"remember"`
	MessageHash   string        `json:"message_sha256,omitempty"`
	CallerPID     int           `json:"caller_pid,omitempty"`
	CallerDir     string        `json:"caller_dir,omitempty"`
	Version       uint64        `json:"version"`
	CancelRequest Status        `json:"cancel_request,omitempty"`
}

// record returns l as a Record, collected and with no CollectWithin.
func (l *legacyRecord) record() Record {
	return Record{
		Identity:      l.Identity,
		ContentHash:   l.ContentHash,
		Title:         l.Title,
		Request:       l.Request,
		Status:        l.Status,
		Reason:        l.Reason,
		Attempt:       l.Attempt,
		HolderPID:     l.HolderPID,
		RequestedAt:   l.RequestedAt,
		ShownAt:       l.ShownAt,
		EndedAt:       l.EndedAt,
		Deadline:      l.Deadline,
		Remember:      l.Remember,
		MessageHash:   l.MessageHash,
		CallerPID:     l.CallerPID,
		CallerDir:     l.CallerDir,
		Version:       l.Version,
		CancelRequest: l.CancelRequest,
	}
}

// decodeJSONRecord reads a record as versions before format 1 wrote it. It
// is apart from decode so that only this path puts a record on the heap.
func decodeJSONRecord(v []byte) (Record, error) {
	var l legacyRecord
	err := json.Unmarshal(v, &l)
	return l.record(), err
}

// decodeRecord reads a record in format 1 to 6. It never panics and allocates no
// more than twice len(v), whatever the lengths it reads claim.
func decodeRecord(v []byte) (Record, error) {
	d := recordDecoder{buf: v, off: 1, text: string(v)}
	var r Record
	r.Identity = d.string()
	r.ContentHash = d.string()
	r.Title = d.string()
	r.Request = d.bytes()
	r.Status = Status(d.string())
	r.Reason = d.string()
	r.Attempt = d.int()
	r.HolderPID = d.int()
	r.RequestedAt = d.time()
	r.ShownAt = d.time()
	r.EndedAt = d.time()
	r.Deadline = d.time()
	r.Remember = time.Duration(d.varint())
	r.MessageHash = d.string()
	r.CallerPID = d.int()
	r.CallerDir = d.string()
	r.Version = d.uvarint()
	r.CancelRequest = Status(d.string())
	if v[0] >= recordFormat2 {
		r.CollectWithin = time.Duration(d.varint())
		r.Uncollected = d.bool("Uncollected")
	}
	if v[0] >= recordFormat3 {
		r.Channel = d.string()
		r.Origin = d.string()
	}
	if v[0] >= recordFormat4 {
		r.Kind = d.string()
		r.Multiple = d.bool("Multiple")
		// No question has more than maxAnswers answers, and each takes at
		// least its length byte: any other count is damage, refused before
		// anything is made.
		if n := d.uvarint(); n > 0 && d.err == nil {
			if n > maxAnswers || n > uint64(len(d.buf)-d.off) {
				d.fail("%d answers in %d bytes", n, len(d.buf)-d.off)
			} else {
				r.Answers = make([]string, n)
				for i := range r.Answers {
					r.Answers[i] = d.string()
				}
			}
		}
		r.Typed = d.bool("Typed")
		r.ApprovedFor = time.Duration(d.varint())
	}
	if v[0] >= recordFormat5 {
		r.Phone = d.string()
		r.AnsweredBy = d.string()
		r.Note = d.string()
		r.EndsWithCaller = d.bool("EndsWithCaller")
	}
	if v[0] >= recordFormat6 {
		// As with the answers: a count beyond any request's, or beyond
		// the bytes left, is damage, refused before anything is made.
		if n := d.count("approvers"); n > 0 {
			r.Approvers = make([]string, n)
			for i := range r.Approvers {
				r.Approvers[i] = d.string()
			}
		}
		r.Approvals = d.int()
		if n := d.count("votes"); n > 0 {
			r.Votes = make([]Vote, n)
			for i := range r.Votes {
				r.Votes[i] = Vote{By: d.string(), Approved: d.bool("Vote.Approved"), For: time.Duration(d.varint()), At: d.time()}
			}
		}
	}
	if d.err == nil && d.off != len(d.buf) {
		d.fail("%d bytes after the last field", len(d.buf)-d.off)
	}
	if d.err != nil {
		return Record{}, d.err
	}
	return r, nil
}

// recordDecoder reads the fields of one record. The first problem is kept in
// err and makes every later read return a zero value.
type recordDecoder struct {
	buf []byte
	off int
	// text is buf as one string, so that all string fields share a single
	// copy of the bytes, which bbolt owns only for the transaction.
	text string
	err  error
}

func (d *recordDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("at byte %d: "+format, append([]any{d.off}, args...)...)
	}
}

func (d *recordDecoder) u8() byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.buf) {
		d.fail("truncated")
		return 0
	}
	c := d.buf[d.off]
	d.off++
	return c
}

// bool reads a byte that must be 0 or 1.
func (d *recordDecoder) bool(field string) bool {
	switch d.u8() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail("%s is neither 0 nor 1", field)
	return false
}

func (d *recordDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.buf[d.off:])
	if n <= 0 {
		d.fail("truncated or overlong varint")
		return 0
	}
	d.off += n
	return x
}

// count reads the number of a list's elements, each of which takes at
// least a byte: more than maxPeople, or than the bytes left, is damage.
func (d *recordDecoder) count(what string) uint64 {
	n := d.uvarint()
	if d.err == nil && (n > maxPeople || n > uint64(len(d.buf)-d.off)) {
		d.fail("%d %s in %d bytes", n, what, len(d.buf)-d.off)
		return 0
	}
	return n
}

func (d *recordDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Varint(d.buf[d.off:])
	if n <= 0 {
		d.fail("truncated or overlong varint")
		return 0
	}
	d.off += n
	return x
}

func (d *recordDecoder) int() int {
	x := d.varint()
	if int64(int(x)) != x {
		d.fail("%d does not fit an int", x)
		return 0
	}
	return int(x)
}

// span reads a length of n bytes and returns where they start, after
// checking that they are there.
func (d *recordDecoder) span(n uint64) int {
	if d.err != nil {
		return 0
	}
	if n > uint64(len(d.buf)-d.off) {
		d.fail("length %d runs past the end", n)
		return 0
	}
	start := d.off
	d.off += int(n)
	return start
}

func (d *recordDecoder) string() string {
	n := d.uvarint()
	start := d.span(n)
	if d.err != nil {
		return ""
	}
	return d.text[start:d.off]
}

func (d *recordDecoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || n == 0 {
		return nil
	}
	start := d.span(n - 1)
	if d.err != nil {
		return nil
	}
	return append([]byte{}, d.buf[start:d.off]...)
}

func (d *recordDecoder) time() time.Time {
	tag := d.u8()
	if d.err != nil || tag == timeZero {
		return time.Time{}
	}
	if tag != timeUTC && tag != timeOffset {
		d.fail("unknown time tag %d", tag)
		return time.Time{}
	}
	sec := d.varint()
	nsec := d.uvarint()
	var off int64
	if tag == timeOffset {
		off = d.varint()
		if d.err == nil && (off == 0 || off <= -86400 || off >= 86400) {
			d.fail("zone offset %d", off)
		}
	}
	if d.err != nil {
		return time.Time{}
	}
	if nsec >= 1e9 || sec < minTimeSec || sec > maxTimeSec {
		d.fail("time %d.%d out of range", sec, nsec)
		return time.Time{}
	}
	t := time.Unix(sec, int64(nsec)).UTC()
	if off != 0 {
		t = inZone(t, int(off))
	}
	// The zero time has its own tag; taking it here would not survive
	// being written again.
	if t.IsZero() || !timeFits(t, int(off)) {
		d.fail("time %d.%d%+d out of range", sec, nsec, off)
		return time.Time{}
	}
	return t
}

// inZone returns t in the location that parsing its RFC 3339 form with
// offset off gives, as encoding/json did: Local if Local had that offset at
// that instant, otherwise an unnamed fixed zone.
func inZone(t time.Time, off int) time.Time {
	lt := t.In(time.Local)
	if _, o := lt.Zone(); o == off {
		return lt
	}
	return t.In(time.FixedZone("", off))
}
