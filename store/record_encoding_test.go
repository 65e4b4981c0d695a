package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// nastyStrings are kept as they are by the binary form; the JSON form
// replaced the invalid UTF-8 among them.
var nastyStrings = []string{
	"", "plain", `"quoted"`, `back\slash`, "\x00\x01\x1f\x7f", "\b\f\n\r\t",
	"<script>&amp;</script>", "\u2028\u2029", "\u2027\u202a", "\ufffd", "Deploy ✓ 🚀",
	"\xff", "\xc3", "a\xc3(", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x80", "\xe2\x80\xa8\xe2",
	"{", "\x01", strings.Repeat("long ", 300),
}

func randomString(rng *rand.Rand) string {
	if rng.IntN(2) == 0 {
		return nastyStrings[rng.IntN(len(nastyStrings))]
	}
	b := make([]byte, rng.IntN(40))
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	return string(b)
}

// testZones are the zones of the times records are tested with.
func testZones(t *testing.T) []*time.Location {
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("", 3600), time.FixedZone("", -(3*3600 + 30*60)),
		time.FixedZone("IST", 5*3600+30*60), time.FixedZone("", 23*3600+59*60)}
	for _, name := range []string{"Europe/Berlin", "America/St_Johns", "Australia/Lord_Howe"} {
		if loc, err := time.LoadLocation(name); err == nil {
			zones = append(zones, loc)
		} else {
			t.Logf("no zone %s: %v", name, err)
		}
	}
	return zones
}

func randomTime(rng *rand.Rand, zones []*time.Location) time.Time {
	switch rng.IntN(6) {
	case 0:
		return time.Time{}
	case 1:
		// A monotonic reading, which neither form keeps.
		return time.Now().Add(time.Duration(rng.Int64N(int64(48 * time.Hour))))
	}
	lo := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	var nsec int64
	if rng.IntN(2) == 0 {
		nsec = rng.Int64N(1e9)
	}
	for {
		t := time.Unix(lo+rng.Int64N(hi-lo), nsec).In(zones[rng.IntN(len(zones))])
		// Local mean times before a zone's standard time have offsets in
		// seconds, which RFC 3339 cannot hold.
		if _, off := t.Zone(); off%60 == 0 {
			return t
		}
	}
}

func randomRecord(rng *rand.Rand, zones []*time.Location) Record {
	ints := []int{0, 1, -1, 4242, math.MaxInt32, math.MinInt32}
	anInt := func() int { return ints[rng.IntN(len(ints))] }
	statuses := []Status{"", Requested, Shown, Approved, Denied, Expired, Cancelled, Superseded, Failed, Withdrawn, "bogus"}
	r := Record{
		Identity: randomString(rng), ContentHash: randomString(rng), Title: randomString(rng),
		Status: statuses[rng.IntN(len(statuses))], Reason: randomString(rng),
		Attempt: anInt(), HolderPID: anInt(),
		RequestedAt: randomTime(rng, zones), ShownAt: randomTime(rng, zones),
		EndedAt: randomTime(rng, zones), Deadline: randomTime(rng, zones),
		Remember:    time.Duration(rng.Int64()) * time.Duration(1-2*rng.IntN(2)),
		MessageHash: randomString(rng), CallerPID: anInt(), CallerDir: randomString(rng),
		Version:       []uint64{0, 1, math.MaxUint64, rng.Uint64()}[rng.IntN(4)],
		CancelRequest: statuses[rng.IntN(len(statuses))],
		Uncollected:   rng.IntN(2) == 0,
		CollectWithin: time.Duration(rng.Int64()) * time.Duration(1-2*rng.IntN(2)),
		Channel:       []string{"", "elicitation", randomString(rng)}[rng.IntN(3)],
		Origin:        randomString(rng),
		Kind:          []string{"", "choose", "input", randomString(rng)}[rng.IntN(4)],
		Multiple:      rng.IntN(2) == 0,
		Typed:         rng.IntN(2) == 0,
		ApprovedFor:   time.Duration(anInt()),
	}
	if rng.IntN(3) == 0 {
		r.Phone = []string{"", "also", "only"}[rng.IntN(3)]
		r.AnsweredBy = []string{"", "phone", randomString(rng)}[rng.IntN(3)]
		r.Note = randomString(rng)
		r.EndsWithCaller = rng.IntN(2) == 0
	}
	if rng.IntN(4) == 0 {
		for range rng.IntN(4) {
			r.Approvers = append(r.Approvers, randomString(rng))
		}
		r.Approvals = anInt()
		for range rng.IntN(4) {
			r.Votes = append(r.Votes, Vote{By: randomString(rng), Approved: rng.IntN(2) == 0, For: time.Duration(anInt()), At: randomTime(rng, zones)})
		}
	}
	switch rng.IntN(3) {
	case 0:
		r.Request = nil
	case 1:
		r.Request = []byte{}
	case 2:
		r.Request = []byte(randomString(rng))
	}
	for range rng.IntN(3) {
		r.Answers = append(r.Answers, randomString(rng))
	}
	return r
}

