// Command modsbom writes the CycloneDX SBOM of a module, as
// cyclonedx-gomod mod does, naming the module at the version its programs
// are stamped with. GoReleaser runs it for each archive and package
// (.goreleaser.yaml's sboms), with the target's GOOS and GOARCH:
//
//	modsbom -version v1.2.3 [-cache DIR] -output FILE MODULE_DIR
//
// cyclonedx-gomod, which it runs from PATH, reads the module's version
// from git: the tag at HEAD, or else a pseudo-version
// (v0.0.0-20260101120000-0123456789ab), which no program of a snapshot
// says. The SBOM is written with the standard library (-std, at the Go
// version that builds it), without the serial number and time that would
// make two builds of a commit differ. With -cache, an SBOM already written
// there for the same GOOS and GOARCH is copied, not made again: a linux
// archive's and its packages' are the same document.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

func main() {
	version := flag.String("version", "", "the version the programs say, like v1.2.3")
	output := flag.String("output", "", "the SBOM's file")
	cache := flag.String("cache", "", "a directory of SBOMs already made in this run, by target")
	flag.Parse()
	if *version == "" || *output == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: modsbom -version VERSION -output FILE MODULE_DIR")
		os.Exit(2)
	}
	if err := cached(*cache, *version, *output, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "modsbom: error:", err)
		os.Exit(1)
	}
}

// cached writes the SBOM from the cache, or makes it and keeps a copy
// there.
func cached(cache, version, output, dir string) error {
	if cache == "" {
		return run(version, output, dir)
	}
	key := filepath.Join(cache, fmt.Sprintf("%s_%s_%s_cgo%s.json", os.Getenv("GOOS"), os.Getenv("GOARCH"), version, os.Getenv("CGO_ENABLED")))
	if doc, err := os.ReadFile(key); err == nil {
		return os.WriteFile(output, doc, 0o644)
	}
	if err := run(version, output, dir); err != nil {
		return err
	}
	doc, err := os.ReadFile(output)
	if err != nil {
		return err
	}
	return os.WriteFile(key, doc, 0o644)
}

func run(version, output, dir string) error {
	cmd := exec.Command("cyclonedx-gomod", "mod", "-json", "-std", "-noserial", "-notimestamp", "-output", "-", dir)
	cmd.Stderr = os.Stderr
	doc, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("cyclonedx-gomod mod: %w", err)
	}
	var bom struct {
		Metadata struct {
			Component struct{ Version string }
		}
	}
	if err := json.Unmarshal(doc, &bom); err != nil {
		return fmt.Errorf("reading cyclonedx-gomod's SBOM: %w", err)
	}
	// The version appears as the component's version, in its package URL
	// and its bom-ref (pkg:golang/MODULE@VERSION?...), and as the
	// dependency graph's reference to it: a string no other module's
	// version can hold, since it names this module's commit.
	was := bom.Metadata.Component.Version
	if was == "" {
		return fmt.Errorf("cyclonedx-gomod names no version of the module in %s", dir)
	}
	doc = bytes.ReplaceAll(doc, []byte(`"`+was+`"`), []byte(`"`+version+`"`))
	doc = bytes.ReplaceAll(doc, []byte("@"+was+"?"), []byte("@"+version+"?"))
	return os.WriteFile(output, doc, 0o644)
}
