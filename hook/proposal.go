package hook

import (
	"fmt"
	"strings"
)

// proposal is what a tool call will do, in the words a person can judge in
// two seconds: a question, its subject (the command, the path, the URL),
// and notes. Every text is raw from the payload; message escapes and
// shortens it.
type proposal struct {
	question string
	subject  string
	notes    []string
}

// propose describes p's tool call. A known tool whose input lacks the
// field it is judged by (a Bash call without a command) is described as an
// unknown tool would be: with its whole input.
func (p Payload) propose() proposal {
	if pr, ok := p.proposeKnown(); ok {
		return pr
	}
	if server, tool, ok := mcpTool(p.ToolName); ok {
		return proposal{question: fmt.Sprintf(msgUseMCPTool, capLine(tool, maxNameBytes), capLine(server, maxNameBytes)), subject: p.canonical}
	}
	return proposal{question: fmt.Sprintf(msgUseTool, capLine(p.ToolName, maxNameBytes)), subject: p.canonical}
}

// maxNameBytes caps a tool's or server's name in the question.
const maxNameBytes = 200

// proposeKnown describes the tools whose input has a documented shape.
func (p Payload) proposeKnown() (proposal, bool) {
	switch p.ToolName {
	case "Bash", "PowerShell", cursorShell, "run_shell_command":
		return p.shell()
	case "Write", "write_file":
		return p.file(msgWriteFile, p.contentNote)
	case "Edit", "replace":
		return p.file(msgEditFile, nil)
	case "Read", "read_file":
		return p.file(msgReadFile, nil)
	case "google_web_search":
		return p.field(msgSearchWeb, "query")
	case "apply_patch":
		return p.patch()
	case "WebFetch":
		return p.field(msgFetchURL, "url")
	case "WebSearch":
		return p.field(msgSearchWeb, "query")
	}
	return proposal{}, false
}

// shell is a command run by Bash or PowerShell (Claude Code), Bash
// (Codex), run_shell_command (Gemini CLI) or Cursor's shell, with the
// description the agent gave it.
func (p Payload) shell() (proposal, bool) {
	pr, ok := p.field(msgRunCommand, "command")
	if d, has := p.str("description"); ok && has {
		pr.notes = append(pr.notes, fmt.Sprintf(msgAgentSays, p.Host.Agent, capLine(d, maxSaidBytes)))
	}
	return pr, ok
}

// file is a tool that acts on file_path, with an optional note about it.
func (p Payload) file(question string, note func() (string, bool)) (proposal, bool) {
	pr, ok := p.field(question, "file_path")
	if ok && note != nil {
		if n, has := note(); has {
			pr.notes = append(pr.notes, n)
		}
	}
	return pr, ok
}

// contentNote says how much a Write writes.
func (p Payload) contentNote() (string, bool) {
	c, ok := p.input["content"].(string)
	return fmt.Sprintf(msgContentBytes, thousands(len(c))), ok
}

// field is question about the string input field name.
func (p Payload) field(question, name string) (proposal, bool) {
	s, ok := p.str(name)
	return proposal{question: question, subject: s}, ok
}

// patch is Codex's apply_patch: the patch is tool_input.command. The
// files it adds, updates, deletes or moves to say most; the patch text
// stands in when it names none.
func (p Payload) patch() (proposal, bool) {
	text, ok := p.str("command")
	if !ok {
		return proposal{}, false
	}
	pr := proposal{question: msgApplyPatch, subject: text}
	if files := patchFiles(text); len(files) > 0 {
		pr.subject = strings.Join(files, "\n")
		pr.notes = []string{fmt.Sprintf(msgPatchBytes, thousands(len(text)))}
	}
	return pr, true
}

// patchFileMarks start the lines of an apply_patch patch that name a file.
var patchFileMarks = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "}

// patchFiles returns the lines of patch that name a file, without their
// leading "*** ": "Update File: src/app.py".
func patchFiles(patch string) []string {
	var files []string
	for line := range strings.SplitSeq(patch, "\n") {
		line = strings.TrimSuffix(line, "\r")
		for _, mark := range patchFileMarks {
			if strings.HasPrefix(line, mark) {
				files = append(files, strings.TrimPrefix(line, "*** "))
			}
		}
	}
	return files
}

// mcpTool splits an MCP tool's name, mcp__SERVER__TOOL, into its server
// and tool. A plugin's server keeps its plugin_ prefix.
func mcpTool(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok && server != "" && tool != ""
}