// validUTF8 returns r with its strings as the JSON form would have kept
// them.
func validUTF8(r Record) Record {
	for _, s := range []*string{&r.Identity, &r.ContentHash, &r.Title, &r.Reason, &r.MessageHash, &r.CallerDir} {
		*s = strings.ToValidUTF8(*s, "\ufffd")
	}
	r.Status = Status(strings.ToValidUTF8(string(r.Status), "\ufffd"))
	r.CancelRequest = Status(strings.ToValidUTF8(string(r.CancelRequest), "\ufffd"))
	return r
}

// legacyFrom returns r in the JSON form that versions before format 1
// wrote, which had no Uncollected or CollectWithin.
func legacyFrom(r Record) legacyRecord {
	return legacyRecord{
		Identity:      r.Identity,
		ContentHash:   r.ContentHash,
		Title:         r.Title,
		Request:       r.Request,
		Status:        r.Status,
		Reason:        r.Reason,
		Attempt:       r.Attempt,
		HolderPID:     r.HolderPID,
		RequestedAt:   r.RequestedAt,
		ShownAt:       r.ShownAt,
		EndedAt:       r.EndedAt,
		Deadline:      r.Deadline,
		Remember:      r.Remember,
		MessageHash:   r.MessageHash,
		CallerPID:     r.CallerPID,
		CallerDir:     r.CallerDir,
		Version:       r.Version,
		CancelRequest: r.CancelRequest,
	}
}

func mustEncode(t testing.TB, r Record) []byte {
	t.Helper()
	b, err := encodeRecord(&r)
	if err != nil {
		t.Fatalf("encodeRecord(%+v): %v", r, err)
	}
	return b
}

func mustDecode(t testing.TB, v []byte) Record {
	t.Helper()
	var r Record
	if err := decode(v, &r); err != nil {
		t.Fatalf("decode(%q): %v", v, err)
	}
	return r
}

// The binary form keeps every string byte for byte (invalid UTF-8 too), nil
// and empty Request apart, and every time's instant and zone offset; it
// drops the monotonic reading; and writing what it read gives the same
// bytes.
func TestRecordEncodingRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	zones := testZones(t)
	for i := range 5000 {
		want := randomRecord(rng, zones)
		enc := mustEncode(t, want)
		beyond5 := len(want.Approvers) > 0 || want.Approvals != 0 || len(want.Votes) > 0
		beyond4 := !beyond5 && (want.Phone != "" || want.AnsweredBy != "" || want.Note != "" || want.EndsWithCaller)
		beyond3 := !beyond5 && !beyond4 && (want.Kind != "" || want.Multiple || len(want.Answers) > 0 || want.Typed || want.ApprovedFor != 0)
		wantFormat := byte(recordFormat3)
		switch {
		case beyond5:
			wantFormat = recordFormat6
		case beyond4:
			wantFormat = recordFormat5
		case beyond3:
			wantFormat = recordFormat4
		}
		if enc[0] != wantFormat {
			t.Fatalf("record %d starts with %#x, want %#x", i, enc[0], wantFormat)
		}
		got := mustDecode(t, enc)
		if !reflect.DeepEqual(got.Request, want.Request) || (got.Request == nil) != (want.Request == nil) {
			t.Fatalf("record %d: Request %#v, want %#v", i, got.Request, want.Request)
		}
		gotTimes := []time.Time{got.RequestedAt, got.ShownAt, got.EndedAt, got.Deadline}
		for j, w := range []time.Time{want.RequestedAt, want.ShownAt, want.EndedAt, want.Deadline} {
			g := gotTimes[j]
			_, goff := g.Zone()
			_, woff := w.Zone()
			if !g.Equal(w) || goff != woff || g.IsZero() != w.IsZero() {
				t.Fatalf("record %d: time %d is %v, want %v", i, j, g, w)
			}
			if w.IsZero() && g != (time.Time{}) {
				t.Fatalf("record %d: zero time %d came back as %#v", i, j, g)
			}
		}
		for j := range want.Votes {
			g, w := got.Votes[j].At, want.Votes[j].At
			_, goff := g.Zone()
			_, woff := w.Zone()
			if !g.Equal(w) || goff != woff || g.IsZero() != w.IsZero() {
				t.Fatalf("record %d: vote %d at %v, want %v", i, j, g, w)
			}
			want.Votes[j].At = g
		}
		// Once times are the ones read back, the rest is exact.
		want.RequestedAt, want.ShownAt, want.EndedAt, want.Deadline = got.RequestedAt, got.ShownAt, got.EndedAt, got.Deadline
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("record %d:\n got %#v\nwant %#v", i, got, want)
		}
		if again := mustEncode(t, got); !bytes.Equal(again, enc) {
			t.Fatalf("record %d encodes to\n%q\nthen to\n%q", i, enc, again)
		}
	}
}

