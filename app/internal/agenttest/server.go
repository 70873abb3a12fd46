package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Turn is one answer of the model: a tool call (Tool set, with Args), or
// a final text.
type Turn struct {
	Tool string         // the tool to call, as the agent names it ("Bash", "run_shell_command")
	Args map[string]any // its arguments
	Text string         // for a final answer (Tool empty): the text
}

// Call is a turn that calls tool with args.
func Call(tool string, args map[string]any) Turn { return Turn{Tool: tool, Args: args} }

// Say is a turn that answers text and ends the conversation.
func Say(text string) Turn { return Turn{Text: text} }

// The wire protocols the server speaks.
const (
	Anthropic = "anthropic" // Claude Code
	Gemini    = "gemini"    // Gemini CLI
	OpenAI    = "openai"    // Codex (Responses API)
	Chat      = "chat"      // Qwen Code, OpenCode, Copilot CLI (Chat Completions API)
)

// Request is one request the server got.
type Request struct {
	Time   time.Time
	API    string // Anthropic, Gemini, OpenAI or Chat; "" for anything else
	Method string
	Path   string // with the query
	Header http.Header
	Body   []byte
	// Turn is the index of the turn this request was answered with, or -1
	// when it offered no tools (a side request) or is not a model call.
	Turn int
}

// JSON decodes the body into a generic value (nil when it is not JSON).
func (r *Request) JSON() map[string]any {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil {
		return nil
	}
	return m
}

// Tools lists the names of the tools the request offered the model.
func (r *Request) Tools() []string {
	m := r.JSON()
	if m == nil {
		return nil
	}
	var names []string
	switch r.API {
	case Anthropic, OpenAI, Chat:
		for _, t := range list(m["tools"]) {
			tm, _ := t.(map[string]any)
			if n, _ := tm["name"].(string); n != "" {
				names = append(names, n)
			} else if f, ok := tm["function"].(map[string]any); ok {
				if n, _ := f["name"].(string); n != "" {
					names = append(names, n)
				}
			} else if ty, _ := tm["type"].(string); ty != "" {
				names = append(names, ty) // a built-in tool: "web_search", "local_shell"
			}
		}
	case Gemini:
		for _, t := range list(m["tools"]) {
			tm, _ := t.(map[string]any)
			for _, d := range list(tm["functionDeclarations"]) {
				dm, _ := d.(map[string]any)
				if n, _ := dm["name"].(string); n != "" {
					names = append(names, n)
				}
			}
		}
	}
	return names
}

// ToolResult is the result of a tool call the agent sent back to the
// model.
type ToolResult struct {
	ID      string // the call's id (Anthropic, OpenAI); the tool's name for Gemini
	Output  string // the result as text (JSON for structured results)
	IsError bool   // the agent marked it an error (Anthropic only)
}

// ToolResults lists the tool results in the request's conversation, in
// order.
func (r *Request) ToolResults() []ToolResult {
	m := r.JSON()
	if m == nil {
		return nil
	}
	var out []ToolResult
	switch r.API {
	case Anthropic:
		for _, msg := range list(m["messages"]) {
			mm, _ := msg.(map[string]any)
			for _, c := range list(mm["content"]) {
				cm, _ := c.(map[string]any)
				if cm["type"] != "tool_result" {
					continue
				}
				tr := ToolResult{}
				tr.ID, _ = cm["tool_use_id"].(string)
				tr.IsError, _ = cm["is_error"].(bool)
				tr.Output = textOf(cm["content"])
				out = append(out, tr)
			}
		}
	case Gemini:
		for _, c := range list(m["contents"]) {
			cm, _ := c.(map[string]any)
			for _, p := range list(cm["parts"]) {
				pm, _ := p.(map[string]any)
				fr, ok := pm["functionResponse"].(map[string]any)
				if !ok {
					continue
				}
				tr := ToolResult{}
				tr.ID, _ = fr["name"].(string)
				b, _ := json.Marshal(fr["response"])
				tr.Output = string(b)
				out = append(out, tr)
			}
		}
	case Chat:
		for _, msg := range list(m["messages"]) {
			mm, _ := msg.(map[string]any)
			if mm["role"] != "tool" {
				continue
			}
			tr := ToolResult{}
			tr.ID, _ = mm["tool_call_id"].(string)
			tr.Output = textOf(mm["content"])
			out = append(out, tr)
		}
	case OpenAI:
		for _, it := range list(m["input"]) {
			im, _ := it.(map[string]any)
			if ty, _ := im["type"].(string); ty != "function_call_output" && ty != "custom_tool_call_output" && ty != "local_shell_call_output" {
				continue
			}
			tr := ToolResult{}
			tr.ID, _ = im["call_id"].(string)
			tr.Output = textOf(im["output"])
			out = append(out, tr)
		}
	}
	return out
}

