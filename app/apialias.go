package app

import "github.com/agatehq/agate/app/api"

// The local API's types live in package api, which the lean hook binary
// links without the daemon; these names keep the daemon's code short.
type (
	// DecideRequest is api.DecideRequest.
	DecideRequest = api.DecideRequest
	// DecideResponse is api.DecideResponse.
	DecideResponse = api.DecideResponse
	// Answerer is api.Answerer.
	Answerer = api.Answerer
	// Scope is api.Scope.
	Scope = api.Scope
	// Approval is api.Approval.
	Approval = api.Approval
	// AnswerRequest is api.AnswerRequest.
	AnswerRequest = api.AnswerRequest
	// AnswerResult is api.AnswerResult.
	AnswerResult = api.AnswerResult
	// TaintRequest is api.TaintRequest.
	TaintRequest = api.TaintRequest
	// Event is api.Event.
	Event = api.Event
	// Status is api.Status.
	Status = api.Status
	// SessionInfo is api.SessionInfo.
	SessionInfo = api.SessionInfo
	// Client is api.Client.
	Client = api.Client
	// APIError is api.APIError.
	APIError = api.APIError
	// Paths is api.Paths.
	Paths = api.Paths
	// OutcomeRequest is api.OutcomeRequest.
	OutcomeRequest = api.OutcomeRequest
	// OutcomeResult is api.OutcomeResult.
	OutcomeResult = api.OutcomeResult
)

const (
	apiPrefix = api.Prefix

	ByPolicy     = api.ByPolicy
	ByPerson     = api.ByPerson
	ByTimeout    = api.ByTimeout
	ByAgent      = api.ByAgent
	ByUnattended = api.ByUnattended
	ByOverflow   = api.ByOverflow
	ByShutdown   = api.ByShutdown
	ByPrompter   = api.ByPrompter
	ByDaemonDown = api.ByDaemonDown

	ScopeOnce       = api.ScopeOnce
	ScopeRun        = api.ScopeRun
	ScopeSession    = api.ScopeSession
	ScopeSessionAny = api.ScopeSessionAny
	ScopeAlways     = api.ScopeAlways
	ScopeDeny       = api.ScopeDeny
)

// Sentinel errors of the API, as package api defines them.
var (
	ErrDaemonDown = api.ErrDaemonDown
	ErrNotFound   = api.ErrNotFound
	ErrRefused    = api.ErrRefused
	ErrUntrusted  = api.ErrUntrusted
)

// ParseScope is api.ParseScope.
func ParseScope(s string) (Scope, error) { return api.ParseScope(s) }

func resolvePaths(configFlag, socketFlag string) (Paths, error) {
	return api.ResolvePaths(configFlag, socketFlag)
}

func homeDir() (string, error) { return api.HomeDir() }