// Adding a field to Record without encoding it loses it here.
func TestRecordEncodingKeepsEveryField(t *testing.T) {
	var r Record
	v := reflect.ValueOf(&r).Elem()
	at := time.Date(2025, 11, 22, 13, 19, 0, 123456789, time.UTC)
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("s" + v.Type().Field(i).Name)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(-100 - i))
		case reflect.Uint64:
			f.SetUint(uint64(100 + i))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			switch f.Type().Elem() {
			case reflect.TypeFor[string]():
				f.Set(reflect.ValueOf([]string{"a" + v.Type().Field(i).Name, ""}))
			case reflect.TypeFor[byte]():
				f.SetBytes([]byte("b" + v.Type().Field(i).Name))
			case reflect.TypeFor[Vote]():
				// Each of Vote's fields set, in each of the two votes.
				f.Set(reflect.ValueOf([]Vote{{By: "alice", Approved: true, For: time.Hour, At: at}, {By: "bob", For: -1, At: at.Add(time.Second)}}))
				if n := reflect.TypeFor[Vote]().NumField(); n != 4 {
					t.Fatalf("Vote has %d fields; this test sets 4", n)
				}
			default:
				t.Fatalf("Record.%s is a slice of %s, which the encoding does not know", v.Type().Field(i).Name, f.Type().Elem())
			}
		case reflect.Struct:
			f.Set(reflect.ValueOf(at.Add(time.Duration(i) * time.Hour)))
		default:
			t.Fatalf("Record.%s is a %s, which the encoding does not know", v.Type().Field(i).Name, f.Kind())
		}
		if f.IsZero() {
			t.Fatalf("Record.%s was left zero", v.Type().Field(i).Name)
		}
	}
	if got := mustDecode(t, mustEncode(t, r)); !reflect.DeepEqual(got, r) {
		t.Errorf("round trip lost a field:\n got %+v\nwant %+v", got, r)
	}
}

// What a record read back holds, including each time's location, is what
// the JSON form gave; encodeRecord refuses exactly the records json.Marshal
// refused. The comparison runs in this process's zone, and again in
// processes whose Local is not UTC, where times come back in Local.
func TestRecordEncodingMatchesJSON(t *testing.T) {
	checkRecordEncodingMatchesJSON(t)
	if os.Getenv("STORE_TEST_TZ_CHILD") != "" {
		return
	}
	for _, tz := range []string{"Europe/Berlin", "America/St_Johns"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRecordEncodingMatchesJSON$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "TZ="+tz, "STORE_TEST_TZ_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("TZ=%s: %v\n%s", tz, err, out)
		}
	}
}

func checkRecordEncodingMatchesJSON(t *testing.T) {
	t.Logf("Local is %s", time.Now().Format("MST -07:00"))
	rng := rand.New(rand.NewPCG(3, 4))
	zones := testZones(t)
	for i := range 3000 {
		r := validUTF8(randomRecord(rng, zones))
		js, err := json.Marshal(legacyFrom(r))
		if err != nil {
			t.Fatal(err)
		}
		fromJSON := mustDecode(t, js)
		if fromJSON.Uncollected || fromJSON.CollectWithin != 0 {
			t.Fatalf("record %d from JSON %s reads as uncollected (%v) or with CollectWithin %v",
				i, js, fromJSON.Uncollected, fromJSON.CollectWithin)
		}
		// The JSON form had no collection fields, channel, answers or phone; the binary form keeps
		// them as they are.
		fromJSON.Uncollected, fromJSON.CollectWithin, fromJSON.Channel, fromJSON.Origin = r.Uncollected, r.CollectWithin, r.Channel, r.Origin
		fromJSON.Kind, fromJSON.Multiple, fromJSON.Answers, fromJSON.Typed, fromJSON.ApprovedFor = r.Kind, r.Multiple, r.Answers, r.Typed, r.ApprovedFor
		fromJSON.Phone, fromJSON.AnsweredBy, fromJSON.Note, fromJSON.EndsWithCaller = r.Phone, r.AnsweredBy, r.Note, r.EndsWithCaller
		fromJSON.Approvers, fromJSON.Approvals, fromJSON.Votes = r.Approvers, r.Approvals, r.Votes
		fromBinary := mustDecode(t, mustEncode(t, r))
		// The JSON form had no votes, whose times the round trip checks.
		if len(fromBinary.Votes) == len(r.Votes) {
			fromBinary.Votes = r.Votes
		}
		if !reflect.DeepEqual(fromBinary, fromJSON) {
			t.Fatalf("record %d from JSON %s\n got %#v\nwant %#v", i, js, fromBinary, fromJSON)
		}
	}

	edges := []time.Time{
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(-1, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 30, 0, 0, time.FixedZone("", 3600)),
		time.Date(9999, 12, 31, 23, 30, 0, 0, time.FixedZone("", -3600)),
		time.Date(0, 1, 1, 0, 30, 0, 0, time.FixedZone("", 3600)),
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)),
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("", -24*3600)),
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600-60)),
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("", 100*3600)),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.FixedZone("", -3600)),
	}
	for _, at := range edges {
		r := Record{Deadline: at}
		_, jerr := json.Marshal(legacyFrom(r))
		enc, berr := encodeRecord(&r)
		if (jerr == nil) != (berr == nil) {
			t.Errorf("Deadline %v: json.Marshal error %v, encodeRecord error %v", at, jerr, berr)
			continue
		}
		if berr != nil {
			if !errors.Is(berr, errRecordTime) {
				t.Errorf("Deadline %v: error %v, want errRecordTime", at, berr)
			}
			continue
		}
		js, _ := json.Marshal(legacyFrom(r))
		if got, want := mustDecode(t, enc), mustDecode(t, js); !got.Deadline.Equal(want.Deadline) {
			t.Errorf("Deadline %v: read back as %v, JSON as %v", at, got.Deadline, want.Deadline)
		}
	}
}

