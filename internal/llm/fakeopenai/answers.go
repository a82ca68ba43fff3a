package fakeopenai

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/stratarag/strata/prompts"
)

var maxWordsRe = regexp.MustCompile(`at most (\d+) words`)

var subjectRe = regexp.MustCompile(`(?m)^Subject:\s*(.*)$`)

// What the fake reads in a description merging request, as a model would: the task title and
// the data fence of internal/llmtask/summarize (which calls internal/llm, whose tests use this
// package, so it cannot be imported here; TestTaskNames checks the copies).
const (
	summarizeTask  = "Description merging"
	summarizeLabel = "DESCRIPTIONS"
)

// summarizeAnswer merges descriptions by keeping the first sentence of each distinct one, within
// the word limit the prompt states.
func summarizeAnswer(system, user string) string {
	limit := 200
	if m := maxWordsRe.FindStringSubmatch(system); m != nil {
		limit, _ = strconv.Atoi(m[1])
	}
	name := ""
	if m := subjectRe.FindStringSubmatch(user); m != nil {
		name = strings.TrimSpace(m[1])
	}
	data, _ := prompts.Unfence(user, summarizeLabel)
	seen := map[string]bool{}
	var parts []string
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
		if line == "" {
			continue
		}
		first := line
		if ss := sentences(line); len(ss) > 0 {
			first = ss[0].text
		}
		if !seen[first] {
			seen[first] = true
			parts = append(parts, first)
		}
	}
	out := strings.Join(parts, " ")
	if name != "" && !strings.Contains(out, name) {
		out = name + ": " + out
	}
	return clip(out, limit)
}

// citeRe matches a source label such as [doc:a] or [doc:a chunk:b].
var citeRe = regexp.MustCompile(`\[([a-z]+:[^\]\s]+)[^\]]*\]`)

func questionWords(q string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words(strings.ToLower(q)) {
		if len(w) > 3 {
			m[w] = true
		}
	}
	return m
}

func overlap(line string, q map[string]bool) int {
	n := 0
	for _, w := range words(strings.ToLower(line)) {
		if q[w] {
			n++
		}
	}
	return n
}

var questionRe = regexp.MustCompile(`(?m)^Question:\s*(.*)$`)

// What the fake reads in an answer request, as a model would: the task title and the data fence
// of internal/llmtask/answer (which calls internal/llm, whose tests use this package, so it
// cannot be imported here; TestTaskNames checks the copies).
const (
	answerTask  = "Answer with citations"
	answerLabel = "CONTEXT"
)

// answerAnswer picks the context line that shares most words with the question and cites the
// source id in force at that line.
func answerAnswer(user string) string {
	ctx, _ := prompts.Unfence(user, answerLabel)
	q := ""
	if m := questionRe.FindStringSubmatch(user); m != nil {
		q = m[1]
	}
	qw := questionWords(q)
	best, bestScore, bestCite, cite := "", 0, "", ""
	for _, line := range strings.Split(ctx, "\n") {
		if m := citeRe.FindStringSubmatch(line); m != nil {
			cite = "[" + m[1] + "]"
		}
		text := strings.TrimSpace(citeRe.ReplaceAllString(line, ""))
		if s := overlap(text, qw); s > bestScore && cite != "" && text != "" {
			best, bestScore, bestCite = text, s, cite
		}
	}
	if best == "" {
		return "The context does not answer this question."
	}
	return fmt.Sprintf("According to the sources, %s %s", clip(best, maxDescWords), bestCite)
}

// What the fake reads in a community report request, as a model would: the task title and the
// data fence of internal/llmtask/report (which calls internal/llm, whose tests use this package,
// so it cannot be imported here; TestTaskNames checks the copies).
const (
	reportTask  = "Community report"
	reportLabel = "COMMUNITY"
)

// reportAnswer writes a JSON community report about the names in text.
func reportAnswer(text string) string {
	var names []string
	seen := map[string]bool{}
	for _, s := range sentences(text) {
		for _, sp := range s.spans {
			if !seen[sp.name] {
				seen[sp.name] = true
				names = append(names, sp.name)
			}
		}
	}
	title := "Unnamed community"
	switch {
	case len(names) >= 2:
		title = names[0] + " and " + names[1]
	case len(names) == 1:
		title = names[0]
	}
	ss := sentences(text)
	type finding struct {
		Summary     string `json:"summary"`
		Explanation string `json:"explanation"`
	}
	var findings []finding
	for _, n := range names[:min(3, len(names))] {
		findings = append(findings, finding{Summary: "The role of " + n, Explanation: describe(n, ss)})
	}
	b, _ := json.Marshal(map[string]any{
		"title":              title,
		"summary":            fmt.Sprintf("This community centres on %s (%d named entities).", title, len(names)),
		"rating":             float64(min(10, 2+len(names))),
		"rating_explanation": "The rating grows with the number of named entities in the community.",
		"findings":           findings,
	})
	return string(b)
}

// What the fake reads in a key-points request, as a model would: the task title and the data
// fence of internal/llmtask/keypoints (which calls internal/llm, whose tests use this package, so
// it cannot be imported here; TestTaskNames checks the copies).
const (
	keyPointsTask  = "Key points for a question"
	keyPointsLabel = "REPORTS"
)

