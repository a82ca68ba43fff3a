package load

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// extractHTML reads a saved web page: the text of its main content (the <main> element, else
// its largest <article>, else <body>) without navigation, page header and footer, asides,
// scripts, styles and forms; the title from og:title, else <title>, else the first <h1>; the
// author, published date and canonical URL when the page declares them.
func extractHTML(data []byte) (extracted, error) {
	if hasNUL(data) {
		return extracted{}, ErrBinary
	}
	utf, err := htmlToUTF8(data)
	if err != nil {
		return extracted{}, err
	}
	root, err := html.Parse(bytes.NewReader(utf))
	if err != nil {
		return extracted{}, corrupt("HTML", err)
	}
	head := readHead(root)
	content := mainContent(root)
	var tb textBuilder
	writeHTML(&tb, content, false)
	title := head.ogTitle
	if title == "" {
		title = head.title
	}
	if title == "" {
		if h1 := find(content, atom.H1); h1 != nil {
			title = collapseSpace(nodeText(h1))
		}
	}
	return extracted{Text: tb.String(), Title: title, Metadata: head.metadata()}, nil
}

// htmlToUTF8 decodes a page to UTF-8. A page that is valid UTF-8 is read as UTF-8 (ASCII-based
// declarations read the same for ASCII, and a page declared Latin-1 that is valid UTF-8 is UTF-8
// in practice); otherwise it is decoded with the encoding its byte order mark or <meta> declares.
// A page that declares none must be UTF-8: guessing a legacy encoding would store mojibake
// without a word.
func htmlToUTF8(data []byte) ([]byte, error) {
	enc, name, certain := charset.DetermineEncoding(data, "")
	if name == "utf-8" || (!certain && utf8.Valid(data)) {
		data = bytes.TrimPrefix(data, []byte("\ufeff"))
		if !utf8.Valid(data) {
			return nil, fmt.Errorf("%w (HTML declared as utf-8)", ErrNotUTF8)
		}
		return data, nil
	}
	if !certain && !declaresCharset(data) {
		return nil, fmt.Errorf("%w (HTML declares no charset)", ErrNotUTF8)
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil || !utf8.Valid(out) {
		return nil, fmt.Errorf("%w (HTML declares %s and does not decode as it)", ErrNotUTF8, name)
	}
	return out, nil
}

// declaresCharset reports a charset declaration where browsers look for one: in a <meta> of
// the first 1024 bytes. (DetermineEncoding reports such a declaration as uncertain, as it does
// its own guess.)
func declaresCharset(data []byte) bool {
	head := bytes.ToLower(data[:min(len(data), 1024)])
	return bytes.Contains(head, []byte("<meta")) && bytes.Contains(head, []byte("charset"))
}

// htmlHead is what a page's <head> says about it.
type htmlHead struct {
	title, ogTitle, author, published, url string
}

func (h htmlHead) metadata() map[string]any {
	m := map[string]any{}
	set := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	set("author", h.author)
	set("created", h.published)
	set("url", h.url)
	if len(m) == 0 {
		return nil
	}
	return m
}

func readHead(root *html.Node) htmlHead {
	var h htmlHead
	var ogURL string
	for n := range root.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.Title:
			if h.title == "" {
				h.title = collapseSpace(nodeText(n))
			}
		case atom.Meta:
			key := strings.ToLower(attr(n, "property") + attr(n, "name"))
			val := collapseSpace(attr(n, "content"))
			switch key {
			case "og:title":
				h.ogTitle = first(h.ogTitle, val)
			case "author", "article:author", "dc.creator", "dcterms.creator":
				h.author = first(h.author, val)
			case "article:published_time", "date", "dc.date", "dcterms.created", "dcterms.date":
				h.published = first(h.published, val)
			case "og:url":
				ogURL = first(ogURL, val)
			}
		case atom.Link:
			if strings.EqualFold(attr(n, "rel"), "canonical") {
				h.url = first(h.url, strings.TrimSpace(attr(n, "href")))
			}
		}
	}
	h.url = first(h.url, ogURL)
	return h
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// mainContent is the part of the page a reader came for: <main>, else the <article> with the
// most text, else <body>, else the whole document.
func mainContent(root *html.Node) *html.Node {
	if m := find(root, atom.Main); m != nil {
		return m
	}
	var best *html.Node
	bestLen := 0
	for n := range root.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == atom.Article {
			if l := len(strings.TrimSpace(nodeText(n))); l > bestLen {
				best, bestLen = n, l
			}
		}
	}
	if best != nil {
		return best
	}
	if b := find(root, atom.Body); b != nil {
		return b
	}
	return root
}

func find(root *html.Node, a atom.Atom) *html.Node {
	for n := range root.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == a {
			return n
		}
	}
	return nil
}

// nodeText is the raw text under n, skipped elements aside.
func nodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
			return
		}
		if n.Type == html.ElementNode && skippedHTML(n) {
			return
		}
		for c := range n.ChildNodes() {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// skippedHTML reports elements that are not content: page furniture, code, forms, hidden parts.
func skippedHTML(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Header, atom.Footer, atom.Aside, atom.Script, atom.Style, atom.Noscript,
		atom.Form, atom.Template, atom.Svg, atom.Iframe, atom.Button, atom.Select, atom.Textarea,
		atom.Input, atom.Object, atom.Embed, atom.Canvas, atom.Head:
		return true
	}
	if _, hidden := attrOK(n, "hidden"); hidden {
		return true
	}
	return strings.EqualFold(attr(n, "aria-hidden"), "true")
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// blockHTML reports elements that start a paragraph of their own.
func blockHTML(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Blockquote, atom.Pre,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Ul, atom.Ol, atom.Dl,
		atom.Table, atom.Figure, atom.Figcaption, atom.Details, atom.Summary, atom.Address,
		atom.Hr, atom.Caption, atom.Body:
		return true
	}
	return false
}

// lineHTML reports elements that start a line of their own inside a block.
func lineHTML(a atom.Atom) bool {
	switch a {
	case atom.Li, atom.Dt, atom.Dd, atom.Tr, atom.Br:
		return true
	}
	return false
}

// writeHTML renders n's text into t; inPre keeps whitespace as it is.
func writeHTML(t *textBuilder, n *html.Node, inPre bool) {
	switch n.Type {
	case html.TextNode:
		if inPre {
			t.pre(n.Data)
		} else {
			t.text(n.Data)
		}
		return
	case html.ElementNode:
		if skippedHTML(n) {
			return
		}
	case html.DocumentNode:
	default:
		return
	}
	a := n.DataAtom
	switch {
	case blockHTML(a):
		t.brk(paragraphBreak)
	case lineHTML(a):
		t.brk(lineBreak)
	case a == atom.Td || a == atom.Th:
		if n.PrevSibling != nil && hasCellBefore(n) {
			t.separate(" | ")
		}
	}
	pre := inPre || a == atom.Pre
	for c := range n.ChildNodes() {
		writeHTML(t, c, pre)
	}
	switch {
	case blockHTML(a):
		t.brk(paragraphBreak)
	case lineHTML(a):
		t.brk(lineBreak)
	case a == atom.Td || a == atom.Th:
		t.space = true
	}
}

// hasCellBefore reports whether a table cell has a cell before it in its row.
func hasCellBefore(n *html.Node) bool {
	for p := n.PrevSibling; p != nil; p = p.PrevSibling {
		if p.Type == html.ElementNode && (p.DataAtom == atom.Td || p.DataAtom == atom.Th) {
			return true
		}
	}
	return false
}
