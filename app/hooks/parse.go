package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agatehq/agate/app/internal/strictjson"
)

// Parse reads one hook event of agent from data, the JSON the agent wrote
// on the hook's stdin. getenv looks up the hook's environment (the agents
// name the project folder there); nil means an empty environment.
//
// An event agate does not act on is KindOther, not an error. An error
// means the input could not be understood (bad JSON, a tool call with no
// tool): the caller must block the call, never let it through.
func Parse(agent string, data []byte, getenv func(string) string) (*Event, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var (
		ev  *Event
		err error
	)
	switch agent {
	case ClaudeCode:
		ev, err = parseClaude(data, getenv)
	case Gemini:
		ev, err = parseGemini(data, getenv)
	case Cursor:
		ev, err = parseCursor(data, getenv)
	case Codex:
		ev, err = parseCodex(data, getenv)
	default:
		return nil, fmt.Errorf("unknown agent %q (want %s)", agent, strings.Join(Agents(), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("read the %s hook input: %w", agent, err)
	}
	ev.Agent = agent
	return ev, nil
}

// decodeInput decodes a hook's JSON input into v, refusing anything but
// one object.
func decodeInput(data []byte, v any) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return errors.New("no input")
	}
	if data[0] != '{' {
		return errors.New("the input is not a JSON object")
	}
	if err := json.Unmarshal(data, v); err != nil {
		return positionErr(data, err)
	}
	if err := strictjson.Check(data); err != nil {
		// Two members of one name mean two things at once: the agent may
		// act on the other one.
		return fmt.Errorf("the input is refused: %w", err)
	}
	return nil
}

// decodeArgs decodes a tool_input object. Absent or null is no
// arguments; anything but an object is an error. Numbers stay
// json.Number, so large integers keep every digit.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || isNull(raw) {
		return map[string]any{}, nil
	}
	var args map[string]any
	if err := (strictjson.Options{UseNumber: true}).Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("tool_input: %w", err)
	}
	if args == nil { // "null" inside, already handled; keep the map non-nil
		args = map[string]any{}
	}
	return args, nil
}

// objectOrEmpty returns raw if it holds an object, or {} when it is absent
// or null.
func objectOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || isNull(raw) {
		return json.RawMessage("{}")
	}
	return raw
}

// first returns the first non-empty string.
func first(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
