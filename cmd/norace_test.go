//go:build e2e && !race

package cmd

// raceBuild is true when this test binary uses the race detector.
const raceBuild = false
