//go:build e2e && unix

package e2e

import "encoding/json"

// DoctorJSON runs ask-confirm doctor --json and decodes its report.
func DoctorJSON(h *Harness) (Outcome, map[string]any) {
	h.T.Helper()
	o := h.Run("doctor", "--json")
	var rep map[string]any
	if err := json.Unmarshal([]byte(o.Stdout), &rep); err != nil {
		h.T.Fatalf("stdout is not one JSON object: %v\n%s\nstderr: %s", err, o.Stdout, o.Stderr)
	}
	if code, _ := rep["exit_code"].(float64); int(code) != o.Code {
		h.T.Errorf("exit_code %v in the report, but the process exited %d", rep["exit_code"], o.Code)
	}
	return o, rep
}
