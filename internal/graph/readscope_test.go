package graph

import (
	"context"
	"errors"
	"sync"
	"testing"
)

func TestReadScope(t *testing.T) {
	if ReadScopeOf(context.Background()) != nil {
		t.Fatal("a context without a scope has one")
	}
	ctx := WithReadScope(context.Background())
	s := ReadScopeOf(ctx)
	if s == nil {
		t.Fatal("WithReadScope's context has no scope")
	}
	if ReadScopeOf(WithReadScope(ctx)) == s {
		t.Error("a nested scope is the outer one")
	}
	calls := 0
	var mu sync.Mutex
	read := func() (map[string]string, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return map[string]string{"gen": "7"}, errors.New("first")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vals, err := s.Values(read)
			if vals["gen"] != "7" || err == nil || err.Error() != "first" {
				t.Errorf("Values = %v, %v; want the first read's values and error", vals, err)
			}
		}()
	}
	wg.Wait()
	if calls != 1 {
		t.Errorf("read ran %d times in one scope, want 1", calls)
	}
}