// textOf flattens a tool result's content: a string, a list of text
// blocks, or anything else as JSON.
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, e := range x {
			if em, ok := e.(map[string]any); ok {
				if s, ok := em["text"].(string); ok {
					b.WriteString(s)
					continue
				}
			}
			j, _ := json.Marshal(e)
			b.Write(j)
		}
		return b.String()
	case nil:
		return ""
	}
	j, _ := json.Marshal(v)
	return string(j)
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// Server is a fake model server. Its methods are safe for concurrent use.
type Server struct {
	URL string // http://127.0.0.1:PORT

	srv   *http.Server
	mu    sync.Mutex
	turns []Turn
	next  int
	reqs  []Request
	calls int // tool calls emitted, for their ids
}

// NewServer starts a fake model server that answers the conversation with
// turns, and stops it when the test ends.
func NewServer(t testing.TB, turns ...Turn) *Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("agenttest: listen: %v", err)
	}
	s := &Server{URL: "http://" + l.Addr().String(), turns: turns}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(l)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// Script replaces the turns still to come: for a conversation that names
// what is known only once the world around the server is made (its
// folders).
func (s *Server) Script(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns[:s.next:s.next], turns...)
}

// Requests returns every request so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Conversation returns the requests that took a turn: the agent's
// conversation with the model, in order.
func (s *Server) Conversation() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Turn >= 0 {
			out = append(out, r)
		}
	}
	return out
}

// ToolResults returns the tool results the agent sent in its last
// conversation request (which holds the whole conversation).
func (s *Server) ToolResults() []ToolResult {
	c := s.Conversation()
	if len(c) == 0 {
		return nil
	}
	return c[len(c)-1].ToolResults()
}

// Offered returns the tools the agent offered in its first conversation
// request.
func (s *Server) Offered() []string {
	c := s.Conversation()
	if len(c) == 0 {
		return nil
	}
	return c[0].Tools()
}

// Dump describes every request, for a failing test's log.
func (s *Server) Dump() string {
	var b strings.Builder
	for i, r := range s.Requests() {
		fmt.Fprintf(&b, "#%d %s %s %s turn=%d tools=%d\n", i, r.API, r.Method, r.Path, r.Turn, len(r.Tools()))
		for _, tr := range r.ToolResults() {
			fmt.Fprintf(&b, "    result %s error=%v: %.300s\n", tr.ID, tr.IsError, tr.Output)
		}
	}
	return b.String()
}

