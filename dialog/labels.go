package dialog

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// A button does what it reads. A person answers with the button whose word
// says what they mean, often before reading the question twice; a label
// that says the opposite of what its button does turns a "no" into a yes.
// Before, a caller could label the approving button Deny and the refusing
// one Approve: two labels that differ, which was all that was checked, and
// a tap on Deny approved (issue 42). So the button that approves never
// reads as a refusal, and the button that refuses never reads as an
// approval.
//
// What a label reads as is found word by word, after SeenAs and lower
// case, so that neither "DENY" nor a "Dеny" with a Cyrillic "е" passes
// for another word. The words are the ones dialogs answer with, in English,
// German, French and Spanish: a small list, which catches the labels a
// caller writes by mistake and the look-alikes of them, not every way of
// saying no. Verbs of action ("Delete", "Kill job", "Stop server") are
// not in it: they say what the button does.

// refusals are the words that say no wherever they stand in a label, and
// make an approval after them a refusal too: "Don't allow" refuses. Any
// word ending in "n't" is one as well.
var refusals = []string{
	"not", "never", "nope", "nah", "nay", "dont",
	"deny", "denied", "reject", "rejected", "refuse", "refused", "decline", "declined",
	"disallow", "disallowed", "forbid", "forbidden", "veto", "vetoed",
	"nein", "nicht", "nie", "niemals", "ablehnen", "abgelehnt", "verweigern", "verbieten",
	"pas", "jamais", "refuser", "rejeter", "interdire",
	"nunca", "jamás", "rechazar", "denegar", "negar", "rehusar",
}

// noes say no as a label's first word or its last ("No", "No thanks",
// "Run? No", "Keine Änderung"), fillers and approvals aside; between two
// words they say what a button does without ("Deploy with no downtime").
// Wherever they stand, they make an approval after them a refusal. Joined
// to the next word by a hyphen they are a prefix: "Non-blocking deploy"
// approves.
var noes = []string{"no", "non", "kein", "keine"}

// approvals are the words that say yes.
var approvals = []string{
	"yes", "yeah", "yep", "ok", "okay", "sure",
	"approve", "approved", "allow", "allowed", "accept", "accepted", "confirm", "confirmed",
	"agree", "agreed", "permit", "permitted", "grant", "granted",
	"authorize", "authorized", "authorise", "authorised", "proceed", "continue",
	"ja", "erlauben", "zulassen", "genehmigen", "bestätigen", "akzeptieren", "zustimmen", "fortfahren",
	"oui", "autoriser", "accepter", "confirmer", "approuver", "permettre", "continuer",
	"sí", "permitir", "aceptar", "confirmar", "aprobar", "autorizar", "continuar",
}

// stops are the words every toolkit names the refusing button with, which
// are also what a question may ask to do: "Cancel your subscription?" is
// approved by "Cancel subscription". Such a word refuses when it stands
// alone on the approving button, or with nothing but fillers and
// approvals ("Cancel", "Stop!", "Yes, abort it"): that is the label of
// the other button in every dialog a person has answered. With what it
// acts on ("Stop server", "Abort build") it is an action, as "Delete" is.
var stops = []string{"cancel", "abort", "stop", "abbrechen", "annuler", "cancelar"}

// fillers are the words that name nothing a stop could act on but the
// question itself.
var fillers = []string{"it", "this", "that", "the", "now", "please", "all", "everything", "anyway", "here",
	"request", "operation", "action"}

// The kinds of word the labels are read by.
const (
	wordRefusal = iota + 1
	wordNo
	wordApproval
	wordStop
	wordFiller
)

// vocabularyWord is a word of the lists above as a label's word reads
// (its key, foldWord's), the kind of the word, and its spelling in the
// list, for the error that names it.
type vocabularyWord struct {
	key  string
	kind int
	word string
}

// lookUp returns what the word k (foldWord's) is, if it is any: a word of
// vocabularyTable, which holds each word of the lists as it reads in
// lower case, capitals and title case, or a word ending in "n't". The
// table is written from the lists by go test ./dialog -run
// TestVocabularyTableIsTheLists -update-labels, which checks it too:
// reading the lists through SeenAs would cost every run of ask-confirm
// 5 ms.
func lookUp(k string) (vocabularyWord, bool) {
	if i, found := slices.BinarySearchFunc(vocabularyTable[:], k, func(v vocabularyWord, k string) int {
		return strings.Compare(v.key, k)
	}); found {
		return vocabularyTable[i], true
	}
	if strings.HasSuffix(k, "n't") {
		return vocabularyWord{k, wordRefusal, k}, true
	}
	return vocabularyWord{}, false
}

// readings returns the words of label, each as foldWord reads it, in each
// order of SeenAs and lower case: in lower case first, an "I" is an "i"
// ("CONFIRM" is "confirm"), where SeenAs reads it as an "l"; seen first, a
// Greek capital Nu is an "N" ("DEΝY" is "deny"), where lower case makes it
// a "ν", which reads as a "v". Each reading of several words comes with
// those words run together as one too, so that "D e n y" and "De-ny" read as "deny".
func readings(label string) [][]string {
	var out [][]string
	for _, s := range []string{label, strings.ToLower(label)} {
		var ws []string
		for _, w := range labelWords(SeenAs(s)) {
			ws = append(ws, foldWord(w))
		}
		out = append(out, ws)
		if len(ws) > 1 {
			out = append(out, []string{foldWord(strings.Join(ws, ""))})
		}
	}
	return out
}