// legacyRecordJSON is a record as the JSON-writing versions stored it.
const legacyRecordJSON = `{"identity":"3f1c9a0e","content_hash":"9b9b","title":"Deploy \u003cprod\u003e ✓",` +
	`"request":"eyJtZXNzYWdlIjoiU2hpcD8ifQ==","status":"approved","reason":"clicked","attempt":2,"holder_pid":4242,` +
	`"requested_at":"2026-03-14T09:26:53.589793238Z","shown_at":"2026-03-14T10:26:54.189793238+01:00",` +
	`"ended_at":"2026-03-14T09:26:56.589793238Z","deadline":"2026-03-14T09:31:53.589793238Z","remember":60000000000,` +
	`"message_sha256":"5e5e","caller_pid":4241,"caller_dir":"/home/dev/project","version":3,"cancel_request":"cancelled"}`

// A store written by a JSON-writing version keeps working: its records read
// as they did, and the next write stores the record in the binary form.
func TestLegacyJSONRecordsDecode(t *testing.T) {
	at := time.Date(2026, 3, 14, 9, 26, 53, 589793238, time.UTC)
	want := Record{
		Identity: "3f1c9a0e", ContentHash: "9b9b", Title: "Deploy <prod> ✓",
		Request: []byte(`{"message":"Ship?"}`), Status: Approved, Reason: "clicked", Attempt: 2, HolderPID: 4242,
		RequestedAt: at, ShownAt: at.Add(600 * time.Millisecond).In(time.FixedZone("", 3600)),
		EndedAt: at.Add(3 * time.Second), Deadline: at.Add(5 * time.Minute), Remember: time.Minute,
		MessageHash: "5e5e", CallerPID: 4241, CallerDir: "/home/dev/project", Version: 3, CancelRequest: Cancelled,
	}
	if _, off := at.In(time.Local).Zone(); off == 3600 {
		want.ShownAt = want.ShownAt.In(time.Local)
	}
	if got := mustDecode(t, []byte(legacyRecordJSON)); !reflect.DeepEqual(got, want) {
		t.Fatalf("legacy record decodes to\n%#v\nwant\n%#v", got, want)
	}
	// Fields the JSON form never had are ignored like any unknown field:
	// a JSON record reads as collected.
	withExtra := strings.TrimSuffix(legacyRecordJSON, "}") + `,"uncollected":true,"collect_within":900000000000,"other":1}`
	if got := mustDecode(t, []byte(withExtra)); !reflect.DeepEqual(got, want) {
		t.Fatalf("legacy record with extra fields decodes to\n%#v\nwant\n%#v", got, want)
	}

	// Every JSON record decodes as json.Unmarshal decoded it.
	rng := rand.New(rand.NewPCG(5, 6))
	zones := testZones(t)
	for i := range 2000 {
		js, err := json.Marshal(legacyFrom(randomRecord(rng, zones)))
		if err != nil {
			t.Fatal(err)
		}
		var legacy legacyRecord
		if err := json.Unmarshal(js, &legacy); err != nil {
			t.Fatal(err)
		}
		want := legacy.record()
		if got := mustDecode(t, js); !reflect.DeepEqual(got, want) {
			t.Fatalf("record %d %s:\n got %#v\nwant %#v", i, js, got, want)
		}
	}

	s, w := newTestStore(t)
	put(t, s, "other", func(r *Record) { r.Status = Denied })
	writeRaw(t, s.Path(), want.Identity, []byte(legacyRecordJSON))
	if got, found := mustGet(t, s, want.Identity); !found || !reflect.DeepEqual(got, want) {
		t.Fatalf("Get = (%#v, %v), want\n%#v", got, found, want)
	}
	rec, err := s.Update(want.Identity, func(r *Record, found bool) (bool, error) {
		if !found || !reflect.DeepEqual(*r, want) {
			t.Errorf("Update's fn got (%#v, %v)", *r, found)
		}
		return true, nil
	})
	if err != nil || rec.Version != want.Version+1 {
		t.Fatalf("Update = (Version %d, %v), want Version %d", rec.Version, err, want.Version+1)
	}
	if raw := rawValue(t, s.Path(), want.Identity); len(raw) == 0 || raw[0] != recordFormat3 {
		t.Fatalf("rewritten record starts %q, want the binary form", raw[:min(len(raw), 8)])
	}
	want.Version++
	if got, found := mustGet(t, s, want.Identity); !found || !reflect.DeepEqual(got, want) {
		t.Fatalf("after the rewrite, Get = (%#v, %v), want\n%#v", got, found, want)
	}
	if ws := w.list(); len(ws) != 0 {
		t.Errorf("warnings: %v", ws)
	}
}

