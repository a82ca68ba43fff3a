package load

// A content-stream scanner (PDF 32000-1 §7.8.2): operands are gathered until an operator, which
// is handed to a callback with them. It reads a decoded stream held in memory and reuses its
// buffers from one operator to the next, so drawing a page allocates per page, not per glyph.

// operandKind tells what an operand is.
type operandKind uint8

const (
	opNull operandKind = iota
	opNumber
	opString
	opName
	opArray
)

// operand is one operand of a content-stream operator. An array's elements are the scanner's
// elems[lo:hi] (arrays in content streams are flat: TJ's strings and numbers).
type operand struct {
	kind   operandKind
	num    float64
	bytes  []byte // a string's bytes or a name without its slash
	lo, hi int
}

// contentScanner splits a content stream into operators and their operands.
type contentScanner struct {
	data  []byte
	pos   int
	args  []operand
	elems []operand
	buf   []byte // decoded string bytes of the current operator's operands
}

// scan calls do for each operator of data with its operands; do must not keep args or their
// bytes. Malformed input ends the scan or is skipped, never a panic.
func (s *contentScanner) scan(data []byte, do func(op []byte, args []operand)) {
	s.data, s.pos = data, 0
	s.args, s.elems, s.buf = s.args[:0], s.elems[:0], s.buf[:0]
	arrayStart := -1 // index in elems where the open array starts
	push := func(o operand) {
		if arrayStart >= 0 {
			s.elems = append(s.elems, o)
			return
		}
		s.args = append(s.args, o)
	}
	for {
		s.skipSpace()
		if s.pos >= len(s.data) {
			return
		}
		c := s.data[s.pos]
		switch {
		case c == '(':
			push(operand{kind: opString, bytes: s.literal()})
		case c == '<' && s.peek(1) == '<':
			s.pos += 2
			s.skipDict()
			push(operand{kind: opNull})
		case c == '<':
			push(operand{kind: opString, bytes: s.hex()})
		case c == '/':
			s.pos++
			start := s.pos
			for s.pos < len(s.data) && !isPDFDelim(s.data[s.pos]) && !isPDFSpace(s.data[s.pos]) {
				s.pos++
			}
			push(operand{kind: opName, bytes: s.data[start:s.pos]})
		case c == '[':
			s.pos++
			if arrayStart < 0 {
				arrayStart = len(s.elems)
			}
		case c == ']':
			s.pos++
			if arrayStart >= 0 {
				lo := arrayStart
				arrayStart = -1
				push(operand{kind: opArray, lo: lo, hi: len(s.elems)})
			}
		case c == '+' || c == '-' || c == '.' || c >= '0' && c <= '9':
			push(operand{kind: opNumber, num: s.number()})
		case c == ')' || c == '>' || c == '{' || c == '}':
			s.pos++ // stray delimiter
		default:
			start := s.pos
			for s.pos < len(s.data) && !isPDFDelim(s.data[s.pos]) && !isPDFSpace(s.data[s.pos]) {
				s.pos++
			}
			word := s.data[start:s.pos]
			switch string(word) {
			case "true", "false", "null":
				push(operand{kind: opNull})
				continue
			case "ID":
				s.skipInlineImage()
			}
			arrayStart = -1
			do(word, s.args)
			s.args, s.elems, s.buf = s.args[:0], s.elems[:0], s.buf[:0]
		}
	}
}

func (s *contentScanner) peek(i int) byte {
	if s.pos+i < len(s.data) {
		return s.data[s.pos+i]
	}
	return 0
}

func (s *contentScanner) skipSpace() {
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if c == '%' {
			for s.pos < len(s.data) && s.data[s.pos] != '\n' && s.data[s.pos] != '\r' {
				s.pos++
			}
			continue
		}
		if !isPDFSpace(c) {
			return
		}
		s.pos++
	}
}

// number reads an integer or real; a malformed one reads as far as it goes.
func (s *contentScanner) number() float64 {
	neg := false
	switch s.data[s.pos] {
	case '-':
		neg = true
		s.pos++
	case '+':
		s.pos++
	}
	var v float64
	frac, scale := false, 1.0
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c >= '0' && c <= '9':
			if frac {
				scale /= 10
				v += float64(c-'0') * scale
			} else {
				v = v*10 + float64(c-'0')
			}
		case c == '.' && !frac:
			frac = true
		case c == '-' || c == '+' || c == '.':
			// "--5" or "1.2.3" written by some producers: read on, ignoring it.
		default:
			if neg {
				return -v
			}
			return v
		}
		s.pos++
	}
	if neg {
		return -v
	}
	return v
}

// literal reads a (string) with its escapes and nested parentheses.
func (s *contentScanner) literal() []byte {
	s.pos++ // (
	start := len(s.buf)
	depth := 1
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		s.pos++
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return s.buf[start:]
			}
		case '\\':
			if s.pos >= len(s.data) {
				return s.buf[start:]
			}
			e := s.data[s.pos]
			s.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if s.pos < len(s.data) && s.data[s.pos] == '\n' {
					s.pos++
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '7'; k++ {
						v = v*8 + int(s.data[s.pos]-'0')
						s.pos++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		s.buf = append(s.buf, c)
	}
	return s.buf[start:]
}

// hex reads a <hex string>; an odd last digit counts as followed by 0.
func (s *contentScanner) hex() []byte {
	s.pos++ // <
	start := len(s.buf)
	hi, have := byte(0), false
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		s.pos++
		if c == '>' {
			break
		}
		d, ok := unhexDigit(c)
		if !ok {
			continue
		}
		if have {
			s.buf = append(s.buf, hi<<4|d)
			have = false
		} else {
			hi, have = d, true
		}
	}
	if have {
		s.buf = append(s.buf, hi<<4)
	}
	return s.buf[start:]
}

func unhexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// skipDict skips a << dictionary >> (marked-content properties, inline image parameters):
// nothing in it draws text.
func (s *contentScanner) skipDict() {
	depth := 1
	mark := len(s.buf)
	for s.pos < len(s.data) && depth > 0 {
		switch c := s.data[s.pos]; {
		case c == '(':
			s.literal()
		case c == '<' && s.peek(1) == '<':
			s.pos += 2
			depth++
		case c == '>' && s.peek(1) == '>':
			s.pos += 2
			depth--
		case c == '<':
			s.hex()
		case c == '%':
			s.skipSpace()
		default:
			s.pos++
		}
	}
	s.buf = s.buf[:mark]
}

// skipInlineImage skips an inline image's data, after its ID operator, up to the EI that ends
// it: EI between white space, which image data may hold by chance but rarely does.
func (s *contentScanner) skipInlineImage() {
	if s.pos < len(s.data) {
		s.pos++ // the single white-space byte after ID
	}
	for i := s.pos; i+1 < len(s.data); i++ {
		if s.data[i] == 'E' && s.data[i+1] == 'I' && (i == 0 || isPDFSpace(s.data[i-1])) &&
			(i+2 >= len(s.data) || isPDFSpace(s.data[i+2]) || isPDFDelim(s.data[i+2])) {
			s.pos = i + 2
			return
		}
	}
	s.pos = len(s.data)
}

func isPDFSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isPDFDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}