// labelWords splits s into its words: runs of letters, marks, digits
// ("N0" reads as "NO") and apostrophes ("don't"), without an apostrophe
// at either end. A hyphen parts words too ("Do-not-run" is three), but a
// no before one is a prefix, not a word of its own ("non-blocking" is
// "blocking").
func labelWords(s string) []string {
	var ws []string
	for _, f := range strings.FieldsFunc(s, func(c rune) bool {
		return !unicode.In(c, unicode.L, unicode.M, unicode.N) && c != '\'' && c != '-'
	}) {
		parts := strings.Split(f, "-")
		for i, w := range parts {
			if w = strings.Trim(w, "'"); w == "" {
				continue
			}
			if i < len(parts)-1 && parts[i+1] != "" && slices.Contains(noes, foldWord(w)) {
				continue
			}
			ws = append(ws, w)
		}
	}
	return ws
}

// foldWord is w in lower case read through SeenAs, again until that
// changes nothing: lower case can make a letter SeenAs maps anew, and
// SeenAs can make a capital ("0" reads as "O"). Lower case, not Unicode's
// full case folding (golang.org/x/text/cases), which would tell apart no
// word of the lists and adds 0.3 MB to ask-confirm.
func foldWord(w string) string {
	for range 4 {
		f := SeenAs(strings.ToLower(w))
		if f == w {
			break
		}
		w = f
	}
	return w
}

// refusalIn returns the word by which label, on the button that approves,
// reads as a refusal, and whether that word is a stop that stands alone;
// "" when it reads as none.
func refusalIn(label string) (word string, alone bool) {
	for _, ws := range readings(label) {
		var acts []vocabularyWord
		for i, w := range ws {
			v, _ := lookUp(w)
			switch {
			case v.kind == wordRefusal, v.kind == wordNo && (len(acts) == 0 || !slices.ContainsFunc(ws[i+1:], acting)):
				return v.word, false
			case acting(w):
				acts = append(acts, v)
			}
		}
		if len(acts) == 1 && acts[0].kind == wordStop {
			return acts[0].word, true
		}
	}
	return "", false
}

// acting reports whether the word k (foldWord's) may name what a button
// does: any word but a filler or an approval.
func acting(k string) bool {
	v, _ := lookUp(k)
	return v.kind != wordFiller && v.kind != wordApproval
}

// approvalIn returns the word by which label, on the button that
// refuses, reads as an approval, or "": an approval that no refusal comes
// before ("Not OK" and "No, continue" refuse).
func approvalIn(label string) string {
	for _, ws := range readings(label) {
		for _, w := range ws {
			v, _ := lookUp(w)
			if v.kind == wordRefusal || v.kind == wordNo {
				break
			}
			if v.kind == wordApproval {
				return v.word
			}
		}
	}
	return ""
}

// validateLabels refuses buttons that do not do what they read: a label
// holding a character no font draws as itself (checkLabelCharacters), an
// approving button (OK, and Approve for) that reads as a refusal, and a
// refusing button that reads as an approval. The look of each label
// alone is Validate's; this is what the words mean.
func (r Request) validateLabels() error {
	for _, b := range []struct{ field, label string }{{"--ok-label", r.OKLabel}, {"--cancel-label", r.CancelLabel}} {
		if err := checkLabelCharacters(b.field, b.label); err != nil {
			return err
		}
	}
	approving := []struct{ field, label string }{{"--ok-label", r.OKLabel}}
	if r.Kind == Confirm && r.ApproveFor > 0 {
		approving = append(approving, struct{ field, label string }{"--approve-for", r.ApproveForLabel()})
	}
	for _, b := range approving {
		switch word, alone := refusalIn(b.label); {
		case alone:
			return &InvalidError{b.field, fmt.Sprintf(msgStopAlone, b.label, word)}
		case word != "":
			return &InvalidError{b.field, fmt.Sprintf(msgReadsAsRefusal, b.label, word)}
		}
	}
	if word := approvalIn(r.CancelLabel); word != "" {
		return &InvalidError{"--cancel-label", fmt.Sprintf(msgReadsAsApproval, r.CancelLabel, word)}
	}
	return nil
}

// Why a label is refused.
const (
	msgReadsAsRefusal  = `%q reads as %q, a refusal, but this button approves: a person who means no would tap it and approve; name what approving does, such as "Run" or "Delete branch"`
	msgStopAlone       = `%q reads as %q alone, what the button that refuses says, but this button approves; name what it acts on, such as "Cancel subscription" or "Stop server"`
	msgReadsAsApproval = `%q reads as %q, an approval, but this button refuses: a person who means yes would tap it and refuse; name what refusing does, such as "Cancel" or "Keep the data"`
)

// checkLabelCharacters refuses, in a label a person tells from the others
// by its look, a character no font can be trusted to draw as itself: a
// private-use character (U+E000..U+F8FF, planes 15 and 16), which each
// font fills its own way, with an icon, a look-alike of a letter or
// nothing; and a code point Unicode does not assign (as far as Go's
// tables know, unicode.Version; the noncharacters among them), which
// fonts draw as a box or not at all, and a later Unicode may give any
// glyph. SeenAs cannot compare what nothing says how to draw.
func checkLabelCharacters(field, s string) error {
	for i, c := range s {
		switch {
		case unicode.Is(unicode.Co, c):
			return &InvalidError{field, fmt.Sprintf("contains the private-use character U+%04X at offset %d, which each font draws its own way, or not at all", c, i)}
		case !assigned(c):
			return &InvalidError{field, fmt.Sprintf("contains U+%04X at offset %d, which Unicode %s does not assign: no font can be trusted to draw it", c, i, unicode.Version)}
		}
	}
	return nil
}

// assigned reports whether Unicode gives c a general category other than
// Cn, unassigned. unicode.C cannot tell: Go's table of it holds the
// unassigned code points too.
func assigned(c rune) bool {
	return unicode.In(c, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z,
		unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}