// legacyRecord has Record's fields up to CancelRequest, in Record's order,
// and converts to and from Record field by field.
func TestLegacyRecordHoldsRecordsOldFields(t *testing.T) {
	lt, rt := reflect.TypeFor[legacyRecord](), reflect.TypeFor[Record]()
	if lt.NumField() > rt.NumField() {
		t.Fatalf("legacyRecord has %d fields, Record %d", lt.NumField(), rt.NumField())
	}
	for i := range lt.NumField() {
		if lf, rf := lt.Field(i), rt.Field(i); lf.Name != rf.Name || lf.Type != rf.Type {
			t.Errorf("legacyRecord field %d is %s %s, Record's is %s %s", i, lf.Name, lf.Type, rf.Name, rf.Type)
		}
	}
	if last := lt.Field(lt.NumField() - 1).Name; last != "CancelRequest" {
		t.Errorf("legacyRecord ends with %s, want CancelRequest", last)
	}

	var l legacyRecord
	v := reflect.ValueOf(&l).Elem()
	at := time.Date(2025, 11, 22, 13, 19, 0, 123456789, time.UTC)
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("s" + lt.Field(i).Name)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(-100 - i))
		case reflect.Uint64:
			f.SetUint(uint64(100 + i))
		case reflect.Slice:
			f.SetBytes([]byte("b" + lt.Field(i).Name))
		case reflect.Struct:
			f.Set(reflect.ValueOf(at.Add(time.Duration(i) * time.Hour)))
		default:
			t.Fatalf("legacyRecord.%s is a %s, which this test does not know", lt.Field(i).Name, f.Kind())
		}
	}
	r := l.record()
	rv := reflect.ValueOf(r)
	for i := range rt.NumField() {
		f := rv.Field(i)
		if i >= lt.NumField() {
			if !f.IsZero() {
				t.Errorf("record() set Record.%s, which the JSON form did not have, to %v", rt.Field(i).Name, f)
			}
			continue
		}
		if !reflect.DeepEqual(f.Interface(), v.Field(i).Interface()) {
			t.Errorf("record() gives Record.%s = %v, want %v", rt.Field(i).Name, f, v.Field(i))
		}
	}
	r.Uncollected, r.CollectWithin = true, time.Minute
	if back := legacyFrom(r); !reflect.DeepEqual(back, l) {
		t.Errorf("legacyFrom(record()) lost a field:\n got %+v\nwant %+v", back, l)
	}
}

