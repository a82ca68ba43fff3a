package llm

import (
	"sync"
	"sync/atomic"
)

// memoCounter counts tokens, remembering the counts of long texts it has seen. The client uses
// it for system prompts: every extraction call resends the same few-kilobyte system prompt, and
// counting it once instead of per call takes tokenization off the request path. At most max
// texts are remembered.
type memoCounter struct {
	tok  Counter
	max  int64
	n    atomic.Int64
	memo sync.Map // string → int
}

// memoMinLen is the length from which a text is worth remembering.
const memoMinLen = 1024

func (m *memoCounter) Count(s string) int {
	if len(s) < memoMinLen {
		return m.tok.Count(s)
	}
	if v, ok := m.memo.Load(s); ok {
		return v.(int)
	}
	n := m.tok.Count(s)
	if m.n.Load() < m.max {
		if _, loaded := m.memo.LoadOrStore(s, n); !loaded {
			m.n.Add(1)
		}
	}
	return n
}