// take records a request and, when it offers tools, gives it the next
// turn.
func (s *Server) take(r *Request, conversation bool) (Turn, int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Turn = -1
	turn := Turn{Text: "ok"}
	if conversation {
		r.Turn = s.next
		if s.next < len(s.turns) {
			turn = s.turns[s.next]
		} else {
			turn = Turn{Text: "done"}
		}
		s.next++
	}
	id := 0
	if turn.Tool != "" {
		s.calls++
		id = s.calls
	}
	s.reqs = append(s.reqs, *r)
	if f := os.Getenv("AGENTTEST_LOG"); f != "" {
		// A trace of every request, for finding out what an agent sends.
		if lf, err := os.OpenFile(f, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintf(lf, "=== %s %s turn=%d\n%s\n", r.Method, r.Path, r.Turn, r.Body)
			lf.Close()
		}
	}
	return turn, r.Turn, id
}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(hr.Body, 64<<20))
	r := Request{Time: time.Now(), Method: hr.Method, Path: hr.URL.RequestURI(), Header: hr.Header.Clone(), Body: body}
	path := hr.URL.Path
	switch {
	case hr.Method == http.MethodHead || (hr.Method == http.MethodGet && path == "/"):
		s.take(&r, false)
		w.WriteHeader(http.StatusOK)
	case strings.HasSuffix(path, "/v1/messages/count_tokens"):
		r.API = Anthropic
		s.take(&r, false)
		writeJSON(w, map[string]any{"input_tokens": 100})
	case strings.HasSuffix(path, "/v1/messages"):
		r.API = Anthropic
		turn, _, id := s.take(&r, len(r.Tools()) > 0)
		s.anthropic(w, &r, turn, id)
	case strings.Contains(path, ":streamGenerateContent"), strings.Contains(path, ":generateContent"):
		r.API = Gemini
		turn, _, id := s.take(&r, len(r.Tools()) > 0)
		s.gemini(w, &r, turn, id, strings.Contains(path, ":streamGenerateContent"))
	case strings.Contains(path, ":countTokens"):
		r.API = Gemini
		s.take(&r, false)
		writeJSON(w, map[string]any{"totalTokens": 100})
	case strings.Contains(path, ":embedContent"), strings.Contains(path, ":batchEmbedContents"):
		r.API = Gemini
		s.take(&r, false)
		http.Error(w, `{"error":{"code":404,"message":"no embeddings here","status":"NOT_FOUND"}}`, http.StatusNotFound)
	case strings.HasSuffix(path, "/responses"):
		r.API = OpenAI
		turn, _, id := s.take(&r, len(r.Tools()) > 0)
		s.openai(w, &r, turn, id)
	case strings.HasSuffix(path, "/chat/completions"):
		r.API = Chat
		turn, _, id := s.take(&r, len(r.Tools()) > 0)
		s.chat(w, &r, turn, id)
	case strings.HasSuffix(path, "/models"):
		s.take(&r, false)
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	default:
		s.take(&r, false)
		http.Error(w, `{"error":{"message":"agenttest: no such route"}}`, http.StatusNotFound)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse writes one server-sent event (event may be "") and flushes it.
func sse(w http.ResponseWriter, event string, data any) {
	var b bytes.Buffer
	if event != "" {
		fmt.Fprintf(&b, "event: %s\n", event)
	}
	j, _ := json.Marshal(data)
	fmt.Fprintf(&b, "data: %s\n\n", j)
	w.Write(b.Bytes())
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func argsJSON(t Turn) string {
	a := t.Args
	if a == nil {
		a = map[string]any{}
	}
	j, _ := json.Marshal(a)
	return string(j)
}

// anthropic answers a Messages API request as a stream (or as one JSON
// message when the request did not ask for a stream).
func (s *Server) anthropic(w http.ResponseWriter, r *Request, turn Turn, id int) {
	req := r.JSON()
	model, _ := req["model"].(string)
	msgID := fmt.Sprintf("msg_agenttest_%d", time.Now().UnixNano())
	var block map[string]any
	stop := "end_turn"
	if turn.Tool != "" {
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_agenttest_%02d", id), "name": turn.Tool, "input": map[string]any{}}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": ""}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if stream, _ := req["stream"].(bool); !stream {
		full := map[string]any{}
		for k, v := range block {
			full[k] = v
		}
		if turn.Tool != "" {
			full["input"] = turn.Args
		} else {
			full["text"] = turn.Text
		}
		writeJSON(w, map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": []any{full}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": block})
	if turn.Tool != "" {
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": argsJSON(turn)}})
	} else {
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": turn.Text}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// gemini answers a generateContent request, streamed as SSE or as one
// JSON response. A side request that wants JSON gets an object that
// satisfies the checks Gemini CLI makes on the side (who speaks next,
// which model to route to).
func (s *Server) gemini(w http.ResponseWriter, r *Request, turn Turn, id int, stream bool) {
	req := r.JSON()
	var part map[string]any
	switch {
	case turn.Tool != "":
		args := turn.Args
		if args == nil {
			args = map[string]any{}
		}
		part = map[string]any{"functionCall": map[string]any{"name": turn.Tool, "args": args, "id": fmt.Sprintf("agenttest-%02d", id)}}
	case r.Turn < 0 && wantsJSON(req):
		part = map[string]any{"text": `{"reasoning":"agenttest","next_speaker":"user","model_choice":"flash","complexity_reasoning":"simple","complexity_score":1}`}
	default:
		part = map[string]any{"text": turn.Text}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-2.5-flash",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	sse(w, "", resp)
}

func wantsJSON(req map[string]any) bool {
	gc, _ := req["generationConfig"].(map[string]any)
	if gc == nil {
		gc, _ = req["generation_config"].(map[string]any)
	}
	mt, _ := gc["responseMimeType"].(string)
	return mt == "application/json"
}

// openai answers a Responses API request as a stream of events.
func (s *Server) openai(w http.ResponseWriter, r *Request, turn Turn, id int) {
	req := r.JSON()
	model, _ := req["model"].(string)
	respID := fmt.Sprintf("resp_agenttest_%d", time.Now().UnixNano())
	var item map[string]any
	if turn.Tool != "" {
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_agenttest_%02d", id), "status": "completed",
			"call_id": fmt.Sprintf("call_agenttest_%02d", id), "name": turn.Tool, "arguments": argsJSON(turn)}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_agenttest_%d", time.Now().UnixNano()), "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	base := map[string]any{"id": respID, "object": "response", "created_at": time.Now().Unix(), "model": model, "status": "in_progress", "output": []any{}}
	sse(w, "response.created", map[string]any{"type": "response.created", "sequence_number": 0, "response": base})
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": item})
	if turn.Tool == "" {
		sse(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "sequence_number": 2, "item_id": item["id"], "output_index": 0, "content_index": 0, "delta": turn.Text})
	}
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "sequence_number": 3, "output_index": 0, "item": item})
	done := map[string]any{}
	for k, v := range base {
		done[k] = v
	}
	done["status"] = "completed"
	done["output"] = []any{item}
	done["usage"] = map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "sequence_number": 4, "response": done})
}

