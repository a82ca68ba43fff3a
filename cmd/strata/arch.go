package main

import (
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline/arch"
)

// archSummarizer describes attributed communities (ingest --arch) with the model when there is
// one.
func (m *models) archSummarizer(tok *tokenizer.Tokenizer) arch.Summarizer {
	if m.chat == nil {
		return arch.Extractive{}
	}
	return &arch.LLM{Chat: m.chat, Tokenizer: tok}
}
