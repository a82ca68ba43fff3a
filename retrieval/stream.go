package retrieval

import (
	"context"
	"strings"
)

// Delta is a piece of an answer's text, sent while the answer is written (see WithAnswerStream).
type Delta struct {
	Text string
	// Reset withdraws the text sent before it: the pieces that follow are the answer from its
	// start. It is sent when the text streamed so far is not the start of the final answer, as
	// when the model's answer broke off half-way and was asked for again.
	Reset bool
}

type streamKey struct{}

// WithAnswerStream returns a context under which Engine.Query sends the answer's text to fn while
// it is written, in order, from the goroutine that runs the query. The pieces after the last
// Reset concatenate to exactly the final Result.Answer: text the answer loses once it is whole
// (reasoning blocks, made-up citations) is held back rather than sent and withdrawn. An answerer
// that cannot stream (see StreamingAnswerer) sends the whole answer in one piece at its end, as
// does an answer that needs no model (NothingFoundAnswer). Without an answer (no answerer,
// Options.ContextOnly) fn is not called.
//
// It is a context value rather than an option because it belongs to one caller's request, as the
// LLM meter does, and Options is compared and copied as a value.
func WithAnswerStream(ctx context.Context, fn func(Delta)) context.Context {
	return context.WithValue(ctx, streamKey{}, fn)
}

func answerStream(ctx context.Context) func(Delta) {
	fn, _ := ctx.Value(streamKey{}).(func(Delta))
	return fn
}

// StreamingAnswerer is an Answerer that can send the answer's text while it is written. onText
// gets pieces that concatenate to the start of the returned Answer.Text, or to all of it; the
// engine sends the rest, or withdraws the pieces when they are not the answer's start.
type StreamingAnswerer interface {
	Answerer
	AnswerStream(ctx context.Context, question, contextText string, onText func(string)) (Answer, error)
}

// streamedAnswer asks the answerer for the answer, sending its text to send while it is written
// and making sure what was sent ends up being exactly a.Text.
func (e *Engine) streamedAnswer(ctx context.Context, question, contextText string, send func(Delta)) (Answer, error) {
	s, ok := e.Answerer.(StreamingAnswerer)
	if !ok {
		a, err := e.Answerer.Answer(ctx, question, contextText)
		if err == nil {
			sendWhole(send, a.Text)
		}
		return a, err
	}
	var sent strings.Builder
	a, err := s.AnswerStream(ctx, question, contextText, func(piece string) {
		if piece != "" {
			sent.WriteString(piece)
			send(Delta{Text: piece})
		}
	})
	if err != nil {
		return a, err
	}
	if rest, ok := strings.CutPrefix(a.Text, sent.String()); ok {
		if rest != "" {
			send(Delta{Text: rest})
		}
		return a, nil
	}
	send(Delta{Reset: true})
	sendWhole(send, a.Text)
	return a, nil
}

func sendWhole(send func(Delta), text string) {
	if text != "" {
		send(Delta{Text: text})
	}
}