func rawValue(t *testing.T, path, id string) []byte {
	t.Helper()
	var v []byte
	err := New(path).view(func(b *bolt.Bucket) error {
		v = append([]byte(nil), b.Get([]byte(id))...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// corruptRecords are binary records that must not decode.
func corruptRecords(t testing.TB) map[string][]byte {
	good := mustEncode(t, Record{Identity: "id", Status: Approved, Deadline: time.Unix(1e9, 5).UTC(), Request: []byte("r")})
	withTime := withRequestedAt
	return map[string][]byte{
		"empty":                  {},
		"unknown format 0x00":    append([]byte{0}, good[1:]...),
		"unknown format 0x07":    append([]byte{7}, good[1:]...),
		"JSON array":             []byte(`[1]`),
		"leading space JSON":     []byte(` {}`),
		"format byte only":       {recordFormat1},
		"truncated":              good[:len(good)-1],
		"trailing byte":          append(append([]byte{}, good...), 0),
		"length past the end":    {recordFormat1, 200, 'i', 'd'},
		"huge length":            append([]byte{recordFormat1}, binary.AppendUvarint(nil, math.MaxUint64)...),
		"overlong varint":        append([]byte{recordFormat1}, bytes.Repeat([]byte{0x80}, 11)...),
		"huge Request length":    {recordFormat1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"unknown time tag":       withTime(3),
		"nanoseconds ≥ 1e9":      withTime(varint(timeUTC, 1e9, 1e9)...),
		"zero offset with tag 2": withTime(varint(timeOffset, 1e9, 0, 0)...),
		"offset of a day":        withTime(varint(timeOffset, 1e9, 0, 86400)...),
		"offset of minus a day":  withTime(varint(timeOffset, 1e9, 0, -86400)...),
		"year 10000":             withTime(varint(timeUTC, 253402300800, 0)...),
		"year -1":                withTime(varint(timeUTC, -62167219201, 0)...),
		"year 10000 in its zone": withTime(varint(timeOffset, 253402300800-1800, 0, 3600)...),
		"far past":               withTime(varint(timeUTC, math.MinInt64, 0)...),
		"far future":             withTime(varint(timeUTC, math.MaxInt64, 0)...),
		"zero time with tag 1":   withTime(varint(timeUTC, -62135596800, 0)...),
		"zero instant with zone": withTime(varint(timeOffset, -62135596800, 0, 3600)...),
		"time cut after its tag": withTime(timeUTC)[:12],
	}
}

// withRequestedAt returns a record with Identity "id" whose RequestedAt is
// the encoded time tm, all else zero.
func withRequestedAt(tm ...byte) []byte {
	b := []byte{recordFormat1, 2, 'i', 'd', 0, 0, 0, 0, 0, 0, 0}
	b = append(b, tm...)
	return append(b, timeZero, timeZero, timeZero, 0, 0, 0, 0, 0, 0)
}

// varint encodes a time: its tag, then Unix seconds, nanoseconds and, if
// given, the zone offset.
func varint(tag byte, sec, nsec int64, off ...int64) []byte {
	b := binary.AppendVarint([]byte{tag}, sec)
	b = binary.AppendUvarint(b, uint64(nsec))
	for _, o := range off {
		b = binary.AppendVarint(b, o)
	}
	return b
}

// A damaged record is ErrCorrupt, never a partial record; so is every cut
// short copy of a good one.
func TestDecodeRecordRejectsDamage(t *testing.T) {
	check := func(name string, v []byte) {
		t.Helper()
		r := Record{Title: "untouched"}
		err := decode(v, &r)
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: decode(%q) = %v, want ErrCorrupt", name, v, err)
		}
		if !reflect.DeepEqual(r, Record{Title: "untouched"}) {
			t.Errorf("%s: decode changed the record to %+v", name, r)
		}
	}
	// The template of the bad times decodes with good ones.
	for _, tm := range [][]byte{{timeZero}, varint(timeUTC, 1e9, 5), varint(timeOffset, 1e9, 5, -3600)} {
		if _, err := decodeRecord(withRequestedAt(tm...)); err != nil {
			t.Fatalf("a good time %q does not decode: %v", tm, err)
		}
	}
	for name, v := range corruptRecords(t) {
		check(name, v)
	}
	// An Attempt of 2^40 is an int only where int has 64 bits.
	big := binary.AppendVarint([]byte{recordFormat1, 2, 'i', 'd', 0, 0, 0, 0, 0}, 1<<40)
	big = append(big, 0, timeZero, timeZero, timeZero, timeZero, 0, 0, 0, 0, 0, 0)
	if strconv.IntSize == 32 {
		check("Attempt beyond int", big)
	} else if r, err := decodeRecord(big); err != nil || int64(r.Attempt) != 1<<40 {
		t.Errorf("Attempt 2^40 decodes to (%d, %v)", r.Attempt, err)
	}

	good := mustEncode(t, randomRecord(rand.New(rand.NewPCG(7, 8)), testZones(t)))
	for n := range len(good) {
		check("cut short", good[:n])
	}
}

// A length read from the record never makes decode allocate more than the
// record's size suggests. The bytes counted are those allocated under
// decodeRepeatedly's frame, by the heap profile: another goroutine's
// allocations, however many, never count.
func TestDecodeRecordAllocationIsBoundedByInput(t *testing.T) {
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1 // every allocation, from now on
	for _, v := range [][]byte{
		append([]byte{recordFormat1}, binary.AppendUvarint(nil, 1<<62)...),
		{recordFormat1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f},
		append(append([]byte{recordFormat1, 0, 0, 0}, binary.AppendUvarint(nil, 1<<40)...), make([]byte, 100)...),
	} {
		before := allocatedInDecodeRepeatedly(t, 0)
		if failed := decodeRepeatedly(v, 100); failed != 100 {
			t.Fatalf("decode(%q) succeeded", v)
		}
		if per := (allocatedInDecodeRepeatedly(t, before+markerSize) - before - markerSize) / 100; per > 1024 {
			t.Errorf("decode(%q) allocated %d bytes per call", v, per)
		}
	}
}

// markerSize is what decodeRepeatedly allocates itself, after its decodes:
// once the heap profile shows it, it shows them too.
const markerSize = 64 << 10

var marker []byte

// decodeRepeatedly decodes v n times and returns how many failed.
//
//go:noinline
func decodeRepeatedly(v []byte, n int) (failed int) {
	for range n {
		var r Record
		if decode(v, &r) != nil {
			failed++
		}
	}
	marker = make([]byte, markerSize)
	return failed
}

// allocatedInDecodeRepeatedly is how many bytes the heap profile has seen
// allocated under decodeRepeatedly, once it has seen at least atLeast: the
// profile shows an allocation only after a garbage collection or two.
func allocatedInDecodeRepeatedly(t *testing.T, atLeast int64) int64 {
	t.Helper()
	fn := runtime.FuncForPC(reflect.ValueOf(decodeRepeatedly).Pointer()).Name()
	var total int64
	for range 10 {
		runtime.GC()
		var recs []runtime.MemProfileRecord
		for n, ok := runtime.MemProfile(nil, true); !ok; {
			recs = make([]runtime.MemProfileRecord, n+100)
			n, ok = runtime.MemProfile(recs, true)
			recs = recs[:min(n, len(recs))]
		}
		total = 0
		for _, r := range recs {
			frames := runtime.CallersFrames(r.Stack())
			for f, more := frames.Next(); ; f, more = frames.Next() {
				if f.Function == fn {
					total += r.AllocBytes
					break
				}
				if !more {
					break
				}
			}
		}
		if total >= atLeast {
			return total
		}
	}
	t.Fatalf("the heap profile shows %d bytes allocated in decodeRepeatedly after 10 collections, want at least %d", total, atLeast)
	return 0
}

// A record with a time that the JSON form could not hold is refused, and
// nothing is written.
func TestUpdateRefusesTimeOutOfRange(t *testing.T) {
	s, _ := newTestStore(t)
	put(t, s, "id", func(r *Record) { r.Status = Shown })
	_, err := s.Update("id", func(r *Record, _ bool) (bool, error) {
		r.Status = Approved
		r.Deadline = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
		return true, nil
	})
	if !errors.Is(err, errRecordTime) {
		t.Fatalf("Update = %v, want errRecordTime", err)
	}
	if got, _ := mustGet(t, s, "id"); got.Status != Shown || got.Version != 1 {
		t.Errorf("the refused write changed the record to %+v", got)
	}
}

func BenchmarkDecodeRecord(b *testing.B) {
	rec := Record{
		Identity: strings.Repeat("3f", 32), ContentHash: strings.Repeat("9b", 32), Title: "Deploy",
		Request: []byte(`{"title":"Deploy","message":"Ship build 4711 to production?","ok_label":"Approve","cancel_label":"Cancel","icon":"question","scope":"/home/dev/project"}`),
		Status:  Approved, Reason: "clicked", Attempt: 1, HolderPID: 4242,
		RequestedAt: time.Now(), ShownAt: time.Now(), EndedAt: time.Now(), Deadline: time.Now(),
		Remember: time.Minute, MessageHash: strings.Repeat("5e", 32), CallerPID: 4241, CallerDir: "/home/dev/project", Version: 3,
	}
	js, _ := json.Marshal(legacyFrom(rec))
	for name, v := range map[string][]byte{"binary": mustEncode(b, rec), "json": js} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(v)))
			for b.Loop() {
				var r Record
				if err := decode(v, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A record written in format 1, before answers were collected, reads as
// collected, so it keeps the rules it was written under; format 2 keeps
// both collection fields, and refuses any other value of Uncollected; a
// format 2 record was asked by a dialog, and format 3 keeps the channel; a
// format 3 record is a confirmation, and format 4 keeps the answers.
func TestOlderRecordFormatsDecode(t *testing.T) {
	want := Record{Identity: "id", Status: Approved, EndedAt: time.Unix(1e9, 0).UTC(), Remember: time.Minute}
	// A record with nothing of format 4's is written in format 3, which
	// is format 2 followed by Channel and Origin (a length byte each, 0);
	// format 2 is format 1 followed by CollectWithin and Uncollected.
	older := func(v []byte, format byte, drop int) []byte {
		return append([]byte{format}, v[1:len(v)-drop]...)
	}
	v3 := mustEncode(t, want)
	if v3[0] != recordFormat3 {
		t.Fatalf("a confirmation's record is written in format %#x", v3[0])
	}
	v2 := older(v3, recordFormat2, 2)
	v1 := older(v2, recordFormat1, 2)
	if got := mustDecode(t, v1); !reflect.DeepEqual(got, want) || got.Uncollected {
		t.Fatalf("format 1 decodes to %#v, want %#v", got, want)
	}

	want.Uncollected, want.CollectWithin = true, 15*time.Minute
	v2 = older(mustEncode(t, want), recordFormat2, 2)
	if got := mustDecode(t, v2); !reflect.DeepEqual(got, want) {
		t.Fatalf("format 2 decodes to %#v, want %#v", got, want)
	}
	bad := append([]byte{}, v2...)
	bad[len(bad)-1] = 2
	var r Record
	if err := decode(bad, &r); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Uncollected byte 2 decodes with %v, want ErrCorrupt", err)
	}
	// A format 1 record carrying format 2's fields has bytes after its end.
	if err := decode(append([]byte{recordFormat1}, v2[1:]...), &r); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("format 1 with trailing fields decodes with %v, want ErrCorrupt", err)
	}
	// So does a format 2 record carrying format 3's.
	want.Channel, want.Origin = "elicitation", "deploy.sh in ~/src/app"
	v3 = mustEncode(t, want)
	if got := mustDecode(t, v3); !reflect.DeepEqual(got, want) {
		t.Fatalf("format 3 decodes to %#v, want %#v", got, want)
	}
	if err := decode(append([]byte{recordFormat2}, v3[1:]...), &r); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("format 2 with trailing fields decodes with %v, want ErrCorrupt", err)
	}
	// Format 4 is format 3 followed by Kind, Multiple, the Answers, Typed
	// and ApprovedFor; a format 3 record carrying them has bytes after its
	// end. A format 4 record without them still reads.
	if got := mustDecode(t, append(append([]byte{recordFormat4}, v3[1:]...), 0, 0, 0, 0, 0)); !reflect.DeepEqual(got, want) {
		t.Fatalf("format 4 without answers decodes to %#v, want %#v", got, want)
	}
	want.Kind, want.Multiple, want.Answers, want.Typed, want.ApprovedFor = "choose", true, []string{"staging", ""}, true, time.Hour
	v4 := mustEncode(t, want)
	if v4[0] != recordFormat4 {
		t.Fatalf("a choice's record is written in format %#x", v4[0])
	}
	if got := mustDecode(t, v4); !reflect.DeepEqual(got, want) {
		t.Fatalf("format 4 decodes to %#v, want %#v", got, want)
	}
	if err := decode(append([]byte{recordFormat3}, v4[1:]...), &r); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("format 3 with trailing fields decodes with %v, want ErrCorrupt", err)
	}
	// A count of answers beyond the bytes left, or beyond any question's,
	// is damage, not an allocation. (v3 is followed by: Kind 0, Multiple 0,
	// the count, Typed 0, ApprovedFor 0.)
	head := append([]byte{recordFormat4}, v3[1:]...)
	for _, count := range [][]byte{{0xff, 0xff, 0xff, 0xff, 0x0f}, {65}} {
		v := append(append(append(append([]byte{}, head...), 0, 0), count...), bytes.Repeat([]byte{0}, 70)...)
		if err := decode(v, &r); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("an answer count of %x decodes with %v, want ErrCorrupt", count, err)
		}
	}
	one := append(append([]byte{}, head...), 0, 0, 1, 0, 0, 0)
	if got := mustDecode(t, one); !reflect.DeepEqual(got.Answers, []string{""}) {
		t.Fatalf("one empty answer decodes as %q", got.Answers)
	}
	// Format 5 is format 4 followed by Phone, AnsweredBy, Note and
	// EndsWithCaller; a format 4 record carrying them has bytes after its
	// end.
	want.Phone, want.AnsweredBy, want.Note, want.EndsWithCaller = "also", "phone", "the phone was not asked", true
	v5 := mustEncode(t, want)
	if v5[0] != recordFormat5 {
		t.Fatalf("a record asked on the phone is written in format %#x", v5[0])
	}
	if got := mustDecode(t, v5); !reflect.DeepEqual(got, want) {
		t.Fatalf("format 5 decodes to %#v, want %#v", got, want)
	}
	if err := decode(append([]byte{recordFormat4}, v5[1:]...), &r); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("format 4 with trailing fields decodes with %v, want ErrCorrupt", err)
	}
	// A format 5 record without them still reads.
	want.Phone, want.AnsweredBy, want.Note, want.EndsWithCaller = "", "", "", false
	if got := mustDecode(t, append(append([]byte{recordFormat5}, v4[1:]...), 0, 0, 0, 0)); !reflect.DeepEqual(got, want) {
		t.Fatalf("format 5 without the phone decodes to %#v, want %#v", got, want)
	}
	// Format 6 is format 5 followed by the Approvers, Approvals and the
	// Votes; a format 5 record carrying them has bytes after its end, and
	// a record with none of them is written in format 5, which versions
	// before named approvers read.
	want.Phone, want.AnsweredBy, want.Note, want.EndsWithCaller = "also", "phone", "", false
	if v := mustEncode(t, want); v[0] != recordFormat5 {
		t.Fatalf("a request of one person on the phone is written in format %#x", v[0])
	}
	want.Approvers, want.Approvals = []string{"Alice", "Bob", "Carol"}, 2
	want.Votes = []Vote{{By: "Alice", Approved: true, At: time.Unix(1e9, 5).UTC()}, {By: "Carol", For: time.Hour, At: time.Unix(1e9+1, 0).In(time.FixedZone("", 3600))}}
	v6 := mustEncode(t, want)
	if v6[0] != recordFormat6 {
		t.Fatalf("a request of several approvers is written in format %#x", v6[0])
	}
	if got := mustDecode(t, v6); !sameRecord(got, want) || !got.Votes[1].At.Equal(want.Votes[1].At) {
		t.Fatalf("format 6 decodes to %#v, want %#v", got, want)
	}
	if err := decode(append([]byte{recordFormat5}, v6[1:]...), &r); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("format 5 with trailing fields decodes with %v, want ErrCorrupt", err)
	}
	// Counts of approvers or votes beyond any request's, or beyond the
	// bytes left, are damage. (v5 is followed by: the count of approvers,
	// Approvals, the count of votes.)
	v5 = mustEncode(t, Record{Identity: "id", Phone: "only"})
	head6 := append([]byte{recordFormat6}, v5[1:]...)
	for _, tail := range [][]byte{{65}, {0xff, 0xff, 0xff, 0xff, 0x0f}, {0, 2, 65}, {0, 2, 3}} {
		v := append(append(append([]byte{}, head6...), tail...), bytes.Repeat([]byte{0}, 70)...)
		if err := decode(v, &r); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("format 6 ending %x decodes with %v, want ErrCorrupt", tail, err)
		}
	}
	if got := mustDecode(t, append(append([]byte{}, head6...), 0, 0, 0)); got.Approvers != nil || got.Votes != nil || got.Phone != "only" {
		t.Fatalf("format 6 without approvers decodes to %#v", got)
	}
}

