//go:build e2e && unix && !race

package e2e

// raceBuild is true when this test binary uses the race detector.
const raceBuild = false
