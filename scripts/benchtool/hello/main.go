// Command hello is the reference binary of scripts/bench: the cheapest Go
// process that writes a line, what a remembered answer is measured against.
package main

import "os"

func main() { os.Stdout.WriteString("hello, world\n") }