func TestCollectableAt(t *testing.T) {
	now := time.Unix(2e9, 0).UTC()
	answered := Record{Status: Approved, EndedAt: now.Add(-10 * time.Minute), Uncollected: true}
	cases := []struct {
		name   string
		r      Record
		within time.Duration
		want   bool
	}{
		{"an uncollected answer inside the bound", answered, 15 * time.Minute, true},
		{"an uncollected answer exactly at the bound", answered, 10 * time.Minute, true},
		{"an uncollected answer past the bound", answered, 10*time.Minute - 1, false},
		{"a collected answer", func() Record { r := answered; r.Uncollected = false; return r }(), time.Hour, false},
		{"a failure to render is no answer", func() Record { r := answered; r.Status = Failed; return r }(), time.Hour, false},
		{"a withdrawn request is no answer", func() Record { r := answered; r.Status = Withdrawn; return r }(), time.Hour, false},
		{"an open request", func() Record { r := answered; r.Status = Shown; return r }(), time.Hour, false},
		{"no end time", func() Record { r := answered; r.EndedAt = time.Time{}; return r }(), time.Hour, false},
	}
	for _, c := range cases {
		if got := c.r.CollectableAt(now, c.within); got != c.want {
			t.Errorf("%s: CollectableAt = %v, want %v", c.name, got, c.want)
		}
	}
}
