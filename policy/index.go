package policy

import "sync"

// ruleIndex remembers, per tool name, which rules' tool globs match it, so
// a decision under a long rule list only looks at the rules that can
// apply. It is a cache of a pure function of the policy: safe to share.
type ruleIndex struct {
	rules  []rule
	mu     sync.RWMutex
	byTool map[string][]int32
}

// maxIndexed bounds the cache; past it, lookups are computed each time.
const maxIndexed = 4096

func newRuleIndex(rules []rule) *ruleIndex {
	return &ruleIndex{rules: rules, byTool: map[string][]int32{}}
}

// forTool returns, in order, the indices of the rules whose tool glob
// matches tool t.
func (x *ruleIndex) forTool(t *toolInfo) []int32 {
	x.mu.RLock()
	idx, ok := x.byTool[t.name]
	x.mu.RUnlock()
	if ok {
		return idx
	}
	idx = []int32{}
	for i := range x.rules {
		if t.matchGlob(x.rules[i].tool) {
			idx = append(idx, int32(i))
		}
	}
	x.mu.Lock()
	if len(x.byTool) < maxIndexed {
		x.byTool[t.name] = idx
	}
	x.mu.Unlock()
	return idx
}