// keyPointsAnswer scores the report lines that share words with the question.
func keyPointsAnswer(user string) string {
	q := ""
	if m := questionRe.FindStringSubmatch(user); m != nil {
		q = m[1]
	}
	reports, _ := prompts.Unfence(user, keyPointsLabel)
	qw := questionWords(q)
	type point struct {
		Description string `json:"description"`
		Score       int    `json:"score"`
	}
	points := []point{}
	for _, line := range strings.Split(reports, "\n") {
		if s := overlap(line, qw); s > 0 && len(points) < 5 {
			points = append(points, point{Description: clip(strings.TrimSpace(line), maxDescWords), Score: min(100, 20*s)})
		}
	}
	b, _ := json.Marshal(map[string]any{"points": points})
	return string(b)
}

// What the fake reads in an attributed community summary request, as a model would: the task
// title and the data fence of internal/llmtask/archsummary (which calls internal/llm, whose tests
// use this package, so it cannot be imported here; TestTaskNames checks the copies).
const (
	archSummaryTask  = "Attributed community summary"
	archSummaryLabel = "MEMBERS"
)

// archSummaryAnswer titles an attributed community after its first two members (lines
// "- NAME (TYPE): DESCRIPTION") and summarizes it with the first sentence of each of the first
// three descriptions: as TITLE: and SUMMARY: lines, or as the JSON object a schema asks for.
func archSummaryAnswer(text string, asJSON bool) string {
	var names, parts []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "- ")
		name, desc, _ := strings.Cut(line, ": ")
		if i := strings.LastIndex(name, " ("); i > 0 {
			name = name[:i]
		}
		if name == "" {
			continue
		}
		if len(names) < 2 {
			names = append(names, name)
		}
		if len(parts) < 3 {
			if ss := sentences(desc); len(ss) > 0 {
				parts = append(parts, ss[0].text)
			}
		}
	}
	title, summary := strings.Join(names, " and "), clip(strings.Join(parts, " "), 80)
	if asJSON {
		b, _ := json.Marshal(map[string]string{"title": title, "summary": summary})
		return string(b)
	}
	return "TITLE: " + title + "\nSUMMARY: " + summary
}

// What the fake reads in an answer comparison request, as a model would: the task title and the
// data fences of internal/llmtask/pairjudge (which calls internal/llm, whose tests use this
// package, so it cannot be imported here; TestTaskNames checks the copies).
const (
	judgeTask          = "Answer comparison"
	judgeQuestionLabel = "QUESTION"
	judgeLabelA        = "ANSWER A"
	judgeLabelB        = "ANSWER B"
)

// judgeFeatures are what the fake judge weighs in an answer.
type judgeFeatures struct {
	covered   int // distinct question words the answer uses
	words     int
	sentences int
	citations int
	names     int // distinct capitalised names
}

func featuresOf(answer string, q map[string]bool) judgeFeatures {
	f := judgeFeatures{words: len(words(answer)), citations: len(citeRe.FindAllString(answer, -1))}
	seen, names := map[string]bool{}, map[string]bool{}
	for _, w := range words(strings.ToLower(answer)) {
		if q[w] && !seen[w] {
			seen[w] = true
			f.covered++
		}
	}
	for _, s := range sentences(answer) {
		f.sentences++
		for _, sp := range s.spans {
			names[sp.name] = true
		}
	}
	f.names = len(names)
	return f
}

// prefer names the answer with the larger score, "tie" when they are equal.
func prefer(a, b int) string {
	switch {
	case a > b:
		return "A"
	case b > a:
		return "B"
	}
	return "tie"
}

// pairJudgeAnswer compares the two fenced answers as a cheap reader would: comprehensiveness by
// the question words covered, then length in steps of 20 words; empowerment by citations and
// sentences; diversity by distinct names; overall by the majority of the three. The verdict
// depends only on the answers, so showing them in the other order swaps the winners, and equal
// features (identical answers, most often) tie.
func pairJudgeAnswer(user string) string {
	question, _ := prompts.Unfence(user, judgeQuestionLabel)
	a, _ := prompts.Unfence(user, judgeLabelA)
	b, _ := prompts.Unfence(user, judgeLabelB)
	qw := questionWords(question)
	fa, fb := featuresOf(a, qw), featuresOf(b, qw)
	winners := map[string]string{
		"comprehensiveness": prefer(10*fa.covered+min(fa.words, 200)/20, 10*fb.covered+min(fb.words, 200)/20),
		"empowerment":       prefer(2*fa.citations+fa.sentences, 2*fb.citations+fb.sentences),
		"diversity":         prefer(fa.names, fb.names),
	}
	votes := 0
	for _, w := range winners {
		switch w {
		case "A":
			votes++
		case "B":
			votes--
		}
	}
	winners["overall"] = prefer(votes, 0)
	type dim struct {
		Reason string `json:"reason"`
		Winner string `json:"winner"`
	}
	out := map[string]dim{}
	for d, w := range winners {
		out[d] = dim{Reason: fmt.Sprintf("By the fake judge's count of %s, answer %s.", d, w), Winner: w}
	}
	b2, _ := json.Marshal(out)
	return string(b2)
}
