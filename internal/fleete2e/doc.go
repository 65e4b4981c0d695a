// Package fleete2e holds the end-to-end tests of a fleet: machines that
// share one phone setup, each with its own store, locks and holders,
// through the real binary, against the real ntfy server (build tag e2e).
// They run as a package of their own, beside the command line's tests.
package fleete2e