// chat answers a Chat Completions request with turn: streamed as
// chunks ("data: {...}", then "data: [DONE]") when the request asks for
// a stream, else as one completion.
func (s *Server) chat(w http.ResponseWriter, r *Request, turn Turn, id int) {
	req := r.JSON()
	model, _ := req["model"].(string)
	stream, _ := req["stream"].(bool)
	cid := fmt.Sprintf("chatcmpl-agenttest-%d", time.Now().UnixNano())
	msg := map[string]any{"role": "assistant", "content": turn.Text}
	finish := "stop"
	if turn.Tool != "" {
		msg["content"] = nil
		msg["tool_calls"] = []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_agenttest_%02d", id), "type": "function",
			"function": map[string]any{"name": turn.Tool, "arguments": argsJSON(turn)}}}
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if !stream {
		writeJSON(w, map[string]any{"id": cid, "object": "chat.completion", "created": time.Now().Unix(), "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	chunk := func(delta map[string]any, finish any, usage any) {
		c := map[string]any{"id": cid, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	if turn.Tool != "" {
		chunk(map[string]any{"tool_calls": msg["tool_calls"]}, nil, nil)
	} else {
		chunk(map[string]any{"content": turn.Text}, nil, nil)
	}
	chunk(map[string]any{}, finish, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
