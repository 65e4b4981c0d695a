//go:build ignore

// bcryptprimitives writes a bcryptprimitives.dll for Wine to the file named
// by its argument. Go's Windows runtime needs ProcessPrng from that DLL,
// which Wine 8 (Debian 12) does not have. The DLL written here holds no
// code: its one export forwards ProcessPrng to advapi32's RtlGenRandom
// (SystemFunction036), which fills a buffer with random bytes the same way
// and returns nonzero on success. scripts/wine-test puts it in the Wine
// prefix's system32, where the runtime looks for it.
//
//	go run scripts/bcryptprimitives.go PATH
package main

import (
	"encoding/binary"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run scripts/bcryptprimitives.go PATH")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], dll(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "bcryptprimitives:", err)
		os.Exit(1)
	}
}

// dll lays out a PE32+ image for x86-64: the headers in the first 512 bytes
// of the file, then one section, mapped at RVA 0x1000, holding nothing but
// the export directory.
func dll() []byte {
	const (
		fileAlign    = 0x200
		sectionAlign = 0x1000
		sectionRVA   = 0x1000
		peOffset     = 0x40
		coffOffset   = peOffset + 4
		optOffset    = coffOffset + 20
		optSize      = 240 // PE32+ optional header with 16 data directories
		sectOffset   = optOffset + optSize
	)
	img := make([]byte, 2*fileAlign)
	le := binary.LittleEndian

	// DOS header: the magic, and where the PE header starts.
	copy(img, "MZ")
	le.PutUint32(img[0x3c:], peOffset)
	copy(img[peOffset:], "PE\x00\x00")

	// COFF file header.
	coff := img[coffOffset:]
	le.PutUint16(coff[0:], 0x8664) // IMAGE_FILE_MACHINE_AMD64
	le.PutUint16(coff[2:], 1)      // one section
	le.PutUint16(coff[16:], optSize)
	le.PutUint16(coff[18:], 0x2022) // EXECUTABLE_IMAGE | LARGE_ADDRESS_AWARE | DLL

	// The section: the export directory, then the names it points to.
	sec := img[fileAlign:]
	at := 40 // after the 40-byte IMAGE_EXPORT_DIRECTORY
	functions, names, ordinals := at, at+4, at+8
	at += 10
	str := func(s string) int {
		start := at
		at += copy(sec[at:], s) + 1 // NUL from make
		return start
	}
	dllName := str("bcryptprimitives.dll")
	funcName := str("ProcessPrng")
	// An export whose address lies inside the export directory is a
	// forwarder: the loader resolves it as this "dll.function" instead.
	forward := str("advapi32.SystemFunction036")
	size := at

	le.PutUint32(sec[12:], uint32(sectionRVA+dllName))
	le.PutUint32(sec[16:], 1) // ordinal base
	le.PutUint32(sec[20:], 1) // number of functions
	le.PutUint32(sec[24:], 1) // number of names
	le.PutUint32(sec[28:], uint32(sectionRVA+functions))
	le.PutUint32(sec[32:], uint32(sectionRVA+names))
	le.PutUint32(sec[36:], uint32(sectionRVA+ordinals))
	le.PutUint32(sec[functions:], uint32(sectionRVA+forward))
	le.PutUint32(sec[names:], uint32(sectionRVA+funcName))
	le.PutUint16(sec[ordinals:], 0)

	// PE32+ optional header.
	opt := img[optOffset:]
	le.PutUint16(opt[0:], 0x20b)           // PE32+
	le.PutUint64(opt[24:], 0x180000000)    // image base
	le.PutUint32(opt[32:], sectionAlign)   // section alignment
	le.PutUint32(opt[36:], fileAlign)      // file alignment
	le.PutUint16(opt[40:], 6)              // OS version 6.0
	le.PutUint16(opt[48:], 6)              // subsystem version 6.0
	le.PutUint32(opt[56:], 2*sectionAlign) // size of image
	le.PutUint32(opt[60:], fileAlign)      // size of headers
	le.PutUint16(opt[68:], 2)              // IMAGE_SUBSYSTEM_WINDOWS_GUI
	le.PutUint16(opt[70:], 0x160)          // HIGH_ENTROPY_VA | DYNAMIC_BASE | NX_COMPAT
	le.PutUint64(opt[72:], 0x100000)       // stack reserve
	le.PutUint64(opt[80:], 0x1000)         // stack commit
	le.PutUint64(opt[88:], 0x100000)       // heap reserve
	le.PutUint64(opt[96:], 0x1000)         // heap commit
	le.PutUint32(opt[108:], 16)            // number of data directories
	le.PutUint32(opt[112:], sectionRVA)    // export directory RVA
	le.PutUint32(opt[116:], uint32(size))  // and size

	// Section header.
	sh := img[sectOffset:]
	copy(sh, ".edata")
	le.PutUint32(sh[8:], uint32(size)) // virtual size
	le.PutUint32(sh[12:], sectionRVA)  // virtual address
	le.PutUint32(sh[16:], fileAlign)   // size of raw data
	le.PutUint32(sh[20:], fileAlign)   // pointer to raw data
	le.PutUint32(sh[36:], 0x40000040)  // INITIALIZED_DATA | MEM_READ
	return img
}
