package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newStdio is the SDK's stdio transport behind a filter that answers a line
// the SDK cannot read with a JSON-RPC error, where the SDK would end the
// session (modelcontextprotocol/go-sdk#1209): one bad line from a client
// must not take down the server and drop the calls in flight. Lines that
// are JSON-RPC messages reach the SDK byte for byte.
func newStdio(in io.Reader, out io.Writer) mcp.Transport {
	w := &lineWriter{w: out}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(filterLines(in, pw, w)) }()
	return &mcp.IOTransport{Reader: pr, Writer: w}
}

// lineWriter writes whole lines to stdout, one writer at a time: the SDK
// writes each message in one call, and so does filterLines.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves stdout open: it is the process's, not the session's.
func (l *lineWriter) Close() error { return nil }

// filterLines copies the JSON-RPC messages among in's lines to sdk and
// answers every other line on out. It returns when in ends or sdk stops
// reading.
func filterLines(in io.Reader, sdk io.Writer, out io.Writer) error {
	r := bufio.NewReader(in)
	for {
		line, tooLong, err := readLine(r, mcp.DefaultMaxLineLength)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if reply := refuseLine(line, tooLong); reply != nil {
				if _, werr := out.Write(reply); werr != nil {
					return werr
				}
			} else if _, werr := sdk.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// readLine returns the next line of r without its newline. A line longer
// than max is read to its end and dropped, and reported as tooLong.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > max {
				line, tooLong = nil, true
			}
		}
		if err != bufio.ErrBufferFull {
			return bytes.TrimRight(line, "\r\n"), tooLong, err
		}
	}
}

// refuseLine returns the JSON-RPC error that answers line, or nil when line
// is one JSON-RPC message, for the SDK.
func refuseLine(line []byte, tooLong bool) []byte {
	var id json.RawMessage // null unless the line names its request
	code, msg := jsonrpc.CodeInvalidRequest, ""
	switch trimmed := bytes.TrimSpace(line); {
	case tooLong:
		msg = fmt.Sprintf("message longer than %d bytes", mcp.DefaultMaxLineLength)
	case !json.Valid(trimmed):
		code, msg = jsonrpc.CodeParseError, "parse error: the line is not one JSON value"
	case trimmed[0] == '[':
		// MCP dropped batches in 2025-06-18, and the SDK ends the session
		// on one sent after negotiating that version or a later one.
		msg = "invalid request: JSON-RPC batches are not supported; send one message per line"
	default:
		if _, err := jsonrpc.DecodeMessage(trimmed); err != nil {
			msg = "invalid request: " + err.Error()
			var probe struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(trimmed, &probe) == nil && validID(probe.ID) {
				id = probe.ID
			}
		}
	}
	if msg == "" {
		return nil
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	reply, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: msg}})
	return append(reply, '\n')
}

// validID reports whether raw is a JSON-RPC request id: a string or a
// number.
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}
